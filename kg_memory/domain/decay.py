"""Decay: how long a memory stays trusted without being confirmed (seeds 001, 002, 003).

If a fact changes on average every tau days, a memory last confirmed ``a`` days ago is still true
with probability ``exp(-a / tau)``: trust halves every ``tau * ln 2`` days. Recall therefore
scores a memory ``confidence * 0.5 ** (age / half_life)``, age counted from its last
confirmation, and below ``floor`` (two half-lives at 0.25) does not serve it: the agent should
ask again. Decay bounds *trust*; it never declares a fact false and never touches what is stored,
so as-of queries still show what was believed.

>>> from datetime import UTC, datetime, timedelta
>>> from kg_memory.domain.write_policy import PredicateRule
>>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
>>> rule = PredicateRule(half_life_days=10)
>>> judge(rule, 0.8, t0, t0 + timedelta(days=10)).score
0.4
>>> judge(rule, 0.8, t0, t0 + timedelta(days=21)).served
False
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.model import Assertion, Support
from kg_memory.domain.write_policy import PredicateRule

__all__ = ["Trust", "confirmed_at", "decay_factor", "judge"]

_DAY = 86400.0


def decay_factor(age_days: float, half_life_days: float | None) -> float:
    """``0.5 ** (age / half_life)``; 1 without a half-life or for a future confirmation."""
    if half_life_days is None or age_days <= 0:
        return 1.0
    return float(0.5 ** (age_days / half_life_days))


class Trust(BaseModel):
    """How much a memory is trusted at ``now``, and whether it is served."""

    model_config = ConfigDict(frozen=True)

    factor: float
    score: float
    age_days: float
    served: bool
    reason: str = ""


def judge(rule: PredicateRule, confidence: float, last_confirmed: datetime,
          now: datetime) -> Trust:
    """Score a memory of ``confidence`` last confirmed at ``last_confirmed``, as of ``now``."""
    age = (now - last_confirmed).total_seconds() / _DAY
    factor = decay_factor(age, rule.half_life_days)
    served = factor >= rule.floor
    reason = "" if served else (
        f"not confirmed for {age:.0f} days (half-life {rule.half_life_days:g}): ask again")
    return Trust(factor=factor, score=round(confidence * factor, 12), age_days=age,
                 served=served, reason=reason)


def confirmed_at(fact: Assertion, supports: Iterable[Support], at: datetime) -> datetime:
    """When ``fact`` was last confirmed by ``at``: its newest supporting episode that occurred
    by then (pass the supports known at the question's ``known_at``), else the start of its
    validity. A confirmation after ``at`` says nothing about how far it could be trusted at
    ``at``."""
    seen = [s.occurred_at for s in supports if s.occurred_at <= at]
    return max(seen, default=fact.valid.start)
