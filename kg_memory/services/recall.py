"""Recall: "what do I know that bears on this request?", eligibility first, then ranking.

The use case, over any :class:`~kg_memory.store.protocol.Store`:

1. the query's terms go to the store's lexical index, which returns every record of the scope
   that matches one (every revision, whatever its intervals: the index is bitemporal);
2. each candidate is judged by :mod:`kg_memory.domain.eligibility`; a rejected one is counted
   under the rule it failed and never scored, so it can never crowd out an eligible match;
3. the eligible ones are ranked by :mod:`kg_memory.domain.ranking` with BM25 statistics of the
   scope's corpus as the store held it at ``known_at``;
4. each hit carries its ids, intervals, evidence, label and score components, and a recalled
   message its neighbours in the same conversation.

Because every input is read "as of known_at" (revisions by their system interval, episodes by
when they were recorded, supports by when they were linked, corpus statistics by snapshot), a
recall at ``known_at = T`` returns what a search run at T returned, minus what was forgotten
or blocked since (removal overrides history by design). ``tests/test_recall_asof.py`` checks
this against a brute-force reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from kg_memory.domain.eligibility import (
    ALL_KINDS,
    EligibilityRule,
    RecallContext,
    episode_exclusion,
    fact_exclusion,
)
from kg_memory.domain.embedding import Embedder, similarity_floor
from kg_memory.domain.errors import RecallError, RecallUnavailable, StoreBusy, StoreUnavailable
from kg_memory.domain.instant import Clock, ensure_utc
from kg_memory.domain.model import Assertion, Episode, Kind
from kg_memory.domain.ranking import (
    CorpusStats,
    document_frequencies,
    rank,
)
from kg_memory.domain.recall_answer import AskAgain, RecallAnswer
from kg_memory.domain.recall_text import episode_document, fact_document, query_terms
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services import recall_episodes as episodes_
from kg_memory.services.recall_episodes import episode_key
from kg_memory.services.recall_facts import decayed, fact_hit, fact_key, fact_scored
from kg_memory.services.recall_request import MODES, RecallMode, RecallRequest
from kg_memory.services.recall_vectors import catch_up, nearest, vector_space
from kg_memory.store.protocol import AsOfQuery, RecallProbe, Store, VectorProbe

__all__ = ["DECAYED", "MAX_LIMIT", "MODES", "RecallMode", "RecallRequest", "Recalling", "recall"]

#: The exclusion key of a fact whose decayed trust fell below its predicate's floor.
DECAYED = "decayed_below_floor"

MAX_LIMIT = 100


def _answer(request: RecallRequest, terms: tuple[str, ...], **fields: object) -> RecallAnswer:
    return RecallAnswer.model_validate({
        "query": request.query, "terms": terms, "scope": request.scope,
        "subject": request.subject, "project": request.project, "at": request.at,
        "known_at": request.known_at, "kinds": tuple(sorted(request.kinds)),
        "include_episodes": request.include_episodes, **fields,
    })


def _mode(request: RecallRequest) -> RecallMode:
    """The ranking asked for, or the default: hybrid with an embedder, else lexical."""
    if request.mode is None:
        return "lexical" if request.embedder is None else "hybrid"
    if request.mode not in MODES:
        raise RecallError(f"mode must be one of {', '.join(MODES)}, not {request.mode!r}")
    if request.mode != "lexical" and request.embedder is None:
        raise RecallError(f"{request.mode} recall needs an embedder (Memory's embedder, "
                          "--embedder or $KG_MEMORY_EMBEDDER); without one, ask for lexical")
    return request.mode


def _check(request: RecallRequest, mode: RecallMode) -> tuple[str, ...]:
    if not request.scope:
        raise RecallError("recall needs a scope: memories are searched one tenant at a time")
    if not 1 <= request.limit <= MAX_LIMIT:
        raise RecallError(f"limit must be between 1 and {MAX_LIMIT}, not {request.limit}")
    if not request.kinds:
        raise RecallError("kinds is empty: nothing could be eligible")
    terms = query_terms(request.query)
    # A query of stop words alone still has a meaning to embed; only blank text has none.
    if not terms and (mode != "vector" or not request.query.strip()):
        raise RecallError(f"query {request.query!r} has no searchable term")
    return terms


@dataclass
class _Near:
    """The vector step's output: the eligible neighbours of both corpora above the floor."""

    facts: dict[str, Assertion]
    episodes: dict[str, Episode]
    similarities: dict[str, float]
    method: str


