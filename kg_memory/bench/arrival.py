"""The store's clock during the benchmark's ingest (shared by the embedded and Neo4j runs)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from kg_memory.domain.record import IngestRecord

__all__ = ["ArrivalClock"]


class ArrivalClock:
    """The store's clock during ingest: episode ``k`` of a batch is written at that episode's
    ``occurred_at``, so system time is arrival time and the (valid, known) probes fall inside
    real history.

    It advances each time the store reads it, because the store reads its clock exactly once
    per episode transaction; the reports cannot drive it, since ``ingest_many`` acknowledges
    an episode only once its whole batch has committed.
    """

    def __init__(self, start: datetime) -> None:
        self.now = start
        self._ahead: deque[datetime] = deque()
        #: Seconds spent producing the records of :meth:`arriving` (not the store's time).
        self.generation_seconds = 0.0

    def __call__(self) -> datetime:
        if self._ahead:
            self.now = self._ahead.popleft()
        return self.now

    def follow(self, batch: Sequence[IngestRecord]) -> None:
        self._ahead = deque(r.occurred_at for r in batch)

    def arriving(self, records: Iterable[IngestRecord]) -> Iterator[IngestRecord]:
        """``records`` as a stream the clock follows: each record's ``occurred_at`` is queued
        as the store reads the record, so one ``ingest_many`` of a whole workload needs
        neither the workload in memory nor a ``follow`` per batch (the store reads a batch's
        records before it plans them, so each episode's time is queued before it is asked).
        The time spent making the records is added to :attr:`generation_seconds`."""
        self._ahead = deque()
        source = iter(records)
        while True:
            began = time.perf_counter()
            record = next(source, None)
            self.generation_seconds += time.perf_counter() - began
            if record is None:
                return
            self._ahead.append(record.occurred_at)
            yield record
