"""The instant a store's next unit of work asks for: its clock, or the instant an import asks
for (:meth:`ImportClock.importing`); mixed into both adapters' batching.

The adapter still assigns system time by its own rule (the instant asked for, or 1 µs after
its latest system time when that is not earlier), so an import can never make system time go
back; the import service checks what it was given (:func:`kg_memory.domain.history.held_later`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from kg_memory.domain.instant import Clock, ensure_utc

__all__ = ["ImportClock"]

#: Per thread, the instant each store (by id) was asked to use: one thread's import never
#: changes the system time another thread's live write asks for.
_ASKED = threading.local()


class ImportClock:
    """``importing(at)``: units begun inside ask for ``at`` instead of the clock's reading."""

    _clock: Clock

    @contextmanager
    def importing(self, at: datetime) -> Iterator[None]:
        """Units of work begun by this thread inside ask for system time ``at``."""
        asked: dict[int, datetime] = _ASKED.__dict__.setdefault("by_store", {})
        asked[id(self)] = ensure_utc(at, what="import instant")
        try:
            yield
        finally:
            del asked[id(self)]

    def _asked_time(self) -> datetime:
        asked: dict[int, datetime] | None = _ASKED.__dict__.get("by_store")
        at = None if not asked else asked.get(id(self))
        return self._clock() if at is None else at
