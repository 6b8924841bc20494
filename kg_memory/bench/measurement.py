"""One scale, measured: generate, ingest, query, then the references on the same rows.

A scale is measured in a fresh directory, in this order, so that each figure is taken in the
state it describes:

1. **Ingest** the workload through ``Memory.ingest_many``, one call (one durable commit) per
   ``batch_size`` episodes, with the store's clock following the episodes' ``occurred_at``.
   Only the time inside ``ingest_many`` counts; building the records is reported apart.
2. **Lookups** and **snapshots** through ``Memory.asof`` on the same open store (warm, as in a
   long-running agent), one timed sample per call.
3. **Open to first answer**: close, then ``Memory.open`` the file and answer one lookup.
4. **Peak RSS** of steps 1-3, read before the references allocate anything.
5. **References** (:mod:`kg_memory.bench.reference`): the store's rows copied with
   ``executemany`` into a raw table (with as many durable commits as the store made) and into
   an in-memory index, then the very same probes against both, checking the answers agree.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from itertools import islice
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.latency import LatencyStats, time_each
from kg_memory.bench.progress import BenchProgress, ProgressCallback
from kg_memory.bench.recall_figures import measure_recall, recall_probes
from kg_memory.bench.reference import (
    COLUMNS,
    MemoryIndex,
    RawSqliteTable,
    Row,
    read_versions,
)
from kg_memory.bench.result import IngestFigures, Ratios, ReferenceFigures, ScaleResult
from kg_memory.bench.rss import PeakRss, current_rss_bytes, reset_peak_rss
from kg_memory.bench.turns import measure_turns
from kg_memory.bench.workload import POLICY, LookupProbe, Workload
from kg_memory.domain.instant import to_micros
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.result import AsOfAnswer
from kg_memory.services.memory import Memory
from kg_memory.store.sqlite import driver

__all__ = ["ArrivalClock", "ScaleMeasurement", "ScaleSettings"]

_ASSERTION_ID, _REVISION = COLUMNS.index("assertion_id"), COLUMNS.index("revision")
FORGET_RUNS, FORGET_DERIVATIVES = 5, 1_000


def _file_bytes(store_file: Path) -> int:
    wal = store_file.with_name(store_file.name + "-wal")
    return store_file.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _count_versions(store_file: Path) -> int:
    conn = driver.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        count: int = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
        return count
    finally:
        conn.close()


def _ids(answer: AsOfAnswer) -> frozenset[tuple[str, int]]:
    return frozenset((f.assertion_id, f.revision) for f in answer.facts)


def _row_ids(rows: Sequence[Row]) -> frozenset[tuple[str, int]]:
    return frozenset((r[_ASSERTION_ID], r[_REVISION]) for r in rows)


class ScaleSettings(BaseModel):
    """What to measure at one scale (picklable, so a child process can receive it)."""

    model_config = ConfigDict(frozen=True)

    scale: int  # versions, approximately: the workload rounds to whole users
    seed: int = 0
    batch_size: int = 500
    lookups: int = 2_000
    snapshots: int = 500
    opens: int = 5
    recalls: int = 1_000
    turns: int = 20_000  # plain episodes batched (at most the scale), then 1,000 one at a time
    neo4j: bool = False  # also sync into Neo4j ($KG_NEO4J_URI) and query it there


class ScaleMeasurement:
    """The measurement of one scale; :meth:`run` returns its :class:`ScaleResult`."""

    def __init__(
        self, settings: ScaleSettings, *, workdir: Path, progress: ProgressCallback | None
    ) -> None:
        self.scale = settings.scale
        self.workload = Workload.for_versions(settings.scale, seed=settings.seed)
        self.batch_size = settings.batch_size
        self.lookup_probes = self.workload.lookups(settings.lookups)
        self.snapshot_probes = self.workload.snapshots(settings.snapshots)
        self.opens = settings.opens
        self.recall_probes = recall_probes(self.workload, settings.recalls)
        self.neo4j = settings.neo4j
        self.turns = min(settings.turns, settings.scale)
        self.workdir = workdir
        self.store_file = workdir / "memory.db"
        self.raw_file = workdir / "raw.db"
        self._progress = progress

    def _tell(self, phase: str, done: int, total: int) -> None:
        if self._progress is not None:
            self._progress(BenchProgress(scale=self.scale, phase=phase, done=done, total=total))

    def _ingest(self, memory: Memory, clock: ArrivalClock) -> IngestFigures:
        records = self.workload.records()
        total, done, generation_ns = self.workload.episodes, 0, 0
        commits: list[int] = []
        self._tell("ingest", 0, total)
        while True:
            start = time.perf_counter_ns()
            chunk = list(islice(records, self.batch_size))
            generation_ns += time.perf_counter_ns() - start
            if not chunk:
                break
            start = time.perf_counter_ns()
            clock.follow(chunk)
            memory.ingest_many(chunk, batch_size=self.batch_size)
            commits.append(time.perf_counter_ns() - start)
            done += len(chunk)
            self._tell("ingest", done, total)
        seconds = sum(commits) / 1e9
        return IngestFigures(
            seconds=seconds,
            versions_per_second=self.workload.versions / seconds,
            episodes_per_second=total / seconds,
            batch_size=self.batch_size,
            batch_commit=LatencyStats.of_ns(commits),
            generation_seconds=generation_ns / 1e9,
        )

    def _lookup(self, memory: Memory) -> Callable[[LookupProbe], AsOfAnswer]:
        def call(p: LookupProbe) -> AsOfAnswer:
            return memory.asof(p.valid_at, p.known_at, subject=p.subject, predicate=p.predicate)

        return call

    def _lineage_and_forget(
        self, memory: Memory, clock: ArrivalClock, answers: Sequence[AsOfAnswer]
    ) -> tuple[LatencyStats, LatencyStats]:
        """Lineage (depth 5, both ways) of facts the lookups found; then forget cascades: a
        source whose one episode supports 1,000 facts, forgotten (plan, erase, tombstones,
        scrub) in a store of this size. Run last on the open store: forgetting changes it."""
        ids = [f.assertion_id for a in answers for f in a.facts][:200] or ["none"]
        lineage, _ = time_each(lambda i: memory.lineage(i, "both", 5), ids, warmup=10)
        when = clock.now
        samples: list[int] = []
        for run in range(FORGET_RUNS):
            scope = f"bench-forget-{run}"
            memory.ingest(IngestRecord.model_validate({
                "operation_id": f"bench-forget-{run}", "source": "tool", "channel": "tool",
                "occurred_at": when.isoformat(), "scope": scope,
                "assertions": [{"subject": f"feed-{run}-{i}", "predicate": "item",
                                "value": f"item {i}", "kind": "world"}
                               for i in range(FORGET_DERIVATIVES)]}))
            start = time.perf_counter_ns()
            report = memory.forget(f"source:tool@{scope}")
            samples.append(time.perf_counter_ns() - start)
            assert len(report.plan.delete) == FORGET_DERIVATIVES
            self._tell("forget", run + 1, FORGET_RUNS)
        return lineage, LatencyStats.of_ns(samples)

    def run(self) -> ScaleResult:
        was_reset = reset_peak_rss()
        start_rss = current_rss_bytes()
        clock = ArrivalClock(self.workload.start)
        warmup = min(100, len(self.lookup_probes))
        with Memory.open(self.store_file, clock=clock, policy=POLICY, embedder="none") as memory:
            ingest = self._ingest(memory, clock)
            n = len(self.lookup_probes)
            lookup, answers = time_each(
                self._lookup(memory),
                self.lookup_probes,
                warmup=warmup,
                on_done=lambda d: self._tell("lookups", d, n),
            )
            m = len(self.snapshot_probes)
            snapshot, snaps = time_each(
                lambda p: memory.asof(p.valid_at, p.known_at, scope=p.scope),
                self.snapshot_probes,
                warmup=min(20, m),
                on_done=lambda d: self._tell("snapshots", d, m),
            )
            self._tell("recall", 0, 1)
            recall = measure_recall(memory, self.store_file, self.recall_probes)
            self._tell("recall", 1, 1)
            lineage, forget = self._lineage_and_forget(memory, clock, answers)
        opened: list[int] = []
        first = self.lookup_probes[0]
        for i in range(self.opens):
            start = time.perf_counter_ns()
            with Memory.open(self.store_file, clock=clock, create=False, embedder="none") as fresh:
                fresh.asof(
                    first.valid_at, first.known_at, subject=first.subject, predicate=first.predicate
                )
                opened.append(time.perf_counter_ns() - start)
            self._tell("open", i + 1, self.opens)
        peak = PeakRss.read(was_reset=was_reset)
        versions = _count_versions(self.store_file)
        file_bytes = _file_bytes(self.store_file)
        references = self._references(
            commits=math.ceil(self.workload.episodes / self.batch_size),
            ours=[_ids(a) for a in answers],
            our_snapshots=[_ids(a) for a in snaps],
            versions=versions,
        )
        neo4j = None
        if self.neo4j:
            from kg_memory.bench.neo4j_figures import measure_neo4j

            self._tell("neo4j", 0, 1)
            neo4j = measure_neo4j(self.store_file, self.lookup_probes[:300], answers, clock,
                                  self.recall_probes[:300], workload=self.workload,
                                  batch_size=self.batch_size)
            self._tell("neo4j", 1, 1)
        self._tell("turns", 0, 1)
        turns = measure_turns(self.workdir, self.workload.start, turns=self.turns,
                              singles=min(1_000, self.turns), batch_size=self.batch_size,
                              seed=self.workload.seed)
        self._tell("turns", 1, 1)
        # Read after the references: how much memory this whole measurement needed.
        process_peak = PeakRss.read(was_reset=False).bytes
        return ScaleResult(
            scale=self.scale,
            users=self.workload.users,
            episodes=self.workload.episodes,
            expected_versions=self.workload.versions,
            versions=versions,
            ingest=ingest,
            lookup=lookup,
            lookup_hit_rate=sum(1 for a in answers if a.facts) / len(answers),
            snapshot=snapshot,
            snapshot_mean_facts=sum(len(a.facts) for a in snaps) / len(snaps),
            open_to_first_answer=LatencyStats.of_ns(opened),
            lineage=lineage,
            forget_cascade=forget,
            neo4j=neo4j,
            recall=recall,
            turns=turns,
            peak_rss=peak,
            start_rss_bytes=start_rss,
            process_peak_rss_bytes=process_peak,
            file_bytes=file_bytes,
            file_bytes_per_version=file_bytes / versions,
            references=references,
            ratios=Ratios(
                lookup_vs_sqlite=lookup.median_us / references.sqlite_lookup.median_us,
                lookup_vs_memory=lookup.median_us / references.memory_lookup.median_us,
                lookup_p99_vs_sqlite=lookup.p99_us / references.sqlite_lookup.p99_us,
                snapshot_vs_sqlite=snapshot.median_us / references.sqlite_snapshot.median_us,
                ingest_vs_executemany=(
                    ingest.versions_per_second / references.executemany_versions_per_second
                ),
                file_vs_sqlite=((file_bytes / versions) / references.sqlite_file_bytes_per_version),
            ),
        )

    def _references(
        self,
        *,
        commits: int,
        ours: list[frozenset[tuple[str, int]]],
        our_snapshots: list[frozenset[tuple[str, int]]],
        versions: int,
    ) -> ReferenceFigures:
        raw = RawSqliteTable(self.raw_file)
        index = MemoryIndex()
        load_ns = index_ns = loaded = 0
        # As many durable commits as the store made, so both pay the same number of fsyncs.
        for rows in read_versions(self.store_file, chunk=max(1, math.ceil(versions / commits))):
            load_ns += raw.load(rows)
            start = time.perf_counter_ns()
            index.add(rows)
            index_ns += time.perf_counter_ns() - start
            loaded += len(rows)
            self._tell("references", loaded, versions)
        start = time.perf_counter_ns()
        index.freeze()
        index_ns += time.perf_counter_ns() - start
        probes = [
            (p.subject, p.predicate, to_micros(p.valid_at), to_micros(p.known_at))
            for p in self.lookup_probes
        ]
        scopes = [
            (p.scope, to_micros(p.valid_at), to_micros(p.known_at)) for p in self.snapshot_probes
        ]
        total = 2 * len(probes) + len(scopes)
        warmup = min(100, len(probes))
        sqlite_lookup, raw_rows = time_each(
            lambda q: raw.asof(*q),
            probes,
            warmup=warmup,
            on_done=lambda d: self._tell("reference queries", d, total),
        )
        memory_lookup, mem_rows = time_each(
            lambda q: index.asof(*q),
            probes,
            warmup=warmup,
            on_done=lambda d: self._tell("reference queries", len(probes) + d, total),
        )
        sqlite_snapshot, raw_snaps = time_each(
            lambda q: raw.snapshot(*q),
            scopes,
            warmup=min(20, len(scopes)),
            on_done=lambda d: self._tell("reference queries", 2 * len(probes) + d, total),
        )
        self._tell("reference queries", total, total)
        raw_bytes = raw.file_bytes()
        raw.close()
        agree = ours == [_row_ids(r) for r in raw_rows] == [
            _row_ids(r) for r in mem_rows
        ] and our_snapshots == [_row_ids(r) for r in raw_snaps]
        return ReferenceFigures(
            memory_lookup=memory_lookup,
            sqlite_lookup=sqlite_lookup,
            sqlite_snapshot=sqlite_snapshot,
            executemany_seconds=load_ns / 1e9,
            executemany_versions_per_second=versions / (load_ns / 1e9),
            sqlite_file_bytes_per_version=raw_bytes / versions,
            memory_index_build_seconds=index_ns / 1e9,
            answers_agree=agree,
        )
