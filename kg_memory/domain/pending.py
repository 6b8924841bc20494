"""Pending candidates and admission decisions: what the write policy did not (yet) believe.

A *pending* candidate is a conflicting value the reconcile rule would not let replace the
current one on its own: it waits, with its evidence (the episodes that mentioned it), visible
through ``kg-memory pending`` and never served as a fact. A later independent mention within the
window promotes it; a correction or a much more confident mention does too.

An :class:`AdmissionDecision` is recorded for every candidate a write policy judged, so that
acceptance and rejection rates by reason (what seed 003 says to watch) are a count, not a guess.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Kind, Value

__all__ = ["AdmissionDecision", "Mention", "PendingCandidate", "pending_id_for", "slot_lookup"]


def slot_lookup(scope: str, subject: str, predicate: str, project: str | None) -> str:
    """The lookup key every pending candidate of one slot is found by."""
    return f"slot:{scope}/{subject}/{predicate}/{project or ''}"


def pending_id_for(scope: str, subject: str, predicate: str, project: str | None,
                   value: Value) -> str:
    """One pending node per slot and value: repeated mentions add evidence to it."""
    text = f"{slot_lookup(scope, subject, predicate, project)}={type(value).__name__}:{value}"
    return f"pd_{hashlib.sha256(text.encode()).hexdigest()[:20]}"


class Mention(BaseModel):
    """One episode that mentioned a pending value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    occurred_at: UtcDatetime
    confidence: float


class PendingCandidate(BaseModel):
    """A value waiting for corroboration. ``status``: pending, promoted or superseded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pending_id: str
    scope: str
    subject: str
    predicate: str
    project: str | None = None
    value: Value
    kind: Kind
    writer: str
    evidence: tuple[Mention, ...] = ()
    status: str = "pending"
    #: the assertion it became, once promoted
    promoted_to: str | None = None
    updated_at: UtcDatetime

    @property
    def key(self) -> str:
        return f"{self.subject}.{self.predicate}"

    def independent_within(self, at: UtcDatetime, window_days: float, episode_id: str) -> int:
        """Distinct other episodes that mentioned it in the ``window_days`` before ``at``.

        Redeliveries never get here (the same operation id is a duplicate), and one episode
        that mentions a value twice counts once.
        """
        since = at - timedelta(days=window_days)
        return len({m.episode_id for m in self.evidence
                    if m.episode_id != episode_id and since <= m.occurred_at <= at})


class AdmissionDecision(BaseModel):
    """What the write policy decided about one candidate.

    ``decision`` is accepted, refused or pending; ``category`` what is counted (``written``,
    ``refreshed``, ``replaced: explicit``, ``one-off``, ``below gate``, ``conflict``...).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    index: int
    scope: str
    key: str
    decision: str
    category: str
    reason: str = ""
    at: UtcDatetime
