"""Recall in ``kg-memory bench``: ``Memory.recall`` beside a plain FTS5 query over the same rows.

Probes are questions a user of the workload could ask, built from that user's own values
("vegetarian food", "moving to Porto", "booth seat", "job at Globex"), each searched in the
user's scope "now" (lexical: no embedder). The reference is what a hand-written search would
run on the same file in the same process: the same FTS5 MATCH expression (tenant token AND any
term) on both recall tables of the tenant's shard, ``ORDER BY rank LIMIT 10``, through a
plain ``sqlite3`` connection. It ranks with FTS5's own bm25 and applies no eligibility, so
the ratio is the price of eligibility, as-of corpus statistics, supports and labels.

Hybrid recall (:class:`~kg_memory.domain.embedding.HashingEmbedder` vectors in the store's
vector index, fused by reciprocal rank) is set beside a brute-force numpy cosine over the same
stored vectors of the tenant (no eligibility, top 10), and the index path (forced even where a
tenant is small enough to be scored exactly) is checked against exact scoring: the share of
the exact top 10 it returns.
"""

from __future__ import annotations

import random
from datetime import datetime
from pathlib import Path

import numpy as np

from kg_memory.bench.latency import time_each
from kg_memory.bench.result import RecallFigures, _Frozen
from kg_memory.bench.workload import Workload, _Script
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.domain.recall_text import query_terms
from kg_memory.services.memory import Memory
from kg_memory.services.recall_vectors import vector_space
from kg_memory.store.protocol import VectorProbe
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import match_expression
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard
from kg_memory.store.sqlite.recall_vectors import unit

__all__ = ["RecallFigures", "RecallProbe", "index_recall", "measure_recall", "recall_probes"]


class RecallProbe(_Frozen):
    scope: str
    query: str


def recall_probes(workload: Workload, count: int, *, seed: int = 3) -> list[RecallProbe]:
    rng = random.Random(workload.seed * 7919 + seed)
    probes = []
    for _ in range(count):
        s = _Script(workload.seed, rng.randrange(workload.users), workload.users)
        question = rng.choice((
            f"what food, {s.diet}?", f"moving to {s.new_city}", f"do I live in {s.city}",
            f"my {s.seat} seat", f"job at {s.new_employer}", f"table at {s.restaurants[0]}",
            "booking cancelled by the venue", f"timezone {s.zone}",
        ))
        probes.append(RecallProbe(scope=s.scope, query=question))
    return probes


def measure_recall(memory: Memory, store_file: Path, probes: list[RecallProbe]
                   ) -> RecallFigures:
    # Each call keeps a summary, not its answer: a thousand answers held at once would count
    # towards the bench's peak RSS as if recall itself needed them.
    def ours(p: RecallProbe) -> tuple[int, int, int]:
        answer = memory.recall(p.query, scope=p.scope, limit=10)
        return len(answer.results), answer.candidates, sum(answer.excluded.values())

    stats, answers = time_each(ours, probes, warmup=min(50, len(probes)))
    embedder = HashingEmbedder()

    def hybrid(p: RecallProbe) -> int:
        return len(memory.recall(p.query, scope=p.scope, limit=10, embedder=embedder).results)

    # Warm-up embeds the probed scopes' revisions once into the store's vector index (what the
    # first hybrid recall of a tenant does); the timed calls embed the query and search.
    hybrid_stats, _ = time_each(hybrid, probes, warmup=len(probes))
    now = memory.recall(probes[0].query, scope=probes[0].scope, limit=1).at
    raw = driver.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        def plain(p: RecallProbe) -> int:
            match = match_expression(p.scope, query_terms(p.query))
            k = shard(p.scope)
            facts = raw.execute(f"SELECT rowid FROM {facts_table(k)} WHERE {facts_table(k)} "
                                "MATCH ? ORDER BY rank LIMIT 10", (match,)).fetchall()
            episodes = raw.execute(f"SELECT rowid FROM {episodes_table(k)} WHERE "
                                   f"{episodes_table(k)} MATCH ? ORDER BY rank LIMIT 10",
                                   (match,)).fetchall()
            return len(facts) + len(episodes)

        reference, _ = time_each(plain, probes, warmup=min(50, len(probes)))

        def cosine(p: RecallProbe) -> int:
            [q] = embedder.embed([p.query])
            # The scope's vids from its sketches' primary key: recall_vectors has no scope
            # index, and a scan of every tenant's vectors is no reference for one tenant's.
            rows = raw.execute("SELECT r.vid, r.vector FROM recall_sketches s JOIN "
                               "recall_vectors r ON r.vid = s.vid WHERE s.scope = ?",
                               (p.scope,)).fetchall()
            if not rows:
                return 0
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(
                len(rows), embedder.dimensions)
            sims = matrix @ unit(q)
            return len(np.argsort(-sims)[:10])

        cosine_stats, _ = time_each(cosine, probes, warmup=min(50, len(probes)))
        vectors = int(raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0])
    finally:
        raw.close()
    return RecallFigures(
        queries=len(probes), recall=stats, fts5=reference,
        median_vs_fts5=stats.median_us / reference.median_us,
        p99_vs_fts5=stats.p99_us / reference.p99_us,
        hit_rate=sum(1 for hits, _, _ in answers if hits) / len(answers),
        mean_candidates=sum(c for _, c, _ in answers) / len(answers),
        mean_excluded=sum(x for _, _, x in answers) / len(answers),
        hybrid=hybrid_stats, hybrid_vs_lexical=hybrid_stats.median_us / stats.median_us,
        cosine=cosine_stats, hybrid_vs_cosine=hybrid_stats.median_us / cosine_stats.median_us,
        vectors=vectors, index_recall_at_10=index_recall(memory, embedder, probes, now),
    )


def index_recall(memory: Memory, embedder: HashingEmbedder, probes: list[RecallProbe],
                 now: datetime, k: int = 10) -> float:
    """The share of the exact top ``k`` (by cosine, eligible by interval) that the index path
    returns for the same probes, the index forced even for tenants scored exactly by default."""
    found = wanted = 0
    for p in probes:
        [q] = embedder.embed([p.query])
        probe = VectorProbe(scope=p.scope, space=vector_space(embedder),
                            vector=tuple(float(x) for x in q), at=now, known_at=now, k=k,
                            exact_below=0)
        exact = memory.store.vector_candidates(probe.model_copy(update={"exact": True}))
        index = memory.store.vector_candidates(probe)
        truth = {(f.assertion_id, f.revision) for f in exact.facts}
        found += len(truth & {(f.assertion_id, f.revision) for f in index.facts})
        wanted += len(truth)
    return found / wanted if wanted else 1.0
