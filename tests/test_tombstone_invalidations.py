"""Each tombstone a forget run leaves is INVALIDATED_BY that run (issue 16, forget round 4).

Schema 8 stops storing one ``INVALIDATED_BY`` edge per tombstone in the embedded file: the
tombstone's row names its run (``activity_id``) and the edge is derived on read. Rules
protected:

- on both backends, every tombstone of a run shows as ``tomb_<key[:20]> -INVALIDATED_BY->``
  the run in ``Store.edges`` of the run and of the tombstone, in ``edges_of``, in the run's
  lineage and in the PROV export (``wasInvalidatedBy``); ``kg-memory check`` stays clean;
- a key tombstoned again by a later run (the same content forgotten twice) is invalidated by
  both runs, as when every edge was stored;
- the embedded file stores no edge row for a tombstone it can derive (the saving);
- a schema 7 file (its edges stored) is refused until ``kg-memory migrate``, then answers the
  same lineage, PROV and check questions, each edge once;
- ``neo4j sync`` gives the mirror the edges, as a direct write does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.model import EdgeType
from kg_memory.services.check import check
from kg_memory.services.provenance import serialize_prov
from kg_memory.store.sqlite import SqliteStore, driver
from tests.conftest import ManualClock, day, episode, fact

INVALIDATED = EdgeType.INVALIDATED_BY


def _tombstone_nodes(memory: Memory, activity_id: str) -> set[str]:
    """The tombstone nodes the run's INVALIDATED_BY edges name, from ``Store.edges``."""
    return {e.src for e in memory.store.edges(activity_id, "u1")
            if e.type is INVALIDATED and e.dst == activity_id}


def _forget_twice(memory: Memory, clock: ManualClock) -> tuple[str, str]:
    """Two runs that forget the same content (so the second one tombstones its key again),
    each with a derivative fact beside it; the two runs' activity ids."""
    runs: list[str] = []
    for n in (1, 2):
        clock.now = day(n)
        memory.ingest(episode(f"op-{n}", "user", clock.now, content="I am vegetarian.",
                              assertions=[fact("ana", "diet", "vegetarian"),
                                          fact(f"ana-{n}", "note", f"note {n}")]))
        clock.now = day(n, 12)
        report = memory.forget("source:user@u1")
        assert report.status == "complete"
        assert report.activity_id is not None
        runs.append(report.activity_id)
    return runs[0], runs[1]


def test_every_tombstone_of_a_run_is_invalidated_by_it(
    memory: Memory, clock: ManualClock,
) -> None:
    """Rule: each tombstone a run leaves shows as INVALIDATED_BY the run, through every read
    of edges, lineage and PROV, and the store still checks clean."""
    first, second = _forget_twice(memory, clock)
    for run in (first, second):
        tombs = _tombstone_nodes(memory, run)
        # op-N's episode, its operation id, two facts and their contents: five keys at least.
        assert len(tombs) >= 5
        assert all(t.startswith("tomb_") for t in tombs)
        for tomb in tombs:
            edges = memory.store.edges(tomb, "u1")
            assert any(e.type is INVALIDATED and e.dst == run for e in edges)
            assert memory.store.edges(tomb) == edges  # without a scope: the same node
        of = memory.store.edges_of([run, *sorted(tombs)], "u1")
        assert {e.src for e in of[run] if e.type is INVALIDATED} == tombs
        graph = memory.lineage(run, "down", 1, scope="u1")
        assert {src for src, dst, key in graph.edges(keys=True)
                if dst == run and key == INVALIDATED.value} == tombs
        prov = json.loads(serialize_prov(memory.prov(scope="u1"), "json"))
        invalidated = {r["prov:entity"] for r in prov.get("wasInvalidatedBy", {}).values()
                       if r["prov:activity"] == f"kgm:{run}"}
        assert invalidated == {f"kgm:{t}" for t in tombs}
    # Rule: the content forgotten twice is one tombstone, invalidated by both runs.
    again = _tombstone_nodes(memory, first) & _tombstone_nodes(memory, second)
    assert again  # the content, and the entity ana, orphaned both times
    for tomb in again:
        assert {e.dst for e in memory.store.edges(tomb, "u1") if e.type is INVALIDATED} == {
            first, second}
    report = check(memory.store)
    assert report.ok, report.violations


def _stored_invalidations(db: Path) -> list[tuple[str, str, int]]:
    with driver.connect(db) as raw:
        return raw.execute("SELECT src, dst, since FROM edges WHERE type = 'INVALIDATED_BY' "
                           "ORDER BY src, dst").fetchall()


