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
import sqlite3
from datetime import timedelta
from functools import lru_cache
from typing import Any

from kg_memory.domain.instant import EPOCH, to_micros
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Kind, Support, trusted
from kg_memory.domain.result import Fact
from kg_memory.store.protocol import AsOfQuery, AsOfRows
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, json_value, qualifiers, version_from_row

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


def asof_versions(conn: sqlite3.Connection, query: AsOfQuery) -> list[sqlite3.Row]:
    """The revisions ``query`` finds, without their support (the protocol's ``asof``)."""
    where, params = asof_sql(query)
    return conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM versions WHERE {' AND '.join(where)} "
        "ORDER BY scope, subject, predicate, project, valid_from", params
    ).fetchall()


#: SQLite's JSON has no surrounding white space: the decoder's own entry point, without
#: ``json.loads``'s argument checks and white-space match (a lookup decodes one or two).
_json = json.JSONDecoder().raw_decode


def _supports(text: str) -> tuple[Support, ...]:
    if text == "[]":
        return ()
    # Each episode's fingerprint was computed when its content was written (schema 7).
    found = [
        trusted(Support, {"episode_id": episode_id, "source": source,
                          "occurred_at": _EPOCH + _micros(0, 0, occurred),
                          "fingerprint": digest})
        for episode_id, source, occurred, digest in _json(text)[0]
    ]
    if len(found) > 1:
        # The order the separate supports query gave: by when it happened, then by id.
        found.sort(key=lambda s: (s.occurred_at, s.episode_id))
    return tuple(found)


# Positions in a lookup row: the arm, VERSION_COLUMNS, project, support.
_COLUMNS = ["arm", *(c.strip() for c in VERSION_COLUMNS.split(",")), "project", "support"]
(_ARM, _ID, _REVISION, _SCOPE, _SUBJECT, _PREDICATE, _VALUE, _QUALIFIERS, _KIND, _WRITER,
 _DEPENDS, _CONFIDENCE, _VALID_FROM, _VALID_TO, _SYS_FROM, _SYS_TO) = (
    _COLUMNS.index(c) for c in (
        "arm", "assertion_id", "revision", "scope", "subject", "predicate", "value",
        "qualifiers", "kind", "writer", "depends_on", "confidence", "valid_from", "valid_to",
        "sys_from", "sys_to"))
_SUPPORT = _COLUMNS.index("support")
_PROJECT = _COLUMNS.index("project")


def _order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``ORDER BY arm, scope, subject, predicate, project, valid_from``: Python orders str by
    code point, as SQLite's BINARY collation orders UTF-8; none of these columns is NULL."""
    return (row[_ARM], row[_SCOPE], row[_SUBJECT], row[_PREDICATE], row[_PROJECT],
            row[_VALID_FROM])
_KINDS = {k.value: k for k in Kind}
# from_micros inlined (``EPOCH + timedelta(0, 0, us)``, the same instant): a lookup converts
# three or four per fact and a call each was a measurable part of building it.
_EPOCH, _micros = EPOCH, timedelta


def _fact(row: tuple[Any, ...]) -> Fact:
    """A fact straight from its row (no revision model in between, nothing validated again:
    the row was validated on its way in)."""
    depends, valid_to, sys_to = row[_DEPENDS], row[_VALID_TO], row[_SYS_TO]
    return trusted(Fact, {
        "assertion_id": row[_ID], "revision": row[_REVISION], "scope": row[_SCOPE],
        "subject": row[_SUBJECT], "predicate": row[_PREDICATE],
        "value": json_value(row[_VALUE]), "qualifiers": qualifiers(row[_QUALIFIERS]),
        "kind": _KINDS[row[_KIND]], "writer": row[_WRITER],
        "depends_on": () if depends == "[]" else tuple(json.loads(depends)),
        "confidence": row[_CONFIDENCE],
        "valid": trusted(Interval, {
            "start": _EPOCH + _micros(0, 0, row[_VALID_FROM]),
            "end": None if valid_to is None else _EPOCH + _micros(0, 0, valid_to)}),
        "system": trusted(Interval, {
            "start": _EPOCH + _micros(0, 0, row[_SYS_FROM]),
            "end": None if sys_to is None else _EPOCH + _micros(0, 0, sys_to)}),
        "supported_by": _supports(row[_SUPPORT]),
    })


