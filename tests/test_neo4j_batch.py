"""Batched writes on Neo4j: a batch planned in memory and written with a few UNWIND queries
gives exactly the store that the same episodes give one at a time, on either backend.

The reference is the embedded store fed the same records under the same arrival clock; the
bench workload covers every write path (supersession, retroactive correction, dependency
retirement, owners' events, retraction, restatement, refusals).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from kg_memory import IdempotencyConflict, Memory, ScopeError
from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.workload import POLICY, Workload
from kg_memory.domain.model import Entity
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution import lookup_keys
from kg_memory.services.check import check
from kg_memory.store import touched as touched_module
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.buffered import BufferedUnit
from kg_memory.store.neo4j.plan import BatchPlan
from kg_memory.store.neo4j.tx import Neo4jTransaction
from kg_memory.store.protocol import Store
from tests.conftest import ManualClock

pytestmark = pytest.mark.neo4j


def _records(users: int) -> list[IngestRecord]:
    return list(Workload(users=users, seed=3).records())


def _ingest(memory: Memory, clock: ArrivalClock, records: Sequence[IngestRecord],
            batch_size: int) -> list[Any]:
    reports = []
    it = iter(records)
    while chunk := list(islice(it, batch_size)):
        clock.follow(chunk)
        reports += memory.ingest_many(chunk, batch_size=batch_size)
    return [(r.operation_id, r.status, r.system_time,
             [(e.action, e.key, e.assertion_id) for e in r.effects]) for r in reports]


def _state(store: Store, subjects: list[str]) -> list[Any]:
    """Everything a reader can see: every revision with both intervals, every edge of every
    revision's fact and episode, the refusals."""
    seen: list[Any] = []
    for subject in subjects:
        for v in store.history(subject):
            seen.append((v.assertion_id, v.revision, v.predicate, v.value, v.valid.start,
                         v.valid.end, v.system.start, v.system.end, v.closed_by,
                         v.close_reason, v.depends_on, v.qualifiers))
            seen.append(sorted((e.src, e.type.value, e.dst, e.since)
                               for e in store.edges(v.assertion_id, v.scope)))
            seen.append([(s.episode_id, s.occurred_at)
                         for s in store.supports([v.assertion_id])[v.assertion_id]])
    seen.append(sorted((r.episode_id, r.what, r.reason, r.at) for r in store.refusals()))
    return seen


def test_a_planned_batch_is_the_store_one_at_a_time_gives(
        neo4j: Neo4jStore, tmp_path: Path) -> None:
    records = _records(users=12)
    start = records[0].occurred_at
    subjects = sorted({c.subject for r in records for c in r.assertions})
    embedded_clock = ArrivalClock(start)
    embedded = Memory.open(tmp_path / "ref.db", clock=embedded_clock, policy=POLICY)
    expected = _ingest(embedded, embedded_clock, records, batch_size=40)
    graph_clock = ArrivalClock(start)
    neo4j._clock = graph_clock  # the same arrival clock, read once per episode
    graph = Memory(neo4j, clock=graph_clock, policy=POLICY)
    # Batches of 40 cut the twelve-user steps at other places than a step's end, so later
    # episodes of one batch read what earlier ones of the same batch wrote.
    assert _ingest(graph, graph_clock, records, batch_size=40) == expected
    assert _state(neo4j, subjects) == _state(embedded.store, subjects)
    assert check(neo4j).ok, check(neo4j).violations
    # Redelivered, the whole stream is duplicates, and changes nothing.
    again = _ingest(graph, graph_clock, records, batch_size=70)
    assert {status for _, status, _, _ in again} == {"duplicate"}
    assert _state(neo4j, subjects) == _state(embedded.store, subjects)
    embedded.close()


def test_an_episode_that_fails_in_a_batch_is_dropped_whole_and_its_neighbours_kept(
        neo4j: Neo4jStore, tmp_path: Path) -> None:
    first, second, third = _records(users=3)[:3]
    clock = ArrivalClock(first.occurred_at)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    clock.follow([first])
    memory.ingest_many([first])
    # A reused operation id with another payload fails validation; the batch keeps the rest.
    clash = first.model_copy(update={"content": "another payload"})
    batch = [second, clash, third]
    clock.follow(batch)
    with pytest.raises(IdempotencyConflict):
        memory.ingest_many(batch, batch_size=10)
    # What came before the failure is committed, the failing episode left no trace, and (as
    # on the embedded store) the batch stops there: the caller resends from the failure.
    [kept] = neo4j.scope_episodes(second.scope)
    assert kept.operation_id == second.operation_id
    [untouched] = neo4j.scope_episodes(first.scope)
    assert untouched.content == first.content
    assert neo4j.scope_episodes(third.scope) == []
    assert check(neo4j).ok


