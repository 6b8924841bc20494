"""Recall on Neo4j for stores it did not write itself: one synced from the embedded store (the
mirror carries recall text) and one written before recall existed (backfilled on connect)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from kg_memory import Memory
from kg_memory.sim.cedar import load_records, replay
from kg_memory.sim.scenario import Scenario, ScenarioClock
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j import store as neo4j_store
from kg_memory.store.neo4j.mirror import sync
from tests.conftest import NEO4J_URI as URI
from tests.conftest import ManualClock, day, episode, fact

pytestmark = pytest.mark.neo4j

QUESTIONS = [("how does Jo want Cedar reports", "acme"), ("deposit approved", "u1"),
             ("vegetarian diet", "u1"), ("Cedar status", "acme"), ("window seat", "u1")]


def _answers(memory: Memory, known_at: datetime | None = None
             ) -> list[list[tuple[str, float]]]:
    out = []
    for query, scope in QUESTIONS:
        answer = memory.recall(query, scope=scope, known_at=known_at)
        out.append([(i, round(h.score.score, 9))
                    for i, h in zip(answer.ids(), answer.results, strict=True)])
    return out


def test_a_synced_neo4j_answers_recall_as_the_embedded_store_does(
    tmp_path: Path, neo4j: Neo4jStore
) -> None:
    scenario = Scenario.load()
    clock = ScenarioClock(scenario.epoch)
    with Memory.open(tmp_path / "m.db", clock=clock) as source:
        for record in scenario.records:
            clock.now = record.occurred_at
            source.ingest(record)
        replay(source, clock, load_records(), forget=False)
        assert sync(source.store, neo4j).status == "complete"  # type: ignore[arg-type]
        mirrored = Memory(neo4j, clock=clock)
        want = _answers(source)
        assert any(want)  # the questions do find something
        assert _answers(mirrored) == want
        middle = scenario.epoch + (clock.now - scenario.epoch) / 2
        assert _answers(mirrored, middle) == _answers(source, middle)


def test_a_store_written_before_recall_is_backfilled_on_connect() -> None:
    clock = ManualClock(day(0))
    target = Neo4jStore.connect(URI, clock=clock)  # the store assigns system time by this clock
    target.wipe()
    memory = Memory(target, clock=clock)
    memory.ingest(episode("op-1", "user", day(0), content="Ana is vegetarian", entities=[
        {"entity_id": "ana", "name": "Ana Lima"}], assertions=[fact("ana", "diet", "veg")]))
    clock.now = day(1)
    want = memory.recall("lima vegetarian", scope="u1")
    assert {h.type for h in want.results} == {"fact", "episode"}
    # What a store written before recall holds: no recall text, no backfill mark.
    _strip(target)
    assert memory.recall("lima vegetarian", scope="u1").status == "empty"
    neo4j_store._SCHEMA_READY.clear()  # a new process connecting to it
    again = Neo4jStore.connect(URI, clock=clock)
    try:
        got = Memory(again, clock=clock).recall("lima vegetarian", scope="u1")
        assert got.ids() == want.ids()
        assert [h.score for h in got.results] == [h.score for h in want.results]
    finally:
        again.close()
        target.close()


def _strip(store: Neo4jStore) -> None:
    with store._driver.session() as session:
        session.run("MATCH (n) WHERE n:Assertion OR n:Episode "
                    "REMOVE n.recall_text, n.recall_length").consume()
        session.run("MATCH (m:Meta {key: 'recall_backfilled'}) DELETE m").consume()