def _answers(memory: Memory, runs: tuple[str, str]) -> Any:
    """What a reader can ask of the runs: edges, lineage both ways, the PROV export, check."""
    seen: list[Any] = []
    for run in runs:
        seen.append(sorted(e.model_dump_json() for e in memory.store.edges(run, "u1")))
        graph = memory.lineage(run, "both", 3, scope="u1")
        seen.append(sorted(graph.edges(keys=True)))
        for tomb in sorted(_tombstone_nodes(memory, run)):
            seen.append(sorted(e.model_dump_json() for e in memory.store.edges(tomb)))
    seen.append(json.loads(serialize_prov(memory.prov(scope="u1"), "json")))
    report = check(memory.store)
    # The outbox's length is bookkeeping: a schema 7 file queued one row per stored edge.
    seen.append((report.ok, report.violations,
                 {k: n for k, n in report.checked.items() if k != "outbox_rows"}))
    return seen


def test_the_embedded_file_stores_only_the_edges_it_cannot_derive(tmp_path: Path) -> None:
    """Rule: no edge row for a tombstone whose own row names the run; one row for the key the
    second run tombstoned again (its row keeps the first run)."""
    clock = ManualClock(day(0))
    db = tmp_path / "m.db"
    with Memory.open(db, clock=clock) as memory:
        first, second = _forget_twice(memory, clock)
    stored = _stored_invalidations(db)
    assert stored  # the keys the second run tombstoned again
    for src, dst, _ in stored:
        assert src.startswith("tomb_")
        assert dst == second
        with driver.connect(db) as raw:
            assert raw.execute("SELECT activity_id FROM tombstones WHERE substr(key, 1, 20) = ?",
                               [src[5:]]).fetchall() == [(first,)]
    with Memory.open(db, clock=clock, create=False) as memory:
        derived = {e.src for e in memory.store.edges(second, "u1") if e.type is INVALIDATED}
    assert len(derived) > len(stored)  # the second run's other tombstones: derived only


def test_a_schema_7_file_migrates_and_answers_the_same(tmp_path: Path) -> None:
    """Rule: a file from before schema 8, which stored every tombstone's edge, is refused until
    ``kg-memory migrate``; then its lineage, PROV and check answers are what they were, each
    edge read once."""
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    clock = ManualClock(day(0))
    db = tmp_path / "m.db"
    with Memory.open(db, clock=clock) as memory:
        runs = _forget_twice(memory, clock)
        before = _answers(memory, runs)
    with driver.connect(db) as raw:
        # As schema 7 wrote them: one edge per tombstone, since the run's time (the outbox
        # trigger queues each, as the write path did).
        raw.execute("INSERT OR IGNORE INTO edges (scope, src, type, dst, since) "
                    "SELECT scope, 'tomb_' || substr(key, 1, 20), 'INVALIDATED_BY', "
                    "activity_id, created_at FROM tombstones")
        raw.execute("DROP INDEX tombstones_activity")
        raw.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    assert len(_stored_invalidations(db)) > 10
    with pytest.raises(StoreUnavailable, match=r"has schema 7, .* run `kg-memory migrate`"):
        Memory.open(db, create=False)
    assert migrate(db) == ("7", SCHEMA_VERSION) == ("7", "14")
    with driver.connect(db) as raw:
        indexes = {r[0] for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "tombstones_activity" in indexes
    with Memory.open(db, clock=clock, create=False) as memory:
        assert _answers(memory, runs) == before
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing changes


@pytest.fixture
def mirror() -> Iterator[Any]:
    from kg_memory.store.neo4j import Neo4jStore

    store = Neo4jStore.connect(os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687"))
    store.wipe()
    yield store
    store.close()


@pytest.mark.neo4j
def test_sync_gives_the_mirror_every_invalidation(tmp_path: Path, mirror: Any) -> None:
    """Rule: ``neo4j sync`` of a file that derives the edges gives Neo4j the same
    INVALIDATED_BY edges a direct write stores."""
    from kg_memory.store.neo4j.mirror import sync

    clock = ManualClock(day(0))
    with Memory.open(tmp_path / "m.db", clock=clock) as memory:
        runs = _forget_twice(memory, clock)
        expected = {run: sorted((e.src, e.dst, e.since) for e in memory.store.edges(run, "u1")
                                if e.type is INVALIDATED) for run in runs}
        assert isinstance(memory.store, SqliteStore)
        sync(memory.store, mirror)
    for run in runs:
        got = sorted((e.src, e.dst, e.since) for e in mirror.edges(run, "u1")
                     if e.type is INVALIDATED)
        assert got == expected[run]
