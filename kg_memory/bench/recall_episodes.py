"""Recall over conversations: ``Memory.recall`` on LoCoMo-sized chats beside raw FTS5 BM25.

A synthetic conversation store, generated from a seed: ``scopes`` tenants, each one long chat
of ``turns`` messages between the user and an assistant (every turn an episode with content
only, as a LoCoMo turn is ingested), plus a few stated facts per tenant, some of them
superseded later (so a fact corpus with closed revisions sits beside the episodes). Words are
drawn from a generated vocabulary by a Zipf law, mixed with recall's stop words at the rate of
English chat, so common words match a large share of a tenant's turns, as they do in LoCoMo.

Probes are questions of 5 to 10 words about one turn of the tenant (some of its words, some
stop words, one common word), asked "now" (lexical, limit 10). The reference is what a
hand-written search runs on the same file in the same process: the FTS5 MATCH of the same
terms on the tenant's shard of both recall tables, ``ORDER BY rank LIMIT 10``, through a plain
``sqlite3`` connection (FTS5's own bm25, no eligibility, no corpus snapshot). The ratio of the
medians is the price of eligibility, as-of statistics, labels and neighbours.

``python -m kg_memory.bench.recall_episodes`` builds the store in a temporary directory and
prints the figures (``--json``: as JSON; ``--answers FILE``: every probe's answer, ids, order
and scores, so two revisions of recall can be compared on the same store).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from pathlib import Path

from kg_memory.bench.result import _Frozen
from kg_memory.domain.recall_text import STOPWORDS, query_terms
from kg_memory.domain.record import IngestRecord
from kg_memory.services.memory import Memory
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import match_expression
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard

__all__ = [
    "EpisodeProbe",
    "EpisodeRecallFigures",
    "Timing",
    "answers",
    "conversation_records",
    "episode_probes",
    "measure_episode_recall",
    "run",
]

_EPOCH = datetime(2024, 3, 4, 9, tzinfo=UTC)
_SYLLABLES = tuple(c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou"))
_STOPS = tuple(sorted(STOPWORDS))
_TOPICS = ("diet", "city", "employer", "hobby", "pet", "sport")


class EpisodeProbe(_Frozen):
    scope: str
    query: str


def _percentiles(samples: Sequence[int]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (statistics.median(ordered) / 1000,
            ordered[max(0, -(-len(ordered) * 95 // 100) - 1)] / 1000)


class Timing(_Frozen):
    """Per-call samples summarised: median and p95 (nearest rank), in microseconds, of wall
    time and of the calling thread's CPU time. On a shared machine the wall figures carry
    every other job's load; the CPU figures are this call's own work (SQLite runs in the
    calling thread), so two revisions compare best by them."""

    count: int
    median_us: float
    p95_us: float
    cpu_median_us: float
    cpu_p95_us: float

    @classmethod
    def of_ns(cls, wall: Sequence[int], cpu: Sequence[int]) -> Timing:
        (median, p95), (cpu_median, cpu_p95) = _percentiles(wall), _percentiles(cpu)
        return cls(count=len(wall), median_us=median, p95_us=p95, cpu_median_us=cpu_median,
                   cpu_p95_us=cpu_p95)


class EpisodeRecallFigures(_Frozen):
    scopes: int
    turns: int  # per scope
    facts: int  # stated facts written per scope (some superseded later)
    queries: int
    recall: Timing  # Memory.recall, lexical, limit 10, facts and episodes
    fts5: Timing  # the same MATCH on both FTS5 tables, ORDER BY rank LIMIT 10
    median_vs_fts5: float
    p95_vs_fts5: float
    cpu_median_vs_fts5: float
    cpu_p95_vs_fts5: float
    mean_candidates: float  # index matches per probe, before eligibility
    mean_terms: float  # query terms per probe, after stop words


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 4))))
        if word not in STOPWORDS:
            words[word] = None
    return list(words)


class _Language:
    """A seeded Zipf vocabulary and stop words, as chat text."""

    def __init__(self, seed: int, size: int = 4000) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng, size)
        self._cum = list(accumulate(1 / (r + 1) ** 1.07 for r in range(size)))

    def word(self) -> str:
        return self.rng.choices(self.words, cum_weights=self._cum)[0]

    def sentence(self, length: int) -> str:
        out = [self.rng.choice(_STOPS) if self.rng.random() < 0.4 else self.word()
               for _ in range(length)]
        out[0] = out[0].capitalize()
        return " ".join(out) + self.rng.choice((".", "!", "?", "."))


def _scope(n: int) -> str:
    return f"chat-{n:03d}"


def conversation_records(seed: int = 0, scopes: int = 10, turns: int = 600,
                         facts: int = 20) -> Iterator[IngestRecord]:
    """Every tenant's chat, tenant-major, each turn one minute after the previous one; every
    ``turns // facts``-th user turn also states a fact (a topic stated twice supersedes)."""
    lang = _Language(seed)
    every = max(1, turns // max(1, facts))
    for s in range(scopes):
        scope, start = _scope(s), _EPOCH + timedelta(days=30 * s)
        names = (lang.word().capitalize(), lang.word().capitalize())
        for t in range(turns):
            user = t % 2 == 0
            text = lang.sentence(lang.rng.randint(6, 32))
            if lang.rng.random() < 0.15:
                text = f"Hey {names[0 if user else 1]}! {text}"
            record: dict[str, object] = {
                "operation_id": f"{scope}-t{t:04d}", "source": "user" if user else "agent",
                "channel": "chat", "occurred_at": start + timedelta(minutes=t),
                "scope": scope, "content": text}
            if user and t % every == 0 and facts:
                record["assertions"] = [{
                    "subject": f"u{s:03d}", "predicate": lang.rng.choice(_TOPICS),
                    "value": " ".join(lang.word() for _ in range(2)), "kind": "stated"}]
            yield IngestRecord.model_validate(record)


def episode_probes(seed: int = 0, scopes: int = 10, turns: int = 600, count: int = 500
                   ) -> list[EpisodeProbe]:
    """Questions of 5 to 10 words, each about one turn of one tenant (regenerated from the
    same seed, so no store read is needed)."""
    texts: dict[str, list[str]] = {}
    for record in conversation_records(seed, scopes, turns, facts=0):
        texts.setdefault(record.scope, []).append(record.content)
    rng, lang = random.Random(seed * 31 + 7), _Language(seed + 1)
    probes = []
    for _ in range(count):
        scope = rng.choice(sorted(texts))
        words = [w.strip(".!?") for w in rng.choice(texts[scope]).split()]
        content = [w for w in words if w.lower() not in STOPWORDS] or words
        picked = rng.sample(content, min(len(content), rng.randint(2, 5)))
        question = [*rng.sample(_STOPS, rng.randint(2, 4)), *picked, lang.word()]
        rng.shuffle(question)
        probes.append(EpisodeProbe(scope=scope, query=" ".join(question[:10]).lower() + "?"))
    return probes


def _timed(call: Callable[[EpisodeProbe], int], probes: Sequence[EpisodeProbe],
           samples: tuple[list[int], list[int]]) -> list[int]:
    results = []
    wall, cpu = time.perf_counter_ns, time.thread_time_ns
    for p in probes:
        start, start_cpu = wall(), cpu()
        results.append(call(p))
        samples[1].append(cpu() - start_cpu)
        samples[0].append(wall() - start)
    return results


def measure_episode_recall(memory: Memory, store_file: Path, probes: Sequence[EpisodeProbe],
                           *, scopes: int, turns: int, facts: int) -> EpisodeRecallFigures:
    def ours(p: EpisodeProbe) -> int:
        return memory.recall(p.query, scope=p.scope, limit=10).candidates

    raw = driver.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        def plain(p: EpisodeProbe) -> int:
            match, k = match_expression(p.scope, query_terms(p.query)), shard(p.scope)
            found = 0
            for table in (facts_table(k), episodes_table(k)):
                found += len(raw.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? "
                                         "ORDER BY rank LIMIT 10", (match,)).fetchall())
            return found

        warm = probes[:min(50, len(probes))]
        _timed(ours, warm, ([], []))
        _timed(plain, warm, ([], []))
        # In rounds, alternating, so a noisy neighbour on a shared machine slows both alike.
        ours_ns: tuple[list[int], list[int]] = ([], [])
        plain_ns: tuple[list[int], list[int]] = ([], [])
        candidates: list[int] = []
        for i in range(4):
            candidates += _timed(ours, probes[i::4], ours_ns)
            _timed(plain, probes[i::4], plain_ns)
    finally:
        raw.close()
    recall_t, fts5_t = Timing.of_ns(*ours_ns), Timing.of_ns(*plain_ns)
    return EpisodeRecallFigures(
        scopes=scopes, turns=turns, facts=facts, queries=len(probes), recall=recall_t,
        fts5=fts5_t, median_vs_fts5=recall_t.median_us / fts5_t.median_us,
        p95_vs_fts5=recall_t.p95_us / fts5_t.p95_us,
        cpu_median_vs_fts5=recall_t.cpu_median_us / fts5_t.cpu_median_us,
        cpu_p95_vs_fts5=recall_t.cpu_p95_us / fts5_t.cpu_p95_us,
        mean_candidates=sum(candidates) / len(candidates),
        mean_terms=sum(len(query_terms(p.query)) for p in probes) / len(probes))


