"""Consolidation under retries: the same basis and content is a duplicate, and a killed worker
leaves nothing half-written.

Rules protected (issue 25, finding 3): re-running a consolidation on unchanged evidence (a
retried worker) is reported as ``duplicate`` with the record already stored, writes nothing
and leaves ``check`` clean; it used to report ``committed`` with a new assertion id that was
never stored, and 4 dangling edges. A worker SIGKILLed at any call inside its publishing
transaction, or just after it committed, then retried, leaves exactly one consolidated
record, its lineage complete, and ``check`` clean, on both backends.

The duplicate test and the kill test failed on the main of 2026-12-05 (5fd1482): the retry
reported ``committed`` under a new id and ``check`` found the dangling edges.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg_memory import Memory
from kg_memory.domain.model import EdgeType, Kind
from tests.conftest import ManualClock, day, episode, fact


def _evidence(memory: Memory, clock: ManualClock) -> list[str]:
    clock.now = day(1)
    report = memory.ingest(episode("p", "user", day(1), scope="acme", assertions=[
        fact("j17", "report_style", "concise", qualifiers={"project": "c1"}),
        fact("j17", "report_tone", "plain", qualifiers={"project": "c1"}),
    ]))
    clock.now = day(2)
    return [e.assertion_id for e in report.effects if e.assertion_id]


def _records(memory: Memory) -> list[str]:
    """Every consolidated revision stored in scope acme (open or closed)."""
    return [f"{v.assertion_id}#{v.revision}" for v in memory.store.history("j17", "profile", "acme")
            if v.kind is Kind.DERIVED]


def _assert_one_clean_record(memory: Memory, evidence: list[str]) -> str:
    report = memory.check()
    assert report.ok, [v.model_dump() for v in report.violations]
    records = _records(memory)
    assert len(records) == 1, records
    record = records[0].partition("#")[0]
    derived_from = {e.dst for e in memory.store.edges(record, "acme")
                    if e.src == record and e.type is EdgeType.DERIVED_FROM}
    assert derived_from == set(evidence)
    return record


def test_a_retried_consolidation_on_unchanged_evidence_is_a_duplicate(
    memory: Memory, clock: ManualClock
) -> None:
    evidence = _evidence(memory, clock)
    first = memory.consolidate("j17", "profile", evidence, scope="acme", project="c1")
    assert first.status == "committed"
    clock.now = day(3)
    again = memory.consolidate("j17", "profile", evidence, scope="acme", project="c1")
    assert again.status == "duplicate"
    assert (again.assertion_id, again.etag, again.value, again.activity_id) == (
        first.assertion_id, first.etag, first.value, first.activity_id)
    assert _assert_one_clean_record(memory, evidence) == first.assertion_id
    # Nothing was written by the retry: one consolidation activity only.
    assert len(memory.store.activities("consolidation", "acme")) == 1


def test_new_evidence_after_a_duplicate_still_publishes_a_revision(
    memory: Memory, clock: ManualClock
) -> None:
    evidence = _evidence(memory, clock)
    first = memory.consolidate("j17", "profile", evidence, scope="acme", project="c1")
    memory.consolidate("j17", "profile", evidence, scope="acme", project="c1")
    clock.now = day(3)
    memory.ingest(episode("q", "user", day(3), scope="acme", assertions=[
        fact("j17", "report_tone", "warm", qualifiers={"project": "c1"})]))
    clock.now = day(4)
    tone = [f.assertion_id for f in memory.asof(scope="acme").facts
            if f.predicate == "report_tone"]
    second = memory.consolidate("j17", "profile", [evidence[0], *tone], scope="acme",
                                project="c1")
    assert second.status == "committed"
    assert second.assertion_id != first.assertion_id
    assert "warm" in str(second.value)
    report = memory.check()
    assert report.ok, [v.model_dump() for v in report.violations]


# --- kills --------------------------------------------------------------------------------

class _Killer:
    """Wraps a store's transactions: the ``at``-th call on a transaction object SIGKILLs this
    process (no rollback, no close: what an OOM kill does). ``at`` of 0 never kills; the calls
    are counted in ``calls``."""

    def __init__(self, memory: Memory, at: int) -> None:
        self.at, self.calls = at, 0
        opened = memory.store.transaction

        @contextmanager
        def transaction(scope: str) -> Iterator[Any]:
            with opened(scope) as tx:
                yield _Proxy(tx, self._tick)

        memory.store.transaction = transaction  # type: ignore[method-assign]

    def _tick(self) -> None:
        self.calls += 1
        if self.calls == self.at:
            os.kill(os.getpid(), signal.SIGKILL)


class _Proxy:
    def __init__(self, tx: Any, tick: Callable[[], None]) -> None:
        self._tx, self._tick = tx, tick

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._tx, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            self._tick()
            return found(*args, **kwargs)

        return call


def _open(backend: str, where: Path, clock: ManualClock) -> Memory:
    if backend == "neo4j":
        from kg_memory.store.neo4j import Neo4jStore

        uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
        return Memory(Neo4jStore.connect(uri, clock=clock), clock=clock)
    return Memory.open(where, clock=clock)


def _run_child(backend: str, where: Path, evidence: list[str], at: int,
               after: bool = False) -> int:
    """Fork a worker that consolidates and is killed at call ``at`` (or just after its
    publish returned, with ``after``); the parent's stores are closed before the fork. Returns
    how many transaction calls the worker made when it was not killed (exit code, capped)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            child = _open(backend, where, ManualClock(day(2)))
            killer = _Killer(child, at)
            child.consolidate("j17", "profile", evidence, scope="acme", project="c1")
            if after:
                os.kill(os.getpid(), signal.SIGKILL)
            code = min(killer.calls, 250)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return -1
    return os.WEXITSTATUS(status)


def _seeded(backend: str, where: Path) -> list[str]:
    clock = ManualClock()
    memory = _open(backend, where, clock)
    try:
        if backend == "neo4j":
            memory.store.wipe()  # type: ignore[attr-defined]
        return _evidence(memory, clock)
    finally:
        memory.close()


def test_a_worker_killed_anywhere_in_consolidation_then_retried_leaves_one_clean_record(
    backend: str, tmp_path: Path
) -> None:
    evidence = _seeded(backend, tmp_path / "count.db")
    calls = _run_child(backend, tmp_path / "count.db", evidence, at=0)
    assert calls > 3  # the publishing transaction was reached and counted
    points = [(at, False) for at in range(1, calls + 1)] + [(0, True)]
    for n, (at, after) in enumerate(points):
        where = tmp_path / f"kill-{n}.db"
        evidence = _seeded(backend, where)
        assert _run_child(backend, where, evidence, at=at, after=after) == -1
        clock = ManualClock(day(3))
        memory = _open(backend, where, clock)
        try:
            # Nothing half-written before the retry: no record, or the whole one.
            report = memory.check()
            assert report.ok, (at, after, [v.model_dump() for v in report.violations])
            assert len(_records(memory)) == (1 if after else 0), (at, after)
            retried = memory.consolidate("j17", "profile", evidence, scope="acme",
                                         project="c1")
            assert retried.status == ("duplicate" if after else "committed"), (at, after)
            assert _assert_one_clean_record(memory, evidence) == retried.assertion_id
            # A second retry is a duplicate too, however the first one ended.
            clock.now = day(4)
            assert memory.consolidate("j17", "profile", evidence, scope="acme",
                                      project="c1").status == "duplicate"
            assert len(_records(memory)) == 1
        finally:
            memory.close()
