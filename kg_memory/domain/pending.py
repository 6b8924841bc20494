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
from collections.abc import Iterable
from datetime import timedelta

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.corroboration import mentioned
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Kind, Support, Value

__all__ = [
    "AdmissionDecision", "Mention", "PendingCandidate", "pending_id_for", "slot_lookup",
    "waiting_entry",
]


def slot_lookup(scope: str, subject: str, predicate: str, project: str | None) -> str:
    """The lookup key every pending candidate of one slot is found by."""
    return f"slot:{scope}/{subject}/{predicate}/{project or ''}"


def pending_id_for(scope: str, subject: str, predicate: str, project: str | None,
                   value: Value, generation: int = 0) -> str:
    """One pending node per slot, value and *generation*: repeated mentions add evidence to
    it, and a value that waits again after it was promoted waits in generation 1, 2, ...
    (generation 0 is the id pending nodes had before generations existed)."""
    text = f"{slot_lookup(scope, subject, predicate, project)}={type(value).__name__}:{value}"
    if generation:
        text += f"#{generation}"
    return f"pd_{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def waiting_entry(records: Iterable[PendingCandidate], scope: str, subject: str,
                  predicate: str, project: str | None, value: Value
                  ) -> tuple[str, PendingCandidate | None]:
    """Where a new mention of ``value`` goes among the slot's ``records``: the entry still
    pending for it (its id and the entry), or a fresh id no record holds (and ``None``).

    A promoted record is history: it keeps the evidence that promoted it and the assertion it
    became, so a later generation never reuses its id (which would overwrite it)."""
    records = list(records)
    # The value's identity is its generation-0 id, so the entry that waits is found whatever
    # generation it is, even when forgetting removed the generations below it.
    mine = pending_id_for(scope, subject, predicate, project, value)
    for record in records:
        if record.status == "pending" and pending_id_for(
                scope, subject, predicate, project, record.value) == mine:
            return record.pending_id, record
    taken = {r.pending_id for r in records}
    # len(taken) + 1 generations always include one id no record holds.
    ids = (pending_id_for(scope, subject, predicate, project, value, n)
           for n in range(len(taken) + 1))
    return next(pid for pid in ids if pid not in taken), None


class Mention(BaseModel):
    """One episode that mentioned a pending value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    occurred_at: UtcDatetime
    confidence: float
    source: str = ""
    #: the episode's content digest (:func:`kg_memory.domain.corroboration.fingerprint`)
    fingerprint: str = ""

    def as_support(self) -> Support:
        return Support(episode_id=self.episode_id, source=self.source,
                       occurred_at=self.occurred_at, fingerprint=self.fingerprint)


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

    def corroborated_by(self, mention: Mention, window_days: float) -> bool:
        """Whether ``mention`` makes this the second independent mention within the window.

        Counted with :func:`~kg_memory.domain.corroboration.mentioned`: a redelivered or copied
        episode (same writer, same content) never counts again, and one episode counts once.
        """
        since = mention.occurred_at - timedelta(days=window_days)
        supports = [m.as_support() for m in (*self.evidence, mention)
                    if m.occurred_at <= mention.occurred_at]
        return mentioned(supports, times=2, since=since)


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