def _where(subject: bool, predicate: bool, scope: bool) -> str:
    """:func:`asof_sql`'s conditions for a query with these filters (the same SQL)."""
    filters = [f"{c} = ?" for c, given in (("scope", scope), ("predicate", predicate),
                                           ("subject", subject)) if given]
    return " AND ".join([*filters, "sys_from <= ?", "(sys_to IS NULL OR sys_to > ?)",
                         "valid_from <= ?", "(valid_to IS NULL OR valid_to > ?)"])


# A fact reads none of a revision's provenance columns (why it was written and closed, by
# whom): the facts' arm leaves them NULL, so SQLite decodes and Python converts four columns
# fewer per row. The merge arm keeps them (its rows become Assertions).
_TAIL = ", reason, recorded_by, closed_by, close_reason"
assert VERSION_COLUMNS.endswith(_TAIL)
_FACT_COLUMNS = VERSION_COLUMNS[:-len(_TAIL)] + ", NULL, NULL, NULL, NULL"


@lru_cache(maxsize=16)
def _statement(subject: bool, predicate: bool, scope: bool, merge: bool) -> str:
    """The lookup statement for one shape of query, assembled once from fixed fragments."""
    # The supports: a correlated json_group_array of the episodes with a SUPPORTS edge to the
    # row's assertion, drawn by the known time (served by edges_dst, one seek per fact).
    sql = (
        f"SELECT 0 AS arm, {_FACT_COLUMNS}, project, (SELECT json_group_array(json_array("
        "e.episode_id, e.source, e.occurred_at, e.fingerprint)) FROM edges g JOIN episodes e "
        "ON e.episode_id = g.src AND e.scope = g.scope WHERE g.dst = versions.assertion_id "
        "AND g.type = 'SUPPORTS' AND g.since <= ?) AS support FROM versions "
        f"WHERE {_where(subject, predicate, scope)}"
    )
    if merge:
        sql += (f" UNION ALL SELECT 1 AS arm, {VERSION_COLUMNS}, project, NULL AS support "
                f"FROM versions WHERE {_where(subject, True, scope)}")
    # No ORDER BY: SQLite's sorter costs more than the statement's own seeks (about 3.5 µs of
    # 17 at 1e4); the few rows are put in that order in Python (see _ORDER).
    return sql


def asof_rows(conn: sqlite3.Connection, query: AsOfQuery, merge_predicate: str | None
              ) -> AsOfRows:
    """``query``'s facts with their support and, with ``merge_predicate``, the subject's
    revisions of that predicate at the same times (one statement either way).

    This is the lookup hot path, so the statement is cached per shape of query, rows come back
    as plain tuples, and facts are built from them directly."""
    known, valid = to_micros(query.known_at), to_micros(query.valid_at)
    subject, predicate, scope = query.subject, query.predicate, query.scope
    times = (known, known, valid, valid)
    filters = [v for v in (scope, predicate, subject) if v is not None]
    params: list[Any] = [known, *filters, *times]
    merge = merge_predicate is not None and subject is not None
    if merge:
        params += [v for v in (scope, merge_predicate, subject) if v is not None]
        params += times
    cursor = conn.cursor()
    cursor.row_factory = None  # tuples: positional access, no name lookups
    rows = cursor.execute(_statement(subject is not None, predicate is not None,
                                     scope is not None, merge), params).fetchall()
    if len(rows) > 1:
        rows.sort(key=_order)
    facts = [_fact(r) for r in rows if r[_ARM] == 0]
    if not merge:
        return AsOfRows(facts=facts, merges=[])
    names = _COLUMNS[:_SUPPORT]
    return AsOfRows(facts=facts, merges=[
        version_from_row(dict(zip(names, r, strict=False)))
        for r in rows if r[_ARM] == 1])
