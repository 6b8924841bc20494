"""Embedding what a memory wrote, off the writer's thread.

A write is acknowledged when its transaction commits; its vectors are derived data, which the
store keeps in a backlog in that same transaction (see :mod:`kg_memory.services.recall_vectors`).
Embedding them before the write returns made every acknowledgement wait for the model (about
7 ms per message for the shipped one, against well under a millisecond for the write itself).
A :class:`VectorWorker` embeds them on a thread of its own instead, one scope at a time, so the
writer returns as soon as its data is durable:

* nothing is lost if the worker is late or fails, or the process ends without closing the
  memory: what it has not embedded stays in the store's backlog, and a hybrid recall of that
  scope embeds it first (as it always has); :meth:`close` waits for what is queued;
* a recall takes its scope over (:meth:`take_over`): it waits only while the worker holds that
  very scope, so a text is not embedded twice by two threads at once, and never waits behind
  other scopes' texts;
* a forget meanwhile wins: the store writes a vector only while its record still holds the text
  the vector was made from.

The thread starts with the first write that needs it and ends after a second without work, so
a memory that is dropped without :meth:`close` leaves no thread behind for long.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from kg_memory.domain.embedding import Embedder
from kg_memory.domain.errors import KgMemoryError
from kg_memory.services.recall_vectors import catch_up
from kg_memory.store.protocol import Store

__all__ = ["IDLE_SECONDS", "VectorWorker"]

#: How long the worker's thread waits for more work before it ends (a new write starts one).
IDLE_SECONDS = 1.0


class VectorWorker:
    """One memory's background embedder: :meth:`submit` the scopes a write touched, then
    :meth:`settle` to wait for their vectors. Safe to share between threads."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._cond = threading.Condition()
        #: Scopes waiting, in the order they were written, each with the model to use.
        self._pending: dict[str, Embedder] = {}
        self._active: str | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, scopes: Iterable[str], embedder: Embedder) -> None:
        """Embed what is waiting in ``scopes`` soon, with ``embedder``; returns at once."""
        with self._cond:
            if self._closed:
                return  # closing: the backlog waits for the next recall instead
            for scope in scopes:
                self._pending[scope] = embedder
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="kg-memory-vectors",
                                                daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def settle(self, scope: str | None = None, timeout: float | None = None) -> bool:
        """Wait until ``scope`` (default: every scope) has no work queued or running here;
        False if ``timeout`` seconds passed first. A model's failure counts as done: the
        records stay in the store's backlog for the scope's next hybrid recall."""
        def idle() -> bool:
            if scope is None:
                return not self._pending and self._active is None
            return scope not in self._pending and self._active != scope

        with self._cond:
            return self._cond.wait_for(idle, timeout)

    def take_over(self, scope: str) -> None:
        """Leave ``scope`` to the caller, which is about to embed its backlog itself (a hybrid
        recall): dropped from the queue if waiting there (the recall would otherwise wait for
        other scopes' texts), waited for if in hand (so no text is embedded twice)."""
        with self._cond:
            self._pending.pop(scope, None)
            self._cond.wait_for(lambda: self._active != scope)

    def close(self) -> None:
        """Wait for every scope queued (a memory closed after an import leaves its recall
        nothing to embed, as when writes embedded before returning), then stop taking work.
        The store itself is the caller's to close after."""
        with self._cond:
            self._cond.wait_for(lambda: not self._pending and self._active is None)
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _next(self) -> tuple[str, Embedder] | None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._pending or self._closed, IDLE_SECONDS) \
                    or self._closed:
                # Leaving under the lock that submit takes: a write from now on starts a
                # thread of its own rather than queueing behind one that is ending.
                self._thread = None
                return None
            scope = next(iter(self._pending))
            embedder = self._pending.pop(scope)
            self._active = scope
            return scope, embedder

    def _run(self) -> None:
        while (work := self._next()) is not None:
            scope, embedder = work
            try:
                catch_up(self._store, scope, embedder)
            except KgMemoryError:
                # A model that fails (an endpoint down, another model's store) leaves the
                # records in the backlog; the scope's next hybrid recall embeds them again and
                # reports the failure there, where an answer depends on it.
                pass
            finally:
                with self._cond:
                    self._active = None
                    self._cond.notify_all()
