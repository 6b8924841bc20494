"""Half-open intervals ``[start, end)`` over UTC instants, with ``None`` as the open end.

Both time axes use this one type. Half-open intervals tile without gaps or overlaps: the version
that ends at ``t`` and the one that starts at ``t`` never both answer for ``t``.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, model_validator

from kg_memory.domain.errors import IntervalError
from kg_memory.domain.instant import UtcDatetime

__all__ = ["Interval"]


class Interval(BaseModel):
    """``[start, end)``; ``end is None`` means "until further notice"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: UtcDatetime
    end: UtcDatetime | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.end is not None and self.end <= self.start:
            raise IntervalError(
                f"interval end {self.end.isoformat()} must be after its start "
                f"{self.start.isoformat()}"
            )
        return self

    @property
    def is_open(self) -> bool:
        return self.end is None

    def contains(self, instant: datetime) -> bool:
        return self.start <= instant and (self.end is None or instant < self.end)

    def overlaps(self, other: Interval) -> bool:
        return (other.end is None or self.start < other.end) and (
            self.end is None or other.start < self.end
        )

    def covers(self, other: Interval) -> bool:
        """True when every instant of ``other`` lies in ``self``."""
        if self.start > other.start:
            return False
        if self.end is None:
            return True
        return other.end is not None and other.end <= self.end

    def minus(self, other: Interval) -> list[Interval]:
        """The parts of ``self`` outside ``other``: zero, one or two intervals, in order."""
        if not self.overlaps(other):
            return [self]
        parts: list[Interval] = []
        if self.start < other.start:
            parts.append(Interval(start=self.start, end=other.start))
        if other.end is not None and (self.end is None or other.end < self.end):
            parts.append(Interval(start=other.end, end=self.end))
        return parts

    def __str__(self) -> str:
        end = "∞" if self.end is None else self.end.isoformat()
        return f"[{self.start.isoformat()}, {end})"
