"""The Neo4j figures of a scale: sync the measured embedded store into Neo4j, then query it.

Then the same workload is written straight into Neo4j (``Memory.ingest_many`` on a
``Neo4jStore``: batches planned in memory and written with a few UNWIND queries each), and the
same probes asked of it. Neo4j is reached at ``$KG_NEO4J_URI`` (default
``bolt://127.0.0.1:7687``), and its database is wiped first, so point it at a Neo4j you can
spare (``kg-memory neo4j up`` gives one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg_memory.bench.arrival import ArrivalClock
from kg_memory.bench.latency import time_each
from kg_memory.bench.recall_figures import RecallProbe
from kg_memory.bench.result import Neo4jFigures
from kg_memory.bench.workload import POLICY, LookupProbe, Workload
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.domain.instant import Clock
from kg_memory.domain.result import AsOfAnswer
from kg_memory.services.memory import Memory
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.mirror import sync
from kg_memory.store.sqlite import SqliteStore

__all__ = ["measure_neo4j"]


def _ids(answer: AsOfAnswer) -> frozenset[tuple[str, int]]:
    return frozenset((f.assertion_id, f.revision) for f in answer.facts)


def _direct(uri: str, workload: Workload, batch_size: int, probes: Sequence[LookupProbe],
            expected: Sequence[AsOfAnswer]) -> tuple[int, float, bool]:
    """Write the workload straight into a wiped Neo4j as the embedded run did (same batches,
    same arrival clock), timing only ``ingest_many``; then ask it the same probes. One call
    for the whole workload: the store may plan a batch while the previous one commits."""
    clock = ArrivalClock(workload.start)
    target = Neo4jStore.connect(uri, clock=clock)
    target.wipe()
    memory = Memory(target, clock=clock, policy=POLICY)
    try:
        start = time.perf_counter()
        episodes = len(memory.ingest_many(clock.arriving(workload.records()),
                                          batch_size=batch_size))
        # Making the records is not the store's time (the embedded run reports it apart).
        seconds = time.perf_counter() - start - clock.generation_seconds
        answers = [memory.asof(p.valid_at, p.known_at, subject=p.subject, predicate=p.predicate)
                   for p in probes]
    finally:
        memory.close()
    agree = [_ids(a) for a in answers] == [_ids(a) for a in expected[:len(probes)]]
    return episodes, seconds, agree


def measure_neo4j(
    store_file: Path, probes: Sequence[LookupProbe], expected: Sequence[AsOfAnswer], clock: Clock,
    recalls: Sequence[RecallProbe] = (),
    workload: Workload | None = None, batch_size: int = 500,
) -> Neo4jFigures:
    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    target = Neo4jStore.connect(uri, clock=clock)
    target.wipe()
    source = SqliteStore.open(store_file, create=False)
    try:
        report = sync(source, target)
    finally:
        source.close()
    memory = Memory(target, clock=clock)
    recall = hybrid = agrees = None
    try:
        lookup, answers = time_each(
            lambda p: memory.asof(p.valid_at, p.known_at, subject=p.subject,
                                  predicate=p.predicate),
            probes, warmup=min(20, len(probes)))
        if recalls:
            recall, found = time_each(
                lambda p: memory.recall(p.query, scope=p.scope, limit=10).ids(), recalls,
                warmup=min(20, len(recalls)))
            with Memory.open(store_file, clock=clock, create=False, embedder="none") as embedded:
                same = [embedded.recall(p.query, scope=p.scope, limit=10).ids() == ids
                        for p, ids in zip(recalls, found, strict=True)]
            agrees = sum(same) / len(same)
            embedder = HashingEmbedder()
            # Warm-up embeds the probed tenants' revisions into Neo4j's vector index.
            hybrid, _ = time_each(
                lambda p: len(memory.recall(p.query, scope=p.scope, limit=10,
                                            embedder=embedder).results),
                recalls, warmup=len(recalls))
    finally:
        memory.close()
    direct: dict[str, Any] = {}
    if workload is not None:
        episodes, seconds, agree = _direct(uri, workload, batch_size, probes, expected)
        direct = {"direct_episodes": episodes, "direct_seconds": round(seconds, 3),
                  "direct_episodes_per_second": episodes / max(seconds, 1e-9),
                  "direct_versions_per_second": workload.versions / max(seconds, 1e-9),
                  "direct_answers_agree": agree}
    return Neo4jFigures(
        location=target.location, sync_records=report.records, sync_seconds=report.seconds,
        sync_records_per_second=report.records / max(report.seconds, 1e-9), lookup=lookup,
        answers_agree=[_ids(a) for a in answers] == [_ids(a) for a in expected[:len(probes)]],
        recall=recall, hybrid=hybrid, recall_agrees=agrees,
        **direct,
    )
