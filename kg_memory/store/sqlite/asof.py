"""The embedded store's as-of reads: one statement per lookup, facts with their support.

A lookup used to be three statements (the as-of query, a ``same_as`` probe for a person's
merges, and the supporting episodes of what it found) and three round trips through Python. Here
the supports are folded into the as-of statement as a correlated ``json_group_array`` (served by
the ``edges_dst`` index, so it costs a seek per fact) and the merge probe is a ``UNION ALL`` arm
of the same statement, so a lookup with no merges is exactly one statement.

Rows are rebuilt without validating them again: they were validated on their way in.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from kg_memory.domain.instant import FLOAT_EXACT_MICROS, from_micros, to_micros
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Kind, Support, every_field, trusted
from kg_memory.domain.result import Fact
from kg_memory.store.protocol import AsOfQuery, AsOfRows
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.rows import (
    NO_QUALIFIERS,
    NO_QUALIFIERS_JSON,
    VERSION_COLUMNS,
    json_value,
    qualifiers,
    version_from_row,
)

__all__ = ["asof_rows", "asof_sql", "asof_versions"]


def asof_sql(query: AsOfQuery, predicate: str | None = None, *, known: int | None = None,
             valid: int | None = None) -> tuple[list[str], list[Any]]:
    """The WHERE conditions (fixed SQL, to be joined by AND) and their parameters of ``query``
    (of ``predicate`` instead of the query's, when given): both intervals, then the filters.
    ``known`` and ``valid`` are the query's instants in microseconds, when the caller has
    them already."""
    known = to_micros(query.known_at) if known is None else known
    valid = to_micros(query.valid_at) if valid is None else valid
    where = ["sys_from <= ?", "(sys_to IS NULL OR sys_to > ?)", "valid_from <= ?",
             "(valid_to IS NULL OR valid_to > ?)"]
    params: list[Any] = [known, known, valid, valid]
    for column, value in (("subject", query.subject), ("predicate", predicate or query.predicate),
                          ("scope", query.scope)):
        if value is not None:
            where.insert(0, f"{column} = ?")
            params.insert(0, value)
    return where, params


def asof_versions(conn: driver.Connection, query: AsOfQuery) -> list[driver.Row]:
    """The revisions ``query`` finds, without their support (the protocol's ``asof``)."""
    where, params = asof_sql(query)
    return conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM versions WHERE {' AND '.join(where)} "
        "ORDER BY scope, subject, predicate, project, valid_from", params
    ).fetchall()


#: SQLite's JSON has no surrounding white space: the decoder's own entry point, without
#: ``json.loads``'s argument checks and white-space match (for the supports the split below
#: cannot read).
_json = json.JSONDecoder().raw_decode
_FACT, _INTERVAL, _SUPPORT_FIELDS = every_field(Fact), every_field(Interval), every_field(Support)
_KINDS = {k.value: k for k in Kind}
# from_micros inlined (the same float path and its range): a lookup converts two to four
# instants per fact, and the call around each was a measurable part of building it.
_fromtimestamp, _UTC, _EXACT = datetime.fromtimestamp, UTC, FLOAT_EXACT_MICROS


def _support(episode_id: str, source: str, occurred: int, digest: str, valid_from: int,
             valid_start: datetime) -> Support:
    # A fact usually starts when its episode happened: that instant is the one already built.
    return trusted(Support, {
        "episode_id": episode_id, "source": source,
        "occurred_at": valid_start if occurred == valid_from else from_micros(occurred),
        "fingerprint": digest}, _SUPPORT_FIELDS)


def _supports(text: str, valid_from: int, valid_start: datetime) -> tuple[Support, ...]:
    """The supports' ``json_group_array`` of ``[episode_id, source, occurred_at,
    fingerprint]`` arrays. Each episode's fingerprint was computed when its content was
    written (schema 7)."""
    if text == "[]":
        return ()
    if "\\" not in text:
        # Without a backslash no string in it holds an escape, so none holds a quote: the
        # quotes alone cut it into its tokens, ``[["id","source",occurred,"digest"],[...]]``
        # giving '[[', id, ',', source, ',occurred,', digest, '],[' (or ']]'), and on. The
        # columns are NOT NULL (no bare ``null`` to shift them), and every count is checked.
        parts = text.split('"')
        count = len(parts) // 6
        if len(parts) == 6 * count + 1:
            if count == 1:  # most facts: one episode, nothing to order
                return (_support(parts[1], parts[3], int(parts[4][1:-1]), parts[5],
                                 valid_from, valid_start),)
            found = sorted(zip(map(int, (p[1:-1] for p in parts[4::6])), parts[1::6],
                               parts[3::6], parts[5::6], strict=True))
            # The order the separate supports query gave: by when it happened, then by id.
            return tuple(_support(episode_id, source, occurred, digest, valid_from,
                                  valid_start)
                         for occurred, episode_id, source, digest in found)
    decoded = sorted((occurred, episode_id, source, digest)
                     for episode_id, source, occurred, digest in _json(text)[0])
    return tuple(_support(episode_id, source, occurred, digest, valid_from, valid_start)
                 for occurred, episode_id, source, digest in decoded)


# A fact reads none of a revision's provenance columns (why it was written and closed, by
# whom), and the merge arm reads no supports: the merge arm packs its four provenance columns
# into the support column (as a JSON array), so each row has four columns fewer to describe,
# decode and convert (the sqlite3 module builds a description of every column on each execute).
_TAIL = ", reason, recorded_by, closed_by, close_reason"
assert VERSION_COLUMNS.endswith(_TAIL)
_FACT_COLUMNS = VERSION_COLUMNS[:-len(_TAIL)]
_PROVENANCE = [c.strip() for c in _TAIL.split(",") if c.strip()]
# Positions in a lookup row: the arm, the fact's columns, project, support (as _fact unpacks
# it).
_COLUMNS = ["arm", *(c.strip() for c in _FACT_COLUMNS.split(",")), "project", "support"]
assert _COLUMNS == [
    "arm", "assertion_id", "revision", "scope", "subject", "predicate", "value", "qualifiers",
    "kind", "writer", "depends_on", "confidence", "valid_from", "valid_to", "sys_from",
    "sys_to", "project", "support"]
_ARM, _SCOPE, _SUBJECT, _PREDICATE, _VALID_FROM, _PROJECT, _SUPPORT = (
    _COLUMNS.index(c) for c in (
        "arm", "scope", "subject", "predicate", "valid_from", "project", "support"))


def _order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``ORDER BY arm, scope, subject, predicate, project, valid_from``: Python orders str by
    code point, as SQLite's BINARY collation orders UTF-8; none of these columns is NULL."""
    return (row[_ARM], row[_SCOPE], row[_SUBJECT], row[_PREDICATE], row[_PROJECT],
            row[_VALID_FROM])


def _fact(row: tuple[Any, ...]) -> Fact:
    """A fact straight from its row (no revision model in between, nothing validated again:
    the row was validated on its way in)."""
    (_, assertion_id, revision, scope, subject, predicate, value, stored_qualifiers, kind,
     writer, depends, confidence, valid_from, valid_to, sys_from, sys_to, _, support) = row
    valid_start = (_fromtimestamp(valid_from / 1e6, _UTC) if 0 <= valid_from < _EXACT
                   else from_micros(valid_from))
    # A fact is usually believed from the instant it starts to hold (told as it happened):
    # that instant is the one just built (datetimes are immutable; equal is all it needs).
    if sys_from == valid_from:
        known_start = valid_start
    else:
        known_start = (_fromtimestamp(sys_from / 1e6, _UTC) if 0 <= sys_from < _EXACT
                       else from_micros(sys_from))
    return trusted(Fact, {
        "assertion_id": assertion_id, "revision": revision, "scope": scope,
        "subject": subject, "predicate": predicate,
        # json_value's and qualifiers' own fast paths, without the calls: a plain string
        # (see json_value), no qualifiers.
        "value": (value[1:-1] if value[:1] == '"' and "\\" not in value
                  else json_value(value)),
        "qualifiers": (NO_QUALIFIERS if stored_qualifiers == NO_QUALIFIERS_JSON
                       else qualifiers(stored_qualifiers)),
        "kind": _KINDS[kind], "writer": writer,
        "depends_on": () if depends == "[]" else tuple(json.loads(depends)),
        "confidence": confidence,
        "valid": trusted(Interval, {
            "start": valid_start,
            "end": None if valid_to is None else from_micros(valid_to)}, _INTERVAL),
        "system": trusted(Interval, {
            "start": known_start,
            "end": None if sys_to is None else from_micros(sys_to)}, _INTERVAL),
        "supported_by": _supports(support, valid_from, valid_start),
    }, _FACT)


# Numbered parameters: ?1 is the known time and ?2 the valid time, then the filters given (in
# the order scope, predicate, subject), then the merge predicate. Each value is bound once
# although the statement reads the times six times and the filters twice (it was 13 bindings
# per lookup, each a conversion in the sqlite3 module).
def _where(filters: dict[str, str]) -> str:
    """:func:`asof_sql`'s conditions with numbered parameters (``filters``: column -> mark)."""
    return " AND ".join([*(f"{c} = {mark}" for c, mark in filters.items()), "sys_from <= ?1",
                         "(sys_to IS NULL OR sys_to > ?1)", "valid_from <= ?2",
                         "(valid_to IS NULL OR valid_to > ?2)"])


@lru_cache(maxsize=16)
def _statement(subject: bool, predicate: bool, scope: bool, merge: bool) -> str:
    """The lookup statement for one shape of query, assembled once from fixed fragments."""
    given = [c for c, on in (("scope", scope), ("predicate", predicate), ("subject", subject))
             if on]
    marks = {c: f"?{i}" for i, c in enumerate(given, start=3)}
    # The supports: a correlated json_group_array of the episodes with a SUPPORTS edge to the
    # row's assertion, drawn by the known time (served by edges_dst, one seek per fact).
    sql = (
        f"SELECT 0 AS arm, {_FACT_COLUMNS}, project, (SELECT json_group_array(json_array("
        "e.episode_id, e.source, e.occurred_at, e.fingerprint)) FROM edges g JOIN episodes e "
        "ON e.episode_id = g.src AND e.scope = g.scope WHERE g.dst = versions.assertion_id "
        "AND g.type = 'SUPPORTS' AND g.since <= ?1) AS support FROM versions "
        f"WHERE {_where(marks)}"
    )
    if merge:
        # The same subject and scope, the merge predicate instead of the query's.
        merged: dict[str, str] = {
            c: f"?{3 + len(given)}" if c == "predicate" else marks[c]
            for c in ("scope", "predicate", "subject") if c in marks or c == "predicate"}
        sql += (f" UNION ALL SELECT 1 AS arm, {_FACT_COLUMNS}, project, json_array("
                f"{', '.join(_PROVENANCE)}) AS support FROM versions WHERE {_where(merged)}")
    # No ORDER BY: SQLite's sorter costs more than the statement's own seeks (about 3.5 µs of
    # 17 at 1e4); the few rows are put in that order in Python (see _ORDER).
    return sql


def asof_rows(conn: driver.Connection, query: AsOfQuery, merge_predicate: str | None
              ) -> AsOfRows:
    """``query``'s facts with their support and, with ``merge_predicate``, the subject's
    revisions of that predicate at the same times (one statement either way).

    This is the lookup hot path, so the statement is cached per shape of query, rows come back
    as plain tuples, and facts are built from them directly."""
    subject, predicate, scope = query.subject, query.predicate, query.scope
    # ?1, ?2, then the filters given, then the merge predicate: see _statement.
    params: list[Any] = [to_micros(query.known_at), to_micros(query.valid_at)]
    if scope is not None:
        params.append(scope)
    if predicate is not None:
        params.append(predicate)
    if subject is not None:
        params.append(subject)
    merge = merge_predicate is not None and subject is not None
    if merge:
        params.append(merge_predicate)
    cursor = conn.cursor()
    cursor.row_factory = None  # tuples: positional access, no name lookups
    rows = cursor.execute(_statement(subject is not None, predicate is not None,
                                     scope is not None, merge), params).fetchall()
    if len(rows) > 1:
        rows.sort(key=_order)
    facts = [_fact(r) for r in rows if r[_ARM] == 0]
    if not merge:
        return AsOfRows(facts, [])
    names = _COLUMNS[:_SUPPORT]
    return AsOfRows(facts=facts, merges=[
        version_from_row({**dict(zip(names, r, strict=False)),
                          **dict(zip(_PROVENANCE, _json(r[_SUPPORT])[0], strict=True))})
        for r in rows if r[_ARM] == 1])
