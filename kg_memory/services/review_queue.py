"""The review queue: the pairs the resolver could not decide, read from the store in the order a
person should see them, and a person's settlement of one.

The rules (which pairs, how they compare, what a merge would change, the order) are the
domain's (:mod:`kg_memory.domain.resolution.review_pair`); this module reads what they need:
the REVIEW decisions and the people's decisions of a scope, the candidate's profile, and each
side's facts as of now. Settling goes through the identity writes
(:mod:`kg_memory.services.identity`): a merge is a person's ``same_as`` pair, keeping apart is
a recorded decision, and each undoes the other, so a settlement is always reversible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

from kg_memory.domain.errors import InvalidArgument, NotFound
from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    Outcome,
    ResolutionDecision,
    ResolverConfig,
)
from kg_memory.domain.resolution.review_pair import (
    ReviewPair,
    impact,
    ordered,
    pairs_of,
    settlement,
    side_by_side,
)
from kg_memory.domain.result import Fact
from kg_memory.services.identity import (
    Resolved,
    keep_apart,
    load_decisions,
    load_profile,
    merge_entities,
    unmerge_entities,
)
from kg_memory.store.protocol import Store

__all__ = ["Decision", "FactsNow", "ReviewPair", "open_decisions", "read_queue", "settle"]

#: How a person settles a pair: the same entity (merge), or two (apart).
Decision = Literal["merge", "apart"]
#: An entity's facts, pooled over its merged group as queries pool them: ``(scope, entity)``.
FactsNow = Callable[[str, str], Sequence[Fact]]


def read_queue(store: Store, scope: str | None, *, now: datetime, facts: FactsNow,
               settled: bool = False, config: ResolverConfig = DEFAULT_CONFIG
               ) -> list[ReviewPair]:
    """The open pairs of ``scope`` (every scope: ``None``), most impact first; with
    ``settled`` the pairs people decided too, each with its settlement."""
    found = load_decisions(store, scope)
    people = _people(found)
    pairs: list[ReviewPair] = []
    for provisional, candidate, decision in pairs_of((r.entity_id, r.decision) for r in found):
        where = decision.mention.scope
        done = settlement(provisional, candidate, people.get(where, []))
        if done is not None and not settled:
            continue
        profile = load_profile(store, candidate, where)
        evidence = decision.candidate(candidate)
        pairs.append(ReviewPair(
            scope=where, provisional=provisional, candidate=candidate,
            decision_id=decision.decision_id, mention=decision.mention.name,
            posterior=evidence.posterior if evidence else None,
            reason=evidence.reason if evidence else decision.reason,
            fields=side_by_side(decision.mention, profile, config=config) if profile else (),
            impact=impact(facts(where, provisional), facts(where, candidate), now=now),
            settled=done))
    return ordered(pairs)


def _people(found: Sequence[Resolved]) -> dict[str, list[ResolutionDecision]]:
    """People's decisions by scope: an entity id means something only within its scope, so a
    decision in one tenant never settles another tenant's pair of the same ids."""
    by_scope: dict[str, list[ResolutionDecision]] = {}
    for r in found:
        if r.decision.is_manual:
            by_scope.setdefault(r.decision.mention.scope, []).append(r.decision)
    return by_scope


def open_decisions(store: Store, scope: str | None) -> list[Resolved]:
    """The REVIEW decisions of which at least one pair is still open, oldest first."""
    found = load_decisions(store, scope)
    people = _people(found)
    asking = {d.decision_id for p, c, d in pairs_of((r.entity_id, r.decision) for r in found)
              if settlement(p, c, people.get(d.mention.scope, [])) is None}
    return [r for r in found if r.decision.decision_id in asking]


def settle(store: Store, scope: str, provisional: str, candidate: str, *, decision: Decision,
           by: str, reason: str) -> Resolved:
    """A person settles the pair ``provisional:candidate`` of ``scope``: ``merge`` (the facts
    pool from now on) or ``apart``. The pair must be one the resolver asked in this scope, so a
    tenant can settle only its own questions. Settling it the way it already is settled is a
    no-op that returns that decision; the other way reverses it (an ``apart`` after a merge
    retracts the merge, a ``merge`` after an apart merges)."""
    if not by.strip():
        raise InvalidArgument("by: name the person who decides (it is kept for the audit)")
    if decision not in ("merge", "apart"):
        raise InvalidArgument(f"decision: 'merge' or 'apart', not {decision!r}")
    found = load_decisions(store, scope)
    asked = {(p, c) for p, c, _ in pairs_of((r.entity_id, r.decision) for r in found)}
    if (provisional, candidate) not in asked:
        raise NotFound(f"no review pair {provisional}:{candidate} in scope {scope!r}")
    current = settlement(provisional, candidate, [r.decision for r in found
                                                  if r.decision.is_manual])
    merged = current is not None and current.outcome is Outcome.MERGE
    if current is not None and merged == (decision == "merge"):
        return next(r for r in found if r.decision.decision_id == current.decision_id)
    if decision == "merge":
        return merge_entities(store, candidate, provisional, by=by, reason=reason, scope=scope)
    if merged:
        return unmerge_entities(store, candidate, provisional, by=by, reason=reason,
                                scope=scope)
    return keep_apart(store, provisional, candidate, by=by, reason=reason, scope=scope)
