"""What ``kg-memory bench recall`` measured, as JSON-serialisable models.

A run reports each *split* apart: ``tune`` (the conversations recall may be tuned on: LoCoMo's
26, 30, 41, 42 and 43), ``held-out`` (44, 47, 48, 49, 50: the figure that counts), ``other``
for a conversation of another id, and ``all``. In each split, every *system* (recall's modes
``lexical``, ``vector``, ``hybrid``; the references ``fts5`` and ``cosine``) has its quality
(:class:`~kg_memory.bench.locomo_scores.Quality`) and latency; the ratios compare recall's
median with the references' (``lexical_vs_fts5``: lexical / raw FTS5;
``hybrid_vs_fts5_cosine``: hybrid / (raw FTS5 + brute-force cosine), per question summed);
``as_of`` holds, per mode, the questions asked just before their last evidence turn's session
began (``leaks`` must be 0) beside the same questions asked at the end.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.locomo_scores import Quality

__all__ = [
    "SPLITS",
    "AsOfFigures",
    "ConversationFigures",
    "IngestFigures",
    "Latency",
    "RecallBenchResult",
    "SplitFigures",
    "SystemFigures",
]

#: The splits, in the order they are reported (``all`` last, over every conversation run).
SPLITS = ("tune", "held-out", "other", "all")


class Latency(BaseModel):
    """Per-question wall time: how many, median and p95 (nearest rank), in milliseconds."""

    model_config = ConfigDict(frozen=True)

    count: int
    median_ms: float
    p95_ms: float

    @classmethod
    def of_ns(cls, samples: list[int]) -> Latency:
        """
        >>> Latency.of_ns([1_000_000, 2_000_000, 3_000_000, 40_000_000])
        Latency(count=4, median_ms=2.5, p95_ms=40.0)
        """
        ordered = sorted(samples)
        if not ordered:
            return cls(count=0, median_ms=0.0, p95_ms=0.0)
        mid = len(ordered) // 2
        median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
        p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
        return cls(count=len(ordered), median_ms=median / 1e6, p95_ms=p95 / 1e6)


class SystemFigures(BaseModel):
    model_config = ConfigDict(frozen=True)

    quality: Quality
    latency: Latency


class AsOfFigures(BaseModel):
    """One mode's questions asked as of just before their last evidence turn's session.

    ``answerable``: questions with an evidence turn said before that moment (only those can
    be found then); ``leaks``: results returned that were said or recorded after the moment,
    ``leaked_questions`` the questions with one (both must be 0)."""

    model_config = ConfigDict(frozen=True)

    questions: int
    answerable: int
    leaks: int
    leaked_questions: int
    as_of: Quality
    at_end: Quality


class SplitFigures(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    conversations: list[str]
    turns: int
    questions: int
    systems: dict[str, SystemFigures]
    ratios: dict[str, float]
    as_of: dict[str, AsOfFigures]


class ConversationFigures(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample_id: str
    split: str
    turns: int
    questions: int


class IngestFigures(BaseModel):
    """Every turn imported as history (known from when it was said), then, with an
    ``embedder``, every turn's vector written (``embedding_seconds`` of ``seconds``): the
    rate counts both."""

    model_config = ConfigDict(frozen=True)

    turns: int
    seconds: float
    embedding_seconds: float
    turns_per_second: float
    embedder: str | None


class RecallBenchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    dataset: str
    embedder: str | None
    modes: list[str]
    references: list[str]
    limit: int
    ingest: IngestFigures
    conversations: list[ConversationFigures]
    splits: list[SplitFigures]

    def split(self, name: str) -> SplitFigures | None:
        return next((s for s in self.splits if s.name == name), None)
