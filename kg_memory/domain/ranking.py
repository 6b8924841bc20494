"""How recall orders the eligible set: BM25, optional vectors fused with it, then
specificity, recency and evidence quality.

Pure functions of their arguments. The service computes the inputs (corpus statistics, the
supporting episodes) and passes them in, so the same numbers can be recomputed by a brute-force
reference from an as-of snapshot.

**Lexical relevance** is Okapi BM25 (k1 = 1.2, b = 0.75, the Lucene/FTS5 defaults) with the
non-negative idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``. Its corpus statistics (N, average
length, document frequency) describe one tenant's memory *as the store held it at known_at*:
never other tenants (their term counts would leak through a score) and never later writes (a
replay at known_at must score exactly as a search run then did).

**Fusion.** With a vector list beside the lexical one, each document gets, by default, the
convex combination ``lexical_weight * bm25 / best_bm25 + (1 - lexical_weight) * cosine``
(Bruch et al., 2023, found it at least as good as rank fusion and more robust; on LoCoMo's
tuning conversations it scored 0.645 in the top 5 against 0.567 for ranks: docs/recall.md).
Magnitudes count: a document that is the only strong match of the question's words is not
outranked by ones that are second-rate in both lists, as reciprocal ranks
(``sum(1 / (rrf_k + rank))``, Cormack et al., 2009; ``fusion="rrf"``) would have it.
Relevance is that value (or BM25 alone) divided by the best in its list, so facts and
episodes, whose corpora differ, meet on one 0..1 scale.

**Then** ``score = relevance * (1 + w_s * specificity + w_r * recency + w_e * evidence)``, each
component in 0..1. The weights are a composite policy, not universal truths (seed 002: an older
explicit preference can beat a newer incidental mention); :class:`RankingWeights` holds them.

>>> stats = CorpusStats(documents=3, tokens=9)
>>> df = {"vegetarian": 1}
>>> round(bm25(["ana", "diet", "vegetarian"], ("vegetarian",), df, stats), 4)
0.9808
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.model import Kind, trusted

__all__ = [
    "AUTHORITY",
    "CorpusStats",
    "Ranked",
    "RankingWeights",
    "ScoreComponents",
    "Scored",
    "bm25",
    "document_frequencies",
    "evidence_quality",
    "rank",
    "recency",
    "specificity",
]

#: How much a writer's word counts, by the kind the writer gate let it write.
AUTHORITY: Mapping[Kind, float] = {
    Kind.STATED: 1.0,  # the user's own statement
    Kind.WORLD: 0.8,  # the owning system's record
    Kind.DERIVED: 0.6,  # computed from other memories
    Kind.CLAIM: 0.3,  # someone else's words about the user
}


@dataclass(frozen=True)
class CorpusStats:
    """N and total length of one corpus (a tenant's facts or episodes) at one instant."""

    documents: int
    tokens: int

    @property
    def average_length(self) -> float:
        return self.tokens / self.documents if self.documents else 0.0


@dataclass(frozen=True)
class RankingWeights:
    k1: float = 1.2
    b: float = 0.75
    rrf_k: int = 60
    specificity: float = 0.3
    recency: float = 0.1
    evidence: float = 0.2
    #: finite and positive, as a write policy's half-life (recency halves every so many days)
    half_life_days: float = 30.0
    #: How the lexical and vector lists are fused: ``"rrf"`` (reciprocal rank, ``rrf_k``) or
    #: ``"convex"`` (``lexical_weight`` x BM25 over the corpus's best, plus the rest x cosine).
    fusion: str = "convex"
    #: The lexical share of a convex fusion, from 0 (vectors only) to 1 (words only).
    lexical_weight: float = 0.6

    def __post_init__(self) -> None:
        if not (math.isfinite(self.half_life_days) and self.half_life_days > 0):
            raise InvalidArgument(
                f"half_life_days must be a finite number of days above 0, not "
                f"{self.half_life_days:g}", field="half_life_days")
        # A negative weight or k1 turns a better match into a lower score, b outside [0, 1]
        # over- or under-normalises a document's length past BM25's range, and an rrf_k below
        # 0 divides by zero at the rank -rrf_k: each is refused, never served as an order.
        if self.fusion not in ("rrf", "convex"):
            raise InvalidArgument(f"fusion must be 'rrf' or 'convex', not {self.fusion!r}",
                                  field="fusion")
        for name, value, top in (("k1", self.k1, math.inf), ("b", self.b, 1.0),
                                 ("lexical_weight", self.lexical_weight, 1.0),
                                 ("specificity", self.specificity, math.inf),
                                 ("recency", self.recency, math.inf),
                                 ("evidence", self.evidence, math.inf)):
            if not (math.isfinite(value) and 0 <= value <= top):
                bound = "from 0 to 1" if top == 1.0 else "finite and at least 0"
                raise InvalidArgument(f"{name} must be {bound}, not {value:g}", field=name)
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 0:
            raise InvalidArgument(f"rrf_k must be a whole number at least 0, not {self.rrf_k!r}",
                                  field="rrf_k")


def document_frequencies(documents: Iterable[Sequence[str]], terms: Sequence[str]
                         ) -> dict[str, int]:
    """How many of ``documents`` contain each of ``terms``."""
    # A membership test per term and document (a query has a few terms) rather than a set
    # per document: recall counts every recorded match of a scope per query.
    docs = documents if isinstance(documents, Sequence) else list(documents)
    return {t: sum(t in doc for doc in docs) for t in terms}


def bm25(doc: Sequence[str], terms: Sequence[str], df: Mapping[str, int], stats: CorpusStats,
         weights: RankingWeights = RankingWeights()) -> float:
    """Okapi BM25 of one tokenised document for the query ``terms``. A term ``df`` does not
    list counts as in no document (the highest idf), as a term no document holds would."""
    if not doc or stats.documents == 0:
        return 0.0
    norm = weights.k1 * (1 - weights.b + weights.b * len(doc) / stats.average_length)
    score = 0.0
    for term in terms:
        # Counted per query term, not a Counter of the whole document: a query has a few
        # terms, and recall scores every eligible match of a scope.
        f = doc.count(term)
        if not f:
            continue
        n = df.get(term, 0)
        idf = math.log(1 + (stats.documents - n + 0.5) / (n + 0.5))
        score += idf * f * (weights.k1 + 1) / (f + norm)
    return score


def specificity(subject_match: bool | None, project_match: float | None) -> float:
    """How closely a record fits the request's subject and project (0..1; 0 if neither asked).

    ``project_match`` is 1 for the asked project, 0.5 for a record with no project (a general
    default) and 0 for another project's record.
    """
    parts = [p for p in ((None if subject_match is None else float(subject_match)),
                         project_match) if p is not None]
    return sum(parts) / len(parts) if parts else 0.0


def recency(last: datetime | None, at: datetime, half_life_days: float) -> float:
    """1 for evidence at ``at``, halving every ``half_life_days`` before it."""
    if last is None:
        return 0.0
    age = max((at - last).total_seconds(), 0.0) / 86400
    return float(0.5 ** (age / half_life_days))


def evidence_quality(kind: Kind | None, independent_sources: int) -> float:
    """Writer authority (see :data:`AUTHORITY`; an episode's ``None`` counts as a claim's) and
    corroboration by independent sources (1 source: 0, 2: 0.5, 3: 0.67, ...)."""
    authority = AUTHORITY[kind] if kind is not None else AUTHORITY[Kind.CLAIM]
    corroboration = 1 - 1 / max(independent_sources, 1)
    return 0.6 * authority + 0.4 * corroboration


@dataclass(frozen=True)
class Scored:
    """One eligible document's inputs to ranking."""

    key: str
    terms: Sequence[str]
    specificity: float
    recency: float
    evidence: float


class ScoreComponents(BaseModel):
    """Every number that placed a hit, as a recall answer shows it (see the module docstring).

    ``bm25`` and ``lexical_rank`` come from the lexical list, ``vector`` and ``vector_rank``
    from the vector list (``None`` when the document is not in it), ``relevance`` is their
    fusion on a 0..1 scale, and ``score`` is ``relevance`` boosted by the last three.
    """

    model_config = ConfigDict(frozen=True)

    bm25: float
    lexical_rank: int | None
    vector: float | None
    vector_rank: int | None
    relevance: float
    specificity: float
    recency: float
    evidence: float
    score: float


class Ranked(ScoreComponents):
    """One ranked document: its ``key`` and its :class:`ScoreComponents`."""

    key: str

    def components(self) -> ScoreComponents:
        """The components alone, as a hit carries them (the key is the hit's id instead)."""
        return trusted(ScoreComponents, {n: getattr(self, n) for n in _COMPONENTS})


_COMPONENTS = tuple(ScoreComponents.model_fields)


def _bm25_each(documents: Sequence[Scored], terms: Sequence[str], df: Mapping[str, int],
               stats: CorpusStats, weights: RankingWeights) -> list[tuple[str, float]]:
    """:func:`bm25` of every document, the same operations in the same order (so the same
    floats), with what does not depend on the document (idf, k1 + 1) computed once."""
    if stats.documents == 0:
        return [(d.key, 0.0) for d in documents]
    idf = []
    for term in terms:
        n = df.get(term, 0)
        idf.append((term, math.log(1 + (stats.documents - n + 0.5) / (n + 0.5))))
    k1, b, k1_1 = weights.k1, weights.b, weights.k1 + 1
    average = stats.average_length
    out = []
    for d in documents:
        doc, score = d.terms, 0.0
        if doc:
            norm = k1 * (1 - b + b * len(doc) / average)
            for term, weight in idf:
                f = doc.count(term)
                if f:
                    score += weight * f * k1_1 / (f + norm)
        out.append((d.key, score))
    return out


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda k: (-scores[k], k))
    return {k: i + 1 for i, k in enumerate(order)}