def _vector_hits(store: Store, request: RecallRequest, context: RecallContext,
                 embedder: Embedder) -> _Near:
    """The eligible facts and episodes nearest the query by vector (see
    :mod:`kg_memory.services.recall_vectors`): every rule the lexical candidates pass, decay
    included, is applied to the index's shortlist before anything is ranked."""
    catch_up(store, request.scope, embedder)
    [query] = embedder.embed([request.query])
    probe = VectorProbe(
        scope=request.scope, space=vector_space(embedder),
        vector=tuple(float(x) for x in query), at=request.at, known_at=request.known_at,
        k=request.vector_candidates, exact_below=request.vector_exact_below)

    def admit(facts: list[Assertion]) -> list[Assertion]:
        return decayed(store, [f for f in facts if fact_exclusion(f, context) is None],
                       request)[0]

    def admit_episodes(episodes: list[Episode]) -> list[Episode]:
        return [e for e in episodes if episode_exclusion(e, context) is None]

    facts, similarities, method = nearest(store, probe, admit)
    episodes: dict[str, Episode] = {}
    if request.include_episodes:
        episodes, near, episode_method = nearest(
            store, probe.model_copy(update={"corpus": "episodes"}), admit_episodes)
        similarities |= near
        if episode_method != method:
            method = f"{method}; episodes {episode_method}"
    # Below the model's floor a neighbour is noise, not meaning: fused by rank alone it would
    # stand level with the best lexical match (see kg_memory.domain.embedding.similarity_floor).
    floor = similarity_floor(embedder)
    kept = {k: s for k, s in similarities.items() if s >= floor}
    return _Near(facts={k: f for k, f in facts.items() if k in kept},
                 episodes={k: e for k, e in episodes.items() if k in kept},
                 similarities=kept, method=method)


_EMPTY = CorpusStats(documents=0, tokens=0)


@dataclass
class _Lexical:
    """The lexical stage's output: the eligible matches, their words and corpus statistics."""

    facts: list[Assertion] = field(default_factory=list)
    fact_docs: dict[int, list[str]] = field(default_factory=dict)
    fact_df: dict[str, int] = field(default_factory=dict)
    fact_corpus: CorpusStats = _EMPTY
    episodes: list[tuple[Episode, list[str]]] = field(default_factory=list)
    episode_df: dict[str, int] = field(default_factory=dict)
    episode_corpus: CorpusStats = _EMPTY
    ask_again: list[AskAgain] = field(default_factory=list)
    candidates: int = 0


def _lexical(store: Store, request: RecallRequest, terms: tuple[str, ...],
             context: RecallContext, excluded: dict[str, int]) -> _Lexical:
    """Every record matching a query term, judged (rejections counted in ``excluded``)."""
    found = store.recall_candidates(RecallProbe(
        scope=request.scope, terms=terms, known_at=request.known_at,
        episodes=request.include_episodes))
    facts: list[Assertion] = []
    for fact in found.facts:
        reason = fact_exclusion(fact, context)
        if reason is None:
            facts.append(fact)
        else:
            excluded[reason] += 1
    facts, ask_again = decayed(store, facts, request)
    excluded[DECAYED] += len(ask_again)
    # Document frequencies over the corpus as held at known_at (believed revisions,
    # recorded episodes), like N and the average length the store counted.
    # The indexed text, as written: it may hold entity names the revision itself lacks.
    fact_docs = {id(f): text.split()
                 for f, text in zip(found.facts, found.fact_texts, strict=True)}
    believed = [fact_docs[id(f)] for f in found.facts
                if f.system.contains(request.known_at)]
    # One pass over the episodes (a scope's common words match hundreds): each judged,
    # and its text split once, for the frequencies if recorded and for its score if
    # eligible.
    episodes: list[tuple[Episode, list[str]]] = []
    recorded: list[list[str]] = []
    for episode, text in zip(found.episodes, found.episode_texts, strict=True):
        doc = text.split()
        if episode.recorded_at <= request.known_at:
            recorded.append(doc)
        if not request.include_episodes:
            continue
        reason = episode_exclusion(episode, context)
        if reason is None:
            episodes.append((episode, doc))
        else:
            excluded[reason] += 1
    return _Lexical(
        facts=facts, fact_docs=fact_docs, fact_df=document_frequencies(believed, terms),
        fact_corpus=found.fact_corpus, episodes=episodes,
        episode_df=document_frequencies(recorded, terms), episode_corpus=found.episode_corpus,
        ask_again=ask_again, candidates=len(found.facts) + len(found.episodes))


