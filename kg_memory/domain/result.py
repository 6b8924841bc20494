"""What queries return: facts with their evidence, and answers that say what was asked.

An :class:`AsOfAnswer` with no facts means the store was read and held nothing eligible; an
unreadable store raises :class:`~kg_memory.domain.errors.StoreUnavailable` instead, so the two can
never be confused.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EndReason, Kind, Qualifiers, Support, Value, trusted

__all__ = ["AsOfAnswer", "Fact", "HistoryEntry"]


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


class AsOfAnswer(BaseModel):
    """The facts that held at ``valid_at`` as the store believed them at ``known_at``."""

    model_config = ConfigDict(frozen=True)

    status: str = "ok"
    valid_at: UtcDatetime
    known_at: UtcDatetime
    subject: str | None = None
    predicate: str | None = None
    scope: str | None = None
    facts: tuple[Fact, ...] = ()

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
