"""The Neo4j store's batches: :meth:`Batching.batch` plans its episodes in memory and writes
them at the end (see :mod:`kg_memory.store.neo4j.plan`); mixed into
:class:`~kg_memory.store.neo4j.store.Neo4jStore`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from typing import Any

from neo4j import Driver, Session
from neo4j import Transaction as DriverTransaction
from neo4j.api import BookmarkManager
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import Clock
from kg_memory.domain.record import IngestRecord
from kg_memory.store.cancellation import raise_if_cancelled
from kg_memory.store.import_clock import ImportClock
from kg_memory.store.neo4j.buffered import BufferedUnit, Unbatched
from kg_memory.store.neo4j.pipelining import Neo4jPipeline
from kg_memory.store.neo4j.plan import BatchPlan, prefetch_records
from kg_memory.store.neo4j.rows import instant, opt_time
from kg_memory.store.neo4j.tx import run_query
from kg_memory.store.pipeline import Replan

__all__ = ["Batching"]


class Batching(ImportClock):
    """Batches of planned episodes, one Neo4j transaction each."""

    _lock: threading.RLock
    _active: DriverTransaction | None
    _uri: str
    _clock: Clock
    _in_batch: bool
    _solo_next: bool
    _plan: BatchPlan | None

    _driver: Driver
    _database: str
    _bookmarks: BookmarkManager
    _piped: Neo4jPipeline | None
    _replan: bool

    def _begin(self) -> DriverTransaction:
        raise NotImplementedError

    def _begin_on(self, session: Session) -> DriverTransaction:
        raise NotImplementedError

    @contextmanager
    def pipeline(self) -> Iterator[Neo4jPipeline]:
        """Batches planned while the previous one commits (see
        :mod:`kg_memory.store.neo4j.pipelining`): only those entered through the pipeline's
        own ``batch()``; any other batch of any thread commits as it ends."""
        pipe = Neo4jPipeline(self._driver, self._database, self._bookmarks, self._uri,
                             self._piped_batch)
        try:
            yield pipe
        finally:
            pipe.close()

    def _my_pipe(self) -> Neo4jPipeline | None:
        """The pipeline of the batch open (set only while this thread holds the lock)."""
        return self._piped

    @contextmanager
    def _piped_batch(self, pipe: Neo4jPipeline) -> Iterator[None]:
        with self._lock:
            if self._in_batch:
                yield  # part of the batch open, which commits as it ends, as Store.batch does
                return
            self._piped = pipe
            try:
                with self.batch():
                    yield
            finally:
                self._piped = None

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Plan the episodes inside in memory and write them with one transaction at the end.

        Each :meth:`transaction` inside is a :class:`BufferedUnit` (see
        :mod:`kg_memory.store.neo4j.plan`): an episode that fails is dropped whole, its
        neighbours unaffected, and the batch is written with a handful of UNWIND queries and
        one commit when it ends, even on an error (what succeeded before it stays, as on the
        embedded store). An episode that needs an operation the planner does not plan commits
        the batch so far and runs in a transaction of its own.
        """
        with self._lock:
            if self._in_batch:
                yield
                return
            self._in_batch = True
            try:
                yield
            finally:
                self._in_batch = False
                self._solo_next = False
                self._end_plan()  # still this batch's pipeline: the caller resets it after

    def prepare(self, records: Sequence[IngestRecord], secret: bytes) -> None:
        """Inside :meth:`batch`: prefetch what ``records`` will read, one query per kind."""
        if self._in_batch and records:
            prefetch_records(self._open_plan(), records, secret)

    def _open_plan(self) -> BatchPlan:
        """The batch's plan, beginning its transaction (and taking the system-time lock)."""
        if self._plan is None:
            pipe = self._my_pipe()
            tx = self._begin() if pipe is None else self._begin_on(pipe.session())
            self._active = tx
            run = partial(self._run_in, tx)
            plan = BatchPlan(run)
            flight = None if pipe is None else pipe.flight
            if flight is not None:
                # Planned while the batch in flight commits: the lock is taken at the end.
                plan.after(flight.journal, flight.highest, flight.now)
                self._plan = plan
                return plan
            try:
                [row] = run("batch_lock")
            except BaseException:
                self._active = None
                with suppress(DriverError, Neo4jError):
                    tx.rollback()
                raise
            plan.now = opt_time(row["last"])
            self._plan = plan
        return self._plan

    def _run_in(self, tx: DriverTransaction, name: str, /, **params: Any
                ) -> list[dict[str, Any]]:
        return run_query(tx, name, params, where=self._uri, reads=False, plain=True)

    def _end_plan(self, *, wait: bool = False) -> None:
        """Write the batch's plan and commit (nothing to do when no episode ran); in a
        pipeline, unless ``wait``, hand both to its worker instead."""
        plan, self._plan = self._plan, None
        tx, self._active = self._active, None
        pipe = self._my_pipe()
        replan, self._replan = self._replan, False
        if pipe is not None and plan is not None and tx is not None and plan.prior is not None:
            try:
                # The batch in flight must have committed (else its failure ends this one,
                # unwritten), and nobody else since: this plan read the server unlocked.
                pipe.settle()
                if not replan:
                    [row] = self._run_in(tx, "batch_lock")
                    replan = opt_time(row["last"]) != plan.expected
                if replan:
                    pipe.flight = None  # planned again under the lock
                    raise Replan()
            except BaseException:
                with suppress(DriverError, Neo4jError):
                    tx.rollback()
                raise
        if plan is None or tx is None:
            return
        try:
            if pipe is None or wait:
                plan.flush()
            raise_if_cancelled()  # the last moment a cancelled write can still be undone
        except BaseException:
            with suppress(DriverError, Neo4jError):
                tx.rollback()
            raise
        if pipe is not None and not wait:
            pipe.submit(plan, tx)
            return
        try:
            tx.commit()
        except (DriverError, Neo4jError) as exc:
            raise StoreUnavailable(f"cannot commit to Neo4j at {self._uri}: {exc}") from exc

    @contextmanager
    def _planned(self, scope: str) -> Iterator[BufferedUnit]:
        if self._replan:
            raise Replan()  # the batch ends unwritten, and is planned again
        plan = self._open_plan()
        before = plan.now
        now = plan.next_time(instant(self._asked_time()))
        unit = BufferedUnit(plan, now, scope)
        try:
            yield unit
            unit.finish()
        except Unbatched:
            plan.now = before
            if plan.prior is not None:
                # Planned unlocked over a batch in flight: the whole batch is planned again,
                # under the lock, where this unit can run on its own.
                self._replan = True
                raise Replan() from None
            # Nothing of this unit was planned: write the batch so far, then the store runs
            # the unit again (Unbatched is retryable) in a transaction of its own.
            self._end_plan(wait=True)
            self._solo_next = True
            raise
        except BaseException:
            # A unit that fails wrote nothing: its system time is free again, as after a
            # rolled-back transaction (a retried if_match write is then seen at the same clock).
            plan.now = before
            raise
        plan.journal.merge(unit.journal)
