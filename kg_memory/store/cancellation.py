"""Cancelling a write that is already running on another thread, before it commits.

An entry point that runs a write on a worker thread (the MCP server) and whose caller goes away
cannot stop the thread; it sets the :class:`threading.Event` it passed to :func:`cancellable`,
and the write checks it (:func:`raise_if_cancelled`) at the end of its unit of work and, in
each store, after its last statement and just before its COMMIT; raising there rolls the
transaction back whole, on both backends. So a cancelled write is not stored at all, or, when
the cancellation came during the COMMIT itself, stored exactly as it would have been: never
half. The check is a context variable,
so code that knows nothing of cancellation (the Python API, the CLI) pays one lookup.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kg_memory.domain.errors import WriteCancelled

__all__ = ["cancellable", "raise_if_cancelled"]

_cancelled: ContextVar[threading.Event | None] = ContextVar("kg_memory_cancelled", default=None)


@contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Writes made inside the block stop before their commit once ``event`` is set."""
    token = _cancelled.set(event)
    try:
        yield
    finally:
        _cancelled.reset(token)


def raise_if_cancelled() -> None:
    """Inside a unit of work: raise :class:`WriteCancelled` if the caller cancelled."""
    event = _cancelled.get()
    if event is not None and event.is_set():
        raise WriteCancelled("the caller cancelled this write before it was committed; "
                             "nothing of it was stored")
