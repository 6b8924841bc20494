"""Neo4j batches planned while the previous one commits (see :mod:`kg_memory.store.pipeline`).

Planning a batch is the client's work (the rules, in Python) and committing it the server's;
taken in turns, the wall time is their sum. In a :class:`Neo4jPipeline`, batch N's flush and
commit run on a worker thread, in N's own transaction on a session of their own, while batch
N+1 is planned on the caller's thread in a transaction of its own, not yet holding the
system-time lock. At most one batch is in flight.

Why it stays correct, and durable when acknowledged:

* N+1 plans over N's journal (:meth:`~kg_memory.store.neo4j.plan.BatchPlan.after`): its reads
  may see the server before, after or halfway through N's commit (a record visible before
  its index entry), and the view it builds is the same (a revision in both counts once, one
  N closed is hidden, a revision's highest number is at least its own).
* When N+1 ends, it waits for N's commit, then takes the lock and must find N's last system
  time there: otherwise another writer committed in between, nothing of N+1 is written and the
  caller plans it again (:class:`~kg_memory.store.pipeline.Replan`), under the lock.
* A failed flush or commit of N is raised when N+1 ends: N+1's plan is rolled back unwritten,
  and neither is counted by :meth:`Neo4jPipeline.durable`, which counts a batch only once its
  commit returned, so the caller acknowledges nothing after N-1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime

from neo4j import Driver, Session
from neo4j import Transaction as DriverTransaction
from neo4j.api import BookmarkManager
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.store.neo4j.plan import BatchPlan, Journal

__all__ = ["Flight", "Neo4jPipeline"]


@dataclass
class Flight:
    """The batch last handed to the worker, as the next batch plans over it."""

    done: Future[None]
    journal: Journal  # what it writes
    highest: dict[str, int]  # what the next batch knows of the stored facts it writes
    now: datetime | None  # its last system time: the next batch must find it at the lock
    counted: bool = False  # its commit returned
    index: int = 0  # which batch of the pipeline it is (1 for the first)


class Neo4jPipeline:
    """Two sessions (the batch committing, the batch planned) and one worker thread."""

    def __init__(self, driver: Driver, database: str, bookmarks: BookmarkManager, uri: str,
                 batch: Callable[[Neo4jPipeline], AbstractContextManager[None]]) -> None:
        self._uri = uri
        self._sessions = [driver.session(database=database, bookmark_manager=bookmarks)
                          for _ in range(2)]
        self._turn = 0
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kg-neo4j-commit")
        self._ended = 0  # batches left without an error
        self.flight: Flight | None = None
        self._batch = batch  # Store.batch: the store plans with this pipeline while it is open

    @contextmanager
    def batch(self) -> Iterator[None]:
        before = self.flight
        with self._batch(self):
            yield
        self._ended += 1
        if self.flight is not None and self.flight is not before:
            self.flight.index = self._ended

    def session(self) -> Session:
        """The session of the batch being planned: never the one in flight's."""
        return self._sessions[self._turn]

    def durable(self) -> int:
        """Every batch before the one in flight committed before it was handed over; one
        that ended with nothing to commit after it (all its episodes ran on their own, or
        none came) counts once the one in flight does."""
        flight = self.flight
        if flight is not None and flight.done.done() and flight.done.exception() is None:
            self.settle()
        if flight is None or flight.counted:
            return self._ended
        return flight.index - 1

    def settle(self) -> None:
        """Wait for the batch in flight; count it once committed, raise its failure."""
        flight = self.flight
        if flight is None or flight.counted:
            return
        try:
            flight.done.result()
        except BaseException:
            # Nothing may be planned over a batch that was not written, and neither it nor
            # any batch that ended after it is durable.
            self.flight = None
            self._ended = flight.index - 1
            raise
        flight.counted = True

    def drain(self) -> None:
        self.settle()

    def submit(self, plan: BatchPlan, tx: DriverTransaction) -> None:
        """Flush and commit ``plan`` on the worker; it is in flight until :meth:`settle`."""
        journal = plan.delta()
        self.flight = Flight(self._worker.submit(self._commit, plan, journal, tx), journal,
                             plan.carried(journal), plan.now)
        self._turn ^= 1

    def _commit(self, plan: BatchPlan, journal: Journal, tx: DriverTransaction) -> None:
        try:
            plan.flush(journal)
        except BaseException as exc:
            with suppress(DriverError, Neo4jError):
                tx.rollback()
            if isinstance(exc, (DriverError, Neo4jError)):
                raise StoreUnavailable(f"cannot write to Neo4j at {self._uri}: {exc}") from exc
            raise
        try:
            tx.commit()
        except (DriverError, Neo4jError) as exc:
            raise StoreUnavailable(f"cannot commit to Neo4j at {self._uri}: {exc}") from exc

    def close(self) -> None:
        """Wait for the worker (a batch still in flight commits, unacknowledged) and close."""
        self._worker.shutdown(wait=True)
        for session in self._sessions:
            with suppress(DriverError, Neo4jError):
                session.close()
