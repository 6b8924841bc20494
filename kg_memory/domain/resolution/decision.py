"""A resolution decision, with all of its evidence, as one frozen value.

The resolver and people decide the same way on paper: a :class:`ResolutionDecision` names the
mention, the outcome, the entity it resolved to (MERGE) or the candidates it may be the same as
(REVIEW), and every piece of evidence that led there, so an auditor can replay it. A person's
decision is a ``ResolutionDecision`` whose ``decided_by`` is that person (:func:`manual_decision`);
the resolver then honours it and only attaches its own evidence for audit.

What the caller does with each outcome:

* ``MERGE``: attach the mention's facts to ``entity_id``.
* ``KEEP_APART``: create a new entity for the mention.
* ``REVIEW``: create a *provisional* new entity and link it ``POSSIBLE_SAME_AS`` to every id in
  ``possible_same_as``. Facts are never pooled across that link.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kg_memory.domain.instant import UtcDatetime, ensure_utc
from kg_memory.domain.resolution.config import Thresholds
from kg_memory.domain.resolution.field import Field as CompareField
from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.scorer import ScorerEvidence

__all__ = [
    "RESOLVER",
    "CandidateEvidence",
    "FieldEvidence",
    "Outcome",
    "ResolutionDecision",
    "Veto",
    "VetoReason",
    "decision_id",
]

#: ``decided_by`` of every automatic decision. Anything else is a person.
RESOLVER: Final = "resolver"


def decision_id(mention_id: str, decided_by: str, decided_at: datetime) -> str:
    """A deterministic id: the same mention decided by the same party at the same instant.

    >>> from datetime import UTC
    >>> decision_id("m1", "resolver", datetime(2026, 1, 5, 9, tzinfo=UTC))
    'm1@resolver@2026-01-05T09:00:00.000000Z'
    """
    t = ensure_utc(decided_at)
    # strftime("%Y-%m-%dT%H:%M:%S.%fZ") written out: the store path mints one id a mention,
    # and strftime cost 33-38 us a call there against 4. The year unpadded, as glibc's %Y
    # writes it (years before 1000 on Linux, where every stored id was minted; macOS pads).
    return (f"{mention_id}@{decided_by}@{t.year}-{t.month:02d}-{t.day:02d}T"
            f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}.{t.microsecond:06d}Z")


class Outcome(StrEnum):
    MERGE = "merge"  # the mention is this existing entity
    KEEP_APART = "keep_apart"  # the mention is a new entity, apart from every candidate
    REVIEW = "review"  # undecided: a provisional entity, POSSIBLE_SAME_AS the candidates


class VetoReason(StrEnum):
    IDENTIFIER_CONFLICT = "identifier_conflict"  # e.g. two different user ids
    TYPE_MISMATCH = "type_mismatch"  # a person is not an organisation


class Veto(BaseModel):
    """A rule that forbids a merge with one candidate whatever the weights say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str
    reason: VetoReason
    field: CompareField
    detail: str = ""


class FieldEvidence(BaseModel):
    """One field of one candidate: its level and the weight (bits) that level carried."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: CompareField | str  # a Field, or ``custom.<name>`` for a declared custom attribute
    level: Level
    weight: float
    detail: str = ""
    #: A DIFFERENT name part within two edits of the other ("rebecc" vs "rebecca", "rei" vs
    #: "reid"): too far for a typo by the name rules, near enough for record evidence to explain.
    near: bool = False
    #: Names only: the finer kind of ``level`` whose learned weight this is ("nickname",
    #: "replaced"; see :mod:`~kg_memory.domain.resolution.name_kinds`).
    kind: str | None = None


class CandidateEvidence(BaseModel):
    """Everything the resolver concluded about one candidate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str
    blocking_keys: tuple[str, ...]  # why this candidate was compared at all
    fields: tuple[FieldEvidence, ...]
    scorers: tuple[ScorerEvidence, ...] = ()
    same_name_candidates: int = Field(ge=0)
    name_commonness: float = Field(ge=0.0, le=1.0)
    prior: float = Field(gt=0.0, lt=1.0)
    weight: float  # sum of field and scorer weights, in bits
    posterior: float = Field(ge=0.0, le=1.0)
    vetoes: tuple[Veto, ...] = ()
    corroborated_by: tuple[CompareField | str, ...] = ()  # agreeing non-name fields
    outcome: Outcome
    reason: str
    episode_ids: tuple[str, ...] = ()  # the candidate's lineage when it was compared

    def level(self, field: CompareField | str) -> Level:
        """The level ``field`` came out at (MISSING if it was not compared)."""
        return next((f.level for f in self.fields if f.field == field), Level.MISSING)


class ResolutionDecision(BaseModel):
    """How one mention was resolved, by whom, when, under which rules, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision_id: str
    mention: Mention
    outcome: Outcome
    entity_id: str | None = None  # MERGE: the entity the mention is
    possible_same_as: tuple[str, ...] = ()  # REVIEW: candidates to link POSSIBLE_SAME_AS
    kept_apart_from: tuple[str, ...] = ()  # KEEP_APART by a person: whom it is not
    candidates: tuple[CandidateEvidence, ...] = ()
    prior: float | None = None  # of the best candidate
    posterior: float | None = None  # of the best candidate
    vetoes: tuple[Veto, ...] = ()
    thresholds: Thresholds  # the cut-offs in force (the rest of the rules: ``rule_version``)
    rule_version: str
    source_episode_ids: tuple[str, ...]
    decided_by: str = Field(min_length=1)
    decided_at: UtcDatetime
    reason: str
    #: What the resolver itself concluded. Equal to ``outcome`` for automatic decisions; for a
    #: manual one it is the audit trail of what the person overrode (``None`` if never scored).
    automatic_outcome: Outcome | None = None
    #: The decision this one replaces (a re-scored REVIEW), if any.
    supersedes: str | None = None
    #: REVIEW only: when every candidate it may be the same as is one entity or a provisional
    #: copy of it, that entity. The caller records it on the provisional entity's profile
    #: (``grow_profile(..., copy_of=...)``) so the copies stop being each other's rivals. A
    #: REVIEW between two different entities has none: it never links namesakes.
    copy_of: str | None = None

    @property
    def is_manual(self) -> bool:
        """True when a person made this decision; the resolver never overturns it."""
        return self.decided_by != RESOLVER

    @model_validator(mode="after")
    def _consistent(self) -> ResolutionDecision:
        if self.outcome is Outcome.MERGE and self.entity_id is None:
            raise ValueError("a MERGE decision names the entity_id it merges into")
        if self.outcome is not Outcome.MERGE and self.entity_id is not None:
            raise ValueError("only a MERGE decision names an entity_id")
        if self.outcome is Outcome.REVIEW and not self.possible_same_as:
            raise ValueError("a REVIEW decision names the candidates it may be the same as")
        if self.outcome is not Outcome.REVIEW and self.possible_same_as:
            raise ValueError("only a REVIEW decision has possible_same_as links")
        if self.outcome is Outcome.REVIEW and self.is_manual:
            raise ValueError("a person decides MERGE or KEEP_APART, never REVIEW")
        if self.copy_of is not None and self.outcome is not Outcome.REVIEW:
            raise ValueError("only a REVIEW decision names the entity its provisional copies")
        return self

    def candidate(self, entity_id: str) -> CandidateEvidence | None:
        """The evidence about ``entity_id``, if it was a candidate."""
        return next((c for c in self.candidates if c.entity_id == entity_id), None)
