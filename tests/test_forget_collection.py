"""A forget run holds off Python's cyclic garbage collector, and gives it back as it found it.

A cascade allocates tens of thousands of short-lived objects that reference counting frees;
the collector's passes over them, and the full passes over the whole process they set off,
were about a sixth of the run's CPU (:mod:`kg_memory.services.collection`). These tests pin the
behaviour: no automatic collection starts inside a forget, the collector is back afterwards
(after a failure too), a caller that disabled it keeps it disabled, and nested holds release it
only at the outermost exit. Embedded only: what is tested is the process, not the backend.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory
from kg_memory.domain.errors import NotFound
from kg_memory.services.collection import paused_collection
from tests.conftest import ManualClock, day, episode, fact


@pytest.fixture
def started() -> Iterator[list[int]]:
    """The generation of every automatic collection that starts while the test runs."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def _cascade(memory: Memory, clock: ManualClock, n: int = 400) -> None:
    clock.now = day(1)
    memory.ingest(episode("feed", "tool", day(1), scope="u1", assertions=[
        fact(f"feed-{i}", "item", f"item {i}", kind="world") for i in range(n)]))


def test_a_forget_starts_no_collection_and_gives_the_collector_back(
        tmp_path: Path, started: list[int]) -> None:
    clock = ManualClock(day(0))
    with Memory.open(tmp_path / "m.db", clock=clock) as memory:
        _cascade(memory, clock)
        assert gc.isenabled()
        gc.collect()  # nothing due before the run starts
        started.clear()
        report = memory.forget("source:tool@u1")
        during = list(started)
        assert len(report.plan.delete) == 400
        # At most the one young collection deferred to the end of the hold (before it: a
        # dozen and more, young and older).
        assert during in ([], [0])
        assert gc.isenabled()


def test_a_failed_forget_gives_the_collector_back(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db", clock=ManualClock(day(0))) as memory, \
            pytest.raises(NotFound):
        memory.forget("episode:ep_nothing@u1")
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    with Memory.open(tmp_path / "m.db", clock=clock) as memory:
        _cascade(memory, clock, 20)
        gc.disable()
        try:
            memory.forget("source:tool@u1")
            assert not gc.isenabled()
        finally:
            gc.enable()


def test_nested_holds_release_the_collector_at_the_outermost_exit() -> None:
    with paused_collection():
        with paused_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
