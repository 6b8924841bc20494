"""Neo4j's vector reads: a small tenant is scored exactly in one statement, a large one takes
the native index's shortlist.

The native index is global: its shortlist of a tenant's nearest vectors is taken from every
tenant's, so a tenant that holds few of them under-fills it and recall falls back to exact
scoring. A small tenant used to run both statements, the shortlist and then the exact scan, for
each corpus; the query now counts the tenant's vectors (up to ``vector_exact_below``) and
scores a tenant that small exactly in the same statement, as the embedded store does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kg_memory import HashingEmbedder, Memory
from kg_memory.services.recall import RecallRequest, recall
from kg_memory.store.neo4j import Neo4jStore, sessions
from kg_memory.store.neo4j.tx import run_query
from tests.conftest import NEO4J_URI, ManualClock, day, episode, fact

pytestmark = pytest.mark.neo4j

EMBEDDER = HashingEmbedder()
VECTOR_READS = ("recall_vector_query", "recall_episode_vector_query", "recall_vector_exact",
                "recall_episode_vector_exact")


@pytest.fixture
def neo4j() -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(NEO4J_URI, clock=ManualClock(day(5)))
    store.wipe()
    yield store
    store.close()


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times the store ran each named query (the real queries run)."""
    counted: Counter[str] = Counter()

    def counting(target: Any, name: str, params: Any, **kwargs: Any) -> Any:
        counted[name] += 1
        return run_query(target, name, params, **kwargs)

    monkeypatch.setattr(sessions, "run_query", counting)
    return counted


def _fill(memory: Memory) -> None:
    """A big tenant whose 300 facts and messages are the nearest to the query, and a small one
    (3 facts, 3 messages) that must still be found."""
    memory.ingest(episode("op-big", "user", day(0), scope="big", content="vegetarian diet talk",
                          assertions=[fact(f"s{i}", "note", f"vegetarian diet {i}")
                                      for i in range(300)]))
    for i in range(1, 300):
        memory.ingest(episode(f"op-big-{i}", "user", day(0), scope="big",
                              content=f"vegetarian diet message {i}"))
    for i, value in enumerate(["vegetarian", "pescatarian", "vegan"]):
        memory.ingest(episode(f"op-u1-{i}", "user", day(i + 1), scope="u1",
                              content=f"I eat {value} food",
                              assertions=[fact(f"p{i}", "diet", value)]))
    memory.recall("diet", scope="big", embedder=EMBEDDER)  # both tenants' vectors written
    memory.recall("diet", scope="u1", embedder=EMBEDDER)


def _request(below: int) -> RecallRequest:
    return RecallRequest(query="vegetarian diet", scope="u1", at=day(6), known_at=day(6),
                         now=day(6), embedder=EMBEDDER, vector_exact_below=below)


def test_a_small_tenant_is_scored_exactly_in_one_statement_per_corpus(
    neo4j: Neo4jStore, statements: Counter[str]
) -> None:
    _fill(Memory(neo4j, clock=ManualClock(day(5))))
    statements.clear()
    small = recall(neo4j, _request(256))
    assert small.vector_method == "exact"
    assert {n: statements[n] for n in VECTOR_READS if statements[n]} == {
        "recall_vector_query": 1, "recall_episode_vector_query": 1}
    # The index's way to the same answer: the global shortlist holds the big tenant's vectors,
    # so it under-fills and the exact fallback runs after it.
    statements.clear()
    shortlisted = recall(neo4j, _request(0))
    assert shortlisted.vector_method == "hnsw+exact"
    assert statements["recall_vector_exact"] == statements["recall_episode_vector_exact"] == 1
    assert [(h.id, h.score.vector_rank) for h in small.results] == [
        (h.id, h.score.vector_rank) for h in shortlisted.results]
    assert sum(h.score.vector_rank is not None for h in small.results) == 6


def test_a_tenant_with_more_vectors_than_the_threshold_takes_the_shortlist(
    neo4j: Neo4jStore, statements: Counter[str]
) -> None:
    _fill(Memory(neo4j, clock=ManualClock(day(5))))
    statements.clear()
    big = recall(neo4j, RecallRequest(query="vegetarian diet", scope="big", at=day(6),
                                      known_at=day(6), now=day(6), embedder=EMBEDDER,
                                      vector_candidates=5, include_episodes=False))
    assert big.vector_method == "hnsw"  # 300 vectors, over 256
    assert statements["recall_vector_query"] == 1
    assert statements["recall_vector_exact"] == 0
    assert len(big.results) >= 5
