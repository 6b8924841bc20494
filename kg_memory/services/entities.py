"""Who is who: the identity half of :class:`~kg_memory.services.memory.Memory`.

Entities, what resolution knows of them, its decisions with their evidence, and a person's
say (merge, unmerge, keep apart). A mixin so the facade stays one object for its users while
each concept keeps a module of its own; it needs only ``self.store``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kg_memory.domain.errors import InvalidArgument, NotFound
from kg_memory.domain.instant import Clock
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Entity
from kg_memory.domain.resolution import EntityProfile
from kg_memory.domain.resolution.review_pair import ReviewPair
from kg_memory.domain.result import AsOfAnswer, Fact
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
from kg_memory.services.review_queue import Decision, open_decisions, read_queue, settle
from kg_memory.store.protocol import Store

__all__ = ["EntityMethods"]


def _person(by: str) -> None:
    """A person's decision names the person: an empty name would be an audit row of nobody."""
    if not by.strip():
        raise InvalidArgument("by: name the person who decides (it is kept for the audit)")


class EntityMethods:
    """Memory's identity methods (see the module docstring)."""

    store: Store
    _clock: Clock

    if TYPE_CHECKING:  # Memory's own query, which pools a merged group as every answer does
        def asof(self, valid_at: datetime | None = None, known_at: datetime | None = None, *,
                 subject: str | None = None, predicate: str | None = None,
                 scope: str | None = None) -> AsOfAnswer: ...

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
        """REVIEW decisions with a pair no person has settled yet (a REVIEW between several
        candidates stays until each of its pairs is settled)."""
        check_text(scope=scope)
        return open_decisions(self.store, scope)

    def review_queue(self, scope: str | None = None, *, settled: bool = False
                     ) -> list[ReviewPair]:
        """The open review pairs, most impact first (facts a merge would pool, then its
        conflicts, as of now on both axes), each with its fields side by side; with
        ``settled`` the pairs people decided too (see :mod:`kg_memory.services.review_queue`)."""
        check_text(scope=scope)
        now = self._clock()

        def facts(where: str, entity: str) -> list[Fact]:
            return list(self.asof(now, now, subject=entity, scope=where).facts)

        return read_queue(self.store, scope, now=now, facts=facts, settled=settled)

    def settle(self, provisional: str, candidate: str, decision: Decision, *, by: str,
               reason: str = "", scope: str) -> Resolved:
        """A person settles a review pair: ``"merge"`` or ``"apart"``, recorded with who and
        why, final for the resolver, reversed only by settling it the other way."""
        check_text(provisional=provisional, candidate=candidate, by=by, reason=reason,
                   scope=scope)
        return settle(self.store, scope, provisional, candidate, decision=decision, by=by,
                      reason=reason)

    def merge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """A person's merge: ``other`` is the same as ``keep`` from now on (reversible)."""
        check_text(keep=keep, other=other, by=by, reason=reason, scope=scope)
        _person(by)
        return merge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """Undo a merge; every fact stays with the entity it was written for."""
        check_text(keep=keep, other=other, by=by, reason=reason, scope=scope)
        _person(by)
        return unmerge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge_decision(self, decision_id: str, *, by: str, reason: str,
                         scope: str | None = None) -> Resolved:
        """Undo the resolver's merge of one mention, splitting its facts back by lineage."""
        check_text(decision_id=decision_id, by=by, reason=reason)
        _person(by)
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
        _person(by)
        return keep_apart(self.store, provisional, candidate, by=by, reason=reason, scope=scope)
