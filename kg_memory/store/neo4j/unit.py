"""What every Neo4j unit of work shares, whether it runs its queries at once
(:class:`~kg_memory.store.neo4j.tx.Neo4jTransaction`) or plans them into a batch
(:class:`~kg_memory.store.neo4j.buffered.BufferedUnit`): its system time, its scope, the guard
that keeps it inside that scope, and what it erased for the store's scrub verification.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kg_memory.domain.errors import ScopeError
from kg_memory.domain.model import Assertion

__all__ = ["ScopedUnit"]


class ScopedUnit:
    """One unit of work at system time :attr:`now`, for one scope."""

    def __init__(self, now: datetime, scope: str) -> None:
        self.now_dt = now
        self._scope = scope
        #: Ids this unit erased (entities as (scope, id): an id names one per scope) and
        #: episodes it redacted, for the store's scrub verification.
        self.erased: list[str] = []
        self.erased_entities: list[tuple[str, str]] = []
        self.redacted: list[str] = []
        #: Assertions all of whose revisions this unit wrote and then replaced.
        self._vanished: set[str] = set()

    @property
    def now(self) -> datetime:
        return self.now_dt

    @property
    def scope(self) -> str:
        return self._scope

    def _in_scope(self, given: str) -> None:
        """A write for another scope inside this unit is a bug in the caller, never data."""
        if given != self._scope:
            raise ScopeError(
                f"a unit of work for scope {self._scope!r} cannot write to scope {given!r}")

    def delete_entity(self, entity_id: str) -> None:
        raise NotImplementedError  # each unit has its own (the buffered one refuses it)

    def live_dependents(self, key: str) -> list[Assertion]:
        raise NotImplementedError

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """One :meth:`delete_entity` per id (the protocol allows a loop)."""
        for entity_id in dict.fromkeys(entity_ids):
            self.delete_entity(entity_id)

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """One :meth:`live_dependents` per key (the protocol allows a loop)."""
        return {key: self.live_dependents(key) for key in keys}