def rank(documents: Sequence[Scored], terms: Sequence[str], df: Mapping[str, int],
         stats: CorpusStats, vectors: Mapping[str, float] | None = None,
         weights: RankingWeights = RankingWeights(), limit: int | None = None) -> list[Ranked]:
    """Order one corpus's eligible documents, best first (ties by key, so runs agree).

    A document takes part when it matches a query term, or has a vector similarity; one that
    matches neither is not relevant and is left out. ``limit``: only the first so many are
    returned (every document is still scored: relevance is relative to the best of them).
    """
    lexical = {k: v for k, v in _bm25_each(documents, terms, df, stats, weights) if v > 0}
    keys = {d.key for d in documents}
    sims = {k: v for k, v in (vectors or {}).items() if k in keys}
    lex_rank, vec_rank = _ranks(lexical), _ranks(sims)
    if vectors is None:
        best = max(lexical.values(), default=0.0)
        fused = {k: v / best for k, v in lexical.items()}
    elif weights.fusion == "convex":
        # BM25 has no ceiling, so it is scaled by the corpus's best; a cosine already has one.
        # Magnitudes count, unlike ranks: the only strong lexical match is not outranked by
        # documents that are second-rate in both lists.
        top, alpha = max(lexical.values(), default=0.0), weights.lexical_weight
        raw = {
            d.key: alpha * lexical.get(d.key, 0.0) / (top or 1.0)
            + (1 - alpha) * max(sims.get(d.key, 0.0), 0.0)
            for d in documents if d.key in lex_rank or d.key in vec_rank
        }
    else:
        raw = {
            d.key: sum(1 / (weights.rrf_k + r[d.key]) for r in (lex_rank, vec_rank) if d.key in r)
            for d in documents if d.key in lex_rank or d.key in vec_rank
        }
    if vectors is not None:
        best = max(raw.values(), default=0.0)
        fused = {k: v / best if best else 0.0 for k, v in raw.items()}
    scored = []
    for d in documents:
        if d.key not in fused:
            continue
        boost = (1 + weights.specificity * d.specificity + weights.recency * d.recency
                 + weights.evidence * d.evidence)
        scored.append((-(fused[d.key] * boost), d.key, d))
    scored.sort(key=itemgetter(0, 1))
    # Built without validation (every value is computed here), and only for the documents
    # returned: recall scores every matching document of a scope per query and shows ten.
    return [trusted(Ranked, {
        "key": key, "bm25": lexical.get(key, 0.0), "lexical_rank": lex_rank.get(key),
        "vector": sims.get(key), "vector_rank": vec_rank.get(key),
        "relevance": fused[key], "specificity": d.specificity, "recency": d.recency,
        "evidence": d.evidence, "score": -score,
    }) for score, key, d in scored[:limit]]
