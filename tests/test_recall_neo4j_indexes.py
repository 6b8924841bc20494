"""Recall's indexes on Neo4j: the full-text search asks Lucene for one tenant's matches (the
scope is an indexed field the query requires), a database with the earlier text-only indexes
gets the scoped ones on connect, ``wipe()`` drops the vector index, and no read that returns
revision nodes whole carries a revision's vector."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from kg_memory import HashingEmbedder, Memory
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j import store as neo4j_store
from kg_memory.store.neo4j.recall import lucene_query
from tests.conftest import BACKENDS, ManualClock, day, episode, fact

pytestmark = [pytest.mark.neo4j, pytest.mark.skipif(
    "neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j")]

URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
TENANTS = 40


@pytest.fixture
def store() -> Iterator[Neo4jStore]:
    clock = ManualClock(day(0))
    target = Neo4jStore.connect(URI, clock=clock)
    target.wipe()
    yield target
    target.close()


def _fill(memory: Memory) -> None:
    for t in range(TENANTS):
        memory.ingest(episode(f"op-{t}", "user", day(0), scope=f"t{t}",
                              content="we are moving to Porto",
                              assertions=[fact("u", "city", "porto")]))


def _lucene_hits(store: Neo4jStore, index: str, query: str) -> int:
    with store._driver.session() as session:
        return int(session.run(
            "CALL db.index.fulltext.queryNodes($index, $text) YIELD node RETURN count(node) AS n",
            {"index": index, "text": query}).single(strict=True)["n"])


def test_lucene_returns_the_asking_tenants_matches_only(store: Neo4jStore) -> None:
    memory = Memory(store, clock=ManualClock(day(1)))
    _fill(memory)
    query = lucene_query("t7", ("porto",))
    assert _lucene_hits(store, "recall_facts_scoped", query) == 1
    assert _lucene_hits(store, "recall_episodes_scoped", query) == 1
    # The same terms without the scope clause: every tenant's (what the search fetched before).
    assert _lucene_hits(store, "recall_facts_scoped", "recall_text:(porto)") == TENANTS
    answer = memory.recall("porto", scope="t7")
    assert {h.scope for h in answer.results} == {"t7"}
    assert {h.type for h in answer.results} == {"fact", "episode"}


def _show_indexes(store: Neo4jStore) -> dict[str, dict[str, Any]]:
    with store._driver.session() as session:
        return {r["name"]: dict(r) for r in session.run(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options "
            "WHERE type IN ['FULLTEXT', 'VECTOR'] RETURN *")}


def test_a_database_with_the_text_only_indexes_gets_the_scoped_ones_on_connect(
    store: Neo4jStore
) -> None:
    clock = ManualClock(day(1))
    memory = Memory(store, clock=clock)
    _fill(memory)
    want = [memory.recall("moving porto", scope=f"t{t}").ids() for t in (0, 5)]
    # What a database prepared before the scoped indexes holds: recall_text indexed alone.
    with store._driver.session() as session:
        for name in ("recall_facts_scoped", "recall_episodes_scoped"):
            session.run(f"DROP INDEX {name}").consume()
        for name, label in (("recall_facts", "Assertion"), ("recall_episodes", "Episode")):
            session.run(
                f"CREATE FULLTEXT INDEX {name} FOR (n:{label}) ON EACH [n.recall_text] "
                "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', "
                "`fulltext.eventually_consistent`: false}}").consume()
        session.run("CALL db.awaitIndexes(300)").consume()
    neo4j_store._SCHEMA_READY.clear()  # a new process connecting to it
    again = Neo4jStore.connect(URI, clock=clock)
    try:
        indexes = _show_indexes(again)
        assert "recall_facts" not in indexes
        assert "recall_episodes" not in indexes
        assert indexes["recall_facts_scoped"]["properties"] == ["recall_text", "scope"]
        assert indexes["recall_episodes_scoped"]["properties"] == ["recall_text", "scope"]
        got = [Memory(again, clock=clock).recall("moving porto", scope=f"t{t}").ids()
               for t in (0, 5)]
        assert got == want
    finally:
        again.close()


def test_wipe_drops_the_vector_index_so_another_embedder_can_follow(store: Neo4jStore) -> None:
    clock = ManualClock(day(1))
    memory = Memory(store, clock=clock)
    _fill(memory)
    wide = memory.recall("porto", scope="t1", embedder=HashingEmbedder(256))
    assert wide.vector_method is not None
    assert _show_indexes(store)["recall_vectors"]["options"]["indexConfig"][
        "vector.dimensions"] == 256
    store.wipe()
    assert "recall_vectors" not in _show_indexes(store)
    _fill(memory)
    narrow = memory.recall("porto", scope="t1", embedder=HashingEmbedder(64),
                           include_episodes=False)
    assert [h.score.vector_rank for h in narrow.results] == [1]
    assert _show_indexes(store)["recall_vectors"]["options"]["indexConfig"][
        "vector.dimensions"] == 64


def _vectors_in(value: object) -> int:
    if isinstance(value, dict):
        own = int(value.get("recall_vector") is not None)
        return own + sum(_vectors_in(v) for v in value.values())
    if isinstance(value, list | tuple):
        return sum(_vectors_in(v) for v in value)
    return 0


def test_no_read_of_revisions_carries_their_vectors(store: Neo4jStore) -> None:
    clock = ManualClock(day(1))
    memory = Memory(store, clock=clock)
    memory.ingest(episode("op-1", "user", day(0), content="Ana is vegetarian", entities=[
        {"entity_id": "ana", "name": "Ana"}], assertions=[fact("ana", "diet", "vegetarian")]))
    memory.ingest(episode("op-2", "user", day(1), content="Ana eats fish now",
                          assertions=[fact("ana", "diet", "pescatarian")]))
    clock.now = day(2)
    memory.recall("diet", scope="u1", embedder=HashingEmbedder())  # every revision filed
    with store._driver.session() as session:
        filed = session.run("MATCH (a:Assertion) WHERE a.recall_vector IS NOT NULL "
                            "RETURN count(a) AS n").single(strict=True)["n"]
    assert filed >= 2  # the vectors are there, so a read could carry them
    seen: list[tuple[str, int]] = []
    read = store._read

    def spy(name: str, /, **params: Any) -> list[dict[str, Any]]:
        rows = read(name, **params)
        seen.append((name, _vectors_in(rows)))
        return rows

    store._read = spy  # type: ignore[method-assign]
    [diet] = memory.asof(subject="ana", predicate="diet", scope="u1").facts
    memory.asof(scope="u1")
    memory.asof(subject="ana", scope="u1", known_at=day(0.5), valid_at=day(0.5))
    memory.history("ana", "diet", scope="u1")
    memory.lineage(diet.assertion_id, scope="u1")
    memory.entities("u1")
    memory.recall("diet vegetarian", scope="u1", embedder=HashingEmbedder())
    store.versions([diet.assertion_id])
    names = {name for name, _ in seen}
    assert {"asof_subject", "history", "recall_facts", "recall_vector_query"} & names
    assert [(name, n) for name, n in seen if n] == []
