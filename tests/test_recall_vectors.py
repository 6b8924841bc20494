"""Recall's vector index on both backends: eligibility before ranking, the exact fallback when
the index's shortlist under-fills, brute force as the reference, and the smaller contracts
(a just-written fact found by vector on the next call, one vector space per store, busy)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from kg_memory import HashingEmbedder, Memory, RecallError, StoreBusy
from kg_memory.domain.eligibility import RecallContext
from kg_memory.domain.embedding import cosine
from kg_memory.domain.model import Assertion, Episode
from kg_memory.domain.recall_text import fact_words
from kg_memory.services.recall import RecallRequest, recall
from kg_memory.store.protocol import VectorCandidates, VectorProbe
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact

EMBEDDER = HashingEmbedder()


def _ingest(memory: Memory, op: str, n: float, facts: list[dict[str, object]],
            scope: str = "u1") -> None:
    memory.ingest(episode(op, "user", day(n), scope=scope, content="", assertions=facts))


def test_hybrid_ranks_the_same_neighbours_as_brute_force_over_the_eligible_set(
    memory: Memory, clock: ManualClock
) -> None:
    words = ["vegetarian", "vegetables", "vegan", "veal", "concert", "porto", "lisbon",
             "booth", "window", "aisle", "coffee", "tea"]
    _ingest(memory, "op-1", 0, [fact(f"s{i}", "note", w) for i, w in enumerate(words)])
    # Superseded on day 2: the old values must never come back, by text or by vector.
    _ingest(memory, "op-2", 2, [fact("s0", "note", "carnivore"), fact("s1", "note", "fruit")])
    clock.now = day(3)
    answer = memory.recall("vegetarian food", scope="u1", include_episodes=False, limit=100,
                           embedder=EMBEDDER)
    got = {h.id: h.score.vector for h in answer.results if h.score.vector is not None}
    [query] = EMBEDDER.embed(["vegetarian food"])
    want = {}
    for f in memory.asof(scope="u1").facts:  # the eligible set, brute force
        # No entity names in this store: the embedded text is the fact's own words.
        [vec] = EMBEDDER.embed([fact_words(f, f.qualifiers.project,
                                           f.qualifiers.exceptions)])
        sim = cosine(query, vec)
        if sim > 0:
            want[f.assertion_id] = sim
    assert got.keys() == want.keys()
    assert all(math.isclose(got[k], want[k], abs_tol=1e-3) for k in got)
    # The superseded "vegetarian" and "vegetables" were the best vector matches: never shown.
    assert not {"vegetarian", "vegetables"} & {h.value for h in answer.results}
    assert {"carnivore", "vegan"} <= {h.value for h in answer.results}
    assert answer.vector_method is not None


@dataclass(frozen=True)
class OnlyAbout:
    """A deployment's permission model: this caller may see facts about one subject only."""

    subject: str
    name: str = "not_permitted"

    def excludes_fact(self, fact: Assertion, context: RecallContext) -> bool:
        return fact.subject != self.subject

    def excludes_episode(self, episode: Episode, context: RecallContext) -> bool:
        return False


def test_an_under_filled_shortlist_falls_back_to_exact_scoring_of_the_eligible_set(
    memory: Memory, clock: ManualClock
) -> None:
    # 300 facts near the query crowd every shortlist, all refused by a permission rule; the one
    # fact the caller may see is far from the query (a few shared trigrams) and found by its
    # vector alone.
    for batch in range(3):
        _ingest(memory, f"op-{batch}", 0, [
            fact(f"s{batch}-{i}", "note", f"vegetarian diet {batch} {i}")
            for i in range(100)])
    _ingest(memory, "op-w", 0, [fact("ana", "meal", "vegetables")])
    clock.now = day(1)
    request = RecallRequest(
        query="vegetarian diet", scope="u1", at=day(1), known_at=day(1), now=day(1),
        include_episodes=False, embedder=EMBEDDER, rules=(OnlyAbout("ana"),),
        vector_candidates=5, vector_exact_below=0)
    answer = recall(memory.store, request)
    assert answer.excluded["not_permitted"] == 300  # the lexical candidates, counted
    assert [h.value for h in answer.results] == ["vegetables"]
    assert answer.results[0].score.bm25 == 0
    assert answer.results[0].score.vector_rank == 1
    assert answer.vector_method is not None
    assert answer.vector_method.endswith("+exact")