def test_a_batch_writes_with_a_handful_of_queries(neo4j: Neo4jStore) -> None:
    """Round trips per batch, not per episode: the prefetch and the flush are a fixed number
    of queries whatever the batch's size."""
    records = _records(users=30)[:60]
    clock = ArrivalClock(records[0].occurred_at)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    ran: list[str] = []
    original = neo4j._run_in

    def counting(tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        ran.append(name)
        return original(tx, name, **params)

    neo4j._run_in = counting  # type: ignore[method-assign]
    clock.follow(records)
    memory.ingest_many(records, batch_size=len(records))
    assert len(records) == 60
    assert len(ran) <= 20, ran


def test_a_batch_of_owners_events_reads_the_retired_facts_entities_with_the_batch(
        neo4j: Neo4jStore) -> None:
    """An owner's event retires a fact about the user, and the retired revision's recall text
    names the user: that entity is read with the batch's prefetch, not one query per episode
    (it was one round trip per user)."""
    users = 30
    records = _records(users=users)
    clock = ArrivalClock(records[0].occurred_at)
    neo4j._clock = clock
    memory = Memory(neo4j, clock=clock, policy=POLICY)
    before, cancels = records[:4 * users], records[4 * users:5 * users]
    assert {r.source for r in cancels} == {"restaurant"}
    _ingest(memory, clock, before, batch_size=len(before))
    ran: list[str] = []
    original = neo4j._run_in

    def counting(tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        ran.append(name)
        return original(tx, name, **params)

    neo4j._run_in = counting  # type: ignore[method-assign]
    reports = _ingest(memory, clock, cancels, batch_size=len(cancels))
    assert all("retired" in [action for action, _, _ in effects]
               for _, _, _, effects in reports), reports
    assert ran.count("batch_entities_of") <= 1, ran
    assert len(ran) <= 20, ran


def test_a_unit_of_work_writes_only_its_own_scope_planned_or_not(neo4j: Neo4jStore) -> None:
    """Both kinds of unit (a transaction of its own, and one planned into a batch) share the
    scope guard: a write for another tenant is refused before anything is written."""
    stranger = Entity(entity_id="ana", type="person", name="Ana", scope="u2")
    with pytest.raises(ScopeError, match="'u1' cannot write to scope 'u2'"), \
            neo4j.transaction("u1") as unit:
        unit.put_entity(stranger)
    with neo4j.batch(), neo4j.transaction("u1") as planned:
        assert not isinstance(planned, Neo4jTransaction)
        with pytest.raises(ScopeError, match="'u1' cannot write to scope 'u2'"):
            planned.put_entity(stranger)
    assert neo4j.entities() == []


def test_a_planned_unit_reads_the_dependents_of_many_keys_together(
    neo4j: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule protected: ``live_dependents_many`` inside a batch reads the stored dependents of
    all its keys with one ``batch_live_dependents`` query per level of the walk's read-ahead,
    not one prefetch (a query per level) per key, and answers what a direct transaction
    answers."""
    clock = ManualClock()
    memory = Memory(neo4j, clock=clock)
    facts = 20
    at = clock.now.isoformat()
    memory.ingest(IngestRecord.model_validate({
        "operation_id": "feed", "source": "tool", "channel": "tool", "occurred_at": at,
        "scope": "u1", "assertions": [
            {"subject": f"feed-{i}", "predicate": "item", "value": i, "kind": "world"}
            for i in range(facts)]}))
    memory.ingest(IngestRecord.model_validate({
        "operation_id": "uses", "source": "tool", "channel": "tool", "occurred_at": at,
        "scope": "u1", "assertions": [
            {"subject": "ana", "predicate": f"likes-{i}", "value": i, "kind": "world",
             "depends_on": [f"feed-{i}", f"fact:feed-{i}/item"]} for i in range(facts)]}))
    items = [v.assertion_id for i in range(facts) for v in neo4j.history(f"feed-{i}", scope="u1")]
    keys = [*(f"feed-{i}" for i in range(facts)), *items, "nobody"]
    with neo4j.transaction("u1") as tx:
        assert isinstance(tx, Neo4jTransaction)
        direct = tx.live_dependents_many(keys)
    ran: list[str] = []
    real = BatchPlan._rows

    def counting(self: BatchPlan, name: str, /, **params: Any) -> list[dict[str, Any]]:
        ran.append(name)
        return real(self, name, **params)

    monkeypatch.setattr(BatchPlan, "_rows", counting)
    with neo4j.batch(), neo4j.transaction("u1") as unit:
        assert isinstance(unit, BufferedUnit)
        planned = unit.live_dependents_many(keys)
    assert list(planned) == keys
    for key in keys:
        assert [(v.assertion_id, v.revision) for v in planned[key]] == [
            (v.assertion_id, v.revision) for v in direct[key]], key
    assert sum(len(found) for found in planned.values()) == 2 * facts  # not vacuous
    # The keys' level and the one below it (the walk's read-ahead, empty here), whatever the
    # number of keys.
    assert ran.count("batch_live_dependents") == 2, ran


def test_a_batch_does_not_compute_the_blocking_keys_it_never_reads(
    neo4j: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule protected: the Neo4j planner prefetches no identity document, so the keys it
    prefetches for a batch leave out each ``resolve`` mention's blocking keys (normalised
    names and phonetic codes, the costly part of a mention's keys); the mentions resolve as
    before."""
    computed: list[str] = []
    real = lookup_keys

    def counting(name: str, *args: Any, **kwargs: Any) -> Any:
        computed.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(touched_module, "lookup_keys", counting)
    memory = Memory(neo4j)
    names = ("Jo Park", "Joanne Park", "Sam Lee")
    reports = memory.ingest_many([IngestRecord.model_validate({
        "operation_id": f"op-{n}", "source": "registry", "channel": "document",
        "occurred_at": "2026-01-05T09:00:00+00:00", "scope": "u1",
        "resolve": [{"key": "p", "name": names[n % 3],
                     "identifiers": {"email": f"{names[n % 3][:2]}@x.org"}}]})
        for n in range(6)])
    assert {r.status for r in reports} == {"accepted"}
    # Not vacuous: each mention resolved (Jo and Joanne Park share an email: one person).
    assert sorted(e.name or "" for e in neo4j.entities("u1")) == ["Jo Park", "Sam Lee"]
    assert computed == []
