"""Layers and promotion (seed 004): how a note becomes a rule, and how a rule stops being one.

Three tiers: ``session`` (holds for the task at hand), ``experience`` (held repeatedly, with
conditions) and ``metadata`` (the rule layer the agent trusts by default). A :class:`Rule` keeps
its content, its type, its *basis* (the raw observations, each linked to the episode it came
from), the environment signals it is bound to, and every transition with who made it and when.

* session -> experience: at least ``confirmations`` observations that held, from distinct task
  ids, across at least ``scenes`` scene tags, within ``window_days``, and no counterexample;
* experience -> metadata: only a *candidate* until a person approves it;
* safety constraints change only by an explicit design change; nothing promotes itself;
* a bound environment signal that moves (config version, tool schema hash, permission set,
  data snapshot id, a declared domain switch) sends the rule to review, and a review ends in
  keep, demote or expire, never "looked at it" (the signal is a fact in the graph the rule
  depends on: :mod:`kg_memory.services.rules`; dated reviews and forgotten basis:
  :mod:`kg_memory.domain.rule_review`);
* a falsified rule is kept, overturned, as a counterexample; its correction starts from the raw
  observations it links to, not from a re-summary of the rule.

All functions are pure: they take a rule and return the changed rule.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.errors import PolicyError
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.limits import WindowDays

__all__ = [
    "Observation",
    "Outcome",
    "PromotionPolicy",
    "Rule",
    "RuleType",
    "Tier",
    "Transition",
    "approve",
    "move_signal",
    "observe",
    "overturn",
    "promote",
    "promotion_ready",
    "review",
]


class Tier(StrEnum):
    SESSION = "session"
    EXPERIENCE = "experience"
    METADATA = "metadata"


_DOWN = {Tier.METADATA: Tier.EXPERIENCE, Tier.EXPERIENCE: Tier.SESSION, Tier.SESSION: None}


class RuleType(StrEnum):
    SAFETY = "safety constraint"
    EXPERIENCE = "experience rule"
    ENVIRONMENT = "environment default"
    REPRESENTATION = "representation structure"


class Outcome(StrEnum):
    KEEP = "keep"
    DEMOTE = "demote"
    EXPIRE = "expire"


class Observation(BaseModel):
    """One raw observation behind a rule: the episode it is in, the task and scene, and whether
    the rule held there (``False`` is a counterexample)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    task_id: str
    scene: str
    at: UtcDatetime
    holds: bool = True


