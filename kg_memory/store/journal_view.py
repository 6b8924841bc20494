"""The live view both batch planners read through: what was stored when the batch began, minus
what the batch closed since, plus what it wrote.

A planned unit of work (:class:`~kg_memory.store.sqlite.planned.PlannedUnit`,
:class:`~kg_memory.store.neo4j.buffered.BufferedUnit`) sees the batch's journal (its earlier
episodes) and its own. The two backends keep different rows in their journals, so each unit
reads a written revision its own way; what a revision's visibility means (not closed by either
journal) and where an operation id is looked up first are written once, here.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from kg_memory.domain.model import Episode
from kg_memory.store.scoping import ScopeBound

__all__ = ["JournalView", "Key", "SlotKey"]

#: The keys both planners' journals index revisions by, defined once for both backends.
Key = tuple[str, int]  # (assertion_id, revision)
SlotKey = tuple[str, str, str, str]  # (scope, subject, predicate, project or '')


class _Journal(Protocol):
    @property
    def closed(self) -> Container[Key]: ...

    @property
    def operations(self) -> Mapping[tuple[str, str], tuple[Episode, str]]: ...


class _Plan(Protocol):
    @property
    def operation_keys(self) -> Mapping[tuple[bytes, str, str], str]: ...

    def stored_operation(self, scope: str, operation_id: str) -> tuple[Episode, str] | None: ...


P = TypeVar("P", bound=_Plan)
J = TypeVar("J", bound=_Journal)


class JournalView(ScopeBound, Generic[P, J]):
    """One episode's planned unit over the batch's plan ``P`` and journals of type ``J``."""

    def __init__(self, plan: P, batch: J, journal: J, now: datetime, scope: str) -> None:
        super().__init__(now, scope)
        self._plan = plan
        self._batch = batch
        #: This unit's own rows: the store merges them into the batch's only when the episode
        #: succeeded.
        self.journal = journal

    def _closed(self, key: Key) -> bool:
        return key in self.journal.closed or key in self._batch.closed

    def _unclosed(self, index: str, key: object) -> Iterator[tuple[J, Key]]:
        """The revisions the batch wrote under ``key`` of one of the journals' indexes and
        closed in neither journal since, each with the journal that wrote it (the batch's
        first, as they were written)."""
        for journal in (self._batch, self.journal):
            for k in getattr(journal, index).get(key, ()):
                if not self._closed(k):
                    yield journal, k

    def operation_key(self, secret: bytes, operation_id: str) -> str:
        # The batch's prefetch hashed it (an HMAC, 9 us) to read its tombstone.
        found = self._plan.operation_keys.get((secret, self._scope, operation_id))
        return super().operation_key(secret, operation_id) if found is None else found

    def episode_by_operation(self, operation_id: str) -> tuple[Episode, str] | None:
        key = (self._scope, operation_id)
        for journal in (self.journal, self._batch):
            if key in journal.operations:
                return journal.operations[key]
        return self._plan.stored_operation(*key)
