"""Unmerge: facts go back to the entity their lineage says they came from."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_memory.domain.resolution import (
    AttachedFact,
    BlockingIndex,
    EntityProfile,
    Mention,
    Outcome,
    ResolutionError,
    manual_decision,
    resolve,
    unmerge,
)

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
JO = EntityProfile.model_validate(
    {
        "entity_id": "jo-1",
        "scope": "s",
        "names": ["Jo Park"],
        "identifiers": [{"kind": "user_id", "value": "j17"}],
        "episode_ids": ["e1", "e2"],
    }
)
SAID = Mention.model_validate(
    {
        "mention_id": "m9",
        "name": "Jo Park",
        "scope": "s",
        "episode_id": "e9",
        "at": AT,
        "identifiers": [{"kind": "user_id", "value": "j17"}],
    }
)
MERGE = resolve(SAID, BlockingIndex([JO]), now=AT)


def fact(fact_id: str, *episodes: str) -> AttachedFact:
    return AttachedFact(fact_id=fact_id, episode_ids=episodes)


def test_facts_go_back_by_lineage() -> None:
    assert MERGE.outcome is Outcome.MERGE
    plan = unmerge(
        MERGE,
        [fact("f1", "e1"), fact("f9", "e9"), fact("f2", "e2", "e1")],
        restored_entity_id="jo-2",
    )
    assert plan.entity_of("f1") == ("jo-1",)
    assert plan.entity_of("f2") == ("jo-1",)
    assert plan.entity_of("f9") == ("jo-2",)
    assert plan.split == ()
    assert plan.unattributed == ()
    assert (plan.merged_entity_id, plan.restored_entity_id) == ("jo-1", "jo-2")
    assert plan.decision_id == MERGE.decision_id


def test_a_fact_both_sides_said_is_split_with_each_side_s_support() -> None:
    plan = unmerge(MERGE, [fact("acme", "e1", "e9")], restored_entity_id="jo-2")
    assert plan.split == ("acme",)
    assert {(a.entity_id, a.episode_ids) for a in plan.assignments} == {
        ("jo-1", ("e1",)),
        ("jo-2", ("e9",)),
    }


def test_facts_from_later_episodes_stay_and_are_flagged() -> None:
    plan = unmerge(MERGE, [fact("later", "e20")], restored_entity_id="jo-2")
    assert plan.entity_of("later") == ("jo-1",)
    assert plan.unattributed == ("later",)


def test_the_caller_can_name_more_episodes_that_came_with_the_merge() -> None:
    plan = unmerge(
        MERGE, [fact("later", "e20")], restored_entity_id="jo-2", mention_episode_ids=["e20"]
    )
    assert plan.entity_of("later") == ("jo-2",)


def test_a_manual_merge_can_be_undone_too() -> None:
    manual = manual_decision(
        SAID, Outcome.MERGE, entity_id="jo-1", decided_by="ana", decided_at=AT, reason="same Jo"
    )
    plan = unmerge(manual, [fact("f1", "e1"), fact("f9", "e9")], restored_entity_id="jo-2")
    assert [(a.fact_id, a.entity_id) for a in plan.assignments] == [("f1", "jo-1"), ("f9", "jo-2")]


def test_only_merges_can_be_undone() -> None:
    review = resolve(SAID.model_copy(update={"identifiers": ()}), BlockingIndex([JO]), now=AT)
    assert review.outcome is Outcome.REVIEW
    with pytest.raises(ResolutionError):
        unmerge(review, [], restored_entity_id="jo-2")
    with pytest.raises(ResolutionError):
        unmerge(MERGE, [], restored_entity_id="jo-1")
    with pytest.raises(ResolutionError):
        unmerge(MERGE, [fact("f", "e1"), fact("f", "e2")], restored_entity_id="jo-2")
