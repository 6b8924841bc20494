"""``KgMemoryStore.search(query=...)`` eligibility-first, and what the store refuses up front.

Issue 26: with more than 100 candidate items a query search returned ``[]`` (recall was asked
for more than its limit and the error read as "no match"), and a namespace prefix or filter was
applied after recall had kept the tenant's top N, so the namespace's only match was missed.
Issue 27 finding 10: ``KgMemoryStore(memory, source="restaurant")`` against docs/agents.md, and
``put(ns, k, "string")`` failing with Python's ``dict()`` message.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

pytest.importorskip("langgraph.store.base",
                    reason="needs the kg-memory-bitemporal[langgraph] extra")

from langgraph.store.base import PutOp

from kg_memory import InvalidArgument, PolicyError, WriteRefused
from kg_memory.integrations.langgraph import KgMemoryStore
from tests.conftest import ManualClock, MemoryFactory, day

DILUTED = "mmm " + " ".join(f"word{i}" for i in range(30))


class TickingClock(ManualClock):
    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def store(make_memory: MemoryFactory) -> KgMemoryStore:
    clock = TickingClock(day(0))
    return KgMemoryStore(make_memory(clock), clock=clock)


def test_more_than_a_hundred_candidates_still_answer(store: KgMemoryStore) -> None:
    store.batch([PutOp(("u1", "notes"), f"n{i:03}", {"text": f"mmm note {i}"})
                 for i in range(130)])
    top = store.search(("u1", "notes"), query="mmm", limit=10)
    assert len(top) == 10
    every = store.search(("u1", "notes"), query="mmm", limit=200)
    assert sorted(i.key for i in every) == [f"n{i:03}" for i in range(130)]
    # A page past recall's 100 results is the same ranking's slice, not [] and no repeats.
    page = store.search(("u1", "notes"), query="mmm", offset=95, limit=30)
    assert [i.key for i in page] == [i.key for i in every[95:125]]
    assert all(i.score is not None and 0 < i.score <= 1 for i in every)


def test_the_namespace_restricts_the_candidates_before_ranking(store: KgMemoryStore) -> None:
    store.batch([PutOp(("u1", "other"), f"o{i}", {"text": "mmm mmm mmm"}) for i in range(12)]
                + [PutOp(("u1", "notes"), "only", {"text": DILUTED})])
    found = store.search(("u1", "notes"), query="mmm")
    assert [(i.namespace, i.key) for i in found] == [(("u1", "notes"), "only")]
    assert found[0].score == 1.0
    # The whole tenant still ranks the strong matches first.
    assert store.search(("u1",), query="mmm", limit=1)[0].namespace == ("u1", "other")


def test_the_filter_restricts_the_candidates_before_ranking(store: KgMemoryStore) -> None:
    store.batch([PutOp(("u1", "notes"), f"o{i}", {"text": "mmm mmm mmm", "tag": "a"})
                 for i in range(12)]
                + [PutOp(("u1", "notes"), "tagged", {"text": DILUTED, "tag": "b"})])
    found = store.search(("u1",), query="mmm", filter={"tag": "b"})
    assert [i.key for i in found] == ["tagged"]
    assert store.search(("u1",), query="zzz", filter={"tag": "b"}) == []
    assert store.search(("u1",), query="?!") == []  # no searchable word: nothing bears on it


def test_another_tenants_items_are_never_candidates(store: KgMemoryStore) -> None:
    store.batch([PutOp(("u2", "notes"), f"t{i}", {"text": "mmm mmm"}) for i in range(5)]
                + [PutOp(("u1", "notes"), "mine", {"text": DILUTED})])
    assert [i.key for i in store.search(("u1",), query="mmm", limit=50)] == ["mine"]


def test_a_source_that_may_not_use_the_channel_is_told_which_it_may(
    make_memory: MemoryFactory
) -> None:
    """docs/agents.md: the channel policy decides at construction, and says what would work;
    the documented gate example (the restaurant over its webhook) stores, audits, refuses."""
    clock = TickingClock(day(0))
    memory = make_memory(clock)
    with pytest.raises(PolicyError, match=r"'restaurant' may write over webhook.*"
                       r"pass channel='webhook'"):
        KgMemoryStore(memory, source="restaurant", clock=clock)
    restaurant = KgMemoryStore(memory, source="restaurant", channel="webhook", clock=clock)
    with pytest.raises(WriteRefused, match="deposit_preapproved"):
        restaurant.put(("u1", "u1"), "deposit_preapproved", {"value": "yes"})
    [refusal] = memory.refusals("u1")
    assert refusal.source == "restaurant"
    # The episode is kept (lineage of an unknown id is NotFound).
    assert refusal.episode_id in memory.lineage(refusal.episode_id, "up", scope="u1")


@pytest.mark.parametrize("value", ["string", 3, ["a"], ("t",)])
def test_a_value_that_is_not_a_dict_is_an_invalid_argument(store: KgMemoryStore,
                                                           value: object) -> None:
    with pytest.raises(InvalidArgument, match=r"put \('u1', 'ana'\) 'diet': an item's value "
                       r"is a dict") as raised:
        store.batch([PutOp(("u1", "ana"), "ok", {"value": 1}),
                     PutOp(("u1", "ana"), "diet", value)])  # type: ignore[arg-type]
    assert raised.value.field == "value"
    assert store.get(("u1", "ana"), "ok") is None  # nothing of the batch was written

