"""Manual decisions are honoured, never overturned; REVIEW decisions are re-scored."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_memory.domain.resolution import (
    AttributeValue,
    BlockingIndex,
    EntityProfile,
    Field,
    Mention,
    Outcome,
    ResolutionError,
    manual_decision,
    rescore,
    resolve,
)

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
NOW = datetime(2026, 1, 6, 12, tzinfo=UTC)
LATER = datetime(2026, 2, 1, 12, tzinfo=UTC)

JO = EntityProfile.model_validate(
    {
        "entity_id": "jo-j17",
        "scope": "s",
        "names": ["Jo"],
        "identifiers": [{"kind": "user_id", "value": "j17"}],
        "attributes": [
            {"attribute": "project", "value": "c1"},
            {"attribute": "role", "value": "pm"},
        ],
        "episode_ids": ["ep-1"],
    }
)
OTHER_JO = EntityProfile.model_validate(
    {
        "entity_id": "jo-reg",
        "scope": "s",
        "names": ["Jo"],
        "attributes": [{"attribute": "employer", "value": "Registry"}],
        "episode_ids": ["ep-2"],
    }
)
INDEX = BlockingIndex([JO, OTHER_JO])


def jo(**extra: object) -> Mention:
    return Mention.model_validate(
        {"mention_id": "m1", "name": "Jo", "scope": "s", "episode_id": "ep-9", "at": AT, **extra}
    )


def test_a_manual_decision_is_made_by_a_person_and_is_final() -> None:
    with pytest.raises(ResolutionError):
        manual_decision(
            jo(),
            Outcome.MERGE,
            entity_id="jo-j17",
            decided_by="resolver",
            decided_at=NOW,
            reason="",
        )
    with pytest.raises(ResolutionError):
        manual_decision(jo(), Outcome.REVIEW, decided_by="ana", decided_at=NOW, reason="")
    decision = manual_decision(
        jo(),
        Outcome.MERGE,
        entity_id="jo-j17",
        decided_by="ana",
        decided_at=NOW,
        reason="that is my PM",
    )
    assert decision.is_manual
    assert decision.automatic_outcome is None


def test_a_manual_merge_is_honoured_over_a_veto_with_evidence_attached() -> None:
    said = jo(identifiers=[{"kind": "user_id", "value": "j99"}])
    automatic = resolve(said, INDEX, now=NOW)
    assert automatic.candidate("jo-j17") is not None
    assert automatic.candidate("jo-j17").outcome is Outcome.KEEP_APART  # type: ignore[union-attr]
    manual = manual_decision(
        said,
        Outcome.MERGE,
        entity_id="jo-j17",
        decided_by="ana",
        decided_at=NOW,
        reason="j99 is Jo's test account",
    )
    honoured = resolve(said, INDEX, now=LATER, manual=manual)
    assert (honoured.outcome, honoured.entity_id) == (Outcome.MERGE, "jo-j17")
    assert honoured.decided_by == "ana"
    assert honoured.decided_at == NOW
    assert honoured.reason == "j99 is Jo's test account"
    assert honoured.automatic_outcome is automatic.outcome
    assert honoured.candidates == automatic.candidates
    assert honoured.vetoes == automatic.vetoes


def test_a_manual_keep_apart_is_honoured_over_a_merge() -> None:
    said = jo(identifiers=[{"kind": "user_id", "value": "j17"}])
    assert resolve(said, INDEX, now=NOW).outcome is Outcome.MERGE
    manual = manual_decision(
        said,
        Outcome.KEEP_APART,
        kept_apart_from=["jo-j17"],
        decided_by="ana",
        decided_at=NOW,
        reason="shared account",
    )
    honoured = resolve(said, INDEX, now=LATER, manual=manual)
    assert honoured.outcome is Outcome.KEEP_APART
    assert honoured.entity_id is None
    assert honoured.kept_apart_from == ("jo-j17",)
    assert honoured.automatic_outcome is Outcome.MERGE


def test_a_manual_decision_about_another_mention_is_refused() -> None:
    manual = manual_decision(jo(), Outcome.KEEP_APART, decided_by="ana", decided_at=NOW, reason="")
    other = jo(mention_id="m2")
    with pytest.raises(ResolutionError):
        resolve(other, INDEX, now=NOW, manual=manual)
    with pytest.raises(ResolutionError):
        resolve(jo(scope="t"), INDEX, now=NOW, manual=manual)


def test_rescore_resolves_a_review_when_the_mention_learns_more() -> None:
    review = resolve(jo(), INDEX, now=NOW)
    assert review.outcome is Outcome.REVIEW
    richer = jo(context={"project": "c1", "role": "pm"})
    fresh = rescore(review, INDEX, now=LATER, mention=richer, exclude=["provisional-jo"])
    assert (fresh.outcome, fresh.entity_id) == (Outcome.MERGE, "jo-j17")
    assert fresh.supersedes == review.decision_id
    assert fresh.decided_at == LATER


def test_rescore_resolves_a_review_when_a_profile_learns_more() -> None:
    said = jo(context={"employer": "Northwind"})
    index = BlockingIndex([JO])
    review = resolve(said, index, now=NOW)
    assert review.outcome is Outcome.REVIEW
    employer = AttributeValue(attribute=Field.EMPLOYER, value="Northwind", episode_id="ep-7")
    learnt = JO.model_copy(update={"attributes": (*JO.attributes, employer)})
    fresh = rescore(review, index.with_profiles([learnt]), now=LATER)
    assert (fresh.outcome, fresh.entity_id) == (Outcome.MERGE, "jo-j17")


def test_rescore_excludes_the_provisional_entity() -> None:
    review = resolve(
        jo(context={"employer": "Registry"}, co_mentions=["team/x"]), BlockingIndex([JO]), now=NOW
    )
    provisional = EntityProfile(entity_id="provisional", scope="s", names=("Jo",))
    with_itself = BlockingIndex([JO, provisional])
    fresh = rescore(review, with_itself, now=LATER, exclude=["provisional"])
    assert all(c.entity_id != "provisional" for c in fresh.candidates)


def test_rescore_leaves_final_automatic_decisions_alone() -> None:
    merged = resolve(jo(identifiers=[{"kind": "user_id", "value": "j17"}]), INDEX, now=NOW)
    assert merged.outcome is Outcome.MERGE
    assert rescore(merged, BlockingIndex([]), now=LATER) is merged


def test_rescore_never_overturns_a_manual_decision() -> None:
    manual = manual_decision(
        jo(), Outcome.KEEP_APART, decided_by="ana", decided_at=NOW, reason="a different Jo"
    )
    pointed = jo(identifiers=[{"kind": "user_id", "value": "j17"}])
    fresh = rescore(manual, INDEX, now=LATER, mention=pointed)
    assert fresh.outcome is Outcome.KEEP_APART
    assert fresh.decided_by == "ana"
    assert fresh.automatic_outcome is Outcome.MERGE  # the evidence is there, for audit


def test_rescore_refuses_another_mention() -> None:
    review = resolve(jo(), INDEX, now=NOW)
    with pytest.raises(ResolutionError):
        rescore(review, INDEX, now=LATER, mention=jo(mention_id="m2"))
