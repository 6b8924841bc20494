"""Recall on LoCoMo: ``python -m kg_memory.bench.locomo PATH/locomo10.zip [--conversations 1-5]``.

Each turn is ingested as an episode (content ``"Speaker: text"``, occurred at its session's
date, from the user over chat), one scope per conversation, into a fresh embedded store; each
question of categories 1-4 that names an evidence turn (category 5 is adversarial: its answer
is not in the conversation) is recalled in its conversation's scope (lexical, top 10). Per
question: is an evidence turn in the top 5 (``any@5``), in the top 10 (``any@10``), is every
evidence turn in the top 5 (``all@5``).

The reference is raw SQLite FTS5 BM25 over the same turns in the same run: the store's own
episode index, queried through a plain read-only connection with the MATCH expression recall
sends (tenant token AND any query term), ``ORDER BY rank LIMIT 10``. So it ranks the same
terms with FTS5's bm25 and no eligibility, supports or labels; its latency is the floor recall
is compared with (median recall over median reference).

Conversations are numbered 1-10 in sample id order; tune on 1-5 and report 6-10 (held out)
apart, as docs/recall.md does. The data is read from the path given and never copied.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kg_memory.bench.latency import LatencyStats
from kg_memory.bench.locomo_data import Conversation, Question, load, parse_selection
from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.model import Channel
from kg_memory.domain.recall_text import query_terms
from kg_memory.domain.record import IngestRecord
from kg_memory.services.memory import Memory
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import match_expression
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard

__all__ = ["CATEGORIES", "Group", "LocomoResult", "Scores", "main", "run"]

Asked = tuple[Conversation, Question]

#: Single-hop, multi-hop, temporal, open-domain; 5 (adversarial) has no answer to find.
CATEGORIES = (1, 2, 3, 4)
#: The split the issue fixes: tune on these conversation numbers, hold out the rest.
TUNE = frozenset(range(1, 6))


@dataclass
class Scores:
    """Counts over questions: an evidence turn in the top 5, top 10; all of them in the top 5."""

    questions: int = 0
    any_at_5: int = 0
    any_at_10: int = 0
    all_at_5: int = 0

    def add(self, found: Sequence[str], evidence: Sequence[str]) -> None:
        self.questions += 1
        self.any_at_5 += any(e in found[:5] for e in evidence)
        self.any_at_10 += any(e in found[:10] for e in evidence)
        self.all_at_5 += all(e in found[:5] for e in evidence)

    def merged(self, other: Scores) -> Scores:
        return Scores(self.questions + other.questions, self.any_at_5 + other.any_at_5,
                      self.any_at_10 + other.any_at_10, self.all_at_5 + other.all_at_5)

    def rates(self) -> dict[str, float]:
        n = max(1, self.questions)
        return {"any@5": self.any_at_5 / n, "any@10": self.any_at_10 / n,
                "all@5": self.all_at_5 / n}


@dataclass
class Group:
    """Figures over some conversations: recall's, the reference's, and their latencies."""

    name: str
    conversations: list[str]
    recall: Scores
    fts5: Scores
    recall_latency: LatencyStats | None = None
    fts5_latency: LatencyStats | None = None

    def summary(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name, "conversations": self.conversations,
            "questions": self.recall.questions,
            "recall": self.recall.rates(), "fts5": self.fts5.rates()}
        if self.recall_latency and self.fts5_latency:
            out["recall_median_ms"] = self.recall_latency.median_us / 1000
            out["fts5_median_ms"] = self.fts5_latency.median_us / 1000
            out["median_vs_fts5"] = self.recall_latency.median_us / self.fts5_latency.median_us
        return out


@dataclass
class LocomoResult:
    turns: int
    ingest_seconds: float
    groups: list[Group]  # per conversation, then tune / held-out / all of those run

    def to_json(self) -> dict[str, object]:
        return {"turns": self.turns, "ingest_seconds": self.ingest_seconds,
                "groups": [g.summary() for g in self.groups]}


def scope_of(conversation: Conversation) -> str:
    return f"locomo-{conversation.sample_id}"


def _records(conversation: Conversation) -> list[IngestRecord]:
    return [IngestRecord(operation_id=f"{scope_of(conversation)}-{t.dia_id}", source="user",
                         channel=Channel.CHAT, occurred_at=t.at, scope=scope_of(conversation),
                         content=f"{t.speaker}: {t.text}")
            for t in conversation.turns]


def _raw_search(raw: driver.Connection) -> Callable[[str, str], list[int]]:
    """The reference query: both tables of the tenant's shard, as recall searches them."""
    def search(scope: str, question: str) -> list[int]:
        match = match_expression(scope, query_terms(question))
        if not match:
            return []
        k = shard(scope)
        raw.execute(f"SELECT rowid FROM {facts_table(k)} WHERE {facts_table(k)} MATCH ? "
                    "ORDER BY rank LIMIT 10", (match,)).fetchall()
        return [r[0] for r in raw.execute(
            f"SELECT rowid FROM {episodes_table(k)} WHERE {episodes_table(k)} MATCH ? "
            "ORDER BY rank LIMIT 10", (match,))]
    return search


