"""One recall request, with both instants resolved: what the recall use case and its parts
(:mod:`~kg_memory.services.recall_facts`, :mod:`~kg_memory.services.recall_episodes`) read.

A module of its own so those parts can name the request's type without importing the use case
that imports them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from kg_memory.domain.eligibility import ALL_KINDS, EligibilityRule
from kg_memory.domain.embedding import Embedder
from kg_memory.domain.model import Kind
from kg_memory.domain.ranking import RankingWeights
from kg_memory.domain.write_policy import WritePolicy

__all__ = ["DEFAULT_WEIGHTS", "MODES", "RecallMode", "RecallRequest"]

#: Recall's rankings: BM25 alone (never reads vectors, even with an embedder configured),
#: vector similarity alone, or both fused (kg_memory.domain.ranking). Eligibility is the same
#: in all three and comes first.
RecallMode = Literal["lexical", "vector", "hybrid"]
MODES: tuple[RecallMode, ...] = ("lexical", "vector", "hybrid")

DEFAULT_WEIGHTS = RankingWeights()


@dataclass(frozen=True)
class RecallRequest:
    """One recall, with both instants already resolved (``now`` is the caller's clock)."""

    query: str
    scope: str
    at: datetime
    known_at: datetime
    now: datetime
    subject: str | None = None
    project: str | None = None
    kinds: frozenset[Kind] = ALL_KINDS
    include_episodes: bool = True
    limit: int = 10
    rules: Sequence[EligibilityRule] = ()
    weights: RankingWeights = DEFAULT_WEIGHTS
    context_size: int = 1
    embedder: Embedder | None = None
    vector_candidates: int = 50
    #: A scope with at most this many vectors is scored exactly (see VectorProbe).
    vector_exact_below: int = 256
    #: The write policy whose half-lives and floors decay trust (None: no decay).
    policy: WritePolicy | None = None
    #: Entities merged with ``subject`` (same_as, as of both instants): they rank as it does.
    same_as: frozenset[str] = frozenset()
    #: How to rank (see :data:`MODES`); None: hybrid with an embedder, else lexical.
    mode: RecallMode | None = None
