"""Importing history: a past stream ingested with the system times it was known at.

A live ingest is stamped with the store's clock, so last year's conversations ingested today
would be known only from today, and an as-of question about last year (``known_at`` in the
past) would find nothing. An import asks the store, for each record, for the instant the
record was known in its source: its ``occurred_at`` (see :mod:`kg_memory.domain.history` for
why that field). The store still assigns system time by its own rule and keeps it strictly
increasing; the import checks what it was given, inside the record's unit of work:

* a record before the store's latest system time is refused
  (:class:`~kg_memory.domain.errors.ImportOrderError`, naming the line and ``occurred_at``),
  as is one before the previous record of the import or one in the future; the records before
  it stay accepted, as on every ingest path;
* records sharing an instant take successive microseconds;
* a record already stored (a re-run after a crash) is a duplicate, as on the live path, and
  moves no time.

Each import is recorded as such: one ``import`` activity per scope it wrote (its agent is who
imported, its start the wall-clock time the import actually ran), and an ``IMPORTED_BY`` edge
from every episode it brought in, which lineage walks and the PROV export shows.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path

from kg_memory.domain.backoff import Backoff
from kg_memory.domain.change import PlannedEdge
from kg_memory.domain.channel import ChannelPolicy
from kg_memory.domain.errors import (
    ImportOrderError,
    IngestError,
    InvalidArgument,
    Unplanned,
)
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.history import (
    HISTORY_FIELD,
    MICROSECOND,
    asked_instant,
    held_later,
    order_problem,
)
from kg_memory.domain.instant import Clock
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Activity, EdgeType
from kg_memory.domain.record import IngestRecord, read_numbered
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.batch_ingest import Numbered, ingest_batches, noting_scopes
from kg_memory.services.ingestion import IngestReport, ingest_record
from kg_memory.store.protocol import Store, Transaction

__all__ = ["IMPORT", "HistoryImports", "HistoryRun"]

#: The activity type of an import.
IMPORT = "import"


class _Unwritten(Exception):  # a signal that rolls the unit back, not an error
    """A duplicate inside an import unit: rolled back, so it takes no system time."""

    def __init__(self, report: IngestReport) -> None:
        super().__init__(report.operation_id)
        self.report = report


class HistoryRun:
    """One import: the instants it asked for, its activities, the record being written."""

    def __init__(self, store: Store, *, by: str, started_at: datetime, policy: WriterPolicy,
                 secret: bytes, channels: ChannelPolicy | None,
                 write_policy: WritePolicy | None) -> None:
        self.store, self.by, self.started_at = store, by, started_at
        self._policy, self._secret = policy, secret
        self._channels, self._write_policy = channels, write_policy
        #: The import activity of each scope this run wrote to (written with its first episode).
        self.activities: dict[str, str] = {}
        self._written: set[str] = set()
        self._given: datetime | None = None  # the last system time a record of this run holds
        #: The record whose unit runs (the one a write-path error is about).
        self.current: IngestRecord | None = None

    def checked(self, numbered: Iterable[Numbered]) -> Iterator[Numbered]:
        """The records, refused at the first one that goes back in time or is in the future
        (a reader's error: the records before it are still written)."""
        before: datetime | None = None
        for line, record in numbered:
            problem = order_problem(record.occurred_at, before, self.started_at)
            if problem is not None:
                raise ImportOrderError(f"operation {record.operation_id!r}: {problem}",
                                       line=line, field=HISTORY_FIELD)
            before = record.occurred_at
            yield line, record

    def unit(self, record: IngestRecord) -> IngestReport:
        """Write one record at the instant it was known (see the module docstring)."""
        self.current = record
        asked = asked_instant(record.occurred_at, self._given)
        for attempt in (1, 2):
            try:
                with self.store.importing(asked), self.store.transaction(record.scope) as tx:
                    report = self._write(tx, record, asked)
            except _Unwritten as done:
                self._given = done.report.system_time
                return done.report
            except Unplanned:
                # The store's planner gave the unit back, nothing written: run it again now.
                if attempt == 2:
                    raise
                continue
            self._given = report.system_time
            self._written.add(record.scope)
            return report
        raise AssertionError("unreachable")  # pragma: no cover

    def _write(self, tx: Transaction, record: IngestRecord, asked: datetime) -> IngestReport:
        if tx.episode_by_operation(record.operation_id) is None and held_later(asked, tx.now):
            raise ImportOrderError(
                f"operation {record.operation_id!r}: {asked.isoformat()} is before the store's "
                f"latest system time {(tx.now - MICROSECOND).isoformat()}; system time only "
                "moves forward, so history is imported before what the store learnt after it",
                field=HISTORY_FIELD)
        report = ingest_record(tx, record, self._policy, self._secret, self._channels,
                               self._write_policy)
        if report.status == "duplicate":
            raise _Unwritten(report)
        activity = self.activities.setdefault(
            record.scope, f"act_import_{secrets.token_hex(8)}")
        if record.scope not in self._written:
            tx.add_activity(Activity(
                activity_id=activity, type=IMPORT, agent=self.by, scope=record.scope,
                started_at=self.started_at, status="complete",
                detail=f'{{"system_time": "{HISTORY_FIELD}"}}'))
        tx.add_edge(PlannedEdge(src=report.episode_id, type=EdgeType.IMPORTED_BY, dst=activity))
        return report


class HistoryImports:
    """Memory's import methods (see the module docstring)."""

    store: Store
    policy: WriterPolicy
    channels: ChannelPolicy
    write_policy: WritePolicy | None
    retry: Backoff
    _rng: random.Random
    _clock: Clock
    #: Memory's (kg_memory.services.lifecycle): embed what a write committed, with a model.
    _embed_written: Callable[[Iterable[str]], None]

    @property
    def _secret(self) -> bytes:
        raise NotImplementedError

    def _history_run(self, by: str) -> HistoryRun:
        check_text(by=by)
        if not by.strip():
            raise InvalidArgument("by: say who imports (a person or a service)", field="by")
        return HistoryRun(self.store, by=by, started_at=self._clock(), policy=self.policy,
                          secret=self._secret, channels=self.channels,
                          write_policy=self.write_policy)

    def _run_import(self, run: HistoryRun, records: Iterable[Numbered], batch_size: int,
                    on_report: Callable[[IngestReport], None] | None) -> list[IngestReport]:
        scopes: dict[str, None] = {}
        reports = ingest_batches(self.store, noting_scopes(records, scopes), policy=self.policy,
                                 secret=self._secret,
                                 batch_size=batch_size, on_report=on_report, retry=self.retry,
                                 rng=self._rng, channels=self.channels,
                                 write_policy=self.write_policy, unit=run.unit)
        self._embed_written(scopes)
        return reports

    def import_history(
        self,
        records: Iterable[IngestRecord],
        *,
        by: str,
        batch_size: int = 500,
        on_report: Callable[[IngestReport], None] | None = None,
    ) -> list[IngestReport]:
        """Ingest a past stream with the system times it was known at: each record's
        ``occurred_at``, in order, none before the store's latest system time nor in the
        future. ``by`` is who imports, recorded with the import's activity. Otherwise as
        :meth:`ingest_many` (batches, acknowledgements, duplicates on a re-run); see
        :mod:`kg_memory.services.history_import`."""
        run = self._history_run(by)
        return self._run_import(run, run.checked((None, r) for r in records), batch_size,
                                on_report)

    def import_file(
        self,
        path: Path,
        *,
        by: str,
        on_report: Callable[[IngestReport], None] | None = None,
        batch_size: int = 500,
    ) -> list[IngestReport]:
        """:meth:`import_history` of a JSONL file; an error names the line and field."""
        run = self._history_run(by)
        try:
            return self._run_import(run, run.checked(read_numbered(path)), batch_size,
                                    on_report)
        except IsADirectoryError:
            raise IngestError(f"{path} is a directory, not a JSONL file") from None
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror}") from exc
