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

from kg_memory.domain.errors import Unplanned
from kg_memory.domain.instant import Clock, to_micros
from kg_memory.domain.record import IngestRecord
from kg_memory.store.import_clock import ImportClock
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.flush import flush
from kg_memory.store.sqlite.plan import BatchPlan, prefetch_records
from kg_memory.store.sqlite.planned import PlannedUnit
from kg_memory.store.sqlite.tx import SqliteTransaction

__all__ = ["Batching"]


class Batching(ImportClock):
    """System time, transactions and planned batches over one SQLite connection."""

    _conn: driver.Connection
    _clock: Clock
    path: Path

    def _init_batching(self) -> None:
        self._in_batch = False
        self._batch_time: int | None = None
        self._plan: BatchPlan | None = None
        #: The system time of a unit the planner gave back (Unplanned), for its second run.
        self._given_back: int | None = None

    def _next_system_time(self) -> int:
        """Strictly increasing even when the clock stands still or steps back.

        Inside a batch the write lock is held, so the last value can stay in memory; it is
        written once per batch (a crash loses the batch and the counter together).
        """
        if self._given_back is not None:
            now, self._given_back = self._given_back, None
            self._batch_time = now
            return now
        last = self._batch_time
        if last is None:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'system_time'").fetchone()
            last = -1 if row is None else int(row[0])
        now = max(to_micros(self._asked_time()), last + 1)
        if self._in_batch:
            self._batch_time = now
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
            raise store_error(exc, f"{what} {self.path}") from exc

    def _commit(self) -> None:
        try:
            self._conn.execute("COMMIT")
        except driver.Error as exc:
            # Not committed, so nothing of it may be acknowledged: roll back and say so.
            with suppress(driver.Error):
                self._conn.execute("ROLLBACK")
            raise store_error(exc, f"cannot commit to {self.path}") from exc

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
                raise store_error(exc, f"cannot write to {self.path}") from exc
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
        if self._in_batch:
            yield
            return
        self._execute("BEGIN IMMEDIATE", "cannot write to")
        self._in_batch = True
        try:
            yield
        finally:
            self._given_back = None
            if self._in_batch:
                self._flush_plan()
            if self._in_batch:
                self._in_batch = False
                if self._batch_time is not None:
                    self._store_system_time(self._batch_time)
                    self._batch_time = None
                self._commit()

    def prepare(self, records: Sequence[IngestRecord], secret: bytes) -> None:
        """Inside :meth:`batch`: plan the units that follow, reading what ``records`` touch
        in one statement per kind (see :func:`~kg_memory.store.sqlite.plan.prefetch_records`)."""
        if not self._in_batch or not records:
            return
        if self._plan is None:
            self._plan = BatchPlan(self._conn)
        try:
            prefetch_records(self._plan, records, secret)
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    @contextmanager
    def transaction(self, scope: str) -> Iterator[SqliteTransaction | PlannedUnit]:
        # A unit that fails wrote nothing, so its system time is free again: the next unit
        # may take it, as it would after a rolled-back transaction of its own.
        before = self._batch_time
        if self._in_batch and self._plan is not None:
            plan = self._plan
            unit = PlannedUnit(plan, self._next_system_time(), scope)
            try:
                yield unit
                unit.finish()
            except Unplanned:
                # Nothing of this unit was planned: write the batch so far; the caller runs the
                # unit again, and it (and the rest of the batch) runs statement by statement.
                self._batch_time = before
                self._flush_plan()
                self._given_back = to_micros(unit.now)
                raise
            except driver.Error as exc:
                self._batch_time = before
                raise store_error(exc, f"cannot read {self.path}") from exc
            except BaseException:
                self._batch_time = before
                raise
            plan.journal.merge(unit.journal)
            return
        if self._in_batch:
            self._conn.execute("SAVEPOINT episode")
            try:
                tx = SqliteTransaction(self._conn, self._next_system_time(), scope)
                yield tx
                tx.finish()
            except BaseException:
                self._batch_time = before
                self._conn.execute("ROLLBACK TO episode")
                self._conn.execute("RELEASE episode")
                raise
            self._conn.execute("RELEASE episode")
            return
        self._execute("BEGIN IMMEDIATE", "cannot write to")
        try:
            tx = SqliteTransaction(self._conn, self._next_system_time(), scope)
            yield tx
            tx.finish()
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._commit()
