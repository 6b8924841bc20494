"""Reconcile: what a new value does to the current one (seed 003).

* No current value: write it.
* The same value: refresh (one more supporting episode, a newer last confirmation).
* A conflicting value replaces the current one only when it is an explicit update or a
  correction, when an independent episode mentioned it within the window, or when it is
  ``margin`` more confident than the current value; otherwise it waits as *pending*.

Replacing closes the old revision's intervals through the ordinary supersession rule, so history
is kept. ``overwrite`` replaces on every conflict (today's behaviour) and ``append`` keeps every
value side by side; both are baselines the bookstore lab compares against.

>>> from kg_memory.domain.write_policy import Mode, PredicateRule
>>> verdict(Mode.RECONCILE, PredicateRule(), current=[("ebook", 0.8)], value="audio",
...         confidence=0.7, explicit=False, corroborating=0).action
'pend'
>>> verdict(Mode.RECONCILE, PredicateRule(), current=[("ebook", 0.8)], value="audio",
...         confidence=0.7, explicit=False, corroborating=1).reason
'mentioned twice within 30 days'
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.model import Value
from kg_memory.domain.write_policy import Mode, PredicateRule

__all__ = ["Verdict", "verdict"]


class Verdict(BaseModel):
    """``action``: write, refresh, replace, append or pend; ``reason`` says why."""

    model_config = ConfigDict(frozen=True)

    action: str
    reason: str


def verdict(
    mode: Mode,
    rule: PredicateRule,
    *,
    current: Sequence[tuple[Value, float]],
    value: Value,
    confidence: float,
    explicit: bool,
    corroborating: int,
) -> Verdict:
    """Decide what writing ``value`` does, given the slot's ``current`` (value, confidence)
    pairs and how many ``corroborating`` independent episodes mentioned ``value`` recently."""
    if mode is Mode.APPEND:
        return Verdict(action="append", reason="append keeps every value")
    if not current:
        return Verdict(action="write", reason="no current value")
    if any(v == value and type(v) is type(value) for v, _ in current):
        return Verdict(action="refresh", reason="same value")
    if mode is Mode.OVERWRITE:
        return Verdict(action="replace", reason="overwrite")
    if explicit:
        return Verdict(action="replace", reason="explicit update or correction")
    if corroborating >= 1:
        return Verdict(action="replace", reason=f"mentioned twice within {rule.window_days:g} days")
    best = max(c for _, c in current)
    if confidence >= best + rule.margin - 1e-9:
        return Verdict(action="replace", reason=f"more confident by {rule.margin:g}")
    return Verdict(action="pend", reason="conflicts with the current value")
