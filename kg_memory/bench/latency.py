"""Latency samples and their summary: median and p99, in microseconds.

Every figure the benchmark reports about a single operation is a :class:`LatencyStats` built
from one wall-clock sample per call (``time.perf_counter_ns``), never an average of a loop:
an average hides the tail, and the tail is what an agent waiting on its memory feels.

>>> stats = LatencyStats.of_ns([1_000, 2_000, 3_000, 4_000, 100_000])
>>> (stats.count, stats.median_us, stats.p99_us)
(5, 3.0, 100.0)
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = ["LatencyStats", "time_each"]

T = TypeVar("T")
R = TypeVar("R")


def _rank(ordered: Sequence[int], fraction: float) -> int:
    """Nearest-rank percentile: the smallest sample with ``fraction`` of samples at or below."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


class LatencyStats(BaseModel):
    """Summary of per-call wall-clock samples."""

    model_config = ConfigDict(frozen=True)

    count: int
    median_us: float
    p99_us: float
    mean_us: float
    max_us: float

    @classmethod
    def of_ns(cls, samples_ns: Sequence[int]) -> LatencyStats:
        if not samples_ns:
            raise ValueError("no samples")
        ordered = sorted(samples_ns)
        return cls(
            count=len(ordered),
            median_us=statistics.median(ordered) / 1_000,
            p99_us=_rank(ordered, 0.99) / 1_000,
            mean_us=statistics.fmean(ordered) / 1_000,
            max_us=ordered[-1] / 1_000,
        )


def time_each(
    call: Callable[[T], R],
    items: Sequence[T],
    *,
    warmup: int = 0,
    on_done: Callable[[int], None] | None = None,
) -> tuple[LatencyStats, list[R]]:
    """Call ``call`` on every item, timing each call alone; return the stats and the results.

    The first ``warmup`` items are also run beforehand, untimed, so that statement caches and
    the OS page cache are in the state a long-running process would have them in.
    """
    for item in items[:warmup]:
        call(item)
    samples: list[int] = []
    results: list[R] = []
    clock = time.perf_counter_ns
    for n, item in enumerate(items, start=1):
        start = clock()
        result = call(item)
        samples.append(clock() - start)
        results.append(result)
        if on_done is not None and n % 100 == 0:
            on_done(n)
    return LatencyStats.of_ns(samples), results
