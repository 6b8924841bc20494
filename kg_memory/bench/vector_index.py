"""The embedded vector index on one large tenant: its sketch search against exact scoring.

The bench workload's tenants hold a few dozen vectors each, fewer than one shortlist, so there
the index re-ranks every vector of a tenant exactly and says nothing about its sketches. This
measures the sketches where they matter: one tenant of ``facts`` revisions (values of three
words drawn from a made-up vocabulary, so trigram vectors spread), embedded by
:class:`~kg_memory.domain.embedding.HashingEmbedder` into the store's index; then ``queries``
two-word questions, each searched through the index (``exact_below=0``) and exactly, in the
same process over the same stored vectors. Reported: both latencies, and recall@10 (the share
of the exact top 10 that the index search returns).

    python -m kg_memory.bench.vector_index [facts] [queries]
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kg_memory.bench.latency import LatencyStats, time_each
from kg_memory.bench.result import _Frozen
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.domain.record import IngestRecord
from kg_memory.services.memory import Memory
from kg_memory.services.recall_vectors import catch_up, vector_space
from kg_memory.store.protocol import VectorCandidates, VectorProbe

__all__ = ["VectorIndexFigures", "measure_vector_index"]

_START = datetime(2026, 1, 5, tzinfo=UTC)


class VectorIndexFigures(_Frozen):
    vectors: int
    queries: int
    index: LatencyStats  # the index search (store.vector_candidates, k=10)
    exact: LatencyStats  # exact scoring of every vector of the tenant, same call
    index_vs_exact: float
    recall_at_10: float


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnoprstuvwz") for _ in range(rng.randint(4, 9)))


def measure_vector_index(workdir: Path, facts: int = 20_000, queries: int = 200,
                         seed: int = 5) -> VectorIndexFigures:
    rng = random.Random(seed)
    vocabulary = [_word(rng) for _ in range(3_000)]
    clock_now = [_START]
    with Memory.open(workdir / "vectors.db", clock=lambda: clock_now[0]) as memory:
        records = []
        for n in range(0, facts, 250):
            when = _START + timedelta(minutes=n)
            records.append(IngestRecord.model_validate({
                "operation_id": f"op-{n}", "source": "user", "channel": "chat",
                "occurred_at": when.isoformat(), "scope": "big", "content": "",
                "assertions": [{"subject": f"s{i}", "predicate": "note", "kind": "stated",
                                "value": " ".join(rng.sample(vocabulary, 3))}
                               for i in range(n, min(n + 250, facts))]}))
        clock_now[0] = _START + timedelta(days=60)
        memory.ingest_many(records)
        embedder = HashingEmbedder()
        vectors = catch_up(memory.store, "big", embedder)
        now = clock_now[0] + timedelta(days=1)
        clock_now[0] = now
        probes = []
        for _ in range(queries):
            [q] = embedder.embed([" ".join(rng.sample(vocabulary, 2))])
            probes.append(VectorProbe(scope="big", space=vector_space(embedder),
                                      vector=tuple(float(x) for x in q), at=now, known_at=now,
                                      k=10, exact_below=0))

        def ids(found: VectorCandidates) -> set[tuple[str, int]]:
            return {(f.assertion_id, f.revision) for f in found.facts}

        index, by_index = time_each(lambda p: ids(memory.store.vector_candidates(p)), probes,
                                    warmup=min(20, queries))
        exact, by_exact = time_each(
            lambda p: ids(memory.store.vector_candidates(p.model_copy(update={"exact": True}))),
            probes, warmup=min(20, queries))
    found = sum(len(a & b) for a, b in zip(by_index, by_exact, strict=True))
    wanted = sum(len(b) for b in by_exact)
    return VectorIndexFigures(
        vectors=vectors, queries=queries, index=index, exact=exact,
        index_vs_exact=index.median_us / exact.median_us,
        recall_at_10=found / wanted if wanted else 1.0)


if __name__ == "__main__":
    size = int(float(sys.argv[1])) if len(sys.argv) > 1 else 20_000
    asked = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with tempfile.TemporaryDirectory(prefix="kg-memory-vectors-") as tmp:
        print(measure_vector_index(Path(tmp), size, asked).model_dump_json(indent=2))
