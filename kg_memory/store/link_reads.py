"""The forget plan's lean reads: who links to whom, and which ids are entities, without a model
per row.

A forget of a source with 1,000 derivatives walks about 5,000 edges and asks about 1,000
candidate orphan entities. Its plan needs only each edge's ends and type, and only whether an
id is an entity: building an :class:`~kg_memory.domain.model.Edge` (with its instant) per edge
and an :class:`~kg_memory.domain.model.Entity` for every entity of the scope made these reads
about a third of the plan. :class:`~kg_memory.store.protocol.Store` includes this protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kg_memory.domain.model import EdgeType

__all__ = ["Link", "LinkReads"]

#: ``(src, type, dst)`` of a stored edge, in the store's orientation.
Link = tuple[str, EdgeType, str]


class LinkReads(Protocol):
    """The reads a forget plan's lineage walk and orphan search make (both backends)."""

    def links_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Link]]:
        """:meth:`~kg_memory.store.protocol.Store.edges_of` as ``(src, type, dst)``: the same
        edges of each id in the same order (every id present, ``[]`` when it has none)."""

    def entity_ids(self, entity_ids: Sequence[str], scope: str | None = None) -> frozenset[str]:
        """Those of ``entity_ids`` naming an entity of ``scope`` (of any scope when ``None``):
        what ``{e.entity_id for e in entities(scope)} & set(entity_ids)`` is, reading only
        the ids asked about."""
