"""What a benchmark run produces: one JSON-serialisable :class:`BenchResult`.

Latencies are :class:`~kg_memory.bench.latency.LatencyStats` in microseconds. Every headline is
a *ratio* against a reference measured in the same process on the same rows
(:mod:`kg_memory.bench.reference`), because absolute numbers say more about the machine than
about the store. Figures that are not measured yet are listed in ``pending`` as
``"not yet measured"`` rather than left out or filled with a guess.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.latency import LatencyStats
from kg_memory.bench.machine import Machine
from kg_memory.bench.rss import PeakRss

__all__ = [
    "BenchResult",
    "Growth",
    "IngestFigures",
    "PendingFigure",
    "Ratios",
    "RecallFigures",
    "ReferenceFigures",
    "ScaleResult",
    "TargetCheck",
    "TurnFigures",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class IngestFigures(_Frozen):
    """Durable ingest through ``Memory.ingest_many``: one commit (fsync) per batch."""

    seconds: float  # wall time inside ingest_many only
    versions_per_second: float
    episodes_per_second: float
    batch_size: int
    batch_commit: LatencyStats  # one sample per batch, from first episode to durable commit
    generation_seconds: float  # building the IngestRecords; excluded from the rate


class ReferenceFigures(_Frozen):
    """The floors, over the same rows and the same probes."""

    memory_lookup: LatencyStats
    sqlite_lookup: LatencyStats
    sqlite_snapshot: LatencyStats
    executemany_seconds: float
    executemany_versions_per_second: float
    sqlite_file_bytes_per_version: float
    memory_index_build_seconds: float
    #: every probe got the same (assertion, revision) set from the store and both references
    answers_agree: bool


class Ratios(_Frozen):
    """Store over reference: above 1 means the store is slower (or bigger)."""

    lookup_vs_sqlite: float  # median over median
    lookup_vs_memory: float
    lookup_p99_vs_sqlite: float
    snapshot_vs_sqlite: float
    ingest_vs_executemany: float  # rate over rate: below 1 means the store ingests slower
    file_vs_sqlite: float


class Neo4jFigures(_Frozen):
    """The same store projected into Neo4j by ``kg-memory neo4j sync``, then queried there."""

    location: str
    sync_records: int
    sync_seconds: float
    sync_records_per_second: float
    lookup: LatencyStats
    answers_agree: bool
    recall: LatencyStats | None = None  # Memory.recall on Neo4jStore, lexical, same probes
    hybrid: LatencyStats | None = None  # + vectors (native vector index, exact fallback)
    recall_agrees: float | None = None  # share of probes with the embedded store's top ids
    #: The same workload written straight into Neo4j (``Memory.ingest_many`` on a Neo4jStore,
    #: batches planned in memory), then the same probes asked of that store.
    direct_episodes: int = 0
    direct_seconds: float = 0.0
    direct_episodes_per_second: float = 0.0
    direct_versions_per_second: float = 0.0
    direct_answers_agree: bool = True


class RecallFigures(_Frozen):
    """``Memory.recall`` beside a plain FTS5 query (see :mod:`kg_memory.bench.recall_figures`)."""

    queries: int
    recall: LatencyStats  # Memory.recall, limit 10, facts and episodes
    fts5: LatencyStats  # the same MATCH on both FTS5 tables, ORDER BY rank LIMIT 10
    median_vs_fts5: float
    p99_vs_fts5: float
    hit_rate: float  # share of probes with at least one result
    mean_candidates: float  # index matches per probe, before eligibility
    mean_excluded: float  # of which excluded by an eligibility rule
    hybrid: LatencyStats | None = None  # + HashingEmbedder vectors, the vector index, RRF
    hybrid_vs_lexical: float | None = None
    cosine: LatencyStats | None = None  # numpy brute-force cosine over the tenant's vectors
    hybrid_vs_cosine: float | None = None
    vectors: int | None = None  # vectors stored for the probed tenants
    index_recall_at_10: float | None = None  # the index path (forced) against exact, top 10


class TurnFigures(_Frozen):
    """Conversation turns as plain episodes (:mod:`kg_memory.bench.turns`)."""

    turns: int  # written batched
    singles: int  # written one at a time
    batch_size: int
    batched_per_second: float  # Memory.ingest_many, one durable commit per batch
    executemany_per_second: float  # the raw table + FTS5 index, same commits
    batched_vs_executemany: float
    one_at_a_time: LatencyStats  # Memory.ingest, a durable commit each
    raw_one_at_a_time: LatencyStats  # one raw row + its FTS5 row, a durable commit each
    one_vs_raw: float  # medians
    #: the store holds every turn written and so does the reference
    answers_agree: bool
    #: Memory.ingest as Memory.open gives it (the shipped model, with the embed extra): its
    #: vectors are made on the memory's worker after each write returned; None without a model
    one_with_model: LatencyStats | None = None
    model: str | None = None  # that model's name


class ScaleResult(_Frozen):
    scale: int  # as requested
    users: int
    episodes: int
    expected_versions: int  # what the workload's script must produce
    versions: int  # counted in the store after ingest
    ingest: IngestFigures
    lookup: LatencyStats  # Memory.asof(subject, predicate) with supports: the full answer
    lookup_hit_rate: float  # share of lookups that found at least one fact
    snapshot: LatencyStats  # Memory.asof(scope=...)
    snapshot_mean_facts: float
    open_to_first_answer: LatencyStats  # Memory.open on the file + one asof, warm page cache
    lineage: LatencyStats | None = None  # Memory.lineage(fact, "both", depth=5)
    forget_cascade: LatencyStats | None = None  # forget one source with 1,000 derivatives
    neo4j: Neo4jFigures | None = None  # with --backend neo4j
    recall: RecallFigures | None = None  # lexical; see kg_memory.bench.recall_figures
    turns: TurnFigures | None = None  # plain episodes, batched and one at a time
    peak_rss: PeakRss  # during workload generation, ingest and queries (before references)
    start_rss_bytes: int | None  # before the workload: interpreter, imports, probes
    process_peak_rss_bytes: int  # the measuring process's peak, references included
    file_bytes: int
    file_bytes_per_version: float
    references: ReferenceFigures
    ratios: Ratios


class Growth(_Frozen):
    """Largest scale's figure over the smallest's (for ingest rate, above 1 is better)."""

    from_scale: int
    to_scale: int
    from_versions: int
    to_versions: int
    lookup_median: float
    lookup_p99: float
    snapshot_median: float
    ingest_rate: float
    open_to_first_answer: float
    peak_rss: float
    file_bytes_per_version: float
    sqlite_lookup_median: float  # how the floor itself grew, to read the store's growth against
    forget_cascade_median: float | None = None
    recall_median: float | None = None
    fts5_median: float | None = None  # how the raw FTS5 query itself grew
    hybrid_median: float | None = None

    @classmethod
    def between(cls, first: ScaleResult, last: ScaleResult) -> Growth:
        return cls(
            from_scale=first.scale,
            to_scale=last.scale,
            from_versions=first.versions,
            to_versions=last.versions,
            lookup_median=last.lookup.median_us / first.lookup.median_us,
            lookup_p99=last.lookup.p99_us / first.lookup.p99_us,
            snapshot_median=last.snapshot.median_us / first.snapshot.median_us,
            ingest_rate=last.ingest.versions_per_second / first.ingest.versions_per_second,
            open_to_first_answer=(
                last.open_to_first_answer.median_us / first.open_to_first_answer.median_us
            ),
            peak_rss=last.peak_rss.bytes / first.peak_rss.bytes,
            file_bytes_per_version=last.file_bytes_per_version / first.file_bytes_per_version,
            sqlite_lookup_median=(
                last.references.sqlite_lookup.median_us / first.references.sqlite_lookup.median_us
            ),
            forget_cascade_median=(
                last.forget_cascade.median_us / first.forget_cascade.median_us
                if last.forget_cascade and first.forget_cascade else None
            ),
            **_recall_growth(first, last),
        )


def _recall_growth(first: ScaleResult, last: ScaleResult) -> dict[str, float | None]:
    a, b = first.recall, last.recall
    if a is None or b is None:
        return {}
    return {
        "recall_median": b.recall.median_us / a.recall.median_us,
        "fts5_median": b.fts5.median_us / a.fts5.median_us,
        "hybrid_median": (b.hybrid.median_us / a.hybrid.median_us
                          if a.hybrid and b.hybrid else None),
    }


class TargetCheck(_Frozen):
    """One target, what was measured, and whether it was met (``None``: not evaluated)."""

    name: str
    target: str
    measured: str
    met: bool | None
    margin: str
    scale: int | None
    note: str = ""


class PendingFigure(_Frozen):
    name: str
    status: Literal["not yet measured"] = "not yet measured"
    note: str


class BenchResult(_Frozen):
    backend: str
    started_at: datetime
    finished_at: datetime
    seed: int
    batch_size: int
    machine: Machine
    revision: str | None  # git commit of the measured code, "+dirty" with local edits
    scales: tuple[ScaleResult, ...]
    growth: Growth | None
    targets: tuple[TargetCheck, ...]
    pending: tuple[PendingFigure, ...]
