"""A unit of work is bound to one tenant: an episode, entity or activity of another scope handed
to it is refused before anything is written, on both backends and for both kinds of unit (a
transaction of its own, and one planned into a batch). The services never do this; the guard is
what keeps a bug in a caller from writing into a second tenant's memory."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import pytest

from kg_memory import Assertion, Channel, Entity, Episode, Memory, ScopeError
from kg_memory.domain.change import PlannedEdge
from kg_memory.store.protocol import Store, Transaction
from kg_memory.store.scoping import ScopeBound
from tests.conftest import day

Write = Callable[[Transaction], None]


def _episode(unit: Transaction) -> None:
    unit.add_episode(Episode(episode_id="ep_x", operation_id="op-x", source="user",
                             channel=Channel.CHAT, content="I am vegan", occurred_at=day(1),
                             recorded_at=unit.now, scope="u2"), "h")


def _entity(unit: Transaction) -> None:
    unit.put_entity(Entity(entity_id="ana", type="person", name="Ana", scope="u2"))


@pytest.mark.parametrize("write", [_episode, _entity], ids=["episode", "entity"])
@pytest.mark.parametrize("planned", [False, True], ids=["own", "planned"])
def test_a_unit_of_work_refuses_a_write_for_another_scope(
    memory: Memory, write: Write, planned: bool
) -> None:
    store: Store = memory.store
    batch: AbstractContextManager[None] = store.batch() if planned else nullcontext()
    with batch, pytest.raises(ScopeError, match="'u1' cannot write to scope 'u2'"), \
                store.transaction("u1") as unit:
        write(unit)
    assert store.episodes(["ep_x"]) == []
    assert store.entities() == []
    # The same write in its own tenant's unit goes through: the guard is the scope, not the data.
    with store.transaction("u2") as unit:
        write(unit)
    assert len(store.episodes(["ep_x"])) + len(store.entities()) == 1


def test_a_unit_missing_an_abstract_write_cannot_be_built() -> None:
    """Every unit records edges and reads dependents its own way: a unit that leaves
    ``add_edge`` or ``live_dependents`` out fails when it is built, not at its first write."""

    class NoEdges(ScopeBound):
        def live_dependents(self, key: str) -> list[Assertion]:
            return []

    class Complete(NoEdges):
        def add_edge(self, edge: PlannedEdge) -> None:
            pass

    with pytest.raises(TypeError, match="add_edge"):
        NoEdges(day(1), "u1")  # type: ignore[abstract]  # mypy refuses it too, as it should
    unit = Complete(day(1), "u1")
    assert (unit.now, unit.scope) == (day(1), "u1")
