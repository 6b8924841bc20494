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
from typing import Any

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.instant import from_micros, to_micros
from kg_memory.domain.model import Support, trusted
from kg_memory.domain.result import Fact
from kg_memory.store.protocol import AsOfQuery, AsOfRows
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, version_from_row

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


def _supports(text: str) -> tuple[Support, ...]:
    if text == "[]":
        return ()
    found = [
        trusted(Support, {"episode_id": episode_id, "source": source,
                          "occurred_at": from_micros(occurred),
                          "fingerprint": fingerprint(content or "")})
        for episode_id, source, occurred, content in json.loads(text)
    ]
    # The order the separate supports query gave: by when it happened, then by id.
    found.sort(key=lambda s: (s.occurred_at, s.episode_id))
    return tuple(found)


def _fact(row: sqlite3.Row) -> Fact:
    version = version_from_row(row)
    return Fact.of(version, _supports(row["support"]))


def asof_rows(conn: sqlite3.Connection, query: AsOfQuery, merge_predicate: str | None
              ) -> AsOfRows:
    """``query``'s facts with their support and, with ``merge_predicate``, the subject's
    revisions of that predicate at the same times (one statement either way)."""
    known, valid = to_micros(query.known_at), to_micros(query.valid_at)
    where, params = asof_sql(query, known=known, valid=valid)
    # The supports: a correlated json_group_array of the episodes with a SUPPORTS edge to the
    # row's assertion, drawn by the known time (served by edges_dst, one seek per fact).
    facts = (
        f"SELECT 0 AS arm, {VERSION_COLUMNS}, project, (SELECT json_group_array(json_array("
        "e.episode_id, e.source, e.occurred_at, e.content)) FROM edges g JOIN episodes e "
        "ON e.episode_id = g.src AND e.scope = g.scope WHERE g.dst = versions.assertion_id "
        "AND g.type = 'SUPPORTS' AND g.since <= ?) AS support FROM versions "
        f"WHERE {' AND '.join(where)}"
    )
    order = " ORDER BY arm, scope, subject, predicate, project, valid_from"
    if merge_predicate is not None and query.subject is not None:
        where, merge_params = asof_sql(query, merge_predicate, known=known, valid=valid)
        rows = conn.execute(
            facts + f" UNION ALL SELECT 1 AS arm, {VERSION_COLUMNS}, project, NULL AS support "
            f"FROM versions WHERE {' AND '.join(where)}" + order,
            [known, *params, *merge_params]).fetchall()
    else:
        rows = conn.execute(facts + order, [known, *params]).fetchall()
    return AsOfRows(
        facts=[_fact(r) for r in rows if r["arm"] == 0],
        merges=[version_from_row(r) for r in rows if r["arm"] == 1],
    )
