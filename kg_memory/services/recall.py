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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from kg_memory.domain.eligibility import (
    ALL_KINDS,
    EligibilityRule,
    RecallContext,
    episode_exclusion,
    episode_reasons,
    fact_exclusion,
    fact_reasons,
)
from kg_memory.domain.embedding import Embedder, cosine
from kg_memory.domain.errors import RecallError, RecallUnavailable, StoreUnavailable
from kg_memory.domain.instant import Clock, ensure_utc
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Channel, Episode, Kind, Support, trusted
from kg_memory.domain.ranking import (
    Ranked,
    RankingWeights,
    Scored,
    document_frequencies,
    evidence_quality,
    rank,
    recency,
    specificity,
)
from kg_memory.domain.recall_answer import (
    RecallAnswer,
    RecalledEpisode,
    RecallHit,
    episode_label,
    fact_label,
)
from kg_memory.domain.recall_text import fact_document, query_terms, tokens
from kg_memory.store.protocol import AsOfQuery, ConversationQuery, RecallProbe, Store

__all__ = ["MAX_LIMIT", "RecallRequest", "Recalling", "recall"]

MAX_LIMIT = 100
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
    #: Vectors by ``fact:id#revision``, kept by the caller between recalls (cleared on forget).
    vector_cache: dict[str, Sequence[float]] | None = None


def _answer(request: RecallRequest, terms: tuple[str, ...], **fields: object) -> RecallAnswer:
    return RecallAnswer.model_validate({
        "query": request.query, "terms": terms, "scope": request.scope,
        "subject": request.subject, "project": request.project, "at": request.at,
        "known_at": request.known_at, "kinds": tuple(sorted(request.kinds)),
        "include_episodes": request.include_episodes, **fields,
    })


def _check(request: RecallRequest) -> tuple[str, ...]:
    if not request.scope:
        raise RecallError("recall needs a scope: memories are searched one tenant at a time")
    if not 1 <= request.limit <= MAX_LIMIT:
        raise RecallError(f"limit must be between 1 and {MAX_LIMIT}, not {request.limit}")
    if not request.kinds:
        raise RecallError("kinds is empty: nothing could be eligible")
    terms = query_terms(request.query)
    if not terms:
        raise RecallError(f"query {request.query!r} has no searchable term")
    return terms


def _project_match(request: RecallRequest, project: str | None) -> float | None:
    if request.project is None:
        return None
    if project is None:
        return 0.5
    return 1.0 if project == request.project else 0.0


def _words_in(words: Iterable[str], text: set[str]) -> bool:
    wanted = set(words)
    return bool(wanted) and wanted <= text


def _fact_scored(fact: Assertion, doc: list[str], supports: tuple[Support, ...],
                 request: RecallRequest) -> Scored:
    last = max((s.occurred_at for s in supports), default=fact.valid.start)
    return Scored(
        key=f"fact:{fact.assertion_id}#{fact.revision}",
        terms=doc,
        specificity=specificity(
            None if request.subject is None else fact.subject == request.subject,
            _project_match(request, fact.qualifiers.project)),
        recency=recency(last, request.at, request.weights.half_life_days),
        evidence=evidence_quality(fact.kind, len({s.source for s in supports})),
    )


def _episode_scored(episode: Episode, doc: list[str], request: RecallRequest) -> Scored:
    words = set(doc)
    project = None
    if request.project is not None:
        project = 1.0 if _words_in(tokens(request.project), words) else 0.5
    return Scored(
        key=f"episode:{episode.episode_id}",
        terms=doc,
        specificity=specificity(
            None if request.subject is None else _words_in(tokens(request.subject), words),
            project),
        recency=recency(episode.occurred_at, request.at, request.weights.half_life_days),
        evidence=evidence_quality(Kind.STATED if episode.source == "user" else None, 1),
    )


def _fact_hit(fact: Assertion, supports: tuple[Support, ...], ranked: Ranked,
              context: RecallContext) -> RecallHit:
    label, own, historical = fact_label(fact)
    return RecallHit(
        type="fact", id=fact.assertion_id, revision=fact.revision, scope=fact.scope,
        content=str(fact.value),
        value=fact.value, subject=fact.subject, predicate=fact.predicate,
        qualifiers=fact.qualifiers, kind=fact.kind, writer=fact.writer, valid=fact.valid,
        system=fact.system, supported_by=supports,
        eligible_because=fact_reasons(fact, context), label=label, own_words=own,
        historical_only=historical, context=(), score=ranked.components())


