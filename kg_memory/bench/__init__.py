"""Benchmarks: how fast, how big, how it grows, against references measured in the same run.

``run_bench([10_000, 100_000])`` generates a seeded agent-memory workload
(:mod:`~kg_memory.bench.workload`), ingests it through :meth:`kg_memory.Memory.ingest_many`
into a fresh store, queries it, and measures the same rows and probes against raw ``sqlite3``
and an in-memory bitemporal index (:mod:`~kg_memory.bench.reference`). The result is a
JSON-serialisable :class:`~kg_memory.bench.result.BenchResult` whose headlines are ratios, with
the issue's targets marked met or missed (:mod:`~kg_memory.bench.target`).
``kg-memory bench`` is :func:`~kg_memory.bench.command.bench_command`.
"""

from kg_memory.bench.command import bench_command, parse_scales
from kg_memory.bench.latency import LatencyStats
from kg_memory.bench.progress import BenchProgress
from kg_memory.bench.result import BenchResult, Growth, ScaleResult, TargetCheck
from kg_memory.bench.runner import UnsupportedBackend, run_bench
from kg_memory.bench.workload import Workload

__all__ = [
    "BenchProgress",
    "BenchResult",
    "Growth",
    "LatencyStats",
    "ScaleResult",
    "TargetCheck",
    "UnsupportedBackend",
    "Workload",
    "bench_command",
    "parse_scales",
    "run_bench",
]
