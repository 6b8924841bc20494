"""The questions as asked, every system's answers to them, and the figures per split.

:class:`Answers` holds, per system, what each question found (turn ids, best first) and how
long it took; :func:`figures` turns them into a
:class:`~kg_memory.bench.locomo_result.RecallBenchResult`: for each split (tune, held-out,
other, all) each system's quality and latency, the latency ratios, and the as-of figures.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from kg_memory.bench.locomo_baselines import LIMIT
from kg_memory.bench.locomo_data import Conversation, Question, split_of
from kg_memory.bench.locomo_result import (
    SPLITS,
    AsOfFigures,
    ConversationFigures,
    IngestFigures,
    Latency,
    RecallBenchResult,
    SplitFigures,
    SystemFigures,
)
from kg_memory.bench.locomo_scores import Quality, RankScores

__all__ = ["REFERENCES", "Answers", "Asked", "figures"]

#: The references, in the order they are reported.
REFERENCES = ("fts5", "cosine")


@dataclass(frozen=True)
class Asked:
    """One question as the benchmark asks it."""

    conversation: Conversation
    question: Question
    split: str
    #: Just before the session of the last evidence turn began.
    known_at: datetime
    #: Whether an evidence turn was said before ``known_at`` (only then can it be found).
    answerable: bool


@dataclass
class Answers:
    """Per system (a mode or a reference), per question of ``asked``, in its order."""

    asked: Sequence[Asked]
    found: dict[str, list[list[str]]] = field(default_factory=dict)
    times: dict[str, list[int]] = field(default_factory=dict)  # ns
    as_of: dict[str, list[list[str]]] = field(default_factory=dict)  # modes only
    leaks: dict[str, list[int]] = field(default_factory=dict)  # results leaked, per question


def _quality(found: Sequence[Sequence[str]], asked: Sequence[Asked],
             members: Sequence[int]) -> Quality:
    scores = RankScores()
    for i in members:
        scores.add(found[i], asked[i].question.evidence)
    return scores.quality()


def _ratio(numerator: Sequence[int], denominator: Sequence[int]) -> float | None:
    if not numerator or not denominator:
        return None
    below = statistics.median(denominator)
    return statistics.median(numerator) / below if below else None


def _split(name: str, conversations: Sequence[Conversation], answers: Answers,
           members: list[int]) -> SplitFigures:
    asked = answers.asked
    systems: dict[str, SystemFigures] = {}
    for system, found in answers.found.items():
        systems[system] = SystemFigures(
            quality=_quality(found, asked, members),
            latency=Latency.of_ns([answers.times[system][i] for i in members]))
    times = {s: [t[i] for i in members] for s, t in answers.times.items()}
    ratios: dict[str, float | None] = {}
    if "lexical" in times:
        ratios["lexical_vs_fts5"] = _ratio(times["lexical"], times["fts5"])
    if "cosine" in times:
        both = [a + b for a, b in zip(times["fts5"], times["cosine"], strict=True)]
        if "hybrid" in times:
            ratios["hybrid_vs_fts5_cosine"] = _ratio(times["hybrid"], both)
        if "vector" in times:
            ratios["vector_vs_cosine"] = _ratio(times["vector"], times["cosine"])
    as_of = {
        mode: AsOfFigures(
            questions=len(members),
            answerable=sum(asked[i].answerable for i in members),
            leaks=sum(answers.leaks[mode][i] for i in members),
            leaked_questions=sum(answers.leaks[mode][i] > 0 for i in members),
            as_of=_quality(found, asked, members),
            at_end=_quality(answers.found[mode], asked, members))
        for mode, found in answers.as_of.items()}
    ids = [c.sample_id for c in conversations]
    return SplitFigures(
        name=name, conversations=ids, turns=sum(len(c.turns) for c in conversations),
        questions=len(members), systems=systems,
        ratios={k: v for k, v in ratios.items() if v is not None}, as_of=as_of)


def figures(conversations: Sequence[Conversation], answers: Answers, *,
            ingest: IngestFigures, modes: Sequence[str],
            embedder: str | None) -> RecallBenchResult:
    """The figures of a run, per split; a split with no conversation run is left out."""
    splits: list[SplitFigures] = []
    for name in SPLITS:
        chosen = [c for c in conversations if name == "all" or split_of(c.sample_id) == name]
        if not chosen:
            continue
        numbers = {c.number for c in chosen}
        members = [i for i, a in enumerate(answers.asked) if a.conversation.number in numbers]
        splits.append(_split(name, chosen, answers, members))
    per = [ConversationFigures(
        sample_id=c.sample_id, split=split_of(c.sample_id), turns=len(c.turns),
        questions=sum(a.conversation.number == c.number for a in answers.asked))
        for c in conversations]
    return RecallBenchResult(
        dataset="locomo", embedder=embedder, modes=list(modes),
        references=[r for r in REFERENCES if r in answers.found], limit=LIMIT, ingest=ingest,
        conversations=per, splits=splits)
