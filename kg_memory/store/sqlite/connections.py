"""The embedded store's connections: one per thread, and one writer of this process at a time.

A :class:`~kg_memory.store.sqlite.store.SqliteStore` (and so one ``Memory``) may be shared by
any number of threads, and by asyncio tasks, which reach it through worker threads
(LangGraph's async methods, the MCP server). SQLite allows one transaction per connection, so a
store with one connection let a second thread's ``BEGIN`` land inside the first one's
transaction ("cannot start a transaction within a transaction"), its savepoints release the
other's, and its commit acknowledge the other's half-written episode. Each thread therefore gets
its own :class:`Session`: a connection and the state of the unit of work it is in (the batch,
its plan, its system time). Threads then meet exactly as processes do, in the file:

* readers never wait: in WAL mode a read sees the last committed state and takes no lock a
  writer holds, so a lookup is not queued behind another thread's batch;
* writers take this process's write lock (:meth:`Connections.writing`) before ``BEGIN
  IMMEDIATE``: threads queue on it without polling, and SQLite's own lock (with its busy
  timeout) still orders them against other processes. Waiting past the busy timeout is
  :class:`~kg_memory.domain.errors.StoreBusy` with nothing written, as for another process;
* a commit is durable for every thread at once (``synchronous=FULL``), and a thread reads its
  own acknowledged writes on its next statement: it has no older snapshot to answer from.

A connection is closed with the store, or when its thread has ended and another thread opens
one (so a pool's short-lived workers do not accumulate connections).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg_memory.domain.errors import StoreBusy, StoreUnavailable
from kg_memory.store.sqlite import driver

if TYPE_CHECKING:
    from kg_memory.store.sqlite.plan import BatchPlan

__all__ = ["Connections", "Session"]


@dataclass
class Session:
    """One thread's connection and the unit of work it is in."""

    conn: driver.Connection
    thread: threading.Thread
    in_batch: bool = False
    #: The last system time handed out while this thread's batch holds the write lock.
    batch_time: int | None = None
    plan: BatchPlan | None = None
    #: The system time of a unit the planner gave back (Unplanned), for its second run.
    given_back: int | None = None
    #: Why SQLite rolled back this thread's open batch itself, if it did.
    lost: StoreUnavailable | None = None
    #: How deep this thread is in :meth:`Connections.writing` (the lock is taken once).
    writes: int = field(default=0)


class Connections:
    """Every thread's :class:`Session` on one store file."""

    def __init__(self, first: driver.Connection, open_more: Callable[[], driver.Connection],
                 path: Path, busy_timeout: float) -> None:
        self._open_more = open_more
        self._path = path
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        self._guard = threading.Lock()  # over _sessions and _closed
        self._write = threading.Lock()
        self._closed = False
        first_session = Session(first, threading.current_thread())
        self._local.session = first_session
        self._sessions: list[Session] = [first_session]

    def session(self) -> Session:
        """This thread's session, opened on its first use."""
        found: Session | None = getattr(self._local, "session", None)
        if found is not None:
            return found
        with self._guard:
            if self._closed:
                raise StoreUnavailable(f"the store at {self._path} is closed")
            ended = [s for s in self._sessions if not s.thread.is_alive()]
            self._sessions = [s for s in self._sessions if s.thread.is_alive()]
        for gone in ended:
            gone.conn.close()
        made = Session(self._open_more(), threading.current_thread())
        with self._guard:
            if self._closed:
                made.conn.close()
                raise StoreUnavailable(f"the store at {self._path} is closed")
            self._sessions.append(made)
        self._local.session = made
        return made

    @property
    def conn(self) -> driver.Connection:
        return self.session().conn

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """Hold this process's write lock (once per thread, however deeply nested).

        Waits up to the busy timeout for another thread's unit of work, then raises
        :class:`StoreBusy` having written nothing."""
        session = self.session()
        if session.writes == 0 and not self._write.acquire(timeout=self._busy_timeout):
            raise StoreBusy(f"cannot write to {self._path}: another thread of this process "
                            f"held the store's write lock for {self._busy_timeout:g} s")
        session.writes += 1
        try:
            yield session
        finally:
            session.writes -= 1
            if session.writes == 0:
                self._write.release()

    def close(self) -> None:
        """Close every thread's connection; the store cannot be used afterwards."""
        with self._guard:
            self._closed, sessions, self._sessions = True, self._sessions, []
        for session in sessions:
            session.conn.close()