def recall(store: Store, request: RecallRequest) -> RecallAnswer:
    """Search ``store`` for ``request``; see the module docstring.

    Raises :class:`~kg_memory.domain.errors.RecallError` for a request that cannot be searched and
    :class:`~kg_memory.domain.errors.RecallUnavailable` (with its ``unavailable`` answer) when the
    store cannot be searched: never an empty answer in its place.
    """
    mode = _mode(request)
    terms = _check(request, mode)
    try:
        blocks = tuple(store.blocks(request.scope))
        context = RecallContext(
            scope=request.scope, at=request.at, known_at=request.known_at, now=request.now,
            kinds=request.kinds, blocks=blocks, rules=tuple(request.rules))
        excluded = dict.fromkeys(context.rule_names(), 0)
        excluded[DECAYED] = 0
        # Vector mode reads no lexical index: its candidates are the vectors' eligible
        # neighbours alone, judged by the same rules before anything is ranked.
        found = _Lexical() if mode == "vector" else _lexical(
            store, request, terms, context, excluded)
        facts, fact_docs, episodes = found.facts, found.fact_docs, found.episodes

        vectors: dict[str, float] | None = None
        method: str | None = None
        if mode != "lexical":
            assert request.embedder is not None  # _mode refuses vectors without an embedder
            near = _vector_hits(store, request, context, request.embedder)
            vectors, method = near.similarities, near.method
            known = {fact_key(f) for f in facts}
            for key, fact in near.facts.items():
                if key not in known:  # found by its vector only: no query term in it
                    facts.append(fact)
                    fact_docs[id(fact)] = fact_document(
                        fact, fact.qualifiers.project, fact.qualifiers.exceptions).split()
            known = {episode_key(e) for e, _ in episodes}
            # An episode found by its vector only (no query word): its words still say
            # whether it names the subject or project asked about.
            episodes += [(e, episode_document(e.content).split())
                         for key, e in near.episodes.items() if key not in known]
        # Vector mode ranks by the vector list alone: with no term, BM25 is 0 throughout.
        ranked_terms = () if mode == "vector" else terms

        supports = store.supports((f.assertion_id for f in facts), request.known_at)
        by_key = {fact_key(f): f for f in facts}
        scored = [fact_scored(f, fact_docs[id(f)], supports.get(f.assertion_id, ()), request)
                  for f in facts]
        # Each corpus's first ``limit``: the merged first ``limit`` are among them.
        ranked = rank(scored, ranked_terms, found.fact_df, found.fact_corpus, vectors=vectors,
                      weights=request.weights, limit=request.limit)
        episode_scored = [episodes_.episode_scored(e, doc, request) for e, doc in episodes]
        ranked += rank(episode_scored, ranked_terms, found.episode_df, found.episode_corpus,
                       vectors=vectors, weights=request.weights, limit=request.limit)
        episode_by_key = {s.key: e for s, (e, _) in zip(episode_scored, episodes, strict=True)}
        # Equal scores: a fact (distilled, supported) before the raw message it came from.
        ranked.sort(key=lambda r: (-r.score, not r.key.startswith("fact:"), r.key))

        shown = ranked[:request.limit]
        around = episodes_.neighbours(store, [episode_by_key[r.key] for r in shown
                                              if r.key not in by_key], request, context)
        hits = []
        for r in shown:
            if r.key in by_key:
                fact = by_key[r.key]
                hits.append(fact_hit(fact, supports.get(fact.assertion_id, ()), r, context))
            else:
                episode = episode_by_key[r.key]
                hits.append(episodes_.episode_hit(
                    episode, r, around.get(episode.episode_id, ()), context))
    except StoreBusy:
        raise  # busy, not broken: the caller retries later (exit 75), as for every other read
    except StoreUnavailable as exc:
        answer = _answer(request, terms, status="unavailable", error=str(exc))
        raise RecallUnavailable(f"recall could not search: {exc}", answer) from exc
    return _answer(
        request, terms, status="ok" if hits else "empty", mode=mode,
        candidates=found.candidates + (len(vectors) if mode == "vector" and vectors else 0),
        eligible=len(facts) + len(episodes),
        excluded=excluded, results=tuple(hits), ask_again=tuple(found.ask_again),
        vector_method=method)


