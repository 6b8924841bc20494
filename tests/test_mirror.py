"""`kg-memory neo4j sync`: the embedded store projected into Neo4j through its outbox."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory
from kg_memory.domain.instant import from_micros
from kg_memory.services.check import check
from kg_memory.sim.cedar import FORGET_SELECTOR, load_records, replay
from kg_memory.sim.scenario import Scenario, ScenarioClock
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.mirror import sync
from kg_memory.store.sqlite import SqliteStore

pytestmark = pytest.mark.neo4j
URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")


@pytest.fixture
def target() -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(URI)
    store.wipe()
    yield store
    store.close()


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
    source: tuple[Memory, ScenarioClock], target: Neo4jStore
) -> None:
    memory, clock = source
    assert isinstance(memory.store, SqliteStore)
    report = sync(memory.store, target, batch_size=50)
    assert report.status == "complete"
    assert report.lag == 0
    assert report.applied > 0
    mirror = Memory(target, clock=clock)
    assert _views(mirror) == _views(memory)
    # Every revision's digest, computed by sync from the rows, is the one check recomputes.
    assert check(target).ok
    again = sync(memory.store, target)
    assert (again.applied, again.records, again.lag) == (0, 0, 0)
    assert _views(mirror) == _views(memory)


def test_sync_resumes_after_a_crash(
    source: tuple[Memory, ScenarioClock], target: Neo4jStore, monkeypatch: pytest.MonkeyPatch
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
        sync(memory.store, target, batch_size=20)
    assert 0 < target.mirror_cursor() < memory.store.outbox.last()
    monkeypatch.setattr(Neo4jStore, "run_many", real)
    report = sync(memory.store, target, batch_size=20)
    assert report.lag == 0
    assert _views(Memory(target, clock=clock)) == _views(memory)


def test_a_forget_reaches_the_mirror_before_it_reports(
    source: tuple[Memory, ScenarioClock], target: Neo4jStore
) -> None:
    memory, clock = source
    assert isinstance(memory.store, SqliteStore)
    sync(memory.store, target)
    mirror = Memory(target, clock=clock)
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
    with target.transaction("acme") as unit:
        assert unit.tombstones(sorted(stored)) == stored
    assert check(target).ok
