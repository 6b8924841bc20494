"""Conversation turns as plain episodes: what an agent writes most, against the floor.

An agent's memory takes a turn after every message: content only, no facts. Issue 28 asks two
things of that path, each measured here against a reference in the same process:

* **batched**, through ``Memory.ingest_many`` (one durable commit per ``batch_size`` turns),
  against raw ``executemany`` into a table plus its FTS5 index, with the same durability (WAL,
  ``synchronous=FULL``) and the same number of commits: a ratio (goal: at least 0.25x);
* **one at a time**, through ``Memory.ingest`` as an agent writes them (a durable commit each),
  against one raw insert into the same table and index and its commit: the median of each
  (goal: at most 0.5 ms for ``Memory.ingest``; the raw median says what the disk's commit costs
  on the machine that ran it).

The turns are made of a fixed vocabulary by a seeded generator, so two runs write the same
text. Both sides are counted afterwards: the store's episodes and the reference's rows must be
every turn written (``answers_agree``).
"""

from __future__ import annotations

import random
import time
from datetime import datetime, timedelta
from pathlib import Path

from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.latency import LatencyStats
from kg_memory.bench.result import TurnFigures
from kg_memory.domain.record import IngestRecord
from kg_memory.services.memory import Memory
from kg_memory.store.sqlite import driver

__all__ = ["TurnFigures", "measure_turns", "turn_texts"]

_WORDS = (
    "we talked about the trip to lisbon and the hotel near the river; she prefers trains over "
    "flights, dislikes early mornings, and asked whether the museum opens on monday. my "
    "brother bakes bread every weekend, the kids play football after school, our budget for "
    "dinner is small this month, remind me to call the dentist about the appointment, the "
    "garden needs water while we are away, and the new job starts in september with a long "
    "commute"
).replace(",", "").replace(".", "").replace(";", "").split()


def turn_texts(count: int, seed: int = 0) -> list[str]:
    """``count`` turns of 8-24 words each, the same for the same ``seed``."""
    rng = random.Random(seed)
    return [" ".join(rng.choices(_WORDS, k=rng.randint(8, 24))) for _ in range(count)]


def _records(texts: list[str], start: datetime, prefix: str) -> list[IngestRecord]:
    return [IngestRecord.model_validate({
        "operation_id": f"{prefix}-{i}", "source": "user", "channel": "chat",
        "scope": f"chat-{i % 10}", "occurred_at": (start + timedelta(seconds=i)).isoformat(),
        "content": text}) for i, text in enumerate(texts)]


class _RawTurns:
    """The floor: a table of turns and an FTS5 index over their content, durable commits."""

    def __init__(self, path: Path) -> None:
        self.conn = driver.connect(str(path), isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute("CREATE TABLE turns (rid INTEGER PRIMARY KEY, operation_id TEXT "
                          "UNIQUE, scope TEXT, occurred_at INTEGER, content TEXT)")
        self.conn.execute("CREATE VIRTUAL TABLE turns_fts USING fts5(content)")

    def write(self, rows: list[tuple[int, str, str, int, str]]) -> int:
        """One durable commit of ``rows``; the nanoseconds it took."""
        start = time.perf_counter_ns()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany("INSERT INTO turns VALUES (?, ?, ?, ?, ?)", rows)
        self.conn.executemany("INSERT INTO turns_fts (rowid, content) VALUES (?, ?)",
                              [(r[0], r[4]) for r in rows])
        self.conn.execute("COMMIT")
        return time.perf_counter_ns() - start

    def count(self) -> int:
        found: int = self.conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        return found

    def close(self) -> None:
        self.conn.close()


def _raw_rows(texts: list[str], first: int, prefix: str) -> list[tuple[int, str, str, int, str]]:
    return [(first + i, f"{prefix}-{i}", f"chat-{i % 10}", i, text)
            for i, text in enumerate(texts)]


def _episodes(store_file: Path) -> int:
    conn = driver.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        found: int = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
        return found
    finally:
        conn.close()


def measure_turns(workdir: Path, start: datetime, *, turns: int = 20_000, singles: int = 1_000,
                  batch_size: int = 500, seed: int = 0) -> TurnFigures:
    """Write ``turns`` turns batched and ``singles`` more one at a time, into a fresh store
    and into the raw reference, in ``workdir``; see the module docstring."""
    batched_texts = turn_texts(turns, seed)
    single_texts = turn_texts(singles, seed + 1)
    store_file = workdir / "turns.db"
    clock = ArrivalClock(start)
    batched_ns = 0
    single_ns: list[int] = []
    with Memory.open(store_file, clock=clock, embedder="none") as memory:
        records = _records(batched_texts, start, "batched")
        for at in range(0, len(records), batch_size):
            chunk = records[at:at + batch_size]
            clock.follow(chunk)
            began = time.perf_counter_ns()
            memory.ingest_many(chunk, batch_size=batch_size)
            batched_ns += time.perf_counter_ns() - began
        for record in _records(single_texts, start + timedelta(seconds=turns), "single"):
            clock.follow([record])
            began = time.perf_counter_ns()
            memory.ingest(record)
            single_ns.append(time.perf_counter_ns() - began)
    with_model, model = _singles_with_model(workdir / "turns-model.db", single_texts,
                                            start + timedelta(seconds=turns))
    raw = _RawTurns(workdir / "turns-raw.db")
    try:
        rows = _raw_rows(batched_texts, 1, "batched")
        raw_batched_ns = sum(raw.write(rows[at:at + batch_size])
                             for at in range(0, len(rows), batch_size))
        raw_single_ns = [raw.write([row])
                         for row in _raw_rows(single_texts, turns + 1, "single")]
        raw_count = raw.count()
    finally:
        raw.close()
    batched_rate = turns / (batched_ns / 1e9)
    raw_rate = turns / (raw_batched_ns / 1e9)
    one, raw_one = LatencyStats.of_ns(single_ns), LatencyStats.of_ns(raw_single_ns)
    return TurnFigures(
        turns=turns, singles=singles, batch_size=batch_size,
        batched_per_second=batched_rate, executemany_per_second=raw_rate,
        batched_vs_executemany=batched_rate / raw_rate,
        one_at_a_time=one, raw_one_at_a_time=raw_one,
        one_vs_raw=one.median_us / raw_one.median_us,
        answers_agree=_episodes(store_file) == raw_count == turns + singles,
        one_with_model=with_model, model=model,
    )


def _singles_with_model(store_file: Path, texts: list[str], start: datetime
                        ) -> tuple[LatencyStats | None, str | None]:
    """The one-at-a-time turns again, into a store opened as an application opens it: with
    the default model when there is one (``$KG_MEMORY_EMBEDDER``, else the shipped model of
    the ``embed`` extra). Closing waits for the vectors, outside the timed calls."""
    clock = ArrivalClock(start)
    with Memory.open(store_file, clock=clock) as memory:
        if memory.embedder is None:
            return None, None
        elapsed: list[int] = []
        for record in _records(texts, start, "model"):
            clock.follow([record])
            began = time.perf_counter_ns()
            memory.ingest(record)
            elapsed.append(time.perf_counter_ns() - began)
        return LatencyStats.of_ns(elapsed), memory.embedder.name
