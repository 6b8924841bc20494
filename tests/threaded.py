"""The workload of the shared-object tests: threads writing through one ``Memory``.

Each thread ``t`` writes its own counter ``w{t}.n`` in every tenant and, on every episode, the
tenant's contended slot ``shared.last`` (every thread supersedes it, so the rules that close
and open intervals run under contention). After each acknowledgement the thread reads its own
counter back: a read older than the write it was just told about is a failure. Used in-process
by tests/test_threads.py and, killed mid-run, by the ``threaded_writers`` child of
tests/procs.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from kg_memory import IngestRecord, IngestReport, Memory

__all__ = ["EPOCH", "Outcome", "missing", "parse_ack", "record", "run_writers", "writer"]

EPOCH = datetime(2026, 1, 5, tzinfo=UTC)


def record(thread: int, n: int, scope: str) -> IngestRecord:
    """Episode ``n`` of thread ``thread`` in ``scope``: its counter at ``n``, the shared slot
    naming it."""
    return IngestRecord.model_validate({
        "operation_id": f"t{thread}-{scope}-{n}", "source": "user", "channel": "chat",
        "scope": scope, "occurred_at": (EPOCH + timedelta(seconds=n)).isoformat(),
        "content": f"thread {thread} says {n}",
        "assertions": [
            {"subject": f"w{thread}", "predicate": "n", "value": n, "kind": "stated"},
            {"subject": "shared", "predicate": "last", "value": f"t{thread}-{n}",
             "kind": "stated"},
        ],
        "entities": [{"entity_id": f"w{thread}", "name": f"Writer {thread}", "type": "thing"}],
    })


@dataclass
class Outcome:
    """What the threads were told and what they saw."""

    #: scope -> thread -> the counter values acknowledged, in order.
    acked: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Told of every problem as it happens (a child process that will be killed says it).
    tell: Callable[[str], None] | None = None

    def ack(self, scope: str, thread: int, n: int) -> None:
        with self.lock:
            self.acked.setdefault(scope, {}).setdefault(thread, []).append(n)

    def problem(self, found: list[str], text: str) -> None:
        with self.lock:
            found.append(text)
        if self.tell is not None:
            self.tell(text)


def writer(memory: Memory, thread: int, scopes: list[str], count: int, outcome: Outcome,
           on_ack: Callable[[IngestReport], None] | None = None) -> None:
    """``count`` episodes per scope, through ``memory.scoped``; every third step a batch of two
    through ``ingest_many``. After each acknowledgement, read the counter back."""
    handles = {scope: memory.scoped(scope) for scope in scopes}
    n = 0
    while n < count:
        for offset in range(len(scopes)):
            scope = scopes[(thread + n + offset) % len(scopes)]
            handle = handles[scope]
            batch = [record(thread, n, scope)]
            if n % 3 == 2 and n + 1 < count:
                batch.append(record(thread, n + 1, scope))
            try:
                reports = handle.ingest_many(batch, on_report=on_ack)
            except Exception as exc:  # every error is a finding: the test lists them
                outcome.problem(outcome.errors,
                                f"thread {thread} {scope} {n}: {type(exc).__name__}: {exc}")
                continue
            for report in reports:
                if report.status != "accepted":
                    outcome.problem(outcome.errors, f"{report.operation_id}: {report.status}")
            last = n + len(batch) - 1
            for done in range(n, last + 1):
                outcome.ack(scope, thread, done)
            seen = handle.asof(subject=f"w{thread}", predicate="n").values()
            if seen != [last]:
                outcome.problem(outcome.stale,
                                f"thread {thread} {scope}: wrote {last}, read {seen}")
        n += 2 if n % 3 == 2 and n + 1 < count else 1


def run_writers(memory: Memory, threads: int, scopes: list[str], count: int,
                outcome: Outcome | None = None,
                on_ack: Callable[[IngestReport], None] | None = None, first: int = 0
                ) -> Outcome:
    """Start ``threads`` writers (numbered from ``first``) together on one ``memory`` and
    wait for them."""
    outcome = outcome or Outcome()
    start = threading.Barrier(threads)

    def body(thread: int) -> None:
        start.wait()
        writer(memory, thread, scopes, count, outcome, on_ack)

    workers = [threading.Thread(target=body, args=(t,)) for t in range(first, first + threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return outcome


def missing(memory: Memory, acked: dict[str, dict[int, list[int]]]) -> list[str]:
    """The acknowledged counter values the store does not hold."""
    lost: list[str] = []
    for scope, threads in acked.items():
        for thread, values in threads.items():
            stored = {h.version.value for h in memory.history(f"w{thread}", "n", scope=scope)}
            lost.extend(f"{scope}/w{thread}={n}" for n in values if n not in stored)
    return lost


def parse_ack(operation_id: str) -> tuple[str, int, int]:
    """``(scope, thread, n)`` of an operation id made by :func:`record`."""
    thread, scope, n = operation_id.split("-")
    return scope, int(thread.removeprefix("t")), int(n)
