"""Projecting the embedded store into Neo4j: ``kg-memory neo4j sync``.

The embedded store writes an outbox row (a table and a key, never content) in the same
transaction as every change; sync reads a slice after the mirror's cursor, looks up the current
rows behind the keys, and applies upserts and deletes with batched UNWIND queries, moving the
cursor in the same Neo4j transaction. So a sync is idempotent (re-applying a slice gives the
same graph), resumable (a crash loses at most the slice in flight, which is re-read) and its lag
is the outbox rows past the cursor. Erasures reach the mirror the same way: a forgotten row is
a key whose row is gone, and the mirror deletes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.instant import from_micros
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.migrate import convert_node
from kg_memory.store.sqlite import SqliteStore
from kg_memory.store.sqlite.outbox import Changes

__all__ = ["SyncReport", "mirror_lag", "propagate", "sync"]


class SyncReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    destination: str = "neo4j-mirror"
    location: str
    status: str  # complete | incomplete
    applied: int  # outbox rows applied in this run
    records: int  # nodes and relationships upserted or deleted
    cursor: int
    lag: int  # outbox rows still to apply
    seconds: float
    reason: str = ""


def _native(label: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Embedded rows (instants as integer microseconds, values as JSON text) in the graph's
    layout, the same as the adapter's own writes (see :mod:`kg_memory.store.neo4j.rows`)."""
    return [convert_node(label, row) for row in rows]


def _steps(changes: Changes) -> list[tuple[str, dict[str, Any]]]:
    steps: list[tuple[str, dict[str, Any]]] = []
    if changes.versions:
        rows = [{**r, "props": convert_node("Assertion", r["props"])} for r in changes.versions]
        steps.append(("mirror_versions", {"rows": rows}))
    if changes.facts:
        steps.append(("mirror_prune_revisions", {"facts": changes.facts}))
    # Assertion and episode ids are unique across scopes: a deleted row's id names one node.
    steps += [("delete_assertion", {"assertion_id": a, "scope": None})
              for a in changes.deleted_facts]
    if changes.episodes:
        steps.append(("mirror_episodes", {"rows": _native("Episode", changes.episodes)}))
    steps += [("erase_episode", {"episode_id": e, "scope": None})
              for e in changes.deleted_episodes]
    if changes.entities:
        steps.append(("mirror_entities", {"rows": _native("Entity", changes.entities)}))
    steps += [("delete_entity", e) for e in changes.deleted_entities]
    if changes.edges:
        # Grouped by type: the type is one parameter of each MERGE, not one per row.
        by_type: dict[str, list[dict[str, Any]]] = {}
        for r in changes.edges:
            by_type.setdefault(r["type"], []).append(
                {"scope": r["scope"], "src": r["src"], "dst": r["dst"],
                 "since": from_micros(r["since"])})
        steps += [("batch_edges", {"type": t, "rows": rows}) for t, rows in sorted(by_type.items())]
    if changes.deleted_edges:
        steps.append(("mirror_delete_edges", {"rows": changes.deleted_edges}))
    steps += [("add_activity", row) for row in _native("Activity", changes.activities)]
    steps += [("add_tombstone", row) for row in _native("Tombstone", changes.tombstones)]
    steps.append(("mirror_set_cursor", {"cursor": changes.last}))
    return steps


def mirror_lag(source: SqliteStore, target: Neo4jStore) -> int:
    return source.outbox.pending(target.mirror_cursor())


def sync(
    source: SqliteStore,
    target: Neo4jStore,
    *,
    batch_size: int = 2000,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """Apply every outbox row past the mirror's cursor; ``progress(done, total)``."""
    started = time.perf_counter()
    cursor = target.mirror_cursor()
    total = source.outbox.pending(cursor)
    applied = records = 0
    while (changes := source.outbox.changes(cursor, batch_size)) is not None:
        target.run_many(_steps(changes))
        applied += changes.rows
        records += changes.count
        cursor = changes.last
        if progress is not None:
            progress(applied, total)
    source.set_mirror(target.location)
    lag = source.outbox.pending(cursor)
    return SyncReport(location=target.location, status="complete" if lag == 0 else "incomplete",
                      applied=applied, records=records, cursor=cursor, lag=lag,
                      seconds=round(time.perf_counter() - started, 3))


def propagate(source: SqliteStore, uri: str) -> dict[str, Any]:
    """Bring the mirror at ``uri`` up to date (a forget run's deletions included) and report it
    as one of the forget run's destinations; an unreachable mirror is reported, not raised."""
    try:
        target = Neo4jStore.connect(uri)
    except KgMemoryError as exc:
        return {"destination": "neo4j-mirror", "location": uri, "status": "incomplete",
                "reason": str(exc)}
    try:
        return sync(source, target).model_dump()
    finally:
        target.close()
