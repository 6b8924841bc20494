"""The embedded store's units of work and batches: system time, ``BEGIN IMMEDIATE`` and the
commit, savepoints, and the batch planner (:mod:`kg_memory.store.sqlite.plan`); mixed into
:class:`~kg_memory.store.sqlite.store.SqliteStore`.

A batch is one transaction holding the write lock, committed (one disk sync) when it ends.
Inside it, once :meth:`Batching.prepare` has named the records about to be written, each
:meth:`Batching.transaction` is a :class:`~kg_memory.store.sqlite.planned.PlannedUnit`: its reads
come from a few set-based statements made up front, its writes stay in memory, and the batch
writes them at its end with one ``executemany`` per table (:func:`~.flush.flush`). Without
``prepare`` (a forget run, a mirror's cursor), each unit is a savepoint running its statements
at once, as is a unit that needs an operation the planner does not plan
(:class:`~kg_memory.domain.errors.Unplanned`: the batch so far is written, the unit runs again
on its own, with the system time it was given, and so does the rest of the batch).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from kg_memory.domain.errors import StoreUnavailable, Unplanned
from kg_memory.domain.forgetting import operation_key
from kg_memory.domain.instant import Clock, to_micros
from kg_memory.domain.record import IngestRecord
from kg_memory.store.cancellation import raise_if_cancelled
from kg_memory.store.import_clock import ImportClock
from kg_memory.store.pipeline import SyncPipeline
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.connections import Connections
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.flush import flush
from kg_memory.store.sqlite.plan import BatchPlan, prefetch_records
from kg_memory.store.sqlite.planned import PlannedUnit
from kg_memory.store.sqlite.tx import SqliteTransaction

__all__ = ["Batching"]


def _plain(record: IngestRecord) -> bool:
    """Content only: no candidate of any kind, so nothing read but its operation."""
    return not (record.assertions or record.entities or record.mentions or record.resolve
                or record.events or record.retractions)


class Batching(ImportClock):
    """System time, transactions and planned batches, each thread on its own connection and
    in its own unit of work (its :class:`~kg_memory.store.sqlite.connections.Session`)."""

    _connections: Connections
    _clock: Clock
    path: Path

    @property
    def _conn(self) -> driver.Connection:
        """This thread's connection (see :mod:`kg_memory.store.sqlite.connections`)."""
        return self._connections.session().conn

    # The state of this thread's unit of work: another thread's batch is none of its business.

    @property
    def _in_batch(self) -> bool:
        return self._connections.session().in_batch

    @_in_batch.setter
    def _in_batch(self, value: bool) -> None:
        self._connections.session().in_batch = value

    @property
    def _batch_time(self) -> int | None:
        return self._connections.session().batch_time

    @_batch_time.setter
    def _batch_time(self, value: int | None) -> None:
        self._connections.session().batch_time = value

    @property
    def _plan(self) -> BatchPlan | None:
        return self._connections.session().plan

    @_plan.setter
    def _plan(self, value: BatchPlan | None) -> None:
        self._connections.session().plan = value

    @property
    def _given_back(self) -> int | None:
        return self._connections.session().given_back

    @_given_back.setter
    def _given_back(self, value: int | None) -> None:
        self._connections.session().given_back = value

    @property
    def _lost(self) -> StoreUnavailable | None:
        """Why SQLite rolled back this thread's open batch itself, if it did (see _end_batch)."""
        return self._connections.session().lost

    @_lost.setter
    def _lost(self, value: StoreUnavailable | None) -> None:
        self._connections.session().lost = value

    def _next_system_time(self) -> int:
        """Strictly increasing even when the clock stands still or steps back.

        Inside a batch the write lock is held, so the last value can stay in memory; it is
        written once per batch (a crash loses the batch and the counter together).
        """
        session = self._connections.session()
        if session.given_back is not None:
            now, session.given_back = session.given_back, None
            session.batch_time = now
            return now
        last = session.batch_time
        if last is None and session.plan is not None:
            last = session.plan.stored_time()
        elif last is None:
            row = session.conn.execute("SELECT value FROM meta WHERE key = 'system_time'"
                                       ).fetchone()
            last = -1 if row is None else int(row[0])
        now = max(to_micros(self._asked_time()), last + 1)
        if session.in_batch:
            session.batch_time = now
        else:
            self._store_system_time(now)
        return now

    def _store_system_time(self, now: int) -> None:
        self._conn.execute("INSERT INTO meta (key, value) VALUES ('system_time', ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(now),))

    def _execute(self, sql: str, what: str) -> None:
        """A transaction-control statement, with a held lock reported as :class:`StoreBusy`."""
        try:
            self._conn.execute(sql)
        except driver.Error as exc:
            raise store_error(exc, f"{what} {self.path}", self.path.parent) from exc

    def _commit(self) -> None:
        try:
            self._conn.execute("COMMIT")
        except driver.Error as exc:
            # Not committed, so nothing of it may be acknowledged: roll back and say so.
            with suppress(driver.Error):
                self._conn.execute("ROLLBACK")
            raise store_error(exc, f"cannot commit to {self.path}", self.path.parent) from exc

    def _flush_plan(self) -> None:
        """Write the planned units so far into the open transaction; the plan ends."""
        plan, self._plan = self._plan, None
        if plan is None:
            return
        try:
            flush(self._conn, plan)
        except BaseException as exc:
            # A half-written journal must not be committed: the whole batch goes, unreported.
            with suppress(driver.Error):
                self._conn.execute("ROLLBACK")
            self._in_batch = False
            self._batch_time = None
            if isinstance(exc, driver.Error):
                raise store_error(exc, f"cannot write to {self.path}", self.path.parent) from exc
            raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Hold the write lock and commit once for many transactions.

        Beginning waits up to the busy timeout for another writer, then raises
        :class:`StoreBusy` with nothing written. Leaving writes what the planned units hold and
        commits, even on an error: each episode inside succeeded or failed alone, so what was
        accepted before the failure stays. The commit is the durability point: nothing inside
        is durable before this returns.
        """
        # The session is this thread's, fetched once: the properties above each look it up.
        session = self._connections.session()
        if session.in_batch:
            yield
            return
        with self._connections.writing():
            self._execute("BEGIN IMMEDIATE", "cannot write to")
            session.in_batch = True
            session.lost = None
            try:
                yield
            finally:
                session.given_back = None
                if session.in_batch:
                    self._flush_plan()
                if session.in_batch:
                    session.in_batch = False
                    self._end_batch()

    def _end_batch(self) -> None:
        batch_time, self._batch_time = self._batch_time, None
        if not self._conn.in_transaction:
            # SQLite rolled the whole batch back itself (a full disk, an I/O error) while a
            # unit failed: the units before it that looked accepted are not stored either, so
            # the batch must not end as committed.
            lost = self._lost or StoreUnavailable(f"cannot commit to {self.path}: SQLite "
                                                  "rolled the batch back")
            raise lost
        try:
            raise_if_cancelled()  # the last moment a cancelled write can still be undone
            if batch_time is not None:
                self._store_system_time(batch_time)
        except BaseException as exc:
            with suppress(driver.Error):
                self._conn.execute("ROLLBACK")
            raise self._typed(exc) from exc
        self._commit()

    @contextmanager
    def pipeline(self) -> Iterator[SyncPipeline]:
        """Each batch commits as it ends (SQLite has one writer and the commit is the disk
        sync): nothing to overlap."""
        yield SyncPipeline(self)

    def prepare(self, records: Sequence[IngestRecord], secret: bytes) -> None:
        """Inside :meth:`batch`: plan the units that follow, reading what ``records`` touch
        in one statement per kind (see :func:`~kg_memory.store.sqlite.plan.prefetch_records`)."""
        session = self._connections.session()
        if not session.in_batch or not records:
            return
        if session.plan is None:
            session.plan = BatchPlan(session.conn)
        try:
            if len(records) == 1 and _plain(records[0]):
                # A plain turn alone (``Memory.ingest``'s commonest record): everything its
                # write path reads, in one statement, its operation key hashed once for both.
                record = records[0]
                key = operation_key(secret, record.scope, record.operation_id)
                session.plan.operation_keys[(secret, record.scope, record.operation_id)] = key
                session.plan.read_alone(record.scope, record.operation_id, key)
                return
            prefetch_records(session.plan, records, secret)
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    @contextmanager
    def transaction(self, scope: str) -> Iterator[SqliteTransaction | PlannedUnit]:
        # A unit that fails wrote nothing, so its system time is free again: the next unit
        # may take it, as it would after a rolled-back transaction of its own.
        session = self._connections.session()
        before = session.batch_time
        if session.in_batch and session.plan is not None:
            plan = session.plan
            unit = PlannedUnit(plan, self._next_system_time(), scope)
            try:
                yield unit
                unit.finish()
            except Unplanned:
                # Nothing of this unit was planned: write the batch so far; the caller runs the
                # unit again, and it (and the rest of the batch) runs statement by statement.
                session.batch_time = before
                self._flush_plan()
                session.given_back = to_micros(unit.now)
                raise
            except driver.Error as exc:
                session.batch_time = before
                raise store_error(exc, f"cannot read {self.path}") from exc
            except BaseException:
                session.batch_time = before
                raise
            plan.journal.merge(unit.journal)
            return
        if self._in_batch:
            self._execute("SAVEPOINT episode", "cannot write to")
            try:
                tx = SqliteTransaction(self._conn, self._next_system_time(), scope)
                yield tx
                tx.finish()
            except BaseException as exc:
                self._batch_time = before
                self._undo("ROLLBACK TO episode", "RELEASE episode")
                raise self._typed(exc) from exc
            self._execute("RELEASE episode", "cannot write to")
            return
        with self._connections.writing():
            self._execute("BEGIN IMMEDIATE", "cannot write to")
            try:
                tx = SqliteTransaction(self._conn, self._next_system_time(), scope)
                yield tx
                tx.finish()
                raise_if_cancelled()
            except BaseException as exc:
                self._undo("ROLLBACK")
                raise self._typed(exc) from exc
            self._commit()

    def _typed(self, exc: BaseException) -> BaseException:
        """A driver error raised inside a unit of work as kg-memory's (read-only, full, busy)."""
        if not isinstance(exc, driver.Error):
            return exc
        typed = store_error(exc, f"cannot write to {self.path}", self.path.parent)
        if not self._conn.in_transaction:
            self._lost = typed  # the batch around the unit is gone too: see _end_batch
        return typed

    def _undo(self, *statements: str) -> None:
        """Roll back a failed unit. SQLite may already have rolled back the whole transaction
        (a full disk, an I/O error): then there is nothing to undo, and the batch around it
        ends without committing (see :meth:`_end_batch`)."""
        if not self._conn.in_transaction:
            return
        with suppress(driver.Error):
            for sql in statements:
                self._conn.execute(sql)
