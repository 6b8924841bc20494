"""Issue 28: Neo4j batches planned while the previous one commits (kg_memory.store.neo4j.
pipelining), against a real server.

One ``ingest_many`` of several batches plans batch N+1 while N commits on a worker; the stored
graph and the reports must be what one batch per call (nothing in flight) gives, an
acknowledgement must still mean durable when a commit fails, and a writer that commits between
two batches must make the second one planned again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from itertools import islice
from typing import Any

import pytest
from neo4j import GraphDatabase

from kg_memory import IngestRecord, Memory, StoreUnavailable
from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.workload import POLICY, Workload
from kg_memory.domain.ids import episode_id_for
from kg_memory.services.check import check
from kg_memory.services.ingestion import IngestReport
from kg_memory.store.neo4j import Neo4jStore
from tests.conftest import EPOCH, ManualClock, episode, fact
from tests.conftest import NEO4J_URI as URI
from tests.test_neo4j_batch import _state

pytestmark = pytest.mark.neo4j


def _seen(reports: list[IngestReport]) -> list[Any]:
    return [(r.operation_id, r.status, r.system_time,
             [(e.action, e.key, e.assertion_id) for e in r.effects]) for r in reports]


def _committed(records: list[IngestRecord]) -> Iterator[IngestRecord]:
    """``records``, each batch of 40 held back until the one before it is visible to another
    session: the batch then planned reads the server after the commit of the batch it plans
    over (in the natural run its reads may come before that commit)."""
    with GraphDatabase.driver(URI) as other, other.session() as session:
        for n, record in enumerate(records):
            if n and n % 40 == 0:
                while not session.run(
                        "MATCH (e:Episode {operation_id: $op}) RETURN count(e) AS n",
                        op=records[n - 1].operation_id).single(strict=True)["n"]:
                    time.sleep(0.002)
            yield record


@pytest.mark.parametrize("after_commit", [False, True])
def test_many_batches_in_one_call_store_what_one_batch_per_call_stores(
        neo4j: Neo4jStore, after_commit: bool) -> None:
    records = list(Workload(users=12, seed=3).records())
    subjects = sorted({c.subject for r in records for c in r.assertions})
    clock = ArrivalClock(records[0].occurred_at)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    # One batch per call: nothing is ever in flight while a batch is planned.
    expected: list[IngestReport] = []
    it = iter(records)
    while chunk := list(islice(it, 40)):
        clock.follow(chunk)
        expected += memory.ingest_many(chunk, batch_size=40)
    stored = _state(neo4j, subjects)
    neo4j.wipe()
    clock = ArrivalClock(records[0].occurred_at)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    clock.follow(records)
    acknowledged: list[IngestReport] = []
    reports = memory.ingest_many(_committed(records) if after_commit else records,
                                 batch_size=40, on_report=acknowledged.append)
    assert _seen(reports) == _seen(expected)
    assert acknowledged == reports
    assert _state(neo4j, subjects) == stored
    assert check(neo4j).ok, check(neo4j).violations
    # Not vacuous: batches planned over the one in flight closed what it wrote, superseded
    # values and retired what rested on them.
    batch_of = {r.system_time: n // 40 for n, r in enumerate(reports)}
    crossing = {row[9] for row in stored if isinstance(row, tuple) and row[7] is not None
                and batch_of[row[7]] == batch_of[row[6]] + 1}
    assert len(crossing) >= 2, crossing


def _numbered(n: int, scope: str = "u1") -> IngestRecord:
    return episode(f"op-{n}", "user", EPOCH + timedelta(hours=n), scope=scope,
                   assertions=[fact(f"person-{n % 4}", "diet", f"diet-{n}")])


def test_a_failed_commit_acknowledges_nothing_of_its_batch_or_the_next(
        neo4j: Neo4jStore) -> None:
    records = [_numbered(n) for n in range(9)]
    memory = Memory(neo4j, clock=ManualClock(), policy=POLICY)
    conflict = episode_id_for("u1", records[3].operation_id)
    other = GraphDatabase.driver(URI)
    blocker = other.session().begin_transaction()

    def arriving() -> Iterator[IngestRecord]:
        for n, record in enumerate(records):
            if n == 3:
                # While batch 0 commits and before batch 1 is planned: an uncommitted node
                # that batch 1's episode will collide with (the episode_id constraint).
                blocker.run("CREATE (:Episode {episode_id: $id})", id=conflict).consume()
            if n == 6:
                # Batch 1 is in flight (its flush waits on the constraint): make it fail.
                blocker.commit()
            yield record

    acknowledged: list[IngestReport] = []
    try:
        with pytest.raises(StoreUnavailable):
            memory.ingest_many(arriving(), batch_size=3, on_report=acknowledged.append)
        # Batch 0 was acknowledged, and is stored; batch 1 failed and batch 2, planned over
        # it, was never written: neither was acknowledged.
        assert [r.operation_id for r in acknowledged] == ["op-0", "op-1", "op-2"]
        assert sorted(e.operation_id for e in neo4j.scope_episodes("u1")) == [
            "op-0", "op-1", "op-2"]
        with other.session() as session:
            session.run("MATCH (e:Episode {episode_id: $id}) WHERE e.scope IS NULL DELETE e",
                        id=conflict).consume()
        assert check(neo4j).ok, check(neo4j).violations
        # Nothing acknowledged was lost: sent again, it is a duplicate, the rest goes in.
        again = memory.ingest_many(records, batch_size=3)
        assert [r.status for r in again] == ["duplicate"] * 3 + ["accepted"] * 6
    finally:
        other.close()
    assert check(neo4j).ok, check(neo4j).violations


def test_a_writer_between_two_batches_makes_the_second_planned_again(
        neo4j: Neo4jStore) -> None:
    records = [_numbered(n) for n in range(8)]
    between = episode("op-between", "user", EPOCH + timedelta(hours=3, minutes=30),
                      assertions=[fact("person-0", "diet", "between"),
                                  fact("person-3", "diet", "between")])
    subjects = [f"person-{n}" for n in range(4)]
    clock = ManualClock()  # one instant: system times are the order of the commits
    # What a writer between two one-batch calls gives.
    writer = Neo4jStore.connect(URI, clock=clock)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    expected = memory.ingest_many(records[:4], batch_size=4)
    Memory(writer, clock=clock, policy=POLICY).ingest(between)
    expected += memory.ingest_many(records[4:], batch_size=4)
    stored = _state(neo4j, subjects)
    neo4j.wipe()

    def arriving() -> Iterator[IngestRecord]:
        for n, record in enumerate(records):
            if n == 4:
                # Batch 0 is in flight: this writer waits for its commit, then commits before
                # batch 1 takes the lock.
                Memory(writer, clock=clock, policy=POLICY).ingest(between)
            yield record

    try:
        reports = memory.ingest_many(arriving(), batch_size=4)
    finally:
        writer.close()
    assert _seen(reports) == _seen(expected)
    assert _state(neo4j, subjects) == stored
    assert check(neo4j).ok, check(neo4j).violations


def test_a_batch_over_one_in_flight_with_an_unplanned_episode_is_planned_again(
        neo4j: Neo4jStore) -> None:
    """A mention to resolve reads identity documents, which the planner does not plan: in a
    batch planned over one in flight, the whole batch is planned again under the lock, where
    that episode runs on its own."""
    names = ("Jo Park", "Joanne Park", "Sam Lee")
    records = [
        episode(f"op-{n}", "registry", EPOCH + timedelta(hours=n), channel="document",
                assertions=[fact(f"person-{n % 3}", "diet", f"diet-{n}")],
                **({"resolve": [{"key": "p", "name": names[n % 3],
                                 "identifiers": {"email": f"{names[n % 3][:2]}@x.org"}}]}
                   if n % 4 == 1 else {}))
        for n in range(12)]
    subjects = [f"person-{n}" for n in range(3)]
    clock = ManualClock()
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    expected = [r for n in range(0, 12, 4)
                for r in memory.ingest_many(records[n:n + 4], batch_size=4)]
    stored = (_state(neo4j, subjects), sorted(e.name or "" for e in neo4j.entities("u1")))
    neo4j.wipe()
    reports = memory.ingest_many(records, batch_size=4)
    assert _seen(reports) == _seen(expected)
    assert (_state(neo4j, subjects), sorted(e.name or "" for e in neo4j.entities("u1"))) == stored
    assert check(neo4j).ok, check(neo4j).violations
