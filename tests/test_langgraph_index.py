"""``KgMemoryStore(index={"dims", "embed", "fields"})``: LangGraph's vector search, on both
backends, with eligibility decided before anything is scored.

A deterministic embed function (words hashed into a few dimensions, no model, no download)
checks the mechanics against LangGraph's own semantics: the score is the cosine of the query's
vector with the item's best field, ``fields`` and a put's ``index`` choose what is embedded,
items with nothing indexed come last with no score. The shipped MiniLM model checks that a
search finds by meaning what shares no word with the query.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import math
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base",
                    reason="needs the kg-memory-bitemporal[langgraph] extra")

from langchain_core.embeddings import Embeddings

from kg_memory import InvalidArgument, Memory, WriteRefused
from kg_memory.embedders.minilm import installed
from kg_memory.integrations.langgraph import KgMemoryStore
from tests.conftest import MemoryFactory, day, episode, fact
from tests.test_langgraph_store import TickingClock

DIMS = 32


def words_embed(texts: Sequence[str]) -> list[list[float]]:
    """Each word counted in one of ``DIMS`` buckets: texts sharing words are near."""
    vectors = []
    for text in texts:
        vector = [0.0] * DIMS
        for word in text.lower().replace('"', " ").replace(":", " ").split():
            word = word.strip("{},.?")
            if word:
                vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMS] += 1.0
        vectors.append(vector)
    return vectors


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


@pytest.fixture
def ticking() -> TickingClock:
    return TickingClock(day(0))


def _store(memory: Memory, ticking: TickingClock, **index: Any) -> KgMemoryStore:
    return KgMemoryStore(memory, clock=ticking,
                         index={"dims": DIMS, "embed": words_embed, **index})


def _keys(items: Sequence[Any]) -> list[str]:
    return [i.key for i in items]


def test_scores_are_langgraphs_cosine_of_the_best_field(make_memory: MemoryFactory,
                                                        ticking: TickingClock) -> None:
    store = _store(make_memory(ticking), ticking, fields=["title", "body"])
    store.put(("u1", "notes"), "tea", {"title": "green tea", "body": "every morning"})
    store.put(("u1", "notes"), "car", {"title": "red car", "body": "parked outside"})
    store.put(("u1", "notes"), "bare", {"other": "green tea"})  # no indexed field
    found = store.search(("u1",), query="green tea")
    assert _keys(found) == ["tea", "car", "bare"]
    [probe] = words_embed(["green tea"])
    best = max(cosine(probe, v) for v in words_embed(["green tea", "every morning"]))
    assert found[0].score == pytest.approx(best)
    assert found[2].score is None  # nothing of it is indexed: last, unscored, as in LangGraph
    assert found[0].value == {"title": "green tea", "body": "every morning"}


def test_the_whole_value_is_embedded_by_default(make_memory: MemoryFactory,
                                                ticking: TickingClock) -> None:
    store = _store(make_memory(ticking), ticking)
    store.put(("u1", "ana"), "drink", {"value": "green tea"})
    store.put(("u1", "ana"), "car", {"value": "red car"})
    found = store.search(("u1",), query="green tea")
    assert _keys(found) == ["drink", "car"]
    [probe, doc] = words_embed(["green tea", '{"value": "green tea"}'])
    assert found[0].score == pytest.approx(cosine(probe, doc))


def test_a_puts_index_argument_chooses_its_fields(make_memory: MemoryFactory,
                                                  ticking: TickingClock) -> None:
    store = _store(make_memory(ticking), ticking, fields=["title"])
    store.put(("u1", "n"), "off", {"title": "green tea"}, index=False)
    store.put(("u1", "n"), "other", {"title": "red car", "tag": "green tea"}, index=["tag"])
    store.put(("u1", "n"), "plain", {"title": "blue sky"})
    found = store.search(("u1",), query="green tea")
    assert _keys(found) == ["other", "plain", "off"]
    assert found[0].score == pytest.approx(1.0)
    assert found[2].score is None
    # A later put without ``index`` is indexed by the config's fields again, as in LangGraph.
    store.put(("u1", "n"), "off", {"title": "green tea"})
    assert _keys(store.search(("u1",), query="green tea"))[0] == "off"


def test_sqlites_text_fields_is_taken_as_fields(make_memory: MemoryFactory,
                                               ticking: TickingClock) -> None:
    """A config written for LangGraph's SqliteStore names its fields ``text_fields``: it works
    unchanged (it was refused as an unknown key), and ``index_config`` keeps it as given."""
    memory = make_memory(ticking)
    config = {"dims": DIMS, "embed": words_embed, "text_fields": ["title"]}
    store = KgMemoryStore(memory, clock=ticking, index=config)
    assert store.index_config == config
    store.put(("u1", "n"), "tea", {"title": "green tea", "body": "red car"})
    store.put(("u1", "n"), "car", {"title": "red car", "body": "green tea"})
    found = store.search(("u1",), query="green tea")
    assert _keys(found) == ["tea", "car"]
    assert found[0].score == pytest.approx(1.0)  # only the title is embedded
    same = {"dims": DIMS, "embed": words_embed, "fields": ["title"], "text_fields": ["title"]}
    assert KgMemoryStore(memory, index=same).index is not None
    with pytest.raises(InvalidArgument, match="'fields' and 'text_fields'"):
        KgMemoryStore(memory, index={**same, "text_fields": ["body"]})


def test_wrong_dims_are_a_clear_error_and_write_nothing(make_memory: MemoryFactory,
                                                        ticking: TickingClock) -> None:
    memory = make_memory(ticking)
    store = KgMemoryStore(memory, clock=ticking, index={"dims": 8, "embed": words_embed})
    with pytest.raises(InvalidArgument, match=r"32 dimensions, but index\['dims'\] is 8"):
        store.put(("u1", "ana"), "drink", {"value": "green tea"})
    assert store.get(("u1", "ana"), "drink") is None
    with pytest.raises(InvalidArgument, match="256 dimensions"):
        KgMemoryStore(memory, index={"dims": 100, "embed": "hashing"})
    with pytest.raises(InvalidArgument, match="dims"):
        KgMemoryStore(memory, index={"embed": words_embed})
    with pytest.raises(InvalidArgument, match="cosine, inner_product, l2"):
        KgMemoryStore(memory, index={"dims": DIMS, "embed": words_embed,
                                     "distance_type": "hamming"})


def test_a_provider_string_never_downloads(make_memory: MemoryFactory,
                                           ticking: TickingClock) -> None:
    memory = make_memory(ticking)
    # kg-memory's own names first: no LangChain needed, nothing fetched.
    store = KgMemoryStore(memory, clock=ticking, index={"embed": "hashing"})
    assert store.index is not None
    assert store.index.embedder.name == "hashing-trigram"
    store.put(("u1", "ana"), "drink", {"value": "green tea"})
    assert _keys(store.search(("u1",), query="green tea")) == ["drink"]
    # Any other provider is LangChain's init_embeddings, the user's library; without it, a
    # clear error at construction.
    if importlib.util.find_spec("langchain") is None:
        with pytest.raises(InvalidArgument, match="langchain"):
            KgMemoryStore(memory, index={"dims": 8, "embed": "someprovider:some-model"})


def test_eligibility_comes_before_the_vectors(make_memory: MemoryFactory,
                                              ticking: TickingClock) -> None:
    memory = make_memory(ticking)
    store = _store(memory, ticking)
    store.put(("u1", "ana"), "drink", {"value": "green tea"})
    store.put(("u1", "ana"), "old", {"value": "green tea leaves"})
    store.put(("u1", "bo"), "drink", {"value": "green tea too", "n": 1})
    store.put(("u2", "cy"), "drink", {"value": "green tea"})  # another tenant
    store.delete(("u1", "ana"), "old")  # retracted: not an item now
    restaurant = KgMemoryStore(memory, source="restaurant", channel="webhook", clock=ticking,
                               index={"dims": DIMS, "embed": words_embed})
    with pytest.raises(WriteRefused):
        restaurant.put(("u1", "ana"), "deposit", {"value": "green tea"})
    store.forget(("u1", "bo"))
    found = store.search(("u1",), query="green tea")
    assert [(i.namespace, i.key) for i in found] == [(("u1", "ana"), "drink")]
    # A filter and a prefix choose the candidates before any is ranked: a limit of 1 returns
    # the one match, however many nearer items the tenant holds.
    store.put(("u1", "dee"), "drink", {"value": "black coffee", "n": 2})
    store.put(("u1", "dee"), "tea", {"value": "green tea"})
    assert _keys(store.search(("u1",), query="green tea", filter={"n": 2}, limit=1)) == [
        "drink"]
    assert [i.namespace for i in store.search(("u1", "dee"), query="green tea", limit=1)] == [
        ("u1", "dee")]
    pinned = KgMemoryStore(memory, scope="u2", clock=ticking,
                           index={"dims": DIMS, "embed": words_embed})
    assert [i.namespace for i in pinned.search((), query="green tea")] == [("u2", "cy")]


def test_items_written_through_other_doors_are_found(make_memory: MemoryFactory,
                                                     ticking: TickingClock) -> None:
    memory = make_memory(ticking)
    memory.ingest(episode("e1", "user", day(0), content="I drink green tea",
                          assertions=[fact("ana", "drink", "green tea")]))
    ticking.now = day(1)
    store = _store(memory, ticking)
    store.put(("u1", "ana"), "car", {"value": "red car"})
    found = store.search(("u1", "ana"), query="green tea", limit=1)
    assert [(i.key, i.value) for i in found] == [("drink", {"value": "green tea"})]


def test_async_embed_functions_and_async_search(make_memory: MemoryFactory,
                                                ticking: TickingClock) -> None:
    async def aembed(texts: list[str]) -> list[list[float]]:
        await asyncio.sleep(0)
        return words_embed(texts)

    store = KgMemoryStore(make_memory(ticking), clock=ticking,
                          index={"dims": DIMS, "embed": aembed})

    async def main() -> list[str]:
        await store.aput(("u1", "ana"), "drink", {"value": "green tea"})
        await store.aput(("u1", "ana"), "car", {"value": "red car"})
        return _keys(await store.asearch(("u1",), query="green tea"))

    assert asyncio.run(main()) == ["drink", "car"]
    assert _keys(store.search(("u1",), query="green tea")) == ["drink", "car"]


def test_offset_and_limit_page_through_the_ranking(make_memory: MemoryFactory,
                                                   ticking: TickingClock) -> None:
    store = _store(make_memory(ticking), ticking)
    for n, text in enumerate(["green tea", "green tea pot", "tea", "red car"]):
        store.put(("u1", "n"), f"k{n}", {"value": text})
    everything = _keys(store.search(("u1",), query="green tea", limit=10))
    assert len(everything) == 4
    pages = [_keys(store.search(("u1",), query="green tea", limit=2, offset=o))
             for o in (0, 2)]
    assert pages[0] + pages[1] == everything


@pytest.mark.skipif(not installed(), reason="needs the embed extra (the shipped model)")
def test_the_shipped_model_finds_by_meaning(make_memory: MemoryFactory,
                                            ticking: TickingClock) -> None:
    store = KgMemoryStore(make_memory(ticking), clock=ticking,
                          index={"dims": 384, "embed": "minilm", "fields": ["text"]})
    notes = {"allergy": "Ana is allergic to peanuts", "home": "Ana lives in Lisbon",
             "car": "Ana drives a red convertible", "job": "Ana works as a nurse"}
    for key, text in notes.items():
        store.put(("u1", "ana"), key, {"text": text})
    asked = {"which food could make her ill": "allergy", "what city is her home": "home",
             "what vehicle does she own": "car", "what is her profession": "job"}
    for query, key in asked.items():
        found = store.search(("u1",), query=query, limit=1)
        assert _keys(found) == [key], query
        assert found[0].score is not None
        assert 0 < found[0].score <= 1


class QueryAware(Embeddings):
    """A LangChain ``Embeddings`` that embeds a question unlike a document, as some models do."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return words_embed(texts)

    def embed_query(self, text: str) -> list[float]:
        [vector] = words_embed([text.removeprefix("question: ")])
        return vector


