"""`kg-memory neo4j sync`: the embedded store projected into Neo4j through its outbox."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory
from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.workload import POLICY, Workload
from kg_memory.domain.instant import from_micros
from kg_memory.domain.record import IngestRecord
from kg_memory.services.check import check
from kg_memory.sim.cedar import FORGET_SELECTOR, load_records, replay
from kg_memory.sim.scenario import Scenario, ScenarioClock
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.mirror import sync
from kg_memory.store.sqlite import SqliteStore
from tests.conftest import ManualClock
from tests.test_neo4j_batch import _state

pytestmark = pytest.mark.neo4j


@pytest.fixture
def source(tmp_path: Path) -> Iterator[tuple[Memory, ScenarioClock]]:
    scenario = Scenario.load()
    clock = ScenarioClock(scenario.epoch)
    memory = Memory.open(tmp_path / "m.db", clock=clock)
    for record in scenario.records:  # a scope with events, retirements and a refusal
        clock.now = record.occurred_at
        memory.ingest(record)
    replay(memory, clock, load_records(), forget=False)  # then Jo and Cedar, two months on
    yield memory, clock
    memory.close()


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the queries every later ``run_many`` sends, in order."""
    ran: list[str] = []
    real = Neo4jStore.run_many

    def counting(self: Neo4jStore, steps: Any) -> Any:
        ran.extend(name for name, _ in steps)
        return real(self, steps)

    monkeypatch.setattr(Neo4jStore, "run_many", counting)
    return ran


def _views(memory: Memory) -> list[Any]:
    """Every as-of answer over a grid of both axes, plus histories: what a reader can see."""
    seen: list[Any] = []
    start = Scenario.load().epoch
    for step in range(0, 24 * 70, 20):
        when = start + timedelta(hours=step)
        facts = memory.asof(when, when).facts
        seen.append(sorted((f.assertion_id, f.revision, str(f.value), f.valid.start,
                            f.system.start) for f in facts))
    for subject in ("j17", "c1", "ana", "u1"):
        seen.append([(h.version.assertion_id, h.version.revision, h.version.system.end)
                     for h in memory.history(subject)])
    return seen


def test_sync_projects_every_answer_and_is_idempotent(
    source: tuple[Memory, ScenarioClock], neo4j: Neo4jStore
) -> None:
    memory, clock = source
    assert isinstance(memory.store, SqliteStore)
    report = sync(memory.store, neo4j, batch_size=50)
    assert report.status == "complete"
    assert report.lag == 0
    assert report.applied > 0
    mirror = Memory(neo4j, clock=clock)
    assert _views(mirror) == _views(memory)
    # Every revision's digest, computed by sync from the rows, is the one check recomputes.
    assert check(neo4j).ok
    again = sync(memory.store, neo4j)
    assert (again.applied, again.records, again.lag) == (0, 0, 0)
    assert _views(mirror) == _views(memory)


