"""A memory with a model embeds what it writes, on a worker of its own after the write
returned: the acknowledgement waits for the disk, not for the model; the scope's next recall
finds a just-written message by meaning without embedding a whole import first (and without
embedding a text the worker is embedding); a model that fails never turns a durable,
acknowledged write into an error; closing leaves what was not embedded to the next recall."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

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
    assert memory.wait_embedded("u1", timeout=60)
    assert _backlog(memory, "u1") == 0
    memory.ingest_many([episode(f"op-{n}", "user", day(0), scope=s, content=f"note {n} on tea")
                        for n, s in ((2, "u1"), (3, "u2"), (4, "u2"))])
    assert memory.wait_embedded(timeout=60)
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
    assert memory.wait_embedded(timeout=60)  # the model failed: done, the text still waits
    assert _backlog(memory, "u1") == 1
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
    assert memory.wait_embedded(timeout=60)
    assert _backlog(memory, "u1") == 0


class _Gated:
    """The test embedder, held at a gate: each call waits until the test opens it, and every
    text it embedded is counted, with the thread that embedded it."""

    name = EMBEDDER.name
    dimensions = EMBEDDER.dimensions

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.texts: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        self.entered.set()
        assert self.gate.wait(60), "the test never opened the gate"
        with self._lock:
            self.texts.extend((t, threading.current_thread().name) for t in texts)
        return EMBEDDER.embed(texts)


def test_the_write_returns_before_the_model_has_embedded_it(memory: Memory,
                                                            clock: ManualClock) -> None:
    gated = _Gated()
    memory.use_embedder(gated)
    clock.now = day(1)
    report = memory.ingest(episode("op-1", "user", day(0), scope="u1", content="oat milk"))
    # Returned, durable and readable, while the model has not finished (has not even been let
    # through its gate): the acknowledgement never waited for it.
    assert report.status == "accepted"
    assert gated.entered.wait(60)
    assert [e.content for e in memory.store.episodes([report.episode_id])] == ["oat milk"]
    assert not memory.wait_embedded("u1", timeout=0.05)
    gated.gate.set()
    assert memory.wait_embedded("u1", timeout=60)
    assert _backlog(memory, "u1") == 0
    assert gated.texts == [("oat milk", "kg-memory-vectors")]


def test_a_recall_right_after_a_write_embeds_no_text_twice(memory: Memory,
                                                           clock: ManualClock) -> None:
    gated = _Gated()
    memory.use_embedder(gated)
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="my sister lives in oslo"))
    assert gated.entered.wait(60)  # the worker holds u1's text
    found: list[str] = []
    asker = threading.Thread(target=lambda: found.extend(
        h.content for h in memory.recall("sister oslo", scope="u1", mode="vector").results))
    asker.start()
    gated.gate.set()
    asker.join(60)
    assert found == ["my sister lives in oslo"]
    embedded = [text for text, _ in gated.texts]
    assert embedded.count("my sister lives in oslo") == 1  # by the worker, not again by recall
    assert embedded.count("sister oslo") == 1  # the query, by the asking thread


def test_closing_waits_for_every_queued_scope(tmp_path: Path, clock: ManualClock) -> None:
    gated = _Gated()
    path = tmp_path / "memory.db"
    memory = Memory.open(path, clock=clock, embedder=gated)
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="tea at four"))
    assert gated.entered.wait(60)  # u1 in hand, u2 queued behind it
    memory.ingest(episode("op-2", "user", day(0), scope="u2", content="coffee at noon"))
    closing = threading.Thread(target=memory.close)
    closing.start()
    gated.gate.set()
    closing.join(60)
    assert not closing.is_alive()
    assert sorted(text for text, _ in gated.texts) == ["coffee at noon", "tea at four"]
    with Memory.open(path, clock=clock, embedder=EMBEDDER) as again:
        assert _backlog(again, "u1") == _backlog(again, "u2") == 0


def test_a_failed_model_does_not_stop_the_worker(memory: Memory, clock: ManualClock) -> None:
    memory.use_embedder(_Down())
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="rain today"))
    assert memory.wait_embedded(timeout=60)
    memory.use_embedder(EMBEDDER)
    memory.ingest(episode("op-2", "user", day(0), scope="u1", content="sun tomorrow"))
    assert memory.wait_embedded(timeout=60)
    assert _backlog(memory, "u1") == 0  # the later write's turn embedded the earlier text too


def test_a_recall_never_waits_behind_another_scope(memory: Memory, clock: ManualClock) -> None:
    gated = _Gated()
    memory.use_embedder(gated)
    clock.now = day(1)
    memory.ingest(episode("op-1", "user", day(0), scope="u1", content="a long import"))
    assert gated.entered.wait(60)  # the worker is stuck on u1
    memory.ingest(episode("op-2", "user", day(0), scope="u2", content="lemon cake"))
    clock.now = day(2)
    # With the gate still shut: u2 is taken off the worker's queue and embedded here.
    hits = memory.recall("lemon cake", scope="u2", mode="vector", embedder=EMBEDDER).results
    assert [h.content for h in hits] == ["lemon cake"]
    gated.gate.set()
    assert memory.wait_embedded(timeout=60)
    assert [text for text, _ in gated.texts] == ["a long import"]
    assert _backlog(memory, "u1") == _backlog(memory, "u2") == 0


def test_threads_that_make_the_first_vectors_at_once_all_succeed(memory: Memory,
                                                                 clock: ManualClock) -> None:
    """The first vectors of a store create its vector indexes (on Neo4j, `CREATE ... IF NOT
    EXISTS`): a memory's worker and recalls on other threads may all do it at the same moment,
    and the server then refuses every statement but one as "already exists"."""
    clock.now = day(1)
    scopes = [f"u{n}" for n in range(6)]
    memory.ingest_many([episode(f"op-{s}", "user", day(0), scope=s, content=f"kettle in {s}")
                        for s in scopes])
    clock.now = day(2)
    start = threading.Barrier(len(scopes))
    errors: list[BaseException] = []
    found: dict[str, list[str]] = {}

    def ask(scope: str) -> None:
        try:
            start.wait(30)
            found[scope] = [h.content for h in memory.recall(
                "kettle", scope=scope, mode="vector", embedder=EMBEDDER).results]
        except BaseException as exc:  # reported below, every thread's
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(s,)) for s in scopes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert found == {s: [f"kettle in {s}"] for s in scopes}
