"""Admission: whether a candidate the writer gate let through is worth remembering at all.

Two checks, in the order a reviewer would ask them (seed 003): is this meant to last (a one-off
"for this order use express shipping" is real and confidently extracted, just not durable), and
is the extraction confident enough for this predicate. Both refusals carry a reason that names
the rule, so acceptance and rejection rates can be counted by reason.

>>> from kg_memory.domain.write_policy import PredicateRule, ScopeLabel
>>> admit_candidate(PredicateRule(gate=0.6), 0.55, ScopeLabel.DURABLE).reason
'below gate 0.60 (0.55)'
>>> admit_candidate(PredicateRule(), 0.9, ScopeLabel.REQUEST).reason
'one-off (request)'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.write_policy import PredicateRule, ScopeLabel

__all__ = ["Admission", "admit_candidate"]

ONE_OFF = "one-off"
BELOW_GATE = "below gate"


class Admission(BaseModel):
    model_config = ConfigDict(frozen=True)

    admitted: bool
    #: what is counted: ``accepted``, ``one-off`` or ``below gate`` (no figures in it)
    category: str = "accepted"
    reason: str = ""


def admit_candidate(rule: PredicateRule, confidence: float, label: ScopeLabel) -> Admission:
    """Admit a candidate of ``confidence`` labelled ``label`` under ``rule``."""
    if rule.durable_only and label is not ScopeLabel.DURABLE:
        return Admission(admitted=False, category=ONE_OFF, reason=f"{ONE_OFF} ({label.value})")
    if confidence < rule.gate:
        return Admission(admitted=False, category=BELOW_GATE,
                         reason=f"{BELOW_GATE} {rule.gate:.2f} ({confidence:.2f})")
    return Admission(admitted=True)
