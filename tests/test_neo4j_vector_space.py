"""Neo4j's vector reads: the vector space is read once per store object (a wipe forgets it),
and a small tenant's vectors are scored exactly in one statement.

A store's vectors are all of one embedder (its name and dimensions, the *space*); another is
refused, never mixed. The adapter used to read the space before each of a hybrid recall's
vector reads (five statements a recall) and to claim it, make both vector indexes and wait for
them on every write of vectors. A space is set once and only a wipe clears it, so the store
object remembers what it read or claimed; these tests hold the statements to that and show
that the memory keeps every guarantee the reads gave: a wipe through the object claims the
space again, and another embedder is still refused.

The native vector index is global: its shortlist of a tenant's nearest vectors is taken from
every tenant's, so a tenant that holds few of them under-fills it and recall falls back to
exact scoring. A small tenant used to run both statements, the shortlist and then the exact
scan, for each corpus; the query now counts the tenant's vectors (up to
``vector_exact_below``) and scores a tenant that small exactly in the same statement, as the
embedded store does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kg_memory import EmbedderMismatch, HashingEmbedder, Memory
from kg_memory.services.recall import RecallRequest, recall
from kg_memory.store.neo4j import Neo4jStore, sessions
from kg_memory.store.neo4j.tx import run_query
from tests.conftest import NEO4J_URI, ManualClock, day, episode, fact

pytestmark = pytest.mark.neo4j

VECTOR_READS = ("recall_vector_query", "recall_episode_vector_query", "recall_vector_exact",
                "recall_episode_vector_exact")
SPACE_STATEMENTS = {"recall_vector_space", "recall_vector_space_set", "recall_vector_index",
                    "recall_episode_vector_index", "recall_vector_await",
                    "recall_episode_vector_await"}


@pytest.fixture
def neo4j() -> Iterator[Neo4jStore]:
    """A wiped store whose system time is the tests' clock (day 5), after every turn said."""
    store = Neo4jStore.connect(NEO4J_URI, clock=ManualClock(day(5)))
    store.wipe()
    yield store
    store.close()


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times the store ran each named query (the real queries run; the store's reads
    call ``run_query`` by the name ``sessions`` imported)."""
    counted: Counter[str] = Counter()
    def counting(target: Any, name: str, params: Any, **kwargs: Any) -> Any:
        counted[name] += 1
        return run_query(target, name, params, **kwargs)

    monkeypatch.setattr(sessions, "run_query", counting)
    return counted


def _say(memory: Memory, n: int, value: str) -> None:
    memory.ingest(episode(f"op-{n}", "user", day(n), content=f"I am {value} now",
                          assertions=[fact("u1", "diet", value)]))


def test_a_hybrid_recall_reads_the_space_once_per_store_object(
    neo4j: Neo4jStore, statements: Counter[str]
) -> None:
    embedder = HashingEmbedder()
    memory = Memory(neo4j, clock=ManualClock(day(5)))
    _say(memory, 1, "vegetarian")
    first = memory.recall("vegetarian diet", scope="u1", embedder=embedder)
    assert first.results  # not vacuous: the vector path ran and found the fact
    assert statements["recall_vector_space_set"] == 1  # the first write of vectors claims it
    statements.clear()
    for n in range(2, 5):
        _say(memory, n, f"pescatarian {n}")  # new vectors to write on each recall
        assert memory.recall("pescatarian diet", scope="u1", embedder=embedder).results
    assert statements["recall_vector_put"] + statements["recall_episode_vector_put"] >= 3
    assert {n: statements[n] for n in SPACE_STATEMENTS if statements[n]} == {}


def test_a_store_that_wiped_itself_claims_its_space_again(neo4j: Neo4jStore) -> None:
    """The wipe drops the vector indexes with the data: a remembered space would have the next
    write put vectors where no index is, and the next recall fail on the missing index."""
    embedder = HashingEmbedder()
    memory = Memory(neo4j, clock=ManualClock(day(5)))
    _say(memory, 1, "vegetarian")
    assert memory.recall("vegetarian diet", scope="u1", embedder=embedder).results
    neo4j.wipe()
    _say(memory, 2, "vegan")
    found = memory.recall("vegan diet", scope="u1", embedder=embedder)
    assert found.error is None
    assert found.vector_method is not None
    assert [r.value for r in found.results if r.type == "fact"] == ["vegan"]


def test_another_embedder_is_still_refused_once_the_space_is_known(neo4j: Neo4jStore) -> None:
    memory = Memory(neo4j, clock=ManualClock(day(5)))
    _say(memory, 1, "vegetarian")
    assert memory.recall("vegetarian diet", scope="u1", embedder=HashingEmbedder()).results
    with pytest.raises(EmbedderMismatch, match="hashing-trigram/256"):
        memory.recall("vegetarian diet", scope="u1", embedder=HashingEmbedder(dimensions=64))


def test_a_wipe_by_another_store_object_is_read_again_not_an_error(neo4j: Neo4jStore) -> None:
    """Two processes on one server: one wipes (a developer's reset). The other's remembered
    space names indexes that are gone; its next recall reads the space again instead of
    failing on the missing index."""
    embedder = HashingEmbedder()
    memory = Memory(neo4j, clock=ManualClock(day(5)))
    _say(memory, 1, "vegetarian")
    assert memory.recall("vegetarian diet", scope="u1", embedder=embedder).results
    other = Neo4jStore.connect(NEO4J_URI, clock=ManualClock(day(5)))
    try:
        other.wipe()
    finally:
        other.close()
    found = memory.recall("vegetarian diet", scope="u1", embedder=embedder)
    assert found.error is None
    assert found.results == ()  # the wipe took the fact with it


# -- a small tenant's vectors: scored exactly in one statement ---------------------------------


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
    memory.recall("diet", scope="big", embedder=HashingEmbedder())  # both tenants' vectors written
    memory.recall("diet", scope="u1", embedder=HashingEmbedder())


def _request(below: int) -> RecallRequest:
    return RecallRequest(query="vegetarian diet", scope="u1", at=day(6), known_at=day(6),
                         now=day(6), embedder=HashingEmbedder(), vector_exact_below=below)


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
                                      known_at=day(6), now=day(6), embedder=HashingEmbedder(),
                                      vector_candidates=5, include_episodes=False))
    assert big.vector_method == "hnsw"  # 300 vectors, over 256
    assert statements["recall_vector_query"] == 1
    assert statements["recall_vector_exact"] == 0
    assert len(big.results) >= 5
