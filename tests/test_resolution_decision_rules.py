"""What a resolution decision may say, whoever makes it, and how fields compare when one side
knows nothing.

Rules protected: a MERGE names its entity and only a MERGE does; only a REVIEW links possible
matches, and always some; a person decides MERGE or KEEP_APART, never REVIEW; decision ids are
deterministic; an identifier compared against a profile without one is MISSING (no evidence),
not DIFFERENT (evidence against); a person on several projects at once is no contradiction.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    RESOLVER,
    EntityProfile,
    Mention,
    Outcome,
    ResolutionDecision,
    manual_decision,
)
from kg_memory.domain.resolution.comparison import compare, compare_values
from kg_memory.domain.resolution.decision import decision_id
from kg_memory.domain.resolution.field import Field, Level

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
MENTION = Mention(mention_id="m1", name="Jo", episode_id="e1", at=AT)
SINGLE = (Field.EMPLOYER, Field.ROLE, Field.CITY)


def decision(**fields: Any) -> ResolutionDecision:
    base: dict[str, Any] = {
        "decision_id": "d1", "mention": MENTION, "thresholds": DEFAULT_CONFIG.thresholds,
        "rule_version": DEFAULT_CONFIG.rule_version, "source_episode_ids": ("e1",),
        "decided_by": RESOLVER, "decided_at": AT, "reason": "test",
    }
    return ResolutionDecision.model_validate(base | fields)


def test_well_formed_decisions_of_each_outcome() -> None:
    assert decision(outcome=Outcome.MERGE, entity_id="jo-1").entity_id == "jo-1"
    assert decision(outcome=Outcome.KEEP_APART).entity_id is None
    review = decision(outcome=Outcome.REVIEW, possible_same_as=("jo-1", "jo-2"))
    assert review.possible_same_as == ("jo-1", "jo-2")
    copy = decision(outcome=Outcome.REVIEW, possible_same_as=("jo-1",), copy_of="jo-1")
    assert copy.copy_of == "jo-1"
    assert not review.is_manual
    assert decision(outcome=Outcome.KEEP_APART, decided_by="ana").is_manual


@pytest.mark.parametrize(("fields", "message"), [
    ({"outcome": Outcome.MERGE}, "MERGE decision names the entity_id"),
    ({"outcome": Outcome.KEEP_APART, "entity_id": "jo-1"}, "only a MERGE decision names"),
    ({"outcome": Outcome.REVIEW, "entity_id": "jo-1", "possible_same_as": ("jo-1",)},
     "only a MERGE decision names"),
    ({"outcome": Outcome.REVIEW}, "REVIEW decision names the candidates"),
    ({"outcome": Outcome.KEEP_APART, "possible_same_as": ("jo-1",)},
     "only a REVIEW decision has possible_same_as"),
    ({"outcome": Outcome.MERGE, "entity_id": "jo-1", "possible_same_as": ("jo-2",)},
     "only a REVIEW decision has possible_same_as"),
    ({"outcome": Outcome.REVIEW, "possible_same_as": ("jo-1",), "decided_by": "ana"},
     "never REVIEW"),
    ({"outcome": Outcome.KEEP_APART, "decided_by": ""}, "at least 1 character"),
    # Provisional copies belong to a REVIEW only: a MERGE or KEEP_APART naming one would leave
    # a copy no review ever resolves.
    ({"outcome": Outcome.MERGE, "entity_id": "jo-1", "copy_of": "jo-2"},
     "only a REVIEW decision names the entity its provisional copies"),
    ({"outcome": Outcome.KEEP_APART, "copy_of": "jo-2"},
     "only a REVIEW decision names the entity its provisional copies"),
])
def test_malformed_decisions_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decision(**fields)


def test_a_person_decides_merge_or_keep_apart_and_is_never_the_resolver() -> None:
    merged = manual_decision(MENTION, Outcome.MERGE, decided_by="ana", decided_at=AT,
                             reason="same person", entity_id="jo-1")
    assert (merged.outcome, merged.entity_id, merged.is_manual) == (Outcome.MERGE, "jo-1", True)
    apart = manual_decision(MENTION, Outcome.KEEP_APART, decided_by="ana", decided_at=AT,
                            reason="different", entity_id="ignored",
                            kept_apart_from=["jo-2", "jo-1", "jo-2"])
    assert apart.entity_id is None
    assert apart.kept_apart_from == ("jo-1", "jo-2")
    assert apart.source_episode_ids == ("e1",)
    assert apart.decision_id == decision_id("m1", "ana", AT)
    with pytest.raises(ValueError, match="made by a person"):
        manual_decision(MENTION, Outcome.MERGE, decided_by=RESOLVER, decided_at=AT,
                        reason="x", entity_id="jo-1")
    with pytest.raises(ValueError, match="REVIEW is the resolver's"):
        manual_decision(MENTION, Outcome.REVIEW, decided_by="ana", decided_at=AT, reason="x")


def test_decision_ids_are_deterministic_and_utc() -> None:
    from datetime import timedelta, timezone

    paris = AT.astimezone(timezone(timedelta(hours=1)))
    assert decision_id("m1", "ana", paris) == decision_id("m1", "ana", AT)
    assert decision_id("m1", "ana", AT) != decision_id("m1", "bob", AT)
    assert decision_id("m1", "ana", AT).endswith("2026-01-05T09:00:00.000000Z")


def _levels(profile: dict[str, Any], **mention: Any) -> dict[Field | str, Level]:
    m = Mention.model_validate({"mention_id": "m", "episode_id": "e", "at": AT, "name": "Jo",
                                **mention})
    p = EntityProfile.model_validate({"entity_id": "jo", "names": ["Jo"], **profile})
    return {c.field: c.level for c in compare(m, p, single_valued=SINGLE)}


def test_an_identifier_either_side_lacks_is_missing_not_different() -> None:
    ids = [{"kind": "user_id", "value": "j17"}]
    assert _levels({}, identifiers=ids)[Field.USER_ID] is Level.MISSING
    assert _levels({"identifiers": ids})[Field.USER_ID] is Level.MISSING
    assert _levels({"identifiers": ids}, identifiers=ids)[Field.USER_ID] is Level.EXACT
    other = [{"kind": "user_id", "value": "k42"}]
    assert _levels({"identifiers": ids}, identifiers=other)[Field.USER_ID] is Level.DIFFERENT


def test_several_projects_at_once_are_no_contradiction() -> None:
    profile = {"attributes": [{"attribute": "project", "value": "Cedar",
                               "valid": {"start": "2025-01-01T00:00:00Z"}}]}
    levels = _levels(profile, context={"project": "Birch"})
    assert levels[Field.PROJECT] is Level.DIFFERENT
    assert levels[Field.TEMPORAL] is Level.MISSING  # project is not single-valued
    city = {"attributes": [{"attribute": "city", "value": "York",
                            "valid": {"start": "2025-01-01T00:00:00Z"}}]}
    assert _levels(city, context={"city": "Leeds"})[Field.TEMPORAL] is Level.DIFFERENT
    assert _levels(city, context={"city": "York"})[Field.TEMPORAL] is Level.EXACT


@pytest.mark.parametrize(("a", "b", "level"), [
    ("Acme", "acme", Level.EXACT),
    ("Acme", "Acme Ltd", Level.CLOSE),
    ("The Acme Team", "Acme", Level.CLOSE),
    ("Northwind", "Northwnd", Level.CLOSE),  # one edit in a word of five letters or more
    ("Leeds", "Leods", Level.CLOSE),
    ("York", "Yorm", Level.DIFFERENT),  # too short for a typo to count
    ("Northwind", "Nrthwnd", Level.DIFFERENT),  # two edits
    ("Ltd", "Inc", Level.DIFFERENT),  # filler alone is no agreement
])
def test_free_text_values_typo_and_filler_thresholds(a: str, b: str, level: Level) -> None:
    assert compare_values(a, b) is level
    assert compare_values(b, a) is level