def _neighbours(store: Store, episode: Episode, request: RecallRequest,
                context: RecallContext) -> tuple[RecalledEpisode, ...]:
    if request.context_size < 1:
        return ()
    # A chat is one conversation whoever speaks in it; any other channel is one per source.
    query = ConversationQuery(
        scope=episode.scope, channel=episode.channel.value,
        source=None if episode.channel is Channel.CHAT else episode.source,
        around=episode.occurred_at, episode_id=episode.episode_id, known_at=request.known_at,
        size=request.context_size)
    return tuple(
        RecalledEpisode(episode_id=e.episode_id, source=e.source, channel=e.channel.value,
                        content=e.content, occurred_at=e.occurred_at, label=episode_label(e)[0])
        for e in store.conversation(query) if episode_exclusion(e, context) is None)


def _episode_hit(store: Store, episode: Episode, ranked: Ranked, request: RecallRequest,
                 context: RecallContext) -> RecallHit:
    label, own = episode_label(episode)
    supports = (trusted(Support, {"episode_id": episode.episode_id, "source": episode.source,
                                  "occurred_at": episode.occurred_at}),)
    return RecallHit(
        type="episode", id=episode.episode_id, revision=None, scope=episode.scope,
        content=episode.content,
        value=None, subject=None, predicate=None, qualifiers=None, kind=None,
        writer=episode.source, valid=Interval(start=episode.occurred_at),
        system=Interval(start=episode.recorded_at), supported_by=supports,
        eligible_because=episode_reasons(episode, context), label=label, own_words=own,
        historical_only=False, context=_neighbours(store, episode, request, context),
        score=ranked.components())


def _vector_hits(store: Store, request: RecallRequest, context: RecallContext,
                 embedder: Embedder) -> tuple[dict[str, Assertion], dict[str, float]]:
    """The eligible facts closest to the query by vector, brute force (the documented
    fallback: no vector index ships here). The pool is the scope's as-of snapshot (believed at
    known_at, valid at at), judged by the same eligibility rules, so a vector can never bring
    back an ineligible record either."""
    pool = [f for f in store.asof(AsOfQuery(valid_at=request.at, known_at=request.known_at,
                                            scope=request.scope))
            if fact_exclusion(f, context) is None]
    cache = request.vector_cache if request.vector_cache is not None else {}
    keys = [f"fact:{f.assertion_id}#{f.revision}" for f in pool]
    missing = [(k, f) for k, f in zip(keys, pool, strict=True) if k not in cache]
    if missing:
        docs = [fact_document(f, f.qualifiers.project, f.qualifiers.exceptions)
                for _, f in missing]
        for (key, _), vector in zip(missing, embedder.embed(docs), strict=True):
            cache[key] = vector
    [query] = embedder.embed([request.query])
    sims = {k: cosine(query, cache[k]) for k in keys}
    best = sorted((k for k in keys if sims[k] > 0), key=lambda k: (-sims[k], k))
    chosen = best[:request.vector_candidates]
    by_key = dict(zip(keys, pool, strict=True))
    return {k: by_key[k] for k in chosen}, {k: sims[k] for k in chosen}


