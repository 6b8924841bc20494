"""What every Neo4j unit of work shares, whether it runs its queries at once
(:class:`~kg_memory.store.neo4j.tx.Neo4jTransaction`) or plans them into a batch
(:class:`~kg_memory.store.neo4j.buffered.BufferedUnit`), beyond what every unit does
(:class:`~kg_memory.store.scoping.ScopeBound`): what it erased, for the store's scrub
verification.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kg_memory.store.scoping import ScopeBound

__all__ = ["ScopedUnit"]


class ScopedUnit(ScopeBound):
    """One Neo4j unit of work at system time :attr:`now`, for one scope."""

    def __init__(self, now: datetime, scope: str) -> None:
        super().__init__(now, scope)
        #: Ids this unit erased (entities as (scope, id): an id names one per scope) and
        #: episodes it redacted, for the store's scrub verification.
        self.erased: list[str] = []
        self.erased_entities: list[tuple[str, str]] = []
        self.redacted: list[str] = []

    def delete_entity(self, entity_id: str) -> None:
        raise NotImplementedError  # each unit has its own (the buffered one refuses it)

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """One :meth:`delete_entity` per id (the protocol allows a loop)."""
        for entity_id in dict.fromkeys(entity_ids):
            self.delete_entity(entity_id)
