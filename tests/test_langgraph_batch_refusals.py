"""A LangGraph batch refuses what ``get`` and ``put`` refuse, with LangGraph's typed error, and
a batch that raises has written none of its puts, on both backends (issue 25, finding 11)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

pytest.importorskip("langgraph.store.base", reason="needs the kg-memory[langgraph] extra")

from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp

from kg_memory import IngestError
from kg_memory.domain.limits import MAX_LINE_BYTES
from kg_memory.integrations.langgraph import KgMemoryStore
from tests.conftest import ManualClock, MemoryFactory, day


class TickingClock(ManualClock):
    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def store(make_memory: MemoryFactory) -> KgMemoryStore:
    ticking = TickingClock(day(0))
    return KgMemoryStore(make_memory(ticking), clock=ticking)


def test_a_get_without_a_namespace_is_a_namespace_error(store: KgMemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp((), "k")])
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp((), "k", {"v": 1})])


def test_a_batch_cannot_put_under_langgraphs_reserved_root(store: KgMemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("u1",), "a", {"v": 1}), PutOp(("langgraph", "x"), "k", {"v": 1})])
    # Refused before anything ran: the valid put beside it was not written either.
    assert store.get(("u1",), "a") is None
    assert store.memory.asof(scope="langgraph").facts == ()


@pytest.mark.parametrize("bad_value", [
    {"v": {1, 2}},  # not JSON
    {"v": "x" * (MAX_LINE_BYTES + 1)},  # over one ingest line's cap
])
def test_a_multi_scope_batch_that_raises_writes_no_scope(
        store: KgMemoryStore, bad_value: dict[str, object]) -> None:
    store.put(("u1",), "before", {"v": 0})
    with pytest.raises(IngestError):
        store.batch([PutOp(("u1",), "k", {"v": 1}), PutOp(("u2",), "k", bad_value)])
    assert store.get(("u1",), "k") is None
    assert store.get(("u2",), "k") is None
    # Nothing else of the failed batch reached the store.
    assert [f.predicate for f in store.memory.asof(scope="u1").facts] == ["before"]
    store.batch([PutOp(("u1",), "k", {"v": 1}), PutOp(("u2",), "k", {"v": 2})])
    item = store.get(("u2",), "k")
    assert item is not None
    assert item.value == {"v": 2}
