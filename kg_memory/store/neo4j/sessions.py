"""The Neo4j store's sessions, and how threads share one store; mixed into
:class:`~kg_memory.store.neo4j.store.Neo4jStore`.

The driver is thread-safe, a session is not. A unit of work (a transaction, a batch) holds the
store's lock from its start to its commit, on the store's one write session: the server's
system-time lock serialises writers anyway, so the lock costs no write throughput, and a
thread's unit of work can never see, join or commit another's. A read by another thread does not
wait for it: it runs on a session of its own and sees what was committed. Every session shares
one bookmark manager, so a read follows the writes acknowledged before it, on a cluster too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from neo4j import Driver, Session
from neo4j import Transaction as DriverTransaction
from neo4j.api import BookmarkManager
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.store.neo4j.tx import QueryTarget, run_query

__all__ = ["Sessions"]


class Sessions:
    """The write session, the reads, and closing."""

    _driver: Driver
    _uri: str
    _database: str
    _lock: threading.RLock
    _bookmarks: BookmarkManager
    _session: Session | None
    _active: DriverTransaction | None

    def close(self) -> None:
        with self._lock:
            session, self._session = self._session, None
            if session is None:
                return
            try:
                session.close()
            finally:
                self._driver.close()

    def _target(self) -> QueryTarget:
        if self._active is not None:
            return self._active
        if self._session is None:
            raise StoreUnavailable(f"the Neo4j store at {self._uri} is closed")
        return self._session

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """One query: inside this thread's open transaction when there is one, else
        auto-commit."""
        with self._reading() as target:
            return run_query(target, name, params, where=self._uri, reads=True)

    @contextmanager
    def _reading(self) -> Iterator[QueryTarget]:
        """Where a read runs: inside this thread's own unit of work (it must see its writes),
        else on the store's session when no other thread is using it, else on a session of its
        own, so that a reader never queues behind another thread's unit of work."""
        if self._lock.acquire(blocking=False):
            try:
                yield self._target()
            finally:
                self._lock.release()
            return
        if self._session is None:
            raise StoreUnavailable(f"the Neo4j store at {self._uri} is closed")
        try:
            own = self._driver.session(database=self._database,
                                       bookmark_manager=self._bookmarks)
        except (DriverError, Neo4jError) as exc:
            raise StoreUnavailable(f"cannot read Neo4j at {self._uri}: {exc}") from exc
        with own:
            yield own
