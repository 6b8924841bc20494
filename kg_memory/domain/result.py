"""What queries return: facts with their evidence, and answers that say what was asked.

An :class:`AsOfAnswer` with no facts means the store was read and held nothing eligible; an
unreadable store raises :class:`~kg_memory.domain.errors.StoreUnavailable` instead, so the two can
never be confused.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, computed_field

from kg_memory.domain.corroboration import Corroboration, corroboration
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EndReason, Kind, Qualifiers, Support, Value, trusted

__all__ = ["AsOfAnswer", "Conflict", "Fact", "HistoryEntry"]


class Fact(BaseModel):
    """One revision served by a query, with the episodes that support it."""

    model_config = ConfigDict(frozen=True)

    assertion_id: str
    revision: int
    scope: str
    subject: str
    predicate: str
    value: Value
    qualifiers: Qualifiers
    kind: Kind
    writer: str
    depends_on: tuple[str, ...]
    confidence: float
    valid: Interval
    system: Interval
    supported_by: tuple[Support, ...]

    @property
    def key(self) -> str:
        return f"{self.subject}.{self.predicate}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def corroboration(self) -> Corroboration:
        """Independent sources and distinct mentions behind the fact (redelivered copies of
        one message count once); ``len(supported_by)`` counts episodes, not corroboration."""
        return corroboration(self.supported_by)

    @property
    def last_confirmed(self) -> datetime | None:
        """When the world last told us this (the latest supporting episode)."""
        return max((s.occurred_at for s in self.supported_by), default=None)

    @classmethod
    def of(cls, version: Assertion, supports: tuple[Support, ...]) -> Fact:
        """Built from an already valid revision without validating it again (the hot path)."""
        return trusted(cls, {
            "assertion_id": version.assertion_id, "revision": version.revision,
            "scope": version.scope, "subject": version.subject, "predicate": version.predicate,
            "value": version.value, "qualifiers": version.qualifiers, "kind": version.kind,
            "writer": version.writer, "depends_on": version.depends_on,
            "confidence": version.confidence, "valid": version.valid, "system": version.system,
            "supported_by": supports,
        })


class Conflict(BaseModel):
    """A value a lower-authority writer holds for a slot whose served value says otherwise.

    It is kept, attributed (``fact.writer``, ``fact.supported_by``) and shown, never served as
    the slot's value and never allowed to end the served one (see
    :mod:`kg_memory.domain.authority`).
    """

    model_config = ConfigDict(frozen=True)

    fact: Fact
    tier: str
    contradicts: tuple[str, ...]  # the assertion ids served for the slot
    served_tier: str


class AsOfAnswer(BaseModel):
    """The facts that held at ``valid_at`` as the store believed them at ``known_at``.

    ``facts`` are served: per slot, the value of the highest-authority writer. ``conflicts``
    lists what lower-authority writers hold against them, so a disagreement is visible instead
    of silently collapsed.
    """

    model_config = ConfigDict(frozen=True)

    status: str = "ok"
    valid_at: UtcDatetime
    known_at: UtcDatetime
    subject: str | None = None
    predicate: str | None = None
    scope: str | None = None
    facts: tuple[Fact, ...] = ()
    conflicts: tuple[Conflict, ...] = ()

    def values(self) -> list[Value]:
        return [f.value for f in self.facts]


class HistoryEntry(BaseModel):
    """A revision in history: both intervals, why it exists and what closed it."""

    model_config = ConfigDict(frozen=True)

    version: Assertion
    created_because: EndReason
    closed_by: str | None
    close_reason: EndReason | None

    @classmethod
    def of(cls, version: Assertion) -> HistoryEntry:
        return cls(
            version=version,
            created_because=version.reason,
            closed_by=version.closed_by,
            close_reason=version.close_reason,
        )
