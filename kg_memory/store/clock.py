"""The store's source of "now": system time is assigned here, never by the domain rules."""

from __future__ import annotations

from datetime import UTC, datetime

from kg_memory.domain.instant import Clock

__all__ = ["Clock", "system_clock"]


def system_clock() -> datetime:
    """The machine's current UTC time."""
    return datetime.now(UTC)
