"""The recall benchmark on LoCoMo: import the turns as history, ask every question in every
mode and of every reference, and as of a moment before its answer was said.

Each turn is an episode (content ``"Speaker: text"``, from the user over chat), one scope per
conversation, written into a fresh embedded store with :meth:`Memory.import_history`: each
turn is known from when it was said (its session's date, a second per turn), so the store can
be asked what it knew at any moment of the conversations. With an embedder, every turn's
vector is then written (the store embeds a scope's backlog before its next vector search;
the benchmark drains it at once), and the ingest rate includes it.

Each question of categories 1-4 that names an evidence turn (category 5 is adversarial: its
answer is not in the conversation) is asked in its conversation's scope, top 10:

* in each mode (``Memory.recall(..., mode=...)``), timed, after a few untimed warm-up calls;
* of each reference (:mod:`~kg_memory.bench.locomo_baselines`), timed the same way;
* *as of* just before the session of its last evidence turn began (``known_at``): the
  question as the agent would have met it then. Every result is checked against the data's
  own times and the store's record of when it was known: one said or recorded after the
  moment is a leak, and there must be none. Its score sits beside the same question asked at
  the end (no peer can answer this way: they keep no record of when they knew a turn).

The figures per split are computed by :mod:`~kg_memory.bench.locomo_splits`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from kg_memory.bench.locomo_baselines import LIMIT, CosineReference, Fts5Reference
from kg_memory.bench.locomo_data import Conversation, session_of, split_of
from kg_memory.bench.locomo_result import IngestFigures, RecallBenchResult
from kg_memory.bench.locomo_splits import Answers, Asked, figures
from kg_memory.domain.embedding import Embedder
from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.model import Channel
from kg_memory.domain.recall_answer import RecallAnswer
from kg_memory.domain.record import IngestRecord
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.memory import Memory
from kg_memory.services.recall import MODES, RecallMode
from kg_memory.services.recall_vectors import catch_up

__all__ = ["CATEGORIES", "MODES", "Phase", "Turns", "ask_as_of", "chosen_modes",
           "history_records", "questions_asked", "run_recall_bench", "scope_of"]

#: Single-hop, multi-hop, temporal, open-domain; 5 (adversarial) has no answer to find.
CATEGORIES = (1, 2, 3, 4)
#: Untimed calls before each system's timed ones (statement caches, a model's first run).
WARMUP = 20
#: Who the import is recorded as.
IMPORTER = "kg-memory bench recall"

#: Progress: (what, done, total).
Phase = Callable[[str, int, int], None]


@dataclass
class Turns:
    """Per scope, each turn's time, and each episode's turn."""

    said: dict[tuple[str, str], datetime] = field(default_factory=dict)
    session_start: dict[tuple[str, int], datetime] = field(default_factory=dict)
    dia_of: dict[str, str] = field(default_factory=dict)  # episode id -> dia_id

    def imported(self, records: Sequence[IngestRecord], reports: Sequence[IngestReport]
                 ) -> None:
        """Learn each episode's turn from the import's reports (one per record, in order)."""
        for record, report in zip(records, reports, strict=True):
            self.dia_of[report.episode_id] = record.operation_id.removeprefix(
                f"{record.scope}-")


def scope_of(conversation: Conversation) -> str:
    return f"locomo-{conversation.sample_id}"


def chosen_modes(modes: Sequence[str], embedder: Embedder | None) -> list[RecallMode]:
    """``modes`` checked: known names, and the vector ones only with an embedder."""
    wanted = [m.strip().lower() for m in modes if m.strip()]
    unknown = [m for m in wanted if m not in MODES]
    if unknown or not wanted:
        raise InvalidArgument(f"modes are {', '.join(MODES)}, not {', '.join(unknown) or '-'}",
                              field="modes")
    if embedder is None and set(wanted) - {"lexical"}:
        raise InvalidArgument("vector and hybrid recall need an embedder (--embedder "
                              "default, minilm, hashing, ...); --embedder none is lexical only",
                              field="modes")
    return [m for m in MODES if m in wanted]


def history_records(conversations: Sequence[Conversation], turns: Turns) -> list[IngestRecord]:
    """Every turn, in the order the conversations' times say (an import goes forward)."""
    records: list[tuple[datetime, int, int, IngestRecord]] = []
    for c in conversations:
        scope = scope_of(c)
        for i, t in enumerate(c.turns):
            turns.said[(scope, t.dia_id)] = t.at
            key = (scope, session_of(t.dia_id))
            turns.session_start[key] = min(t.at, turns.session_start.get(key, t.at))
            records.append((t.at, c.number, i, IngestRecord(
                operation_id=f"{scope}-{t.dia_id}", source="user", channel=Channel.CHAT,
                occurred_at=t.at, scope=scope, content=f"{t.speaker}: {t.text}")))
    return [r for *_, r in sorted(records, key=lambda x: x[:3])]


def questions_asked(conversations: Sequence[Conversation], turns: Turns) -> list[Asked]:
    """The questions that can be scored (categories 1-4, an evidence turn that is there), each
    with the moment just before its last evidence turn's session began."""
    out: list[Asked] = []
    for c in conversations:
        scope = scope_of(c)
        for q in c.questions:
            if q.category not in CATEGORIES or not q.evidence:
                continue
            last = max(q.evidence, key=lambda e: turns.said[(scope, e)])
            known_at = turns.session_start[(scope, session_of(last))] - timedelta(microseconds=1)
            out.append(Asked(c, q, split_of(c.sample_id), known_at,
                             any(turns.said[(scope, e)] < known_at for e in q.evidence)))
    return out


