"""Recall's fact corpus: how an eligible revision is scored, decayed and shown.

A revision's specificity is its subject (or one merged with it) and project against the
request's, its recency is its last supporting episode, its evidence its kind's authority and
how many independent sources support it. Decay (a write policy's half-lives and floors) is an
eligibility rule: a fact whose trust fell below its floor is not ranked but returned to the
agent as one to ask about again.
"""

from __future__ import annotations

from kg_memory.domain.decay import confirmed_at, judge
from kg_memory.domain.eligibility import RecallContext, fact_reasons
from kg_memory.domain.model import Assertion, Support
from kg_memory.domain.ranking import (
    Ranked,
    Scored,
    evidence_quality,
    recency,
    specificity,
)
from kg_memory.domain.recall_answer import AskAgain, RecallHit, fact_label
from kg_memory.services.recall_request import RecallRequest
from kg_memory.store.protocol import Store

__all__ = ["decayed", "fact_hit", "fact_key", "fact_scored"]


def fact_key(fact: Assertion) -> str:
    """The key a revision ranks under."""
    return f"fact:{fact.assertion_id}#{fact.revision}"


def _project_match(request: RecallRequest, project: str | None) -> float | None:
    if request.project is None:
        return None
    if project is None:
        return 0.5
    return 1.0 if project == request.project else 0.0


def fact_scored(fact: Assertion, doc: list[str], supports: tuple[Support, ...],
                 request: RecallRequest) -> Scored:
    last = max((s.occurred_at for s in supports), default=fact.valid.start)
    return Scored(
        key=fact_key(fact),
        terms=doc,
        specificity=specificity(
            None if request.subject is None
            else fact.subject == request.subject or fact.subject in request.same_as,
            _project_match(request, fact.qualifiers.project)),
        recency=recency(last, request.at, request.weights.half_life_days),
        evidence=evidence_quality(fact.kind, len({s.source for s in supports})),
    )


def fact_hit(fact: Assertion, supports: tuple[Support, ...], ranked: Ranked,
              context: RecallContext) -> RecallHit:
    label, own, historical = fact_label(fact)
    return RecallHit(
        type="fact", id=fact.assertion_id, revision=fact.revision, scope=fact.scope,
        content=str(fact.value),
        value=fact.value, subject=fact.subject, predicate=fact.predicate,
        qualifiers=fact.qualifiers, kind=fact.kind, writer=fact.writer, valid=fact.valid,
        system=fact.system, supported_by=supports,
        eligible_because=fact_reasons(fact, context), label=label, own_words=own,
        historical_only=historical, context=(), score=ranked.components())


def decayed(store: Store, facts: list[Assertion], request: RecallRequest
             ) -> tuple[list[Assertion], list[AskAgain]]:
    """Split ``facts`` into those still trusted at ``at`` and those to ask about again.

    Trust decays from the last confirmation the store knew of at ``known_at`` (supports read as
    of then), so a replay at an earlier ``known_at`` decays what was known then."""
    policy = request.policy
    if policy is None or not facts:
        return facts, []
    rules = {f.predicate: policy.rule_for(f.predicate) for f in facts}
    decaying = [f for f in facts if rules[f.predicate].half_life_days is not None]
    if not decaying:
        return facts, []
    supports = store.supports({f.assertion_id for f in decaying}, request.known_at)
    kept, stale = [], []
    for fact in facts:
        rule = rules[fact.predicate]
        if rule.half_life_days is None:
            kept.append(fact)
            continue
        last = confirmed_at(fact, supports.get(fact.assertion_id, ()), request.at)
        trust = judge(rule, fact.confidence, last, request.at)
        if trust.served:
            kept.append(fact)
        else:
            stale.append(AskAgain(
                assertion_id=fact.assertion_id, revision=fact.revision, subject=fact.subject,
                predicate=fact.predicate, last_confirmed=last, age_days=trust.age_days,
                half_life_days=rule.half_life_days, factor=trust.factor, floor=rule.floor,
                reason=trust.reason))
    return kept, stale
