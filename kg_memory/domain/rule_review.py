"""When a rule must be looked at again, and what forgetting its evidence does to it (seed 004).

A rule in the experience or metadata tier is trusted because of its basis: raw observations,
each in an episode. Two things take that trust away without anyone contradicting the rule.

**Time.** A review condition with a date comes due: ``expires_at`` passes, or
``review_every_days`` have gone by since the rule's last transition (its proposal, a
promotion, an approval, a review that kept it). :func:`review_due` says which, and
:func:`send_to_review` records it; a review then ends in keep, demote or expire as any other.

**Forgetting.** Erasing an episode that is a rule's basis must not leave the rule pointing at
evidence that no longer exists, so :func:`forget_basis` drops those observations and decides,
by one rule:

* no observation left (the rule had some): the rule is **deleted** (a content-free tombstone
  records that something was forgotten); a safety constraint is the exception: it changes only
  by an explicit design change, so it loses the observation and goes to **review**;
* a rule in the experience or metadata tier whose remaining observations that held no longer
  meet the promotion policy's count (``confirmations`` distinct tasks across ``scenes`` scene
  tags; the window is not applied again: it judged when the rule was promoted) goes to
  **review**, not down a tier: forgetting is not evidence against the rule, so a person
  decides whether what is left is enough (keep), or not (demote, expire);
* otherwise the rule only loses the observations (**trim**).

Nothing here reads a store or a clock.
"""

from __future__ import annotations

from collections.abc import Set
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.layers import Observation, PromotionPolicy, Rule, RuleType, Tier

__all__ = [
    "BasisOutcome",
    "RuleForget",
    "forget_basis",
    "forgotten_rule",
    "next_review",
    "review_due",
    "send_to_review",
]

BasisOutcome = Literal["trim", "review", "delete"]

#: who records what happened to a rule on its own (a due date, a moved signal, forgetting)
_SYSTEM = "kg-memory"


class RuleForget(BaseModel):
    """What a forget plan does to one rule: how many observations it drops, and the outcome.

    Content-free on purpose (no episode ids, tasks or scenes): a dry run may be shown to
    someone who is not allowed to read the forgotten evidence."""

    model_config = ConfigDict(frozen=True)

    rule_id: str
    dropped: int
    kept: int
    outcome: BasisOutcome
    reason: str


def _last_checked(rule: Rule) -> datetime | None:
    times = [t.at for t in rule.transitions]
    if rule.proposed_at is not None:
        times.append(rule.proposed_at)
    return max(times, default=None)


def next_review(rule: Rule) -> datetime | None:
    """When the rule's dated review conditions next come due (``None``: none is dated)."""
    dates: list[datetime] = []
    if rule.expires_at is not None:
        dates.append(rule.expires_at)
    checked = _last_checked(rule)
    if rule.review_every_days is not None and checked is not None:
        dates.append(checked + timedelta(days=rule.review_every_days))
    return min(dates, default=None)


def review_due(rule: Rule, now: UtcDatetime) -> str | None:
    """Why an active rule must be reviewed at ``now``, or ``None`` if nothing is due."""
    if rule.status != "active":
        return None
    if rule.expires_at is not None and rule.expires_at <= now:
        return f"review condition expired at {rule.expires_at.isoformat()}"
    due = next_review(rule)
    if due is not None and due <= now:
        return f"re-check every {rule.review_every_days:g} days came due at {due.isoformat()}"
    return None


def send_to_review(rule: Rule, reason: str, now: UtcDatetime) -> Rule:
    """Record that the rule waits for a person's review (keep, demote or expire)."""
    return rule._moved(_SYSTEM, now, "review", reason, status="review")


def _enough(basis: tuple[Observation, ...], policy: PromotionPolicy) -> bool:
    held = [o for o in basis if o.holds]
    return (len({o.task_id for o in held}) >= policy.confirmations
            and len({o.scene for o in held}) >= policy.scenes)


def forget_basis(rule: Rule, episodes: Set[str],
                 policy: PromotionPolicy) -> RuleForget | None:
    """What erasing ``episodes`` does to ``rule`` (``None``: none of them is its basis); the
    same entry for a dry run and the run itself. See the module for the rule."""
    kept = tuple(o for o in rule.basis if o.episode_id not in episodes)
    dropped = len(rule.basis) - len(kept)
    if not dropped:
        return None
    why = f"{dropped} observation(s) of its basis forgotten, {len(kept)} left"
    outcome: BasisOutcome = "trim"
    if not kept and rule.type is not RuleType.SAFETY:
        outcome = "delete"
    elif rule.status == "active" and (not kept or (rule.tier is not Tier.SESSION and not
                                                   _enough(kept, policy))):
        outcome = "review"
    return RuleForget(rule_id=rule.rule_id, dropped=dropped, kept=len(kept), outcome=outcome,
                      reason=why)


def forgotten_rule(rule: Rule, entry: RuleForget, episodes: Set[str],
                   now: UtcDatetime) -> Rule | None:
    """The rule as stored once ``entry`` is carried out (``None``: deleted)."""
    if entry.outcome == "delete":
        return None
    trimmed = rule.model_copy(update={
        "basis": tuple(o for o in rule.basis if o.episode_id not in episodes)})
    if entry.outcome == "review":
        return send_to_review(trimmed, entry.reason, now)
    return trimmed._moved(_SYSTEM, now, "basis forgotten", entry.reason)