def _recall_in(memory: Memory, mode: RecallMode) -> Callable[..., RecallAnswer]:
    """``memory.recall`` in ``mode`` (lexical stays lexical with an embedder set)."""
    return functools.partial(memory.recall, mode=mode)


def _timed(call: Callable[[Asked], list[str]], asked: Sequence[Asked], what: str,
           say: Phase) -> tuple[list[list[str]], list[int]]:
    """Each question's answer and wall time (ns), after :data:`WARMUP` untimed calls."""
    for item in asked[:WARMUP]:
        call(item)
    found: list[list[str]] = []
    times: list[int] = []
    for n, item in enumerate(asked, 1):
        start = time.perf_counter_ns()
        found.append(call(item))
        times.append(time.perf_counter_ns() - start)
        if n % 25 == 0 or n == len(asked):
            say(what, n, len(asked))
    return found, times


def run_recall_bench(conversations: Sequence[Conversation], store: Path, *,
                     embedder: Embedder | None, modes: Sequence[str] = ("lexical",),
                     progress: Phase | None = None, neo4j: str | None = None
                     ) -> RecallBenchResult:
    """Import ``conversations`` into a new store at ``store``, ask their questions in each of
    ``modes`` (checked by :func:`chosen_modes`) and of the references, and return the figures
    per split.

    ``neo4j`` (a ``bolt://`` URI): recall runs on that Neo4j instead, which must not hold the
    benchmark's scopes yet; the embedded store at ``store`` is still written, without vectors,
    for the raw FTS5 reference, which reads its file."""
    say: Phase = progress or (lambda *_: None)
    chosen = chosen_modes(modes, embedder)
    turns = Turns()
    records = history_records(conversations, turns)
    asked = questions_asked(conversations, turns)
    answers = Answers(asked=asked)
    if neo4j is not None:
        with Memory.open(store, embedder="none") as reference:
            reference.import_history(records, by=IMPORTER)
    with Memory.open(neo4j or store, embedder=embedder or "none") as memory:
        imported = [0]

        def on_report(_: object) -> None:
            imported[0] += 1
            if imported[0] % 50 == 0 or imported[0] == len(records):
                say("import turns", imported[0], len(records))

        started = time.perf_counter()
        reports = memory.import_history(records, by=IMPORTER, on_report=on_report)
        if neo4j is not None and any(r.status != "accepted" for r in reports):
            raise InvalidArgument(f"{neo4j} already holds LoCoMo's turns: the benchmark "
                                  "writes new scopes (use an empty database)", field="neo4j")
        imported_at = time.perf_counter()
        if embedder is not None:
            # The store embeds a scope's new turns before its next vector search; drained
            # here, they count in the ingest rate rather than in one question's latency.
            for n, c in enumerate(conversations, 1):
                catch_up(memory.store, scope_of(c), embedder)
                say("embed imported turns", n, len(conversations))
        seconds, embedding = time.perf_counter() - started, time.perf_counter() - imported_at
        turns.imported(records, reports)
        for mode in chosen:
            recall = _recall_in(memory, mode)

            def now(item: Asked, recall: Callable[..., RecallAnswer] = recall) -> list[str]:
                answer = recall(item.question.question, scope=scope_of(item.conversation),
                                limit=LIMIT)
                return [turns.dia_of.get(h.id, "") for h in answer.results
                        if h.type == "episode"]

            answers.found[mode], answers.times[mode] = _timed(now, asked, f"{mode} recall", say)
            answers.as_of[mode], answers.leaks[mode] = ask_as_of(recall, asked, turns, mode, say)
    fts5 = Fts5Reference(store)
    try:
        found, answers.times["fts5"] = _timed(
            lambda item: fts5.search(scope_of(item.conversation), item.question.question),
            asked, "raw FTS5", say)
    finally:
        fts5.close()
    answers.found["fts5"] = [[turns.dia_of.get(e, "") for e in ids] for ids in found]
    if embedder is not None:
        say("embed turns for cosine", 0, 1)
        cosine = CosineReference(embedder, {
            scope_of(c): [(t.dia_id, f"{t.speaker}: {t.text}") for t in c.turns]
            for c in conversations})
        say("embed turns for cosine", 1, 1)
        answers.found["cosine"], answers.times["cosine"] = _timed(
            lambda item: cosine.search(scope_of(item.conversation), item.question.question),
            asked, "brute cosine", say)
    ingest = IngestFigures(turns=len(records), seconds=seconds, embedding_seconds=embedding,
                           turns_per_second=len(records) / seconds if seconds else 0.0,
                           embedder=embedder.name if embedder else None)
    return figures(conversations, answers, ingest=ingest, modes=chosen,
                   embedder=embedder.name if embedder else None)


def ask_as_of(recall: Callable[..., RecallAnswer], asked: Sequence[Asked], turns: Turns,
           mode: str, say: Phase) -> tuple[list[list[str]], list[int]]:
    """Each question asked as of its moment: what was found, and how many results leaked
    (said, by the data, or recorded, by the store, after the moment)."""
    found: list[list[str]] = []
    leaks: list[int] = []
    for n, item in enumerate(asked, 1):
        scope = scope_of(item.conversation)
        answer = recall(item.question.question, scope=scope, limit=LIMIT,
                        known_at=item.known_at)
        dias: list[str] = []
        leaked = 0
        for hit in answer.results:
            dia = turns.dia_of.get(hit.id, "") if hit.type == "episode" else ""
            said = turns.said.get((scope, dia))
            leaked += hit.system.start > item.known_at or (
                said is not None and said > item.known_at)
            if hit.type == "episode":
                dias.append(dia)
        found.append(dias)
        leaks.append(leaked)
        if n % 25 == 0 or n == len(asked):
            say(f"{mode} recall as of", n, len(asked))
    return found, leaks
