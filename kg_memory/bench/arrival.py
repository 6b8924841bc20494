"""The store's clock during the benchmark's ingest (shared by the embedded and Neo4j runs)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
        self._ahead: Iterator[datetime] = iter(())

    def __call__(self) -> datetime:
        following = next(self._ahead, None)
        if following is not None:
            self.now = following
        return self.now

    def follow(self, batch: Sequence[IngestRecord]) -> None:
        self._ahead = iter([r.occurred_at for r in batch])
