"""The Neo4j adapter's set-based reads for forget planning: many nodes, one query.

The same answers as the embedded store's (:mod:`kg_memory.store.sqlite.bulk_reads`): the forget
plan's lineage walk reads the edges of a whole level in one query, its orphan search the
assertions about every candidate entity in one more, instead of one round trip per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg_memory.domain.model import Assertion, Edge, Entity, Kind
from kg_memory.store.link_reads import Link, Revision
from kg_memory.store.neo4j.rows import edge_from_row, version_from_props

__all__ = ["BulkReads"]


class BulkReads:
    """Mixed into :class:`~kg_memory.store.neo4j.store.Neo4jStore`."""

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError  # the store's own

    def entities(self, scope: str | None = None) -> list[Entity]:
        raise NotImplementedError  # the store's own

    def versions(self, assertion_ids: Sequence[str]) -> list[Assertion]:
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

    def links_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Link]]:
        """See :meth:`kg_memory.store.link_reads.LinkReads.links_of`: the edges of
        :meth:`edges_of` (one query either way; the models are the embedded store's cost)."""
        return {node: [(e.src, e.type, e.dst) for e in edges]
                for node, edges in self.edges_of(node_ids, scope).items()}

    def revisions(self, assertion_ids: Sequence[str]) -> list[Revision]:
        """See :meth:`kg_memory.store.link_reads.LinkReads.revisions`: the records of
        :meth:`versions` (one query either way; the models are the embedded store's cost)."""
        return [Revision.of(v) for v in self.versions(assertion_ids)]

    def entity_ids(self, entity_ids: Sequence[str], scope: str | None = None) -> frozenset[str]:
        """See :meth:`kg_memory.store.link_reads.LinkReads.entity_ids`."""
        if not entity_ids:
            return frozenset()
        if scope is None:  # an operator's every-scope view: no key serves an id alone
            return frozenset(e.entity_id for e in self.entities()) & set(entity_ids)
        return frozenset(r["entity_id"] for r in self._read(
            "entity_ids", ids=list(dict.fromkeys(entity_ids)), scope=scope))

    def subject_assertions(self, subjects: Sequence[str], scope: str | None = None
                           ) -> dict[str, frozenset[str]]:
        """See :meth:`kg_memory.store.protocol.Store.subject_assertions`."""
        found: dict[str, set[str]] = {s: set() for s in subjects}
        if found:
            for row in self._read("subject_assertions", subjects=list(found), scope=scope):
                found[row["subject"]].add(row["assertion_id"])
        return {s: frozenset(ids) for s, ids in found.items()}

    def entity_names(self, entity_ids: Sequence[str], scope: str) -> dict[str, str]:
        """See :meth:`kg_memory.store.protocol.Store.entity_names`."""
        if not entity_ids:
            return {}
        return {r["entity_id"]: r["name"] for r in self._read(
            "entity_names", ids=list(dict.fromkeys(entity_ids)), scope=scope)}

    def episode_texts(self, scope: str) -> list[tuple[str, str]]:
        """See :meth:`kg_memory.store.protocol.Store.episode_texts`."""
        return [(r["episode_id"], r["content"])
                for r in self._read("episode_texts", scope=scope)]

    def live_derived(self, scope: str) -> list[Assertion]:
        """See :meth:`kg_memory.store.protocol.Store.live_derived`."""
        return [version_from_props(r["version"]) for r in self._read(
            "live_derived", scope=scope, kind=Kind.DERIVED.value)]
