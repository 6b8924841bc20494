"""As-of recall without leakage, checked by properties against a brute-force reference.

Random logs of episodes (facts over a small vocabulary, corrections over part of valid time,
messages, two tenants) are written while the clock moves. After each step a live search runs
"now". At the end every one of those searches is replayed with ``known_at`` set to its time
and must return exactly the same records with the same scores: nothing written, corrected or
superseded later leaks into the replay.

The reference knows nothing of the index: it reads every revision through ``history`` and
every episode through ``episodes``, keeps what was believed (recorded) at known_at in the
tenant, applies validity at ``at``, and recomputes BM25 with its own formula. The recall's
eligible results and BM25 components must equal it.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import Memory, RecallAnswer
from kg_memory.domain.recall_text import episode_document, fact_document, query_terms
from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

WORDS = ("tea", "coffee", "sushi", "pizza", "window", "quiet", "cedar", "birch")
SUBJECTS = ("ana", "jo")
PREDICATES = ("likes", "seat")


@dataclass(frozen=True)
class Step:
    scope: str
    content: tuple[str, ...]
    facts: tuple[tuple[str, str, tuple[str, ...], int | None], ...]  # subject, pred, words, from
    advance: int  # hours the clock moves before this step
    query: tuple[str, ...]


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(tuple)
steps = st.builds(
    Step,
    scope=st.sampled_from(("u1", "u1", "u2")),
    content=words,
    facts=st.lists(st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(PREDICATES), words,
                             st.one_of(st.none(), st.integers(-48, 48))),
                   max_size=2).map(tuple),
    advance=st.integers(0, 30),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(tuple),
)


def _bm25(doc: list[str], terms: tuple[str, ...], corpus: list[list[str]]) -> float:
    """Okapi BM25, k1 = 1.2, b = 0.75, idf ln(1 + (N - n + 0.5) / (n + 0.5)), written out."""
    n_docs = len(corpus)
    avgdl = sum(len(d) for d in corpus) / n_docs
    tf = Counter(doc)
    total = 0.0
    for t in terms:
        if tf[t] == 0:
            continue
        n = sum(1 for d in corpus if t in d)
        idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
        total += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(doc) / avgdl))
    return total


def reference(memory: Memory, scope: str, query: str, at: datetime, known_at: datetime
              ) -> dict[str, float]:
    """``record id -> BM25`` of every eligible record matching the query, by brute force."""
    terms = query_terms(query)
    revisions = [h.version for s in SUBJECTS for h in memory.history(s, scope=scope)
                 if h.version.system.contains(known_at)]
    fact_docs = {f"{v.assertion_id}#{v.revision}": fact_document(
        v, v.qualifiers.project, v.qualifiers.exceptions).split() for v in revisions}
    out: dict[str, float] = {}
    for v in revisions:
        key = f"{v.assertion_id}#{v.revision}"
        score = _bm25(fact_docs[key], terms, list(fact_docs.values()))
        if v.valid.contains(at) and score > 0:
            out[key] = score
    ids = list(memory.store.find_episodes("user", scope))
    episodes = [e for e in memory.store.episodes(ids) if e.recorded_at <= known_at]
    docs = {e.episode_id: episode_document(e.content).split() for e in episodes}
    for e in episodes:
        score = _bm25(docs[e.episode_id], terms, [d for d in docs.values() if d])
        if e.occurred_at <= at and score > 0:
            out[e.episode_id] = score
    return out


def _found(answer: RecallAnswer) -> dict[str, float]:
    return {i: h.score.bm25 for i, h in zip(answer.ids(), answer.results, strict=True)}


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=1e-9) for k in a)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(log=st.lists(steps, min_size=1, max_size=8))
def test_a_replay_at_known_at_is_the_search_run_then(make_memory: MemoryFactory,
                                                     log: list[Step]) -> None:
    clock = ManualClock(EPOCH)
    memory = make_memory(clock)
    live: list[tuple[Step, datetime, RecallAnswer]] = []
    for n, step in enumerate(log):
        clock.now += timedelta(hours=step.advance)
        assertions = []
        for s, p, w, start in step.facts:
            extra: dict[str, Any] = {}
            if start is not None:
                extra["valid_from"] = clock.now + timedelta(hours=start)
            assertions.append(fact(s, p, " ".join(w), **extra))
        memory.ingest(episode(f"op-{n}", "user", clock.now, scope=step.scope,
                              content=" ".join(step.content), assertions=assertions))
        # A live search right after the write, "now" on both axes.
        answer = memory.recall(" ".join(step.query), scope="u1", limit=100)
        live.append((step, clock.now, answer))

    for step, then, answer in live:
        query = " ".join(step.query)
        replay = memory.recall(query, scope="u1", at=then, known_at=then, limit=100)
        # Exactly the search run then: same records, same order, same scores.
        assert replay.ids() == answer.ids()
        assert [h.score for h in replay.results] == [h.score for h in answer.results]
        assert replay.excluded == answer.excluded or replay.candidates > answer.candidates
        # And what the brute-force reference recomputes from the as-of snapshot.
        assert _same(_found(replay), reference(memory, "u1", query, then, then))
        # A replay on another valid-time point, same known_at, still matches the reference.
        earlier = then - timedelta(hours=24)
        assert _same(_found(memory.recall(query, scope="u1", at=earlier, known_at=then,
                                          limit=100)),
                     reference(memory, "u1", query, earlier, then))
