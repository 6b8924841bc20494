"""Who is who: the identity half of :class:`~kg_memory.services.memory.Memory`.

Entities, what resolution knows of them, its decisions with their evidence, and a person's
say (merge, unmerge, keep apart). A mixin so the facade stays one object for its users while
each concept keeps a module of its own; it needs only ``self.store``.
"""

from __future__ import annotations

from kg_memory.domain.errors import NotFound
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Entity
from kg_memory.domain.resolution import RESOLVER, EntityProfile, Outcome
from kg_memory.services.identity import (
    Resolved,
    keep_apart,
    load_decisions,
    load_profile,
    merge_entities,
    unmerge_decision,
    unmerge_entities,
)
from kg_memory.services.lineage import node_scope
from kg_memory.store.protocol import Store

__all__ = ["EntityMethods"]


class EntityMethods:
    """Memory's identity methods (see the module docstring)."""

    store: Store

    def entities(self, scope: str | None = None) -> list[Entity]:
        check_text(scope=scope)
        return self.store.entities(scope)

    def profile(self, entity_id: str, scope: str | None = None) -> EntityProfile | None:
        """What identity resolution knows of an entity: names, identifiers, context."""
        check_text(entity_id=entity_id)
        if scope is None:
            try:
                scope = node_scope(self.store, entity_id)
            except NotFound:
                return None
        return load_profile(self.store, entity_id, scope)

    def decisions(self, scope: str | None = None, entity_id: str | None = None
                  ) -> list[Resolved]:
        """Every resolution decision with its evidence, oldest first."""
        check_text(scope=scope, entity_id=entity_id)
        found = load_decisions(self.store, scope)
        if entity_id is None:
            return found
        return [r for r in found if entity_id in (
            r.entity_id, r.decision.entity_id, *r.decision.possible_same_as,
            *r.decision.kept_apart_from)]

    def review(self, scope: str | None = None) -> list[Resolved]:
        """REVIEW decisions no person has settled yet."""
        check_text(scope=scope)
        decided = {r.decision.mention.mention_id for r in self.decisions(scope)
                   if r.decision.decided_by != RESOLVER}
        return [r for r in self.decisions(scope) if r.decision.outcome is Outcome.REVIEW
                and f"entity:{r.entity_id}" not in decided]

    def merge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """A person's merge: ``other`` is the same as ``keep`` from now on (reversible)."""
        check_text(keep=keep, other=other, by=by, reason=reason, scope=scope)
        return merge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """Undo a merge; every fact stays with the entity it was written for."""
        check_text(keep=keep, other=other, by=by, reason=reason, scope=scope)
        return unmerge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge_decision(self, decision_id: str, *, by: str, reason: str,
                         scope: str | None = None) -> Resolved:
        """Undo the resolver's merge of one mention, splitting its facts back by lineage."""
        check_text(decision_id=decision_id, by=by, reason=reason)
        if scope is None:
            found = [r.decision.mention.scope for r in self.decisions()
                     if r.decision.decision_id == decision_id]
            if not found:
                raise NotFound(f"no merge decision {decision_id!r}")
            scope = found[0]
        return unmerge_decision(self.store, decision_id, by=by, reason=reason, scope=scope)

    def keep_apart(self, provisional: str, candidate: str, *, by: str, reason: str,
                   scope: str) -> Resolved:
        """A person settles a REVIEW: these are different entities."""
        check_text(provisional=provisional, candidate=candidate, by=by, reason=reason,
                   scope=scope)
        return keep_apart(self.store, provisional, candidate, by=by, reason=reason, scope=scope)
