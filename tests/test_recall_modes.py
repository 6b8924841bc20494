"""Recall's ranking mode (issue 26): lexical, vector or hybrid, one eligibility for all three.

``lexical`` never reads vectors even with an embedder configured; ``vector`` ranks the eligible
set by vector similarity alone (a record sharing no word with the query is found, an ineligible
one never); both vector modes need an embedder, and a request that cannot be served is a typed
:class:`~kg_memory.RecallError`, never an empty answer.
"""

from __future__ import annotations

import pytest

from kg_memory import HashingEmbedder, Memory, RecallError
from tests.conftest import ManualClock, day, episode, fact


def _say(memory: Memory, op: str, when_day: float, content: str, *facts: dict[str, object],
         scope: str = "u1") -> None:
    memory.ingest(episode(op, "user", day(when_day), scope=scope, content=content,
                          assertions=list(facts)))


def _profile(memory: Memory, clock: ManualClock) -> None:
    _say(memory, "op-1", 0, "", fact("ana", "diet", "vegetarian"))
    _say(memory, "op-2", 0, "", fact("ana", "old_diet", "vegetables only", valid_to=day(0.5)))
    _say(memory, "op-3", 0, "", fact("bo", "diet", "vegetarian"), scope="u2")
    clock.now = day(1)


def test_the_default_is_hybrid_with_an_embedder_and_lexical_without(
    memory: Memory, clock: ManualClock
) -> None:
    _profile(memory, clock)
    assert memory.recall("vegetarian", scope="u1").mode == "lexical"
    answer = memory.recall("vegetarian", scope="u1", embedder=HashingEmbedder())
    assert (answer.mode, answer.vector_method is not None) == ("hybrid", True)


def test_lexical_mode_ignores_a_configured_embedder(memory: Memory, clock: ManualClock) -> None:
    _profile(memory, clock)
    memory.use_embedder(HashingEmbedder())
    answer = memory.recall("vegetable", scope="u1", include_episodes=False, mode="lexical")
    assert (answer.mode, answer.vector_method, answer.results) == ("lexical", None, ())


def test_vector_mode_ranks_by_similarity_alone_over_the_eligible_set(
    memory: Memory, clock: ManualClock
) -> None:
    _profile(memory, clock)
    answer = memory.recall("vegetable", scope="u1", include_episodes=False, mode="vector",
                           embedder=HashingEmbedder())
    assert answer.mode == "vector"
    # No word shared: found by its vector, scored by it alone; the ended fact and the other
    # tenant's never, however near.
    assert [(h.subject, h.value) for h in answer.results] == [("ana", "vegetarian")]
    [hit] = answer.results
    assert (hit.score.bm25, hit.score.lexical_rank, hit.score.vector_rank) == (0, None, 1)
    # A query of stop words alone has no term to match but a meaning to embed.
    assert memory.recall("what is it", scope="u1", mode="vector",
                         embedder=HashingEmbedder()).mode == "vector"


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_a_vector_mode_without_an_embedder_is_a_typed_error(
    memory: Memory, clock: ManualClock, mode: str
) -> None:
    _profile(memory, clock)
    with pytest.raises(RecallError, match=f"{mode} recall needs an embedder"):
        memory.recall("vegetarian", scope="u1", mode=mode)  # type: ignore[arg-type]


def test_an_unknown_mode_is_a_typed_error(memory: Memory, clock: ManualClock) -> None:
    _profile(memory, clock)
    with pytest.raises(RecallError, match="mode must be one of lexical, vector, hybrid"):
        memory.recall("vegetarian", scope="u1", mode="semantic",  # type: ignore[arg-type]
                      embedder=HashingEmbedder())


def test_a_tenants_scoped_memory_takes_the_mode_too(memory: Memory, clock: ManualClock) -> None:
    """``ScopedMemory.recall`` is ``Memory.recall`` in its scope: every argument, ``mode``
    included (it was missing, so a tenant's handle could not ask for vector recall)."""
    _profile(memory, clock)
    memory.use_embedder(HashingEmbedder())
    scoped = memory.scoped("u1").recall("vegetable", include_episodes=False, mode="vector")
    direct = memory.recall("vegetable", scope="u1", include_episodes=False, mode="vector")
    assert scoped.mode == "vector"
    assert [(h.subject, h.value) for h in scoped.results] == \
        [(h.subject, h.value) for h in direct.results] == [("ana", "vegetarian")]
    assert memory.scoped("u1").recall("vegetable", mode="lexical").results == ()
