"""A memory with a model embeds what it writes before the write returns: the scope's next
recall finds a just-written message by meaning without embedding a whole import first, and a
model that fails never turns a durable, acknowledged write into an error."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kg_memory import Memory, StoreUnavailable
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.services.recall_vectors import vector_space
from tests.conftest import ManualClock, day, episode, fact

EMBEDDER = HashingEmbedder()


class _Down:
    """An embedder whose endpoint is down (as the OpenAI adapter reports it)."""

    name = EMBEDDER.name
    dimensions = EMBEDDER.dimensions

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        raise StoreUnavailable("embeddings endpoint unreachable")


def _backlog(memory: Memory, scope: str) -> int:
    return len(memory.store.vector_backlog(scope, vector_space(EMBEDDER), 100))


def test_ingest_and_ingest_many_leave_nothing_to_embed(memory: Memory,
                                                       clock: ManualClock) -> None:
    memory.use_embedder(EMBEDDER)
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="my vegetarian recipes",
                          assertions=[fact("u1", "diet", "vegetarian")]))
    assert _backlog(memory, "u1") == 0
    memory.ingest_many([episode(f"op-{n}", "user", day(0), scope=s, content=f"note {n} on tea")
                        for n, s in ((2, "u1"), (3, "u2"), (4, "u2"))])
    assert _backlog(memory, "u1") == _backlog(memory, "u2") == 0
    answer = memory.recall("vegetarian recipe", scope="u1", mode="vector")
    assert "my vegetarian recipes" in [h.content for h in answer.results]


def test_a_memory_without_a_model_leaves_the_backlog_to_recall(memory: Memory,
                                                               clock: ManualClock) -> None:
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="tea in the morning"))
    assert _backlog(memory, "u1") == 1  # enrolled by the read, still waiting for a vector
    answer = memory.recall("tea", scope="u1", embedder=EMBEDDER, mode="vector")
    assert [h.content for h in answer.results] == ["tea in the morning"]
    assert _backlog(memory, "u1") == 0


def test_a_failing_model_does_not_fail_the_acknowledged_write(memory: Memory,
                                                              clock: ManualClock) -> None:
    memory.use_embedder(_Down())
    clock.now = day(1)
    report = memory.ingest(episode("op-1", "user", day(0), scope="u1", content="coffee, black"))
    assert report.status == "accepted"
    [again] = memory.ingest_many([episode("op-1", "user", day(0), scope="u1",
                                          content="coffee, black")])
    assert again.status == "duplicate"  # stored: the retry finds it
    with pytest.raises(StoreUnavailable):  # where an answer depends on the model, it says so
        memory.recall("coffee", scope="u1")
    memory.use_embedder(EMBEDDER)
    assert [h.content for h in memory.recall("coffee", scope="u1").results] == [
        "coffee, black"]


def test_an_imported_history_is_embedded_as_it_is_imported(memory: Memory,
                                                           clock: ManualClock) -> None:
    memory.use_embedder(EMBEDDER)
    clock.now = day(5)
    memory.import_history([episode(f"op-{n}", "user", day(n), scope="u1",
                                   content=f"day {n}: a walk by the river") for n in range(3)],
                          by="importer")
    assert _backlog(memory, "u1") == 0