def test_sync_resumes_after_a_crash(
    source: tuple[Memory, ScenarioClock], neo4j: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, clock = source
    assert isinstance(memory.store, SqliteStore)
    real = Neo4jStore.run_many
    calls = {"n": 0}

    def dying(self: Neo4jStore, steps: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise ConnectionError("the network went away")
        return real(self, steps)

    monkeypatch.setattr(Neo4jStore, "run_many", dying)
    with pytest.raises(ConnectionError):
        sync(memory.store, neo4j, batch_size=20)
    assert 0 < neo4j.mirror_cursor() < memory.store.outbox.last()
    monkeypatch.setattr(Neo4jStore, "run_many", real)
    report = sync(memory.store, neo4j, batch_size=20)
    assert report.lag == 0
    assert _views(Memory(neo4j, clock=clock)) == _views(memory)


def test_a_forget_reaches_the_mirror_before_it_reports(
    source: tuple[Memory, ScenarioClock], neo4j: Neo4jStore
) -> None:
    memory, clock = source
    assert isinstance(memory.store, SqliteStore)
    sync(memory.store, neo4j)
    mirror = Memory(neo4j, clock=clock)
    cedar = [f for f in mirror.asof(scope="acme").facts if f.qualifiers.project == "c1"
             and f.predicate == "report_style"]
    assert cedar
    clock.now += timedelta(days=1)
    report = memory.forget(FORGET_SELECTOR)
    destinations = {d["destination"]: d["status"] for d in report.destinations}
    assert destinations == {"neo4j-mirror": "complete", "embedded": "complete"}
    assert _views(mirror) == _views(memory)
    left = [f for f in mirror.asof(scope="acme").facts if f.predicate == "report_style"
            and f.qualifiers.project == "c1"]
    assert left == []
    # The run's tombstones reached the mirror (one query per slice), each with its instant.
    stored = {k: from_micros(t) for k, t in memory.store._conn.execute(
        "SELECT key, created_at FROM tombstones")}
    assert stored
    with neo4j.transaction("acme") as unit:
        assert unit.tombstones(sorted(stored)) == stored
    assert check(neo4j).ok


def test_a_forget_of_many_entities_reaches_the_mirror_in_a_query_per_slice(
    tmp_path: Path, neo4j: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule protected: the mirror deletes a slice's forgotten entities with one query per
    scope (``delete_entities``), not one round trip per entity (a source's forget forgets the
    subject of each of its facts)."""
    clock = ManualClock()
    facts = 30
    with Memory.open(tmp_path / "m.db", clock=clock) as memory:
        assert isinstance(memory.store, SqliteStore)
        memory.ingest(IngestRecord.model_validate({
            "operation_id": "feed", "source": "tool", "channel": "tool",
            "occurred_at": clock.now.isoformat(), "scope": "u1",
            "assertions": [{"subject": f"feed-{i}", "predicate": "item", "value": f"item {i}",
                            "kind": "world"} for i in range(facts)]}))
        memory.ingest(IngestRecord.model_validate({
            "operation_id": "keep", "source": "user", "channel": "chat",
            "occurred_at": clock.now.isoformat(), "scope": "u1",
            "assertions": [{"subject": "ana", "predicate": "likes", "value": "feed-1",
                            "kind": "world", "depends_on": ["feed-1"]}]}))
        sync(memory.store, neo4j)
        mirror = Memory(neo4j, clock=clock)
        assert len(mirror.store.entities("u1")) >= facts
        clock.now += timedelta(days=1)
        ran = _statements(monkeypatch)
        report = memory.forget("source:tool@u1")  # propagates to the mirror (a sync)
        assert len(report.plan.entities) == facts  # not vacuous: each fact's subject goes
        assert {d["destination"]: d["status"] for d in report.destinations} == {
            "neo4j-mirror": "complete", "embedded": "complete"}
        deletions = [n for n in ran if n.startswith("delete_entit")]
        assert 0 < len(deletions) < facts // 3, deletions
        assert mirror.store.entities("u1") == memory.store.entities("u1")
        assert not any(e.entity_id.startswith("feed-") for e in mirror.store.entities("u1"))
        assert _views(mirror) == _views(memory)
        assert check(neo4j).ok


def test_the_mirror_holds_every_edge_the_embedded_store_holds(
    tmp_path: Path, neo4j: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule protected: each slice names a hub once (``mirror_versions``' facts and the nodes
    they depend on, ``batch_edges``' ends) and its rows point at it by position; whatever the
    slice boundaries, the mirror has exactly the embedded store's revisions, edges (NEEDS for
    dependencies among them), supports and refusals. Small slices cut a fact's revisions and
    an episode's edges apart; a slice's edges all go in one statement."""
    records = list(Workload(users=8, seed=5).records())
    clock = ArrivalClock(records[0].occurred_at)
    with Memory.open(tmp_path / "m.db", clock=clock, policy=POLICY) as memory:
        assert isinstance(memory.store, SqliteStore)
        for record in records:
            clock.follow([record])
            memory.ingest(record)
        subjects = sorted({c.subject for r in records for c in r.assertions})
        expected = _state(memory.store, subjects)
        assert any(v.depends_on for s in subjects for v in memory.store.history(s))
        ran = _statements(monkeypatch)
        for size in (7, 64, 5000):  # re-applied from the start: the same graph each time
            neo4j.wipe()
            report = sync(memory.store, neo4j, batch_size=size)
            assert report.lag == 0
            assert _state(neo4j, subjects) == expected
        assert ran.count("batch_edges") <= ran.count("mirror_set_cursor")
        assert check(neo4j).ok
