"""Manual decisions: a person's MERGE or KEEP_APART, and how the resolver honours them.

A person's decision is an ordinary :class:`~kg_memory.domain.resolution.decision.ResolutionDecision`
whose ``decided_by`` names the person. It is never overturned automatically: when the resolver
sees the mention again (:func:`~kg_memory.domain.resolution.resolver.resolve` with ``manual=``, or a
re-score) it returns the person's outcome and only attaches its own evidence, recording what it
would have concluded in ``automatic_outcome``. A person may overrule a veto; the resolver may not.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.instant import ensure_utc
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import RESOLVER, Outcome, ResolutionDecision, decision_id
from kg_memory.domain.resolution.mention import Mention

__all__ = ["honour", "manual_decision"]


def manual_decision(
    mention: Mention,
    outcome: Outcome,
    *,
    decided_by: str,
    decided_at: datetime,
    reason: str,
    entity_id: str | None = None,
    kept_apart_from: Iterable[str] = (),
    config: ResolverConfig = DEFAULT_CONFIG,
) -> ResolutionDecision:
    """Record a person's decision about ``mention``: MERGE into ``entity_id``, or KEEP_APART
    (optionally naming the entities it is not). ``decided_by`` is the person, never
    ``"resolver"``; ``reason`` is their words, kept for audit."""
    if not decided_by.strip():
        raise ResolutionError("a manual decision names the person who made it")
    if decided_by == RESOLVER:
        raise ResolutionError(f"a manual decision is made by a person, not {RESOLVER!r}")
    if outcome is Outcome.REVIEW:
        raise ResolutionError("a person decides MERGE or KEEP_APART; REVIEW is the resolver's")
    at = ensure_utc(decided_at, what="decided_at")
    return ResolutionDecision(
        decision_id=decision_id(mention.mention_id, decided_by, at),
        mention=mention,
        outcome=outcome,
        entity_id=entity_id if outcome is Outcome.MERGE else None,
        kept_apart_from=tuple(sorted(set(kept_apart_from))),
        thresholds=config.thresholds,
        rule_version=config.rule_version,
        source_episode_ids=(mention.episode_id,),
        decided_by=decided_by,
        decided_at=at,
        reason=reason,
    )


def honour(manual: ResolutionDecision, automatic: ResolutionDecision) -> ResolutionDecision:
    """The person's decision, with the resolver's evidence for the same mention attached.

    The outcome, target, author, time and reason are the person's; the candidates, prior,
    posterior and vetoes are the resolver's, and ``automatic_outcome`` says what it concluded.
    """
    if not manual.is_manual:
        raise ResolutionError(f"decision {manual.decision_id} was not made by a person")
    if manual.mention.mention_id != automatic.mention.mention_id:
        raise ResolutionError(
            f"manual decision {manual.decision_id} is about mention "
            f"{manual.mention.mention_id}, not {automatic.mention.mention_id}"
        )
    if manual.mention.scope != automatic.mention.scope:
        raise ResolutionError("a manual decision cannot move a mention to another scope")
    episodes = sorted({*manual.source_episode_ids, *automatic.source_episode_ids})
    return ResolutionDecision(
        decision_id=manual.decision_id,
        mention=automatic.mention,
        outcome=manual.outcome,
        entity_id=manual.entity_id,
        kept_apart_from=manual.kept_apart_from,
        candidates=automatic.candidates,
        prior=automatic.prior,
        posterior=automatic.posterior,
        vetoes=automatic.vetoes,
        thresholds=automatic.thresholds,
        rule_version=automatic.rule_version,
        source_episode_ids=tuple(episodes),
        decided_by=manual.decided_by,
        decided_at=manual.decided_at,
        reason=manual.reason,
        automatic_outcome=automatic.outcome,
        supersedes=manual.supersedes,
    )
