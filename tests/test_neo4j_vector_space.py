"""Neo4j's vector space is read once per store object, and a wipe forgets it.

A store's vectors are all of one embedder (its name and dimensions, the *space*); another is
refused, never mixed. The adapter used to read the space before each of a hybrid recall's
vector reads (five statements a recall) and to claim it, make both vector indexes and wait for
them on every write of vectors. A space is set once and only a wipe clears it, so the store
object remembers what it read or claimed; these tests hold the statements to that and show
that the memory keeps every guarantee the reads gave: a wipe through the object claims the
space again, and another embedder is still refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kg_memory import EmbedderMismatch, HashingEmbedder, Memory
from kg_memory.store.neo4j import Neo4jStore, sessions
from kg_memory.store.neo4j.tx import run_query
from tests.conftest import NEO4J_URI, ManualClock, day, episode, fact

pytestmark = pytest.mark.neo4j

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