def run(conversations: Sequence[Conversation], store: Path,
        progress: Callable[[str], None] | None = None) -> LocomoResult:
    """Ingest ``conversations`` into a new store at ``store`` and ask their questions."""
    say = progress or (lambda _: None)
    dia_of: dict[str, str] = {}  # episode id -> dia_id
    started = time.perf_counter()
    with Memory.open(store) as memory:
        for c in conversations:
            for report, turn in zip(memory.ingest_many(_records(c)), c.turns, strict=True):
                dia_of[report.episode_id] = turn.dia_id
            say(f"ingested conversation {c.number} ({c.sample_id}): {len(c.turns)} turns")
        ingest_seconds = time.perf_counter() - started
        asked = [(c, q) for c in conversations for q in c.questions
                 if q.category in CATEGORIES and q.evidence]

        def ours(item: Asked) -> list[str]:
            c, q = item
            answer = memory.recall(q.question, scope=scope_of(c), limit=10)
            return [dia_of.get(h.id, "") for h in answer.results if h.type == "episode"]

        warm = min(20, len(asked))
        recall_times, recalled = _per_item(ours, asked, warm)
        say(f"recalled {len(asked)} questions")
    raw = driver.connect(f"file:{store}?mode=ro", uri=True)
    try:
        episode_of = dict(raw.execute("SELECT rid, episode_id FROM recall_episode_docs"))
        search = _raw_search(raw)
        fts_times, rows = _per_item(lambda item: search(scope_of(item[0]),
                                                        item[1].question),
                                    asked, warm)
    finally:
        raw.close()
    referenced = [[dia_of.get(episode_of.get(r, ""), "") for r in found] for found in rows]
    groups = _groups(conversations, asked, recalled, referenced, recall_times, fts_times)
    return LocomoResult(turns=sum(len(c.turns) for c in conversations),
                        ingest_seconds=ingest_seconds, groups=groups)


def _per_item(call: Callable[[Asked], Sequence[object]],
              items: Sequence[Asked], warm: int
              ) -> tuple[list[int], list[list[object]]]:
    """Each call's wall time (ns) and answer, after ``warm`` untimed calls."""
    for item in items[:warm]:
        call(item)
    times: list[int] = []
    answers: list[list[object]] = []
    for item in items:
        start = time.perf_counter_ns()
        answer = call(item)
        times.append(time.perf_counter_ns() - start)
        answers.append(list(answer))
    return times, answers


def _groups(conversations: Sequence[Conversation], asked: Sequence[Asked],
            recalled: Sequence[Sequence[object]], referenced: Sequence[Sequence[str]],
            recall_times: Sequence[int], fts_times: Sequence[int]) -> list[Group]:
    def group(name: str, members: set[int]) -> Group | None:
        idx = [i for i, (c, _) in enumerate(asked) if c.number in members]
        if not idx:
            return None
        ours, ref = Scores(), Scores()
        for i in idx:
            evidence = asked[i][1].evidence
            ours.add([str(x) for x in recalled[i]], evidence)
            ref.add(referenced[i], evidence)
        ids = [c.sample_id for c in conversations if c.number in members]
        return Group(name, ids, ours, ref,
                     LatencyStats.of_ns([recall_times[i] for i in idx]),
                     LatencyStats.of_ns([fts_times[i] for i in idx]))

    run_numbers = {c.number for c in conversations}
    named = [(f"{c.number} ({c.sample_id})", {c.number}) for c in conversations]
    named += [("tune (1-5)", run_numbers & TUNE), ("held-out (6-10)", run_numbers - TUNE),
              ("all", run_numbers)]
    return [g for name, members in named if (g := group(name, members)) is not None]


def _table(result: LocomoResult) -> str:
    lines = [f"{result.turns} turns ingested in {result.ingest_seconds:.1f} s",
             f"{'conversations':<18}{'questions':>9}   {'recall any@5/any@10/all@5':<27}"
             f"{'FTS5 any@5/any@10/all@5':<25}{'median ms':>10}{'FTS5 ms':>9}{'ratio':>7}"]
    for g in result.groups:
        r, f = g.recall.rates(), g.fts5.rates()
        pct = "{:>5.1%} {:>6.1%} {:>6.1%}   "
        rl = g.recall_latency.median_us / 1000 if g.recall_latency else 0.0
        fl = g.fts5_latency.median_us / 1000 if g.fts5_latency else 0.0
        lines.append(f"{g.name:<18}{g.recall.questions:>9}   "
                     + pct.format(r["any@5"], r["any@10"], r["all@5"]).ljust(27)
                     + pct.format(f["any@5"], f["any@10"], f["all@5"]).ljust(25)
                     + f"{rl:>10.2f}{fl:>9.2f}{rl / fl if fl else 0.0:>7.1f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kg_memory.bench.locomo",
        description="Recall on LoCoMo beside raw FTS5 BM25 over the same turns.")
    parser.add_argument("path", type=Path, help="locomo10.zip, its JSON, or a directory")
    parser.add_argument("--conversations", default="1-10",
                        help="conversation numbers in sample id order, e.g. 1-5 or 6-10")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--store", type=Path, default=None,
                        help="the new store file to write (default: a temporary one)")
    args = parser.parse_args(argv)
    try:
        everything = load(args.path)
        chosen = set(parse_selection(args.conversations, len(everything)))
        conversations = [c for c in everything if c.number in chosen]
        with tempfile.TemporaryDirectory(prefix="kg-locomo-") as tmp:
            store = args.store or Path(tmp) / "locomo.db"
            if store.exists():
                parser.error(f"{store} exists: the benchmark writes a new store")
            result = run(conversations, store,
                         None if args.json else lambda m: print(m, file=sys.stderr))
    except KgMemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
