"""The Neo4j adapter's set-based reads for forget planning: many nodes, one query.

The same answers as the embedded store's (:mod:`kg_memory.store.sqlite.bulk_reads`): the forget
plan's lineage walk reads the edges of a whole level in one query, its orphan search the
assertions about every candidate entity in one more, instead of one round trip per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg_memory.domain.model import Edge
from kg_memory.store.neo4j.rows import edge_from_row

__all__ = ["BulkReads"]


class BulkReads:
    """Mixed into :class:`~kg_memory.store.neo4j.store.Neo4jStore`."""

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError  # the store's own

    def edges_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Edge]]:
        """See :meth:`kg_memory.store.protocol.Store.edges_of`."""
        found: dict[str, list[Edge]] = {i: [] for i in node_ids}
        if found:
            for row in self._read("edges_of", ids=list(found), scope=scope):
                edge = edge_from_row(row)
                if edge is not None:
                    found[row["id"]].append(edge)
        return found

    def subject_assertions(self, subjects: Sequence[str], scope: str | None = None
                           ) -> dict[str, frozenset[str]]:
        """See :meth:`kg_memory.store.protocol.Store.subject_assertions`."""
        found: dict[str, set[str]] = {s: set() for s in subjects}
        if found:
            for row in self._read("subject_assertions", subjects=list(found), scope=scope):
                found[row["subject"]].add(row["assertion_id"])
        return {s: frozenset(ids) for s, ids in found.items()}
