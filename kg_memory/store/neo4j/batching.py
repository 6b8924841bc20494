"""The Neo4j store's batches: :meth:`Batching.batch` plans its episodes in memory and writes
them at the end (see :mod:`kg_memory.store.neo4j.plan`); mixed into
:class:`~kg_memory.store.neo4j.store.Neo4jStore`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from typing import Any

from neo4j import Transaction as DriverTransaction
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import Clock
from kg_memory.domain.record import IngestRecord
from kg_memory.store.cancellation import raise_if_cancelled
from kg_memory.store.import_clock import ImportClock
from kg_memory.store.neo4j.buffered import BufferedUnit, Unbatched
from kg_memory.store.neo4j.plan import BatchPlan, prefetch_records
from kg_memory.store.neo4j.rows import instant, opt_time
from kg_memory.store.neo4j.tx import run_query

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

    def _begin(self) -> DriverTransaction:
        raise NotImplementedError

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
                self._end_plan()

    def prepare(self, records: Sequence[IngestRecord], secret: bytes) -> None:
        """Inside :meth:`batch`: prefetch what ``records`` will read, one query per kind."""
        if self._in_batch and records:
            prefetch_records(self._open_plan(), records, secret)

    def _open_plan(self) -> BatchPlan:
        """The batch's plan, beginning its transaction (and taking the system-time lock)."""
        if self._plan is None:
            tx = self._begin()
            self._active = tx
            run = partial(self._run_in, tx)
            plan = BatchPlan(run)
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

    def _end_plan(self) -> None:
        """Write the batch's plan and commit (nothing to do when no episode ran)."""
        plan, self._plan = self._plan, None
        tx, self._active = self._active, None
        if plan is None or tx is None:
            return
        try:
            plan.flush()
            raise_if_cancelled()  # the last moment a cancelled write can still be undone
        except BaseException:
            with suppress(DriverError, Neo4jError):
                tx.rollback()
            raise
        try:
            tx.commit()
        except (DriverError, Neo4jError) as exc:
            raise StoreUnavailable(f"cannot commit to Neo4j at {self._uri}: {exc}") from exc

    @contextmanager
    def _planned(self, scope: str) -> Iterator[BufferedUnit]:
        plan = self._open_plan()
        before = plan.now
        now = plan.next_time(instant(self._asked_time()))
        unit = BufferedUnit(plan, now, scope)
        try:
            yield unit
            unit.finish()
        except Unbatched:
            # Nothing of this unit was planned: write the batch so far, then the store runs
            # the unit again (Unbatched is retryable) in a transaction of its own.
            plan.now = before
            self._end_plan()
            self._solo_next = True
            raise
        except BaseException:
            # A unit that fails wrote nothing: its system time is free again, as after a
            # rolled-back transaction (a retried if_match write is then seen at the same clock).
            plan.now = before
            raise
        plan.journal.merge(unit.journal)