class Transition(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    at: UtcDatetime
    by: str
    action: str
    reason: str = ""


class PromotionPolicy(BaseModel):
    """Seed 004's scaffold defaults; raise ``confirmations`` for high-risk work."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    confirmations: int = Field(default=3, ge=1)
    scenes: int = Field(default=2, ge=1)
    window_days: WindowDays = 30.0


class Rule(BaseModel):
    """A memory entry in one of the tiers. ``status``: active, review, expired or overturned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    scope: str
    content: str
    type: RuleType = RuleType.EXPERIENCE
    tier: Tier = Tier.SESSION
    status: str = "active"
    conditions: tuple[str, ...] = ()
    basis: tuple[Observation, ...] = ()
    #: environment signals the rule is bound to, with the value it was learned under
    signals: dict[str, str] = Field(default_factory=dict)
    #: the review conditions that come due with time (see :mod:`kg_memory.domain.rule_review`):
    #: the rule is sent to review at ``expires_at``, and ``review_every_days`` after its last
    #: transition (a person's or the promotion's), so nothing stays trusted unexamined forever
    expires_at: UtcDatetime | None = None
    review_every_days: float | None = Field(default=None, gt=0)
    #: when it was proposed (``None`` in rules stored before this field existed)
    proposed_at: UtcDatetime | None = None
    #: proposed for the metadata tier, waiting for a person
    candidate: bool = False
    #: the rule this one corrects (its raw observations are where the correction started)
    corrects: str | None = None
    transitions: tuple[Transition, ...] = ()

    @property
    def counterexamples(self) -> tuple[Observation, ...]:
        return tuple(o for o in self.basis if not o.holds)

    def _moved(self, by: str, at: UtcDatetime, action: str, reason: str = "",
               **changes: object) -> Rule:
        step = Transition(at=at, by=by, action=action, reason=reason)
        return self.model_copy(update={**changes, "transitions": (*self.transitions, step)})


def observe(rule: Rule, observation: Observation) -> Rule:
    """Add a raw observation; a counterexample sends a trusted rule to review."""
    updated = rule.model_copy(update={"basis": (*rule.basis, observation)})
    if not observation.holds and rule.tier is not Tier.SESSION and rule.status == "active":
        return updated._moved("kg-memory", observation.at, "review",
                              f"counterexample in task {observation.task_id}", status="review")
    return updated


def promotion_ready(rule: Rule, policy: PromotionPolicy, now: UtcDatetime) -> tuple[bool, str]:
    """Whether a session entry has earned experience, and if not, what is missing."""
    if rule.counterexamples:
        return False, f"{len(rule.counterexamples)} counterexample(s)"
    since = now - timedelta(days=policy.window_days)
    recent = [o for o in rule.basis if o.holds and since <= o.at <= now]
    tasks = {o.task_id for o in recent}
    scenes = {o.scene for o in recent}
    if len(tasks) < policy.confirmations:
        return False, (f"{len(tasks)} of {policy.confirmations} confirmations from distinct "
                       f"tasks within {policy.window_days:g} days")
    if len(scenes) < policy.scenes:
        return False, f"{len(scenes)} of {policy.scenes} scene tags"
    return True, f"{len(tasks)} tasks across {len(scenes)} scenes"


def promote(rule: Rule, policy: PromotionPolicy, now: UtcDatetime) -> Rule:
    """session -> experience when ready; experience -> a metadata *candidate* (never further)."""
    if rule.status != "active":
        raise PolicyError(f"rule {rule.rule_id} is {rule.status}; only active rules promote")
    if rule.type is RuleType.SAFETY:
        raise PolicyError("safety constraints change only by an explicit design change")
    if rule.tier is Tier.SESSION:
        ready, why = promotion_ready(rule, policy, now)
        if not ready:
            raise PolicyError(f"rule {rule.rule_id} stays in session: {why}")
        return rule._moved("kg-memory", now, "promoted to experience", why,
                           tier=Tier.EXPERIENCE)
    if rule.tier is Tier.EXPERIENCE:
        return rule._moved("kg-memory", now, "proposed for metadata",
                           "waiting for a person's approval", candidate=True)
    raise PolicyError(f"rule {rule.rule_id} is already metadata")


def approve(rule: Rule, by: str, now: UtcDatetime, *, design_change: bool = False) -> Rule:
    """A person's approval: a metadata candidate enters the metadata tier."""
    if rule.type is RuleType.SAFETY and not design_change:
        raise PolicyError("a safety constraint changes only by an explicit design change")
    if not by.strip():
        raise PolicyError("an approval names who approved")
    if not rule.candidate and not design_change:
        raise PolicyError(f"rule {rule.rule_id} is not a metadata candidate")
    return rule._moved(by, now, "approved into metadata", tier=Tier.METADATA, candidate=False)


def move_signal(rule: Rule, name: str, value: str, now: UtcDatetime) -> Rule:
    """An environment signal now reads ``value``: a rule bound to another value goes to review."""
    bound = rule.signals.get(name)
    if bound is None or bound == value or rule.status not in ("active", "review"):
        return rule
    return rule._moved("kg-memory", now, "review", f"signal {name}: {bound} -> {value}",
                       status="review")


def _unchangeable(rule: Rule, design_change: bool) -> str | None:
    """Why ``rule`` may not be demoted, expired or overturned, or ``None``."""
    if rule.type is RuleType.SAFETY and not design_change:
        return "a safety constraint changes only by an explicit design change"
    return None


def review(rule: Rule, outcome: Outcome, by: str, now: UtcDatetime, reason: str = "", *,
           design_change: bool = False) -> Rule:
    """End a review: keep (active again), demote (one tier down) or expire. A falsified
    (overturned) rule is kept as a counterexample, so no review reopens it; an expired rule is
    as finished, so no review undoes its expiry (a keep or a demote would make it active)."""
    if not by.strip():
        raise PolicyError("a review names who reviewed")
    if rule.status == "overturned":
        raise PolicyError(f"rule {rule.rule_id} is overturned: it is kept as a counterexample "
                          "(propose its correction as a new rule)")
    if rule.status == "expired":
        raise PolicyError(f"rule {rule.rule_id} has expired: a review does not undo an expiry "
                          "(propose its replacement as a new rule)")
    if outcome is not Outcome.KEEP and (why := _unchangeable(rule, design_change)):
        raise PolicyError(why)
    if outcome is Outcome.KEEP:
        return rule._moved(by, now, "kept", reason, status="active")
    if outcome is Outcome.EXPIRE:
        return rule._moved(by, now, "expired", reason, status="expired", candidate=False)
    lower = _DOWN[rule.tier]
    if lower is None:
        return rule._moved(by, now, "overturned", reason, status="overturned", candidate=False)
    return rule._moved(by, now, f"demoted to {lower.value}", reason, tier=lower,
                       status="active", candidate=False)


def overturn(rule: Rule, by: str, now: UtcDatetime, reason: str, *,
             design_change: bool = False) -> Rule:
    """The rule was falsified: keep it, overturned, as a counterexample (never delete it)."""
    if not by.strip() or not reason.strip():
        raise PolicyError("overturning a rule names who and why")
    if why := _unchangeable(rule, design_change):
        raise PolicyError(why)
    return rule._moved(by, now, "overturned", reason, status="overturned", candidate=False)
