"""Recall's vector step: keep the store's vector index current, then find eligible neighbours.

Two corpora have vectors: revisions (their indexed recall text) and episodes (their content as
received); each is searched by its own probe (``VectorProbe.corpus``) and judged by its own
rules.

The store keeps the vectors (:meth:`~kg_memory.store.protocol.Store.vector_candidates`), the
caller's :class:`~kg_memory.domain.embedding.Embedder` makes them. Before each hybrid search
the scope's backlog (revisions indexed since its last search: just written, re-indexed after a
rename, migrated) is embedded and stored, so a just-written fact is found by its vector on the
next call. The search itself:

1. the index's shortlist, already restricted to revisions believed at ``known_at`` and valid at
   ``at`` (episodes: recorded by ``known_at``, happened by ``at``), inside the backend's query;
2. every remaining eligibility rule (blocks, kinds, the caller's rules, decay; for an episode,
   a refused envelope, blocks and the caller's rules) on the shortlist;
3. when fewer than ``k`` survive and the shortlist did not cover the scope, an exact search over
   every eligible-by-interval revision of the scope, judged the same way, read best first a
   prefix at a time until the prefix decides the answer. Seed 002: a filtered
   global shortlist can leave no results at all (a tenant's matches drowned by another
   tenant's, or by superseded revisions), so filtering afterwards is never the whole answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kg_memory.domain.embedding import Embedder
from kg_memory.domain.model import Assertion, Episode
from kg_memory.store.protocol import Store, VectorCandidates, VectorProbe

__all__ = ["BACKLOG_BATCH", "EXACT_FIRST", "catch_up", "nearest", "vector_space"]

#: Revisions embedded per call of the embedder while a backlog is drained.
BACKLOG_BATCH = 512
#: The first prefix of the exact fallback (at least ``4k``): its records, best first.
EXACT_FIRST = 100

R = TypeVar("R", Assertion, Episode)
#: The eligibility rules a vector shortlist still needs, as a filter that keeps the order.
Admit = Callable[[list[R]], list[R]]


def vector_space(embedder: Embedder) -> str:
    """The name a store's vectors are kept under: the model and its dimensions."""
    return f"{embedder.name}/{embedder.dimensions}"


def catch_up(store: Store, scope: str, embedder: Embedder) -> int:
    """Embed and store every revision and episode of ``scope`` still waiting for a vector;
    how many."""
    space, done = vector_space(embedder), 0
    while docs := store.vector_backlog(scope, space, BACKLOG_BATCH):
        vectors = embedder.embed([d.text for d in docs])
        store.put_vectors(scope, space, list(zip(docs, vectors, strict=True)))
        done += len(docs)
        if len(docs) < BACKLOG_BATCH:
            break
    return done


def _key(record: Assertion | Episode) -> str:
    if isinstance(record, Episode):
        return f"episode:{record.episode_id}"
    return f"fact:{record.assertion_id}#{record.revision}"


def _records(found: VectorCandidates, probe: VectorProbe) -> list[Any]:
    return list(found.facts if probe.corpus == "facts" else found.episodes)


def _judged(found: VectorCandidates, probe: VectorProbe, admit: Admit[R]
            ) -> list[tuple[R, float]]:
    records: list[R] = _records(found, probe)
    sims = {_key(r): s for r, s in zip(records, found.similarities, strict=True)}
    return [(r, sims[_key(r)]) for r in admit(records) if sims[_key(r)] > 0]


def nearest(store: Store, probe: VectorProbe, admit: Admit[R]
            ) -> tuple[dict[str, R], dict[str, float], str]:
    """The ``probe.k`` eligible records (revisions, or episodes for an episode probe) most
    similar to the probe's vector, by key, their similarities, and how they were found (the
    index's method, or ``exact`` after a fallback).

    ``admit`` applies the eligibility rules the index's query could not (it keeps the order).
    """
    found = store.vector_candidates(probe)
    chosen = _ranked(_judged(found, probe, admit))
    method = found.method
    if len(chosen) < probe.k and not found.complete:
        # The shortlist under-filled: score the eligible set exactly, best first, a prefix at a
        # time (a prefix four times longer each round), until the prefix holds k records the
        # rules admit that nothing after it could displace, or holds the whole set. A tenant's
        # whole set in one read (every eligible revision with its properties) grew with the
        # tenant; a prefix is bounded by how many of the best the rules reject.
        limit = max(EXACT_FIRST, 4 * probe.k)
        while True:
            found = store.vector_candidates(probe.model_copy(update={"exact": True, "k": limit}))
            chosen = _ranked(_judged(found, probe, admit))
            if found.complete or _settled(chosen, found, probe.k):
                break
            limit *= 4
        method = f"{method}+exact"
    chosen = chosen[:probe.k]
    return ({_key(r): r for r, _ in chosen}, {_key(r): s for r, s in chosen}, method)


def _ranked(chosen: list[tuple[R, float]]) -> list[tuple[R, float]]:
    return sorted(chosen, key=lambda rs: (-rs[1], _key(rs[0])))


def _settled(chosen: list[tuple[Any, float]], found: VectorCandidates, k: int) -> bool:
    """Whether a best-first prefix of the eligible set already decides the ``k`` best admitted
    records: every record after the prefix scores at most its last, so the k-th admitted must
    score strictly more (a tie could rank an unseen record first by its key), or the last
    must score at most 0 (a record that does not resemble the query is never chosen)."""
    if not found.similarities:
        return True
    last = min(found.similarities)
    return last <= 0 or (len(chosen) >= k and chosen[k - 1][1] > last)
