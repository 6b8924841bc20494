"""Child processes for the durability and concurrency tests: real, separate OS processes.

Run as ``python -m tests.procs NAME ARGS...`` from the repository root. Each child reports on
stdout (one line per event, flushed) so the parent can wait for a state before it acts, and
acknowledgements go to a file with unbuffered appends, which survive the child's SIGKILL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kg_memory.store.sqlite import driver

ROOT = Path(__file__).resolve().parents[1]
EPOCH = datetime(2026, 1, 5, tzinfo=UTC)


def line(n: int, *, scope: str = "u1", shared: int = 7) -> dict[str, Any]:
    """Ingest line ``n`` of a deterministic stream: a few facts, some on shared slots, so an
    episode supersedes earlier ones and an episode written in part would show."""
    when = EPOCH + timedelta(minutes=n)
    return {
        "operation_id": f"op-{n:06d}",
        "source": "user",
        "channel": "chat",
        "occurred_at": when.isoformat(),
        "scope": scope,
        "content": f"episode {n}",
        "assertions": [
            {"subject": f"s{n % shared}", "predicate": "value", "value": n, "kind": "stated"},
            {"subject": f"t{n}", "predicate": "first", "value": f"v{n}", "kind": "stated"},
            {"subject": f"t{n}", "predicate": "second", "value": n * 2, "kind": "stated"},
        ],
    }


def write_input(path: Path, count: int, start: int = 0) -> list[str]:
    """A JSONL file of lines ``start..start+count``; returns their operation ids in order."""
    rows = [line(n) for n in range(start, start + count)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [r["operation_id"] for r in rows]


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class AckLog:
    """Appends ``operation_id<TAB>status`` lines with one ``write(2)`` each: once the call
    returned, the kernel has the bytes, and a SIGKILL of this process cannot take them back."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.count = 0

    def ack(self, operation_id: str, status: str) -> None:
        os.write(self._fd, f"{operation_id}\t{status}\n".encode())
        self.count += 1


def read_acks(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    rows = []
    for text in path.read_text(encoding="utf-8").splitlines():
        op, sep, status = text.partition("\t")
        if sep:  # a torn last line (killed mid-write) acknowledges nothing
            rows.append((op, status))
    return rows


def hold_write_lock(db: str, seconds: str) -> None:
    """Take the store's write lock (BEGIN IMMEDIATE plus a write), say so, hold it."""
    conn = driver.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
    say("locked")
    time.sleep(float(seconds))
    conn.execute("COMMIT")
    say("released")


def ingest_then_hang(db: str, source: str, acks: str, batch: str, ready_after: str) -> None:
    """``ingest_many`` with acknowledgements; after ``ready_after`` of them, hang (be killed)."""
    from kg_memory import Memory, read_records

    log = AckLog(Path(acks))
    ready = int(ready_after)

    def on_report(report: Any) -> None:
        log.ack(report.operation_id, report.status)
        if log.count == ready:
            say("ready")
            time.sleep(600)

    with Memory.open(db) as memory:
        memory.ingest_many(read_records(Path(source)), batch_size=int(batch), on_report=on_report)
    say("done")


def counter_writer(db: str, name: str, increments: str, go: str = "", blind: str = "") -> None:
    """Increment ``u1/counter.value`` ``increments`` times with If-Match, retrying conflicts
    (``blind``: without a precondition, to show what is lost without one). Starts when the
    file ``go`` exists, so that all writers race from the same moment."""
    from kg_memory import ConcurrencyError, IngestRecord, Memory, StoreBusy

    done = conflicts = busy = attempt = 0
    while go and not Path(go).exists():
        time.sleep(0.001)
    with Memory.open(db, create=False, busy_timeout=5) as memory:
        while done < int(increments):
            attempt += 1
            tag = memory.etag("counter", "value", scope="u1")
            current = memory.asof(subject="counter", predicate="value", scope="u1").values()
            value = int(current[0]) + 1 if current else 1
            record = IngestRecord.model_validate({
                "operation_id": f"{name}-{attempt}", "source": "user", "channel": "chat",
                "occurred_at": EPOCH.isoformat(), "scope": "u1",
                "content": f"{name} counts {value}",
                "assertions": [{"subject": "counter", "predicate": "value", "value": value,
                                "kind": "stated", **({} if blind else {"if_match": tag})}],
            })
            try:
                memory.ingest(record)
            except ConcurrencyError:
                conflicts += 1
                continue
            except StoreBusy:
                busy += 1
                continue
            done += 1
    say(json.dumps({"writer": name, "done": done, "conflicts": conflicts, "busy": busy}))


def threaded_writers(target: str, acks: str, threads: str, first: str, ready_after: str
                     ) -> None:
    """Several writer threads over one ``Memory`` (tests/threaded.py), each acknowledgement
    appended to ``acks`` once durable; say ``ready`` after ``ready_after`` of them and keep
    writing until killed. Every problem a thread meets is said at once (``problem ...``)."""
    import threading

    from kg_memory import Memory
    from tests.threaded import Outcome, run_writers

    log, lock, ready = AckLog(Path(acks)), threading.Lock(), int(ready_after)

    def on_ack(report: Any) -> None:
        with lock:
            log.ack(report.operation_id, report.status)
            if log.count == ready:
                say("ready")

    outcome = Outcome(tell=lambda text: say(f"problem {text}"))
    with Memory.open(target) as memory:
        run_writers(memory, int(threads), ["u1", "u2", "u3"], 10_000, outcome, on_ack,
                    first=int(first))
    say("done")


def spawn(name: str, *args: object) -> subprocess.Popen[str]:
    """Start ``python -m tests.procs NAME ARGS`` as a separate process."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.procs", name, *map(str, args)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for(proc: subprocess.Popen[str], word: str) -> None:
    """Block until the child prints ``word`` (it failed if it exits first)."""
    assert proc.stdout is not None
    for text in _lines(proc):
        if text.strip() == word:
            return
    raise AssertionError(f"child exited ({proc.wait()}) before {word!r}: {proc.stderr.read()}"
                         if proc.stderr else f"child exited before {word!r}")


def _lines(proc: subprocess.Popen[str]) -> Iterator[str]:
    assert proc.stdout is not None
    yield from proc.stdout


CHILDREN: dict[str, Callable[..., None]] = {
    "hold_write_lock": hold_write_lock,
    "ingest_then_hang": ingest_then_hang,
    "counter_writer": counter_writer,
    "threaded_writers": threaded_writers,
}

if __name__ == "__main__":
    CHILDREN[sys.argv[1]](*sys.argv[2:])
