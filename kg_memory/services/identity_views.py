"""What :class:`~kg_memory.Memory` offers about identity decisions: the resolver's decisions,
what waits for review, and a person's merge, unmerge and keep-apart (kept apart so the memory
module stays small)."""

from __future__ import annotations

from kg_memory.domain.errors import NotFound
from kg_memory.domain.resolution import RESOLVER, Outcome
from kg_memory.services.identity import (
    Resolved,
    keep_apart,
    load_decisions,
    merge_entities,
    unmerge_decision,
    unmerge_entities,
)
from kg_memory.store.protocol import Store

__all__ = ["IdentityViews"]


class IdentityViews:
    """Mixed into :class:`~kg_memory.Memory`, which sets :attr:`store`."""

    store: Store

    def decisions(self, scope: str | None = None, entity_id: str | None = None
                  ) -> list[Resolved]:
        """Every resolution decision with its evidence, oldest first."""
        found = load_decisions(self.store, scope)
        if entity_id is None:
            return found
        return [r for r in found if entity_id in (
            r.entity_id, r.decision.entity_id, *r.decision.possible_same_as,
            *r.decision.kept_apart_from)]

    def review(self, scope: str | None = None) -> list[Resolved]:
        """REVIEW decisions no person has settled yet."""
        decided = {r.decision.mention.mention_id for r in self.decisions(scope)
                   if r.decision.decided_by != RESOLVER}
        return [r for r in self.decisions(scope) if r.decision.outcome is Outcome.REVIEW
                and f"entity:{r.entity_id}" not in decided]

    def merge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """A person's merge: ``other`` is the same as ``keep`` from now on (reversible)."""
        return merge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """Undo a merge; every fact stays with the entity it was written for."""
        return unmerge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge_decision(self, decision_id: str, *, by: str, reason: str,
                         scope: str | None = None) -> Resolved:
        """Undo the resolver's merge of one mention, splitting its facts back by lineage."""
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
        return keep_apart(self.store, provisional, candidate, by=by, reason=reason, scope=scope)
