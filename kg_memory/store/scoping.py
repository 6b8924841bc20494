"""What every unit of work shares, on either backend and whether it runs its statements at once
or plans them into a batch: its system time, its scope, the one guard that keeps it inside that
scope, the revision it writes, and the loop forms of the protocol's set-based methods.

The guard is one function on purpose: the tenancy rule ("a unit of work writes its own scope
only") must not read differently in one adapter than in another.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from kg_memory.domain.change import Draft, PlannedEdge
from kg_memory.domain.errors import ScopeError
from kg_memory.domain.forgetting import operation_key
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, trusted

__all__ = ["ScopeBound"]


class ScopeBound(ABC):
    """One unit of work at system time :attr:`now`, for the one scope :attr:`scope`.

    :meth:`add_edge` and :meth:`live_dependents` are abstract: each unit records an edge and
    reads dependents its own way, and a unit missing one fails when it is built, not when a
    write first needs it."""

    def __init__(self, now: datetime, scope: str) -> None:
        self._system_now = now  # not `_now`: the SQLite units keep it there in microseconds
        self._scope = scope
        #: Assertions whose revision this unit wrote and then replaced: never visible to
        #: anyone, so each unit's ``finish`` removes what still names them.
        self._vanished: set[str] = set()

    @property
    def now(self) -> datetime:
        return self._system_now

    @property
    def scope(self) -> str:
        return self._scope

    def operation_key(self, secret: bytes, operation_id: str) -> str:
        return operation_key(secret, self._scope, operation_id)

    def _in_scope(self, given: str) -> str:
        """``given``, when it is this unit's scope. A write for another scope inside this unit
        is a bug in the caller, never data to keep."""
        if given != self._scope:
            raise ScopeError(
                f"a unit of work for scope {self._scope!r} cannot write to scope {given!r}")
        return given

    def _believed(self, draft: Draft, revision: int) -> Assertion:
        """Revision ``revision`` of ``draft``'s assertion, believed from :attr:`now` on."""
        # Every field comes from an already validated draft or from the unit itself: no second
        # validation of what the planners build thousands of per batch.
        return trusted(Assertion, {
            **dict(draft), "revision": revision,
            "system": trusted(Interval, {"start": self._system_now, "end": None}),
            "closed_by": None, "close_reason": None})

    @abstractmethod
    def add_edge(self, edge: PlannedEdge) -> None: ...

    @abstractmethod
    def live_dependents(self, key: str) -> list[Assertion]: ...

    def add_edges(self, edges: list[PlannedEdge]) -> None:
        """One :meth:`add_edge` per edge (the protocol allows a loop)."""
        for edge in edges:
            self.add_edge(edge)

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """One :meth:`live_dependents` per key (the protocol allows a loop)."""
        return {key: self.live_dependents(key) for key in keys}