def recall(store: Store, request: RecallRequest) -> RecallAnswer:
    """Search ``store`` for ``request``; see the module docstring.

    Raises :class:`~kg_memory.domain.errors.RecallError` for a request that cannot be searched and
    :class:`~kg_memory.domain.errors.RecallUnavailable` (with its ``unavailable`` answer) when the
    store cannot be searched: never an empty answer in its place.
    """
    terms = _check(request)
    probe = RecallProbe(scope=request.scope, terms=terms, known_at=request.known_at,
                        episodes=request.include_episodes)
    try:
        found = store.recall_candidates(probe)
        blocks = tuple(store.blocks(request.scope))
        context = RecallContext(
            scope=request.scope, at=request.at, known_at=request.known_at, now=request.now,
            kinds=request.kinds, blocks=blocks, rules=tuple(request.rules))
        excluded = dict.fromkeys(context.rule_names(), 0)

        facts: list[Assertion] = []
        for fact in found.facts:
            reason = fact_exclusion(fact, context)
            if reason is None:
                facts.append(fact)
            else:
                excluded[reason] += 1
        episodes: list[Episode] = []
        for episode in found.episodes if request.include_episodes else ():
            reason = episode_exclusion(episode, context)
            if reason is None:
                episodes.append(episode)
            else:
                excluded[reason] += 1

        # Document frequencies over the corpus as held at known_at (believed revisions,
        # recorded episodes), like N and the average length the store counted.
        # The indexed text, as written: it may hold entity names the revision itself lacks.
        fact_docs = {id(f): text.split()
                     for f, text in zip(found.facts, found.fact_texts, strict=True)}
        believed = [fact_docs[id(f)] for f in found.facts
                    if f.system.contains(request.known_at)]
        fact_df = document_frequencies(believed, terms)
        episode_docs = {e.episode_id: text.split()
                        for e, text in zip(found.episodes, found.episode_texts, strict=True)}
        recorded = [episode_docs[e.episode_id] for e in found.episodes
                    if e.recorded_at <= request.known_at]
        episode_df = document_frequencies(recorded, terms)

        vectors: dict[str, float] | None = None
        if request.embedder is not None:
            near, vectors = _vector_hits(store, request, context, request.embedder)
            known = {f"fact:{f.assertion_id}#{f.revision}" for f in facts}
            for key, fact in near.items():
                if key not in known:  # found by its vector only: no query term in it
                    facts.append(fact)
                    fact_docs[id(fact)] = fact_document(
                        fact, fact.qualifiers.project, fact.qualifiers.exceptions).split()

        supports = store.supports((f.assertion_id for f in facts), request.known_at)
        by_key = {f"fact:{f.assertion_id}#{f.revision}": f for f in facts}
        scored = [_fact_scored(f, fact_docs[id(f)], supports.get(f.assertion_id, ()), request)
                  for f in facts]
        ranked = rank(scored, terms, fact_df, found.fact_corpus, vectors=vectors,
                      weights=request.weights)
        episode_by_key = {f"episode:{e.episode_id}": e for e in episodes}
        ranked += rank([_episode_scored(e, episode_docs[e.episode_id], request)
                        for e in episodes], terms, episode_df, found.episode_corpus,
                       weights=request.weights)
        # Equal scores: a fact (distilled, supported) before the raw message it came from.
        ranked.sort(key=lambda r: (-r.score, not r.key.startswith("fact:"), r.key))

        hits = []
        for r in ranked[:request.limit]:
            if r.key in by_key:
                fact = by_key[r.key]
                hits.append(_fact_hit(fact, supports.get(fact.assertion_id, ()), r, context))
            else:
                hits.append(_episode_hit(store, episode_by_key[r.key], r, request, context))
    except StoreUnavailable as exc:
        answer = _answer(request, terms, status="unavailable", error=str(exc))
        raise RecallUnavailable(f"recall could not search: {exc}", answer) from exc
    return _answer(
        request, terms, status="ok" if hits else "empty",
        mode="lexical" if request.embedder is None else "hybrid",
        candidates=len(found.facts) + len(found.episodes), eligible=len(facts) + len(episodes),
        excluded=excluded, results=tuple(hits))


class Recalling:
    """``Memory.recall``: the use case as a method of the facade (kept here, with the rest of
    recall, so :mod:`kg_memory.services.memory` stays one concept)."""

    store: Store
    _clock: Clock
    #: Vector similarity for recall (none: lexical only); see kg_memory.domain.embedding.
    embedder: Embedder | None = None

    @property
    def _vectors(self) -> dict[str, Sequence[float]]:
        # Document vectors by revision, in this process only (made on first use).
        cache: dict[str, Sequence[float]] = self.__dict__.setdefault("_recall_vectors", {})
        return cache

    def _drop_vectors(self, dry_run: bool) -> None:
        """A forget run clears the vectors, so none of erased content outlives it."""
        if not dry_run:
            self._vectors.clear()

    def recall(
        self, query: str, *, scope: str, subject: str | None = None,
        project: str | None = None, at: datetime | None = None,
        known_at: datetime | None = None, kinds: Iterable[Kind | str] = ALL_KINDS,
        include_episodes: bool = True, limit: int = 10, rules: Iterable[EligibilityRule] = (),
        embedder: Embedder | None = None,
    ) -> RecallAnswer:
        """What this memory holds that bears on ``query``, in ``scope``, at ``at`` (valid
        time, default now) as believed at ``known_at`` (default now).

        Eligibility comes before ranking (see :mod:`kg_memory.services.recall`): nothing
        stale, not yet known, blocked or of a kind not asked for is ever scored. ``subject``
        and ``project`` describe the request and rank matching records first; they do not
        filter. ``rules`` adds eligibility rules (a decay floor, a pending status).
        ``embedder`` (default: the memory's, normally none) adds vector similarity over the
        eligible facts, fused with BM25 by reciprocal rank.

        An ``ok`` or ``empty`` answer; ``RecallUnavailable`` when the store cannot be searched.
        """
        now = self._clock()
        request = RecallRequest(
            query=query, scope=scope, subject=subject, project=project,
            at=ensure_utc(at, what="at") if at else now,
            known_at=ensure_utc(known_at, what="known_at") if known_at else now,
            now=now, kinds=frozenset(Kind(k) for k in kinds),
            include_episodes=include_episodes, limit=limit, rules=tuple(rules),
            embedder=embedder or self.embedder, vector_cache=self._vectors)
        return recall(self.store, request)
