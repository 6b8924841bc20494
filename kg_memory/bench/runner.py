"""Run the benchmark over several scales and put the result together.

Each scale is measured by :class:`~kg_memory.bench.measurement.ScaleMeasurement` in a fresh
temporary directory and, by default, in a fresh child process (``isolate=True``). The child
matters for memory: CPython and glibc keep freed memory mapped, so a scale measured after the
previous scale's in-memory reference would report that reference's leftovers as its own peak
RSS. In a child, peak RSS is what an application process doing the same work would see.
Progress events travel back from the child over a queue.
"""

from __future__ import annotations

import multiprocessing
import queue
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kg_memory.bench.machine import Machine, source_revision
from kg_memory.bench.measurement import ScaleMeasurement, ScaleSettings
from kg_memory.bench.progress import BenchProgress, ProgressCallback
from kg_memory.bench.result import BenchResult, Growth, PendingFigure, ScaleResult
from kg_memory.bench.target import evaluate_targets
from kg_memory.domain.errors import KgMemoryError

__all__ = ["BACKENDS", "BenchProgress", "ProgressCallback", "UnsupportedBackend", "run_bench"]

BACKENDS = ("embedded", "neo4j")

PENDING: tuple[PendingFigure, ...] = ()


class UnsupportedBackend(KgMemoryError):
    """The requested backend cannot be benchmarked (yet)."""


def _measure(
    settings: ScaleSettings, workdir: Path | None, progress: ProgressCallback | None
) -> ScaleResult:
    with tempfile.TemporaryDirectory(prefix="kg-memory-bench-", dir=workdir) as tmp:
        return ScaleMeasurement(settings, workdir=Path(tmp), progress=progress).run()


def _child(settings: ScaleSettings, workdir: Path | None, channel: Any) -> None:
    """Entry point of the child process: measure, sending progress and then the result."""
    try:
        result = _measure(settings, workdir, lambda event: channel.put(("progress", event)))
    except BaseException:
        channel.put(("error", traceback.format_exc()))
        raise
    channel.put(("result", result))


def _measure_isolated(
    settings: ScaleSettings, workdir: Path | None, progress: ProgressCallback | None
) -> ScaleResult:
    # spawn, not fork: a forked child would start with (and count) the parent's memory.
    context = multiprocessing.get_context("spawn")
    channel = context.Queue()
    child = context.Process(target=_child, args=(settings, workdir, channel), daemon=True)
    child.start()
    try:
        while True:
            try:
                kind, payload = channel.get(timeout=1.0)
            except queue.Empty:
                if not child.is_alive():
                    raise KgMemoryError(
                        f"bench process for scale {settings.scale} died "
                        f"(exit code {child.exitcode})"
                    ) from None
                continue
            if kind == "progress":
                if progress is not None:
                    progress(payload)
            elif kind == "error":
                raise KgMemoryError(f"bench at scale {settings.scale} failed:\n{payload}")
            else:
                result: ScaleResult = payload
                return result
    finally:
        child.join(timeout=30)
        if child.is_alive():
            child.terminate()


def run_bench(
    scales: list[int],
    backend: str = "embedded",
    progress: ProgressCallback | None = None,
    *,
    batch_size: int = 500,
    lookups: int = 2_000,
    snapshots: int = 500,
    opens: int = 5,
    recalls: int = 1_000,
    seed: int = 0,
    workdir: Path | None = None,
    isolate: bool = True,
) -> BenchResult:
    """Measure every scale (versions, e.g. ``[10_000, 100_000]``) and evaluate the targets.

    Each scale gets a fresh store in a temporary directory (under ``workdir`` if given),
    deleted afterwards, and with ``isolate`` its own process. Raises
    :class:`UnsupportedBackend` for an unknown backend. ``neo4j`` measures the embedded
    store as well, then syncs it into Neo4j (``$KG_NEO4J_URI``, wiped first) and queries it.
    """
    if backend not in BACKENDS:
        choices = ", ".join(BACKENDS)
        raise UnsupportedBackend(f"unknown backend {backend!r}; choose one of {choices}")
    if not scales or any(s < 1 for s in scales):
        raise KgMemoryError("scales must be positive version counts, e.g. 1e4,1e5")
    if batch_size < 1 or lookups < 1 or snapshots < 1 or opens < 1 or recalls < 1:
        raise KgMemoryError(
            "batch_size, lookups, snapshots, opens and recalls must be at least 1")
    started = datetime.now(UTC)
    revision = source_revision()
    measure = _measure_isolated if isolate else _measure
    results = tuple(
        measure(
            ScaleSettings(
                scale=scale,
                seed=seed,
                batch_size=batch_size,
                lookups=lookups,
                snapshots=snapshots,
                opens=opens,
                recalls=recalls,
                neo4j=backend == "neo4j",
            ),
            workdir,
            progress,
        )
        for scale in sorted(scales)
    )
    growth = Growth.between(results[0], results[-1]) if len(results) > 1 else None
    return BenchResult(
        backend=backend,
        started_at=started,
        finished_at=datetime.now(UTC),
        seed=seed,
        batch_size=batch_size,
        machine=Machine.current(),
        revision=revision,
        scales=results,
        growth=growth,
        targets=evaluate_targets(results, growth),
        pending=PENDING,
    )