def test_a_query_is_embedded_by_the_models_query_method(make_memory: MemoryFactory,
                                                        ticking: TickingClock) -> None:
    embeddings = QueryAware()
    store = KgMemoryStore(make_memory(ticking), clock=ticking,
                          index={"dims": DIMS, "embed": embeddings, "fields": ["text"]})
    assert store.index_config == {"dims": DIMS, "embed": embeddings, "fields": ["text"]}
    assert store.embeddings is embeddings
    store.put(("u1", "n"), "tea", {"text": "green tea"})
    [found] = store.search(("u1",), query="question: green tea")
    assert found.score == pytest.approx(1.0)
    assert KgMemoryStore(make_memory(ticking), clock=ticking).index_config is None


@pytest.mark.parametrize("distance", ["cosine", "inner_product", "l2"])
def test_postgres_distance_types_score_as_postgres_does(
    make_memory: MemoryFactory, ticking: TickingClock, distance: str
) -> None:
    store = KgMemoryStore(make_memory(ticking), clock=ticking, index={
        "dims": DIMS, "embed": words_embed, "fields": ["text"], "distance_type": distance})
    store.put(("u1", "n"), "tea", {"text": "green tea green"})
    store.put(("u1", "n"), "car", {"text": "red car"})
    found = store.search(("u1",), query="green tea")
    [q, doc] = words_embed(["green tea", "green tea green"])
    expected = {"cosine": cosine(q, doc),
                "inner_product": sum(a * b for a, b in zip(q, doc, strict=True)),
                "l2": -math.dist(q, doc)}[distance]
    assert _keys(found) == ["tea", "car"]
    assert found[0].score == pytest.approx(expected)
