"""The service layer: :class:`Memory` is what applications and the CLI talk to.

>>> from datetime import UTC, datetime
>>> from kg_memory import Memory, IngestRecord
>>> memory = Memory.open(":memory:")
>>> report = memory.ingest(IngestRecord.model_validate({
...     "operation_id": "op-1", "source": "user", "channel": "chat",
...     "occurred_at": "2026-01-05T09:00:00Z", "content": "Ana is vegetarian",
...     "assertions": [{"subject": "ana", "predicate": "diet", "value": "vegetarian",
...                     "kind": "stated"}]}))
>>> memory.asof(subject="ana").values()
['vegetarian']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from kg_memory.clock import Clock, ensure_utc, system_clock
from kg_memory.errors import IngestError
from kg_memory.gate import WriterPolicy
from kg_memory.ingestion import IngestReport, ingest_record
from kg_memory.model import Refusal
from kg_memory.record import IngestRecord, read_records
from kg_memory.result import AsOfAnswer, Fact, HistoryEntry
from kg_memory.store.protocol import AsOfQuery, Store
from kg_memory.store.sqlite import SqliteStore

__all__ = ["Memory"]


class Memory:
    """A bitemporal memory over any :class:`~kg_memory.store.protocol.Store`."""

    def __init__(
        self, store: Store, *, policy: WriterPolicy | None = None, clock: Clock = system_clock
    ) -> None:
        self.store = store
        self.policy = policy or WriterPolicy.default()
        self._clock = clock

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        policy: WriterPolicy | None = None,
        clock: Clock = system_clock,
        create: bool = True,
    ) -> Memory:
        """Open the embedded store at ``path`` (default: :func:`~kg_memory.store.default_path`)."""
        return cls(SqliteStore.open(path, clock=clock, create=create), policy=policy, clock=clock)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    # -- writes ----------------------------------------------------------------------------

    def ingest(self, record: IngestRecord) -> IngestReport:
        """Write one episode in its own transaction; durable when this returns."""
        with self.store.transaction() as tx:
            return ingest_record(tx, record, self.policy)

    def ingest_many(
        self,
        records: Iterable[IngestRecord],
        *,
        batch_size: int = 500,
        on_report: Callable[[IngestReport], None] | None = None,
    ) -> list[IngestReport]:
        """Write many episodes, each atomic on its own, committed durably every ``batch_size``.

        If an episode fails (bad input from a lazy reader, an idempotency conflict), the ones
        before it are committed and stay accepted, and the error propagates.
        """
        reports: list[IngestReport] = []
        iterator = iter(records)
        while True:
            before = len(reports)
            with self.store.batch():
                # islice stays lazy: a bad line raises here, after the lines before it were
                # written, and the batch still commits them on the way out.
                for record in itertools.islice(iterator, batch_size):
                    with self.store.transaction() as tx:
                        report = ingest_record(tx, record, self.policy)
                    reports.append(report)
                    if on_report is not None:
                        on_report(report)
            if len(reports) - before < batch_size:
                return reports

    def ingest_file(
        self, path: Path, *, on_report: Callable[[IngestReport], None] | None = None
    ) -> list[IngestReport]:
        """Ingest a JSONL file. On a bad line, every line before it stays accepted and
        :class:`~kg_memory.errors.IngestError` names the line and field."""
        try:
            return self.ingest_many(read_records(path), on_report=on_report)
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror}") from exc

    # -- reads -----------------------------------------------------------------------------

    def asof(
        self,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        scope: str | None = None,
    ) -> AsOfAnswer:
        """What held at ``valid_at`` (default now) as the store believed at ``known_at``
        (default now). Both axes are independent: "what did we believe on day 2 about day 1"
        is ``asof(valid_at=day1, known_at=day2)``."""
        now = self._clock()
        query = AsOfQuery(
            valid_at=ensure_utc(valid_at, what="valid_at") if valid_at else now,
            known_at=ensure_utc(known_at, what="known_at") if known_at else now,
            subject=subject,
            predicate=predicate,
            scope=scope,
        )
        versions = self.store.asof(query)
        supports = self.store.supports((v.assertion_id for v in versions), query.known_at)
        return AsOfAnswer(
            valid_at=query.valid_at,
            known_at=query.known_at,
            subject=subject,
            predicate=predicate,
            scope=scope,
            facts=tuple(Fact.of(v, supports.get(v.assertion_id, ())) for v in versions),
        )

    def history(
        self, subject: str, predicate: str | None = None, *, scope: str | None = None
    ) -> list[HistoryEntry]:
        """Every revision about ``subject`` with both intervals and what closed it."""
        return [HistoryEntry.of(v) for v in self.store.history(subject, predicate, scope)]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        """The writer gate's audit: every candidate it refused, and why."""
        return self.store.refusals(scope)
