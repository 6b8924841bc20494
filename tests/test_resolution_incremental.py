"""The incremental API: add a mention, get the decision and the grown profile, against a
blocking index updated in place that always answers as a freshly built one would."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.domain.resolution import (
    BlockingIndex,
    Context,
    EntityProfile,
    IncrementalResolver,
    Mention,
    Outcome,
    UpdatableIndex,
    manual_decision,
)

AT = datetime(2026, 2, 1, 9, tzinfo=UTC)
NAMES = ("Jo Park", "Joanna Park", "Jo", "Bob Tables", "Robert Tables", "Park,", "Jan van Dijk")


def _mention(i: int, name: str, scope: str = "a", **context: str) -> Mention:
    return Mention(mention_id=f"m{i}", name=name, scope=scope, episode_id=f"e{i}", at=AT,
                   context=Context(**context))


def test_add_merges_grows_the_profile_and_updates_the_index() -> None:
    resolver = IncrementalResolver()
    first = resolver.add(_mention(1, "Ada Lovelace", birth_date="1815-12-10",
                                  street="St James Square"), now=AT)
    assert first.created
    assert first.decision.outcome is Outcome.KEEP_APART
    second = resolver.add(_mention(2, "Ada Lovelace", birth_date="1815-12-10",
                                   postcode="SW1Y 4LE"), now=AT)
    assert second.decision.outcome is Outcome.MERGE
    assert second.entity_id == first.entity_id
    assert not second.created
    assert second.profile.episode_ids == ("e1", "e2")
    assert {a.value for a in second.profile.attributes} >= {"St James Square", "SW1Y 4LE"}
    assert resolver.index.profile("a", first.entity_id) == second.profile
    assert len(resolver.index) == 1


def test_a_review_founds_a_provisional_entity_and_scopes_never_meet() -> None:
    resolver = IncrementalResolver()
    resolver.add(_mention(1, "Jo", city="Leeds"), now=AT)
    resolver.add(_mention(2, "Jo", city="York"), now=AT)
    third = resolver.add(_mention(3, "Jo", city="Leeds"), now=AT)
    assert third.decision.outcome is Outcome.REVIEW
    assert third.created
    other = resolver.add(_mention(4, "Jo", scope="b", city="Leeds"), now=AT)
    assert other.decision.candidates == ()
    assert other.decision.outcome is Outcome.KEEP_APART


def test_a_manual_decision_is_honoured_by_add() -> None:
    resolver = IncrementalResolver()
    seen = resolver.add(_mention(1, "Ada Lovelace", birth_date="1815-12-10"), now=AT)
    said = _mention(2, "Ada Lovelace", birth_date="1815-12-10")
    apart = manual_decision(said, Outcome.KEEP_APART, kept_apart_from=[seen.entity_id],
                            decided_by="ana", decided_at=AT, reason="two Adas")
    added = resolver.add(said, now=AT, manual=apart)
    assert added.decision.outcome is Outcome.KEEP_APART
    assert added.decision.automatic_outcome is Outcome.MERGE
    assert added.created


def _profile(entity_id: int, name: str, scope: str) -> EntityProfile:
    return EntityProfile(entity_id=f"p{entity_id}", scope=scope, names=(name,))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(NAMES), st.sampled_from("ab"),
                          st.booleans()), max_size=25))
def test_the_updatable_index_answers_as_a_rebuilt_one(
    steps: list[tuple[int, str, str, bool]],
) -> None:
    live = UpdatableIndex()
    reference: dict[tuple[str, str], EntityProfile] = {}
    for entity_id, name, scope, remove in steps:
        profile = _profile(entity_id, name, scope)
        if remove:
            assert (live.remove(scope, profile.entity_id) is None) == (
                (scope, profile.entity_id) not in reference)
            reference.pop((scope, profile.entity_id), None)
        else:
            live.upsert(profile)
            reference[(scope, profile.entity_id)] = profile
        rebuilt = BlockingIndex(reference.values())
        for probe, name_ in enumerate(NAMES):
            for s in "ab":
                mention = _mention(probe, name_, scope=s)
                assert live.candidates(mention) == rebuilt.candidates(mention)
        assert live.profiles() == rebuilt.profiles()
