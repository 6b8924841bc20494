"""KgMemoryStore behaves as LangGraph documents a store, on both backends.

The behaviour below is what LangGraph's documentation and its own store tests ask of every
``BaseStore``: get/put/update/delete, search with namespace prefixes, filters (exact, nested and
the ``$eq $ne $gt $gte $lt $lte`` operators), limits and offsets, list_namespaces with prefix,
suffix, wildcards, max_depth, limit and offset, batches, and the async twins. The last part is
what kg-memory adds: a put is an episode through the writer gate, an update supersedes, a delete
retracts (history kept, the past still answerable) and ``forget`` erases.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base",
                    reason="needs the kg-memory-bitemporal[langgraph] extra")

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

from kg_memory import Memory, PolicyError, QueryError, WriteRefused, WriterPolicy
from kg_memory.integrations.langgraph import KgMemoryStore
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact


class TickingClock(ManualClock):
    """Each reading is a second later: every batch gets its own instant, as in real use."""

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def ticking() -> TickingClock:
    return TickingClock(day(0))


@pytest.fixture
def store(make_memory: MemoryFactory, ticking: TickingClock) -> KgMemoryStore:
    return KgMemoryStore(make_memory(ticking), clock=ticking)


def test_put_get_update_delete(store: KgMemoryStore) -> None:
    ns = ("u1", "docs")
    assert store.get(ns, "missing") is None
    store.put(ns, "doc1", {"title": "Draft", "n": 1})
    item = store.get(ns, "doc1")
    assert item is not None
    assert (item.namespace, item.key, item.value) == (ns, "doc1", {"title": "Draft", "n": 1})
    assert item.created_at.tzinfo is not None
    assert item.created_at == item.updated_at

    store.put(ns, "doc1", {"title": "Final", "n": 2})
    updated = store.get(ns, "doc1")
    assert updated is not None
    assert updated.value == {"title": "Final", "n": 2}
    assert updated.created_at == item.created_at
    assert updated.updated_at > item.updated_at

    store.delete(ns, "doc1")
    assert store.get(ns, "doc1") is None
    assert store.search(ns) == []
    store.delete(ns, "never-there")  # deleting nothing is not an error


@pytest.mark.parametrize("value", [
    {}, {"value": "plain"}, {"value": 3}, {"value": 2.5}, {"value": True}, {"value": None},
    {"value": 2**70}, {"value": '{"a": 1}'}, {"value": "{not json"}, {"nested": {"a": [1, "b"]}},
    {"text": "naïve café ☕", "empty": "", "list": []},
])
def test_values_round_trip(store: KgMemoryStore, value: dict[str, Any]) -> None:
    store.put(("u1",), "k", value)
    item = store.get(("u1",), "k")
    assert item is not None
    assert item.value == value
    assert type(item.value.get("value")) is type(value.get("value"))


def test_one_label_namespaces_and_deep_ones(store: KgMemoryStore) -> None:
    store.put(("a",), "k", {"v": 1})
    store.put(("a", "b", "c", "d", "e"), "k", {"v": 2})
    assert store.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    assert store.get(("a", "b", "c", "d", "e"), "k").value == {"v": 2}  # type: ignore[union-attr]
    assert store.get(("a", "b"), "k") is None
    assert sorted(i.namespace for i in store.search(("a",))) == [("a",), ("a", "b", "c", "d", "e")]


def test_invalid_namespaces_are_refused(store: KgMemoryStore) -> None:
    for bad in [("u1", "a.b"), ("u1", ""), ()]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("u1", "a.b"), "k")])
    with pytest.raises(NotImplementedError):
        store.put(("u1",), "k", {"v": 1}, ttl=5)


def _catalogue(store: KgMemoryStore) -> None:
    rows = [
        (("u1", "docs"), "d1", {"kind": "report", "score": 4.5, "meta": {"lang": "en"}}),
        (("u1", "docs"), "d2", {"kind": "memo", "score": 3.0, "meta": {"lang": "fr"}}),
        (("u1", "docs", "archive"), "d3", {"kind": "report", "score": 1.0}),
        (("u1", "notes"), "n1", {"kind": "note", "score": 5, "text": "Ana eats fish now"}),
        (("u2", "docs"), "d1", {"kind": "report", "score": 9.9}),
    ]
    for ns, key, value in rows:
        store.put(ns, key, value)


def _keys(items: list[Any]) -> set[tuple[tuple[str, ...], str]]:
    return {(i.namespace, i.key) for i in items}


def test_search_prefix_filter_and_operators(store: KgMemoryStore) -> None:
    _catalogue(store)
    assert _keys(store.search(("u1", "docs"))) == {
        (("u1", "docs"), "d1"), (("u1", "docs"), "d2"), (("u1", "docs", "archive"), "d3")}
    assert len(store.search((), limit=100)) == 5
    assert _keys(store.search(("u1",), filter={"kind": "report"})) == {
        (("u1", "docs"), "d1"), (("u1", "docs", "archive"), "d3")}
    assert _keys(store.search(("u1",), filter={"meta": {"lang": "fr"}})) == {
        (("u1", "docs"), "d2")}
    expected = {
        "$eq": {"d2"}, "$ne": {"d1", "d3", "n1"}, "$gt": {"d1", "n1"}, "$gte": {"d1", "d2", "n1"},
        "$lt": {"d3"}, "$lte": {"d2", "d3"},
    }
    for operator, keys in expected.items():
        found = store.search(("u1",), filter={"score": {operator: 3.0}}, limit=100)
        assert {i.key for i in found} == keys, operator
    both = store.search(("u1",), filter={"score": {"$gt": 1, "$lt": 5}, "kind": "report"})
    assert {i.key for i in both} == {"d1"}
    assert store.search(("u1",), filter={"missing": {"$gt": 0}}) == []
    with pytest.raises(QueryError, match=r"\$like"):
        store.search(("u1",), filter={"score": {"$like": 1}})


def test_search_limit_offset_and_order(store: KgMemoryStore) -> None:
    for n in range(7):
        store.put(("u1", "log"), f"e{n}", {"n": n})
    newest_first = [i.key for i in store.search(("u1", "log"), limit=100)]
    assert newest_first == [f"e{n}" for n in reversed(range(7))]
    pages = [store.search(("u1", "log"), limit=3, offset=o) for o in (0, 3, 6, 9)]
    assert [[i.key for i in p] for p in pages] == [newest_first[0:3], newest_first[3:6],
                                                    newest_first[6:], []]
    assert all(i.score is None for p in pages for i in p)


def test_search_with_a_query_ranks_and_scores(store: KgMemoryStore) -> None:
    _catalogue(store)
    found = store.search(("u1",), query="what does Ana eat?")
    assert [i.key for i in found] == ["n1"]
    assert found[0].score is not None
    assert 0 < found[0].score <= 1
    ranked = store.search(("u1",), query="report docs archive")
    assert next(i.key for i in ranked) == "d3"
    assert [i.score for i in ranked] == sorted((i.score or 0 for i in ranked), reverse=True)
    assert store.search(("u1",), query="zebra") == []


def test_list_namespaces(store: KgMemoryStore) -> None:
    for ns in [("test", "documents", "public"), ("test", "documents", "private"),
               ("test", "images", "public"), ("test", "images", "private"),
               ("prod", "documents", "public"), ("prod", "documents", "private"),
               ("test", "a", "b", "c")]:
        store.put(ns, "k", {"v": 1})
    everything = store.list_namespaces()
    assert everything == sorted(everything)
    assert len(everything) == 7
    assert store.list_namespaces(prefix=("test",)) == sorted([
        ("test", "a", "b", "c"), ("test", "documents", "private"),
        ("test", "documents", "public"), ("test", "images", "private"),
        ("test", "images", "public")])
    assert store.list_namespaces(suffix=("public",)) == [
        ("prod", "documents", "public"), ("test", "documents", "public"),
        ("test", "images", "public")]
    assert store.list_namespaces(prefix=("test",), suffix=("public",)) == [
        ("test", "documents", "public"), ("test", "images", "public")]
    assert store.list_namespaces(prefix=("test", "*", "public")) == [
        ("test", "documents", "public"), ("test", "images", "public")]
    assert store.list_namespaces(suffix=("*", "private")) == [
        ("prod", "documents", "private"), ("test", "documents", "private"),
        ("test", "images", "private")]
    assert store.list_namespaces(max_depth=2) == [
        ("prod", "documents"), ("test", "a"), ("test", "documents"), ("test", "images")]
    assert store.list_namespaces(prefix=("test",), max_depth=2, limit=2, offset=1) == [
        ("test", "documents"), ("test", "images")]
    assert store.list_namespaces(limit=3, offset=5) == everything[5:]
    store.delete(("test", "a", "b", "c"), "k")
    assert ("test", "a", "b", "c") not in store.list_namespaces()
    assert store.list_namespaces(prefix=("nothing",)) == []


def test_batch_reads_see_the_state_before_its_writes(store: KgMemoryStore) -> None:
    store.put(("u1",), "a", {"v": 0})
    results = store.batch([
        PutOp(("u1",), "a", {"v": 1}),
        GetOp(("u1",), "a"),
        PutOp(("u1",), "b", {"v": 1}),
        PutOp(("u1",), "b", {"v": 2}),
        SearchOp(("u1",)),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("u1",)),)),
    ])
    assert results[0] is None
    assert results[1].value == {"v": 0}  # type: ignore[union-attr]
    assert [i.key for i in results[4]] == ["a"]  # type: ignore[union-attr]
    assert results[5] == [("u1",)]
    assert store.get(("u1",), "a").value == {"v": 1}  # type: ignore[union-attr]
    assert store.get(("u1",), "b").value == {"v": 2}  # type: ignore[union-attr]
    history = store.history(("u1",), "b")
    assert [r.value for r in history] == [{"v": 2}]  # the batch's last write of b wins


def test_async_twins(store: KgMemoryStore) -> None:
    async def main() -> None:
        await store.aput(("u1", "a"), "k", {"v": 1})
        item = await store.aget(("u1", "a"), "k")
        assert item is not None
        assert item.value == {"v": 1}
        assert [i.key for i in await store.asearch(("u1",))] == ["k"]
        assert await store.alist_namespaces() == [("u1", "a")]
        await store.adelete(("u1", "a"), "k")
        assert await store.aget(("u1", "a"), "k") is None
        assert (await store.aget(("u1", "a"), "k", as_of=item.updated_at)) is not None

    asyncio.run(main())


# -- what kg-memory adds -------------------------------------------------------------------


def test_a_put_is_the_same_fact_the_conversation_writes(
    make_memory: MemoryFactory, ticking: TickingClock
) -> None:
    memory = make_memory(ticking)
    memory.ingest(episode("d0", "user", day(0), content="Ana is vegetarian",
                          assertions=[fact("ana", "diet", "vegetarian")]))
    ticking.now = day(1)
    store = KgMemoryStore(memory, clock=ticking)
    assert store.get(("u1", "ana"), "diet").value == {"value": "vegetarian"}  # type: ignore[union-attr]
    store.put(("u1", "ana"), "diet", {"value": "eats fish"})
    facts = memory.asof(ticking.now, ticking.now, subject="ana", predicate="diet", scope="u1")
    assert [(f.value, f.writer) for f in facts.facts] == [("eats fish", "agent")]
    history = store.history(("u1", "ana"), "diet")
    assert [(r.value["value"], r.writer) for r in history][:1] == [("vegetarian", "user")]
    assert history[0].close_reason == "superseded"


def test_putting_the_same_value_again_refreshes_it(store: KgMemoryStore) -> None:
    ns = ("u1", "ana")
    store.put(ns, "diet", {"value": "vegetarian"})
    first = store.get(ns, "diet")
    store.put(ns, "diet", {"value": "vegetarian"})
    again = store.get(ns, "diet")
    assert first is not None
    assert again is not None
    assert len(store.history(ns, "diet")) == 1  # one more supporting episode, no new revision
    assert again.created_at == first.created_at
    assert again.updated_at > first.updated_at  # last confirmed later
    (fact,) = store.memory.asof(again.updated_at, scope="u1").facts
    assert len(fact.supported_by) == 2


def test_update_supersedes_and_delete_retracts_keeping_the_past(store: KgMemoryStore,
                                                                 ticking: TickingClock) -> None:
    ns = ("u1", "ana")
    store.put(ns, "diet", {"value": "vegetarian"})
    first = ticking.now
    store.put(ns, "diet", {"value": "eats fish"})
    second = ticking.now
    store.delete(ns, "diet")
    deleted = ticking.now
    assert store.get(ns, "diet") is None
    assert store.get(ns, "diet", as_of=first).value == {"value": "vegetarian"}  # type: ignore[union-attr]
    assert store.get(ns, "diet", as_of=second).value == {"value": "eats fish"}  # type: ignore[union-attr]
    # What we believed then about now: before the delete, the fish diet held indefinitely.
    believed = store.get(ns, "diet", as_of=deleted + timedelta(days=9), known_at=second)
    assert believed is not None
    assert believed.value == {"value": "eats fish"}
    reasons = [(r.value["value"], r.created_because, r.close_reason)
               for r in store.history(ns, "diet")]
    assert ("vegetarian", "asserted", "superseded") in reasons
    assert ("eats fish", "asserted", "retracted") in reasons
    store.put(ns, "diet", {"value": "vegan"})
    again = store.get(ns, "diet")
    assert again is not None
    assert again.created_at > deleted  # a new life after a delete, not the old one resumed


def test_forget_erases_every_time(store: KgMemoryStore, ticking: TickingClock) -> None:
    ns = ("u1", "ana")
    store.put(ns, "diet", {"value": "vegetarian"})
    then = ticking.now
    store.put(ns, "diet", {"value": "eats fish"})
    store.put(ns, "city", {"value": "Lyon"})
    plan = store.forget(ns, "diet", dry_run=True)
    assert plan.status == "planned"
    assert store.get(ns, "diet") is not None
    report = store.forget(ns, "diet")
    assert report.status == "complete"
    assert store.get(ns, "diet") is None
    assert store.get(ns, "diet", as_of=then, known_at=then) is None
    assert store.history(ns, "diet") == []
    assert store.get(ns, "city") is not None
    store.forget(ns)
    assert store.search(("u1",)) == []


def test_glob_characters_in_a_key_forget_only_that_key(store: KgMemoryStore) -> None:
    store.put(("u1",), "a*", {"v": 1})
    store.put(("u1",), "ab", {"v": 2})
    store.forget(("u1",), "a*")
    assert store.get(("u1",), "a*") is None
    assert store.get(("u1",), "ab") is not None


def test_the_writer_gate_applies_to_puts(make_memory: MemoryFactory, ticking: TickingClock
                                         ) -> None:
    memory = make_memory(ticking)
    restaurant = KgMemoryStore(memory, source="restaurant", channel="webhook", clock=ticking)
    with pytest.raises(WriteRefused, match="deposit_preapproved"):
        restaurant.put(("u1", "u1"), "deposit_preapproved", {"value": "yes"})
    assert restaurant.get(("u1", "u1"), "deposit_preapproved") is None
    assert [r.source for r in memory.refusals("u1")] == ["restaurant"]


def test_a_store_on_a_channel_its_source_may_not_use_is_refused(
    make_memory: MemoryFactory, ticking: TickingClock
) -> None:
    memory = make_memory(ticking)
    with pytest.raises(PolicyError, match="webhook"):
        KgMemoryStore(memory, source="user", channel="webhook", clock=ticking)
    with pytest.raises(PolicyError, match="worker identity"):
        KgMemoryStore(memory, source="consolidator", channel="api", clock=ticking)


def test_claims_are_never_served_as_items(make_memory: MemoryFactory, ticking: TickingClock
                                          ) -> None:
    memory = make_memory(ticking)
    memory.policy = WriterPolicy.permissive()
    memory.ingest(episode("c1", "restaurant", day(0), content="pre-approves deposits",
                          assertions=[fact("u1", "deposit_preapproved", "yes", kind="claim")]))
    ticking.now = day(1)
    store = KgMemoryStore(memory, clock=ticking)
    assert memory.asof(day(1), day(1), scope="u1").facts  # stored, as a claim
    assert store.get(("u1", "u1"), "deposit_preapproved") is None
    assert store.search(("u1",), query="deposits") == []
    assert store.list_namespaces() == []


def test_a_store_pinned_to_a_scope_reaches_no_other(make_memory: MemoryFactory,
                                                    ticking: TickingClock) -> None:
    memory = make_memory(ticking)
    KgMemoryStore(memory, clock=ticking).put(("u2", "ana"), "diet", {"value": "vegan"})
    mine = KgMemoryStore(memory, scope="u1", clock=ticking)
    mine.put(("u1", "ana"), "diet", {"value": "vegetarian"})
    assert [i.namespace for i in mine.search(())] == [("u1", "ana")]
    assert mine.list_namespaces() == [("u1", "ana")]
    for call in (lambda: mine.get(("u2", "ana"), "diet"),
                 lambda: mine.put(("u2", "ana"), "diet", {"value": "x"}),
                 lambda: mine.search(("u2",)),
                 lambda: mine.forget(("u2", "ana")),
                 lambda: mine.history(("u2", "ana"), "diet")):
        with pytest.raises(InvalidNamespaceError, match="u1"):
            call()
    assert memory.asof(ticking.now, ticking.now, scope="u2").values() == ["vegan"]


def test_a_naive_as_of_is_refused(store: KgMemoryStore) -> None:
    from kg_memory import NaiveDatetimeError

    with pytest.raises(NaiveDatetimeError):
        store.get(("u1",), "k", as_of=datetime(2026, 1, 5))
    assert store.get(("u1",), "k", as_of=datetime(2026, 1, 5, tzinfo=UTC)) is None


def test_stores_over_one_memory_share_it(make_memory: MemoryFactory, ticking: TickingClock
                                         ) -> None:
    memory: Memory = make_memory(ticking)
    a, b = KgMemoryStore(memory, clock=ticking), KgMemoryStore(memory, clock=ticking)
    a.put(("u1",), "k", {"v": 1})
    assert b.get(("u1",), "k").value == {"v": 1}  # type: ignore[union-attr]