class Recalling:
    """``Memory.recall``: the use case as a method of the facade (kept here, with the rest of
    recall, so :mod:`kg_memory.services.memory` stays one concept)."""

    store: Store
    _clock: Clock
    #: Vector similarity for recall (none: lexical only); see kg_memory.domain.embedding.
    embedder: Embedder | None = None
    #: Decay's half-lives and floors (Memory's write policy; None: nothing decays).
    write_policy: WritePolicy | None

    def _same_as_group(self, subject: str, query: AsOfQuery) -> set[tuple[str, str]]:
        raise NotImplementedError  # Memory's: (scope, entity) pairs merged with subject

    def _own_vectors(self, scope: str) -> None:
        raise NotImplementedError  # Memory's: take scope's backlog over from its vector worker

    def recall(
        self, query: str, *, scope: str, subject: str | None = None,
        project: str | None = None, at: datetime | None = None,
        known_at: datetime | None = None, kinds: Iterable[Kind | str] = ALL_KINDS,
        include_episodes: bool = True, limit: int = 10, rules: Iterable[EligibilityRule] = (),
        embedder: Embedder | None = None, mode: RecallMode | None = None,
    ) -> RecallAnswer:
        """What this memory holds that bears on ``query``, in ``scope``, at ``at`` (valid
        time, default now) as believed at ``known_at`` (default now).

        Eligibility comes before ranking (see :mod:`kg_memory.services.recall`): nothing
        stale, not yet known, blocked or of a kind not asked for is ever scored. ``subject``
        and ``project`` describe the request and rank matching records first; they do not
        filter. ``rules`` adds eligibility rules (a decay floor, a pending status).
        ``embedder`` (default: the memory's, normally none) adds vector similarity over the
        eligible facts and messages, fused with BM25 (:mod:`kg_memory.domain.ranking`).
        ``mode`` (default: ``hybrid`` with an embedder, else ``lexical``) picks the ranking:
        ``lexical`` never
        reads vectors, ``vector`` ranks the eligible set by vector similarity alone; both vector
        modes need an embedder (else :class:`~kg_memory.domain.errors.RecallError`).

        An ``ok`` or ``empty`` answer; ``RecallUnavailable`` when the store cannot be searched.
        """
        now = self._clock()
        at_ = ensure_utc(at, what="at") if at else now
        known = ensure_utc(known_at, what="known_at") if known_at else now
        group: frozenset[str] = frozenset()
        if subject is not None:
            # A person's merge pools the group's facts, as asof(subject=...) does: within the
            # scope, as merged at both instants asked.
            asked = AsOfQuery(valid_at=at_, known_at=known, subject=subject, scope=scope)
            group = frozenset(e for s, e in self._same_as_group(subject, asked) if s == scope)
        request = RecallRequest(
            query=query, scope=scope, subject=subject, project=project,
            at=at_, known_at=known, same_as=group,
            now=now, kinds=frozenset(Kind(k) for k in kinds),
            include_episodes=include_episodes, limit=limit, rules=tuple(rules),
            embedder=embedder or self.embedder, policy=self.write_policy, mode=mode)
        if request.embedder is not None and mode != "lexical":
            # The scope's vectors may be in the making on the memory's worker: waiting for it
            # costs no more than embedding the same texts again on this thread.
            self._own_vectors(scope)
        return recall(self.store, request)
