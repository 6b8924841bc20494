"""The bench's arrival clock fed as a stream (`ArrivalClock.arriving`): one `ingest_many` of a
whole workload, without the workload in memory, writes every episode at the system time a
`follow` per batch gives it, so the Neo4j direct writes (one call, pipelined) measure what the
embedded run stored."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

from kg_memory import Memory
from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.workload import POLICY, Workload


def test_a_stream_gets_the_system_times_a_follow_per_batch_gives(tmp_path: Path) -> None:
    records = list(Workload(users=4, seed=5).records())
    assert len(records) > 3 * 7  # several batches, and a last one that is not full

    clock = ArrivalClock(records[0].occurred_at)
    followed = []
    with Memory.open(tmp_path / "followed.db", clock=clock, policy=POLICY,
                     embedder="none") as memory:
        it = iter(records)
        while chunk := list(islice(it, 7)):
            clock.follow(chunk)
            followed += memory.ingest_many(chunk, batch_size=7)

    clock = ArrivalClock(records[0].occurred_at)
    with Memory.open(tmp_path / "streamed.db", clock=clock, policy=POLICY,
                     embedder="none") as memory:
        streamed = memory.ingest_many(clock.arriving(iter(records)), batch_size=7)

    assert [r.system_time for r in streamed] == [r.system_time for r in followed]
    assert [r.status for r in streamed] == ["accepted"] * len(records)
    # System time is arrival time: each episode is written at its own occurred_at, or just
    # after the one before it when two arrive at the same instant.
    assert all(r.system_time is not None and r.system_time >= rec.occurred_at
               for r, rec in zip(streamed, records, strict=True))
