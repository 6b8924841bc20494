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

**Its own words.** A rule that survives may still *quote* what was forgotten: its content, a
condition, a kept observation's task id or scene tag, a transition's reason. The forget run's
residue search (:mod:`kg_memory.domain.residue`) finds those copies and :func:`forget_words`
decides: every copy is cut; when the cut is in the rule's content or a condition, what the rule
says is no longer what its observations confirmed, so an active rule goes to **review** (a person
keeps, demotes or expires it; never deleted for it, since that would take its bindings and basis
with a few words); otherwise the rule is only **redacted**.

Nothing here reads a store or a clock.
"""

from __future__ import annotations

from collections.abc import Set
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.layers import Observation, PromotionPolicy, Rule, RuleType, Tier
from kg_memory.domain.residue import Matcher, redact

__all__ = [
    "BasisOutcome",
    "RuleForget",
    "cut_words",
    "forget_basis",
    "forget_words",
    "forgotten_rule",
    "next_review",
    "review_due",
    "send_to_review",
]

BasisOutcome = Literal["trim", "review", "delete", "redact"]

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
    #: copies of forgotten text in the rule's own words, cut out (see :func:`forget_words`)
    cut: int = 0


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


def _trimmed(rule: Rule, episodes: Set[str]) -> Rule:
    return rule.model_copy(update={
        "basis": tuple(o for o in rule.basis if o.episode_id not in episodes)})


def cut_words(rule: Rule, match: Matcher) -> tuple[Rule, int, bool]:
    """``rule`` with every copy ``match`` finds in its own words cut out: its content and
    conditions, its observations' task ids and scene tags, who made each transition and why.
    Returns the rule, how many spans were cut, and whether its meaning (the content or a
    condition) was among them. Ids, tiers and signals are not words: signals are facts in the
    graph, which the forget plan governs.

    >>> rule = Rule(rule_id="r", scope="u1", content="knock twice at the blue side door")
    >>> after, spans, meaning = cut_words(rule, Matcher(["the blue side door"]))
    >>> (after.content, spans, meaning)
    ('knock twice at [forgotten]', 1, True)
    """
    count = 0

    def cut(text: str) -> str:
        nonlocal count
        spans = match.spans(text)
        count += len(spans)
        return redact(text, spans) if spans else text

    content, conditions = cut(rule.content), tuple(cut(c) for c in rule.conditions)
    meaning = count > 0
    basis = tuple(o.model_copy(update={"task_id": cut(o.task_id), "scene": cut(o.scene)})
                  for o in rule.basis)
    transitions = tuple(t.model_copy(update={"by": cut(t.by), "reason": cut(t.reason)})
                        for t in rule.transitions)
    if not count:
        return rule, 0, False
    return rule.model_copy(update={"content": content, "conditions": conditions,
                                   "basis": basis, "transitions": transitions}), count, meaning


def forget_words(rule: Rule, entry: RuleForget | None, episodes: Set[str],
                 match: Matcher) -> RuleForget | None:
    """``entry`` (what :func:`forget_basis` said of ``rule``), with the copies of forgotten
    text left in the rule's words once ``episodes`` are erased. See the module for the rule."""
    if entry is not None and entry.outcome == "delete":
        return entry  # nothing of it is kept, words included
    _, cut, meaning = cut_words(_trimmed(rule, episodes), match)
    if not cut:
        return entry
    outcome: BasisOutcome = "redact" if entry is None else entry.outcome
    why = f"{cut} copy(ies) of forgotten text cut from its words"
    if meaning and rule.status == "active":
        outcome = "review"
        why += ", so its basis no longer confirms what it says"
    return RuleForget(
        rule_id=rule.rule_id, dropped=0 if entry is None else entry.dropped,
        kept=len(rule.basis) if entry is None else entry.kept, outcome=outcome,
        reason=why if entry is None else f"{entry.reason}; {why}", cut=cut)


def forgotten_rule(rule: Rule, entry: RuleForget, episodes: Set[str],
                   now: UtcDatetime, match: Matcher | None = None) -> Rule | None:
    """The rule as stored once ``entry`` is carried out (``None``: deleted); ``match`` cuts
    the copies of forgotten text :func:`forget_words` counted (none without it)."""
    if entry.outcome == "delete":
        return None
    trimmed = _trimmed(rule, episodes)
    if entry.cut and match is not None:
        trimmed = cut_words(trimmed, match)[0]
    if entry.outcome == "review":
        return send_to_review(trimmed, entry.reason, now)
    action = "forgotten text cut" if entry.outcome == "redact" else "basis forgotten"
    return trimmed._moved(_SYSTEM, now, action, entry.reason)