def answers(memory: Memory, probes: Sequence[EpisodeProbe]) -> list[dict[str, object]]:
    """Every probe's whole answer as JSON (ids, order, scores, labels, neighbours, counts), for
    comparing two revisions of recall on the same store."""
    return [memory.recall(p.query, scope=p.scope, limit=10).model_dump(mode="json")
            for p in probes]


def build(path: Path, *, seed: int, scopes: int, turns: int, facts: int) -> Memory:
    """A fresh store at ``path`` holding :func:`conversation_records`, its clock at each
    record's time while ingesting (system time = arrival), then frozen after the last one."""
    clock = _Clock(_EPOCH)
    memory = Memory.open(path, clock=clock)
    records = list(conversation_records(seed, scopes, turns, facts))
    last = max(r.occurred_at for r in records)
    for start in range(0, len(records), 500):
        batch = records[start:start + 500]
        clock.now = max(r.occurred_at for r in batch)
        memory.ingest_many(batch)
    clock.now = last + timedelta(hours=1)
    return memory


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def run(workdir: Path | None = None, *, seed: int = 0, scopes: int = 10, turns: int = 600,
        facts: int = 20, queries: int = 500, answers_to: Path | None = None
        ) -> EpisodeRecallFigures:
    """Build the store in a temporary directory, measure, and (``answers_to``) write every
    probe's answer there as JSON."""
    probes = episode_probes(seed, scopes, turns, queries)
    with tempfile.TemporaryDirectory(prefix="kg-memory-episodes-", dir=workdir) as tmp:
        path = Path(tmp) / "episodes.db"
        with build(path, seed=seed, scopes=scopes, turns=turns, facts=facts) as memory:
            if answers_to is not None:
                answers_to.write_text(json.dumps(answers(memory, probes), indent=0),
                                      encoding="utf-8")
            return measure_episode_recall(memory, path, probes, scopes=scopes, turns=turns,
                                          facts=facts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg_memory.bench.recall_episodes",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scopes", type=int, default=10)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--facts", type=int, default=20)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--answers", type=Path, default=None,
                        help="write every probe's answer to this JSON file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(seed=args.seed, scopes=args.scopes, turns=args.turns, facts=args.facts,
                  queries=args.queries, answers_to=args.answers)
    if args.json:
        print(figures.model_dump_json(indent=2))
        return 0
    print(f"{figures.scopes} scopes x {figures.turns} turns (+{figures.facts} facts each), "
          f"{figures.queries} queries, {figures.mean_terms:.1f} terms and "
          f"{figures.mean_candidates:.0f} candidates on average")
    print(f"{'':14} {'wall median':>12} {'p95':>9} {'CPU median':>12} {'p95':>9}")
    for name, t in (("Memory.recall", figures.recall), ("raw FTS5 bm25", figures.fts5)):
        print(f"{name:14} {t.median_us / 1000:9.2f} ms {t.p95_us / 1000:6.2f} ms "
              f"{t.cpu_median_us / 1000:9.2f} ms {t.cpu_p95_us / 1000:6.2f} ms")
    print(f"{'ratio':14} {figures.median_vs_fts5:10.2f} x {figures.p95_vs_fts5:7.2f} x "
          f"{figures.cpu_median_vs_fts5:10.2f} x {figures.cpu_p95_vs_fts5:7.2f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