def test_the_exact_fallback_reads_a_prefix_of_the_eligible_set_not_all_of_it(
    memory: Memory, clock: ManualClock
) -> None:
    """Rule: when the shortlist under-fills, the exact search reads the eligible set best first
    a prefix at a time, until the prefix decides the k best admitted records; it read every
    eligible revision of the tenant, with its properties, whatever the tenant's size."""
    refused = [fact(f"s{i}", "note", f"vegetarian diet {i}") for i in range(300)]
    seen = [fact("ana", f"meal{i}", f"{w} vegetables {i}") for i, w in enumerate(
        ["steamed", "roasted", "grilled", "raw", "pickled", "fried"] * 50)]
    _ingest(memory, "op-1", 0, refused[:150] + seen[:150])
    _ingest(memory, "op-2", 0, refused[150:] + seen[150:])
    clock.now = day(1)
    store = memory.store
    real = store.vector_candidates
    exact_reads: list[int] = []

    def counted(probe: VectorProbe) -> VectorCandidates:
        found = real(probe)
        if probe.exact:
            exact_reads.append(len(found.facts))
        return found

    store.vector_candidates = counted  # type: ignore[method-assign]
    request = RecallRequest(
        query="vegetarian diet", scope="u1", at=day(1), known_at=day(1), now=day(1),
        include_episodes=False, embedder=EMBEDDER, rules=(OnlyAbout("ana"),),
        vector_candidates=5, vector_exact_below=0)
    answer = recall(store, request)
    store.vector_candidates = real  # type: ignore[method-assign]
    assert answer.vector_method is not None
    assert answer.vector_method.endswith("+exact")
    # Bounded: no read carried the whole eligible set (600 revisions).
    assert exact_reads
    assert max(exact_reads) < 600
    # The same answer as brute force over the whole eligible set, by the rule's subject.
    [query] = EMBEDDER.embed(["vegetarian diet"])
    brute = sorted(((cosine(query, EMBEDDER.embed([fact_words(
        f, f.qualifiers.project, f.qualifiers.exceptions)])[0]), f.value)
        for f in memory.asof(scope="u1").facts if f.subject == "ana"), reverse=True)
    by_vector = sorted((h for h in answer.results if h.score.vector_rank is not None),
                       key=lambda h: h.score.vector_rank or 0)
    assert [h.value for h in by_vector] == [v for _, v in brute[:5]]


def test_a_just_written_fact_is_found_by_its_vector_on_the_next_call(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, "op-1", 0, [fact("ana", "diet", "vegetarian")])
    clock.now = day(1)
    memory.recall("vegetable", scope="u1", embedder=EMBEDDER)  # enrols the scope
    _ingest(memory, "op-2", 1, [fact("bo", "diet", "vegetables only")])
    clock.now = day(2)
    answer = memory.recall("vegetable", scope="u1", include_episodes=False, embedder=EMBEDDER)
    assert {"vegetarian", "vegetables only"} <= {h.value for h in answer.results}


def test_vectors_of_another_model_are_refused_not_mixed(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, "op-1", 0, [fact("ana", "diet", "vegetarian")])
    clock.now = day(1)
    memory.recall("vegetable", scope="u1", embedder=EMBEDDER)

    class Other(HashingEmbedder):
        name = "other-model"

    with pytest.raises(RecallError, match="hashing-trigram/256"):
        memory.recall("vegetable", scope="u1", embedder=Other())


def test_a_recall_refused_by_a_held_write_lock_is_busy_not_unavailable(
    tmp_path: Path
) -> None:
    db = tmp_path / "m.db"
    clock = ManualClock(day(0))
    with Memory.open(db, clock=clock) as memory:
        _ingest(memory, "op-1", 0, [fact("ana", "diet", "vegetarian")])
    clock.now = day(1)
    holder = driver.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Memory.open(db, clock=clock, create=False, busy_timeout=0.05) as memory:
            # Lexical recall reads without waiting for the writer (WAL)...
            assert memory.recall("vegetarian", scope="u1").status == "ok"
            # ...a hybrid one must file the new revision's vector first, and cannot now.
            with pytest.raises(StoreBusy):
                memory.recall("vegetarian", scope="u1", embedder=EMBEDDER)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_subject_pools_a_merged_group_like_asof_does(memory: Memory, clock: ManualClock) -> None:
    memory.ingest(episode("op-1", "user", day(0), scope="acme", content="", entities=[
        {"entity_id": "j17", "name": "Jo"}, {"entity_id": "jo2", "name": "Joanna"},
        {"entity_id": "jb", "name": "Jo Baker"}], assertions=[
        fact("jo2", "report_style", "concise bullets"),
        fact("jb", "report_style", "concise prose")]))
    clock.now = day(1)
    memory.merge("j17", "jo2", by="ana", reason="same person", scope="acme")
    clock.now = day(2)
    answer = memory.recall("concise report style", scope="acme", subject="j17",
                           include_episodes=False)
    by_subject = {h.subject: h.score.specificity for h in answer.results}
    assert by_subject["jo2"] > by_subject["jb"]  # the merged person's fact counts as Jo's
    assert answer.results[0].subject == "jo2"
    # Before the merge (as known on day 0.5) it was someone else's.
    before = memory.recall("concise report style", scope="acme", subject="j17",
                           include_episodes=False, known_at=day(0.5), at=day(0.5))
    assert {h.subject: h.score.specificity for h in before.results}["jo2"] == 0
