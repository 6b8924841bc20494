"""Recall over long conversations (issue 26, "Slow on episodes"): what the faster path must keep.

The speed itself is measured by ``python -m kg_memory.bench.recall_episodes`` (docs/recall.md),
never asserted here; these tests pin what the changes behind it rely on: neighbours read from
the message's place in the conversation index, ties included; each corpus ranked only as far as
the answer's limit; BM25 computed once per query term with the reference's floats.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.bench.recall_episodes import conversation_records, episode_probes, run
from kg_memory.domain.ranking import (
    CorpusStats,
    RankingWeights,
    Scored,
    bm25,
    document_frequencies,
    rank,
)
from tests.conftest import ManualClock, day, episode


def test_neighbours_of_messages_at_one_instant_follow_the_conversation_order(
    memory: Memory, clock: ManualClock
) -> None:
    # Three messages share an instant: the conversation orders them by episode id, and each
    # one's neighbours are the messages just before and after it in that order.
    said = [("m0", 0.0, "alpha"), ("m1", 0.5, "bravo"), ("m2", 0.5, "charlie"),
            ("m3", 0.5, "delta"), ("m4", 0.9, "echo")]
    ids = {}
    for op, when, word in said:
        clock.now = day(1)
        ids[word] = memory.ingest(episode(op, "user", day(when), scope="u1",
                                          content=f"{word} words")).episode_id
    clock.now = day(2)
    order = sorted(said, key=lambda s: (s[1], ids[s[2]]))
    for i, (_, _, word) in enumerate(order):
        [hit] = [h for h in memory.recall(word, scope="u1").results if h.type == "episode"]
        assert hit.id == ids[word]
        around = [w for _, _, w in order[max(0, i - 1):i] + order[i + 1:i + 2]]
        assert [c.episode_id for c in hit.context] == [ids[w] for w in around], word


_TERMS = st.sampled_from(["tea", "cake", "jam", "scone", "milk", "sugar"])


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(st.lists(_TERMS, max_size=12), min_size=1, max_size=25),
       query=st.lists(_TERMS, min_size=1, max_size=4, unique=True),
       recency=st.lists(st.floats(0, 1), min_size=25, max_size=25),
       limit=st.integers(1, 30), k1=st.floats(0, 3), b=st.floats(0, 1))
def test_a_limited_ranking_is_the_head_of_the_whole_one_with_the_references_bm25(
    docs: list[list[str]], query: list[str], recency: list[float], limit: int, k1: float,
    b: float,
) -> None:
    weights = RankingWeights(k1=k1, b=b)
    stats = CorpusStats(documents=len(docs) + 3, tokens=sum(map(len, docs)) + 7)
    df = document_frequencies(docs, query)
    scored = [Scored(key=f"d{i:02d}", terms=d, specificity=0.0, recency=recency[i],
                     evidence=0.5) for i, d in enumerate(docs)]
    whole = rank(scored, query, df, stats, weights=weights)
    assert rank(scored, query, df, stats, weights=weights, limit=limit) == whole[:limit]
    for r in whole:  # the same floats as the one-document reference, not merely close
        doc = docs[int(r.key[1:])]
        assert r.bm25 == bm25(doc, query, df, stats, weights)
        assert r.score == r.relevance * (1 + 0.3 * 0.0 + weights.recency * r.recency
                                         + weights.evidence * 0.5)
    assert whole == sorted(whole, key=lambda r: (-r.score, r.key))
    assert all(math.isfinite(r.score) for r in whole)


def test_document_frequencies_count_each_document_once_from_any_iterable() -> None:
    docs = [["tea", "tea", "jam"], ["jam"], [], ["milk", "tea"]]
    expected = {"tea": 2, "jam": 2, "cake": 0}
    assert document_frequencies(docs, ("tea", "jam", "cake")) == expected
    assert document_frequencies(iter(docs), ("tea", "jam", "cake")) == expected


def test_the_conversation_bench_runs_small_and_writes_every_answer(tmp_path: Path) -> None:
    records = list(conversation_records(seed=1, scopes=2, turns=30, facts=3))
    assert len(records) == 60
    assert {r.scope for r in records} == {"chat-000", "chat-001"}
    assert sum(bool(r.assertions) for r in records) >= 4
    probes = episode_probes(seed=1, scopes=2, turns=30, count=12)
    assert probes == episode_probes(seed=1, scopes=2, turns=30, count=12)
    assert all(5 <= len(p.query.split()) <= 10 for p in probes)
    out = tmp_path / "answers.json"
    figures = run(tmp_path, seed=1, scopes=2, turns=30, facts=3, queries=12, answers_to=out)
    assert (figures.queries, figures.scopes, figures.turns) == (12, 2, 30)
    assert figures.recall.count == figures.fts5.count == 12
    assert figures.median_vs_fts5 > 0
    assert figures.mean_candidates > 0
    answers = json.loads(out.read_text(encoding="utf-8"))
    assert len(answers) == 12
    assert all(a["status"] in ("ok", "empty") for a in answers)
    assert any(h["type"] == "episode" for a in answers for h in a["results"])
