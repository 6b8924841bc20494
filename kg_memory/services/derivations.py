"""Lineage and consolidation: :class:`Derivations`, the part of :class:`~kg_memory.Memory` that
reads where a record came from and publishes what a worker derives from evidence.

A lineage walk and a PROV export stay in one scope (the scope of the node named, when none is
given, which must then be unique); a node id may be any form a command printed
(:mod:`kg_memory.services.node_ids`). Consolidation is read, derive, publish under If-Match:
a concurrent change sends the worker back to read again, a forgotten source never does.
"""

from __future__ import annotations

import networkx as nx
from prov.model import ProvDocument

from kg_memory.domain.errors import ConcurrencyError, ForgottenError, NotFound
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Qualifiers, Value
from kg_memory.services.lineage import Direction, lineage_graph, node_scope, scoped_node
from kg_memory.services.node_ids import printed_node
from kg_memory.services.provenance import add_tombstones, export_prov
from kg_memory.services.publication import Basis, Published, publish_derived, read_basis
from kg_memory.store.protocol import Slot, Store

__all__ = ["Derivations"]


class Derivations:
    """Memory's lineage, PROV and consolidation methods (see the module docstring)."""

    store: Store
    policy: WriterPolicy

    def lineage(
        self, node_id: str, direction: Direction = "both", depth: int | None = None, *,
        scope: str | None = None,
    ) -> nx.MultiDiGraph[str]:
        """Where ``node_id`` came from ("up") and what derives from it ("down"), as a
        read-only networkx graph whose edges point from a derivative to its source. The walk
        stays in ``scope`` (without one, the scope of the node named, which must be unique)."""
        check_text(node_id=node_id)
        node_id = printed_node(self.store, node_id, scope)
        return lineage_graph(self.store, node_id, direction, depth,
                             scope=self._node_scope(node_id, scope))

    def _node_scope(self, node_id: str, scope: str | None) -> str:
        if scope is None:
            return node_scope(self.store, node_id)
        if not scoped_node(self.store, node_id, scope):
            raise NotFound(f"no node {node_id!r} in scope {scope!r}")
        return scope

    def read_basis(
        self, subject: str, predicate: str, evidence: list[str], *, scope: str = "default",
        project: str | None = None,
    ) -> Basis:
        """What a consolidation worker reads before deriving: the record's tag and the current
        revision of each evidence assertion (evidence of another scope is not read)."""
        check_text(subject=subject, predicate=predicate, scope=scope, project=project)
        for item in evidence:
            check_text(evidence=item)
        evidence = [printed_node(self.store, item, scope) for item in evidence]
        slot = Slot(scope=scope, subject=subject, predicate=predicate, project=project)
        return read_basis(self.store, slot, evidence)

    def publish(
        self, basis: Basis, *, value: Value | None = None, qualifiers: Qualifiers | None = None
    ) -> Published:
        """Publish a derived record if ``basis`` still holds (If-Match); see
        :mod:`kg_memory.services.publication`."""
        return publish_derived(self.store, basis, policy=self.policy, value=value,
                               qualifiers=qualifiers)

    def consolidate(
        self, subject: str, predicate: str, evidence: list[str], *, scope: str = "default",
        project: str | None = None, attempts: int = 3,
    ) -> Published:
        """Read, derive and publish, re-reading when a concurrent change wins the race.

        A forgotten source or a record that would drop a scope or an exception is not retried.
        """
        for attempt in range(attempts):
            basis = self.read_basis(subject, predicate, evidence, scope=scope, project=project)
            try:
                return self.publish(basis)
            except ForgottenError:
                raise
            except ConcurrencyError:
                if attempt == attempts - 1:
                    raise
        raise ConcurrencyError("consolidation needs at least one attempt")

    def prov(self, node_ids: list[str] | None = None, *, scope: str | None = None
             ) -> ProvDocument:
        """A W3C PROV document of the lineage of ``node_ids`` (of everything when ``None``)
        in ``scope`` (every scope's when ``None``: an operator's export)."""
        for node in node_ids or []:
            check_text(node_id=node)
        node_ids = None if node_ids is None else [
            printed_node(self.store, node, scope) for node in node_ids]
        if scope is not None:
            for node in node_ids or ():
                self._node_scope(node, scope)
        doc = export_prov(self.store, node_ids, scope)
        add_tombstones(doc, self.store, scope)
        return doc
