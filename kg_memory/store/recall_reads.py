"""The recall reads of the store protocol: the lexical index, conversations, and the vector
index, with the probes and answers they exchange.

:class:`~kg_memory.store.protocol.Store` includes :class:`RecallReads`; the names are
re-exported by :mod:`kg_memory.store.protocol`, where the service layer imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Assertion, Episode
from kg_memory.domain.ranking import CorpusStats

__all__ = [
    "ConversationQuery",
    "RecallCandidates",
    "RecallProbe",
    "RecallReads",
    "VectorCandidates",
    "VectorDoc",
    "VectorProbe",
]


class RecallProbe(BaseModel):
    """What recall asks the index: every record of ``scope`` matching any of ``terms``.

    ``terms`` are tokens of :func:`kg_memory.domain.recall_text.tokens` (letters and digits
    only, so no backend's query syntax can be injected through them).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: str
    terms: tuple[str, ...]
    known_at: UtcDatetime
    facts: bool = True
    episodes: bool = True


class RecallCandidates(BaseModel):
    """The index's answer to a :class:`RecallProbe`, before any eligibility rule.

    ``facts`` holds every revision of the scope matching a term, whatever its intervals (the
    index is bitemporal: a closed revision stays indexed, so a replay at an earlier known_at
    finds what a search then found); ``episodes`` every matching episode with content. The
    corpus statistics describe the scope's indexed records believed at ``known_at``.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    facts: tuple[Assertion, ...] = ()
    fact_texts: tuple[str, ...] = ()  # the indexed text of each fact, in order
    episodes: tuple[Episode, ...] = ()
    episode_texts: tuple[str, ...] = ()
    fact_corpus: CorpusStats = CorpusStats(0, 0)
    episode_corpus: CorpusStats = CorpusStats(0, 0)


class VectorDoc(BaseModel):
    """A record with no vector yet (see :meth:`Store.vector_backlog`): a revision (its indexed
    recall text) or, with ``episode_id`` set, an episode (its content, as received)."""

    model_config = ConfigDict(frozen=True)

    assertion_id: str = ""
    revision: int = 0
    text: str
    episode_id: str | None = None


class VectorProbe(BaseModel):
    """What recall asks the vector index: the ``k`` revisions of ``scope`` nearest ``vector``
    among those believed at ``known_at`` and valid at ``at`` (the interval rules are applied
    inside the index's query, before anything is ranked).

    ``exact``: score every such revision (the fallback when the approximate shortlist
    under-fills after the remaining eligibility rules); ``exact_below``: a scope with at most
    this many vectors is scored exactly anyway (cheaper than any index); ``k = 0``: no limit.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: str
    space: str
    vector: tuple[float, ...]
    at: UtcDatetime
    known_at: UtcDatetime
    k: int = 50
    exact: bool = False
    exact_below: int = 256
    #: Which vectors to search: revisions, or episodes (valid from when they happened,
    #: believed from when they were recorded).
    corpus: Literal["facts", "episodes"] = "facts"


class VectorCandidates(BaseModel):
    """The vector index's answer: records, most similar first, and their cosine similarity.

    ``method`` says how they were found (``exact`` or the backend's index); ``complete`` is
    true when every eligible-by-interval revision of the scope was scored."""

    model_config = ConfigDict(frozen=True)

    facts: tuple[Assertion, ...] = ()
    #: For an episode probe: the episodes instead, most similar first.
    episodes: tuple[Episode, ...] = ()
    similarities: tuple[float, ...] = ()
    method: str = "exact"
    complete: bool = True


class ConversationQuery(BaseModel):
    """The episodes around ``around`` in one conversation (same scope and channel, and same
    source when ``source`` is set), recorded by ``known_at``, with content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: str
    channel: str
    source: str | None
    around: UtcDatetime
    episode_id: str
    known_at: UtcDatetime
    size: int = 1


class RecallReads(Protocol):
    """The reads (and the vector writes) recall makes of a store (both backends)."""

    # Recall: a lexical index kept in each episode's transaction (see kg_memory.services.recall).
    def recall_candidates(self, probe: RecallProbe) -> RecallCandidates:
        """Every indexed record of the probe's scope matching any term, and corpus statistics."""

    def conversations(self, queries: Sequence[ConversationQuery]) -> list[list[Episode]]:
        """For each query, up to ``size`` episodes before and ``size`` after ``around``, oldest
        first (one answer per query, in order: one round trip for a whole answer's messages)."""

    # Recall's vector index: vectors are made by the caller's embedder and kept by the store,
    # in one vector space (``name/dimensions``) per store; forget erases them with their rows.
    def vector_backlog(self, scope: str, space: str, limit: int) -> list[VectorDoc]:
        """Up to ``limit`` revisions (first) and episodes of ``scope`` with indexed text and no
        vector in ``space`` (enrols the scope on first use). Raises RecallError for a store of
        another space."""

    def put_vectors(self, scope: str, space: str,
                    vectors: Sequence[tuple[VectorDoc, Sequence[float]]]) -> None:
        """Store each document's vector (durable on return); creates the index on first use."""

    def vector_candidates(self, probe: VectorProbe) -> VectorCandidates:
        """The probe's nearest revisions or episodes; see :class:`VectorProbe`."""
