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

import json
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.instant import from_micros
from kg_memory.domain.model import EdgeType
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.migrate import convert_node
from kg_memory.store.neo4j.rows import edge_params, iso, props_hash
from kg_memory.store.sqlite import SqliteStore
from kg_memory.store.sqlite.outbox import Changes

__all__ = ["SYNC_BATCH", "SyncReport", "mirror_lag", "propagate", "sync"]

_VERSION_TIMES = ("valid_from", "valid_to", "sys_from", "sys_to")


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


#: Outbox rows per slice (one Neo4j transaction each). The whole sync of the bench's 1e5 store
#: took 72-73 s in slices of 2,000 and 60-61 s in slices of 5,000 (fewer commits, and changes
#: to one record coalesced within a slice), 58 s in slices of 20,000 (session 22).
SYNC_BATCH = 5000


def _native(label: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Embedded rows (instants as integer microseconds, values as JSON text) in the graph's
    layout, the same as the adapter's own writes (see :mod:`kg_memory.store.neo4j.rows`)."""
    return [convert_node(label, row) for row in rows]


def _text(micros: int | None) -> str | None:
    """An embedded instant as the ISO text the batched queries store with ``datetime()``."""
    return None if micros is None else _iso(micros)


@lru_cache(maxsize=1 << 16)
def _iso(micros: int) -> str:
    # A slice names each instant several times (a revision's valid_from is its sys_from, its
    # episode's occurred_at and its edges' since): 1.3 million conversions for the bench's 1e5
    # store, a tenth of the client's time, about half of them repeats.
    return iso(from_micros(micros))


def _with_times(row: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """A row as ``{props, <instant>: text, ...}``: the instants beside the other properties."""
    props = dict(row)
    return {"props": props, **{name: _text(props.pop(name)) for name in names}}


def _version(change: dict[str, Any]) -> dict[str, Any]:
    """One embedded revision in mirror_versions' shape: convert_node's layout (value of its own
    type, qualifiers as properties, the content digest), instants as text."""
    row = _with_times(change["props"], _VERSION_TIMES)
    props = row["props"]
    if isinstance(props.get("value"), str):
        props["value"] = json.loads(props["value"])
    raw = props.pop("qualifiers", None)
    qualifiers = json.loads(raw) if raw and raw != "{}" else {}
    props["exceptions"] = list(qualifiers.get("exceptions") or [])
    props["project"] = props.get("project") or qualifiers.get("project") or ""
    props["content_hash"] = props_hash(props, row["valid_from"], row["valid_to"],
                                       row["sys_from"])
    return {**{k: v for k, v in change.items() if k != "props"}, **row}


def _versions(changes: list[dict[str, Any]]) -> dict[str, Any]:
    """mirror_versions' parameters: each hub once (the facts' first, then the nodes their
    revisions depend on), rows naming their fact and dependencies by position."""
    rows = [_version(r) for r in changes]
    hubs: dict[tuple[str, str], int] = {}
    for row in rows:
        hubs.setdefault((row["props"]["scope"], row["assertion_id"]), len(hubs))
    facts = len(hubs)
    for row in rows:
        scope = row["props"]["scope"]
        row["fact"] = hubs[(scope, row["assertion_id"])]
        row["deps"] = [hubs.setdefault((scope, dep), len(hubs)) for dep in row["deps"]]
    return {"facts": facts, "hubs": [list(hub) for hub in hubs], "rows": rows}


def _steps(changes: Changes) -> list[tuple[str, dict[str, Any]]]:
    steps: list[tuple[str, dict[str, Any]]] = []
    if changes.versions:
        steps.append(("mirror_versions", _versions(changes.versions)))
    if changes.facts:
        steps.append(("mirror_prune_revisions", {"facts": changes.facts}))
    # Assertion and episode ids are unique across scopes: a deleted row's id names one node.
    if changes.deleted_facts:
        # One query for the slice, not one round trip per erased fact (a forget run erases
        # thousands).
        steps.append(("mirror_delete_facts", {"ids": changes.deleted_facts}))
    if changes.episodes:
        steps.append(("mirror_episodes", {"rows": [
            _with_times(r, ("occurred_at", "recorded_at")) for r in changes.episodes]}))
    steps += [("erase_episode", {"episode_id": e, "scope": None})
              for e in changes.deleted_episodes]
    if changes.entities:
        steps.append(("mirror_entities", {"rows": [
            _with_times(r, ("recorded_at",)) for r in changes.entities]}))
    # One query per scope for the slice, not one round trip per forgotten entity (a forget
    # run forgets one per erased fact's subject). Within a scope the ids keep their order, as
    # delete_entities applies them in turn; scopes share no node, so their order is free.
    by_scope: dict[str, list[str]] = {}
    for e in changes.deleted_entities:
        by_scope.setdefault(e["scope"], []).append(e["entity_id"])
    steps += [("delete_entities", {"scope": scope, "entity_ids": ids})
              for scope, ids in by_scope.items()]
    # The embedded store derives each tombstone's INVALIDATED_BY edge from its row (schema 8):
    # the mirror stores it, as a direct write does. An older file's stored copy of the same
    # edge may be in the slice too: one row per edge, so the MERGE sees each once.
    edges = {(r["type"], r["scope"], r["src"], r["dst"]): r["since"] for r in [
        *({"type": EdgeType.INVALIDATED_BY.value, "scope": t["scope"],
           "src": "tomb_" + t["key"][:20], "dst": t["activity_id"], "since": t["created_at"]}
          for t in changes.tombstones), *changes.edges]}
    if edges:
        steps.append(("batch_edges", edge_params(
            (scope, src, kind, dst, _text(since), False)
            for (kind, scope, src, dst), since in edges.items())))
    if changes.deleted_edges:
        steps.append(("mirror_delete_edges", {"rows": changes.deleted_edges}))
    steps += [("add_activity", row) for row in _native("Activity", changes.activities)]
    if changes.tombstones:
        steps.append(("mirror_tombstones", {"rows": [
            {**r, "created_at": _text(r["created_at"])} for r in changes.tombstones]}))
    steps.append(("mirror_set_cursor", {"cursor": changes.last}))
    return steps


def mirror_lag(source: SqliteStore, target: Neo4jStore) -> int:
    return source.outbox.pending(target.mirror_cursor())


def sync(
    source: SqliteStore,
    target: Neo4jStore,
    *,
    batch_size: int = SYNC_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """Apply every outbox row past the mirror's cursor; ``progress(done, total)``.

    One slice is read from SQLite (this thread: the connection belongs to it) while Neo4j
    applies the one before it (one worker thread, the only user of the store meanwhile), so
    the embedded reads and the server's work overlap instead of taking turns. The slices are
    still applied one after another, each with its cursor in its own transaction: a failure
    stops the run at that slice, and the slice read ahead of it is never sent.
    """
    started = time.perf_counter()
    cursor = target.mirror_cursor()
    total = source.outbox.pending(cursor)
    applied = records = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kg-sync") as neo4j:
        in_flight: tuple[Changes, Future[Any]] | None = None
        while True:
            changes = source.outbox.changes(cursor, batch_size)
            steps = None if changes is None else _steps(changes)
            if in_flight is not None:
                done, future = in_flight
                future.result()  # raises what the slice raised; the next is not sent
                applied += done.rows
                records += done.count
                if progress is not None:
                    progress(applied, total)
            if changes is None or steps is None:
                break
            in_flight = (changes, neo4j.submit(target.run_many, steps))
            cursor = changes.last
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
