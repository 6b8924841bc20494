"""The resolver's rules, one by one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from kg_memory.domain.errors import NaiveDatetimeError
from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    RESOLVER,
    BlockingIndex,
    ConstantScorer,
    EntityProfile,
    Field,
    Level,
    Mention,
    Outcome,
    ResolutionDecision,
    ResolverConfig,
    Thresholds,
    VetoReason,
    posterior,
    resolve,
)

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
NOW = datetime(2026, 1, 6, 12, tzinfo=UTC)
SINCE = {"start": "2024-01-01T00:00:00Z"}


def person(
    entity_id: str,
    name: str,
    *,
    ids: dict[str, str] | None = None,
    type_: str = "person",
    co: tuple[str, ...] = (),
    **attrs: str,
) -> EntityProfile:
    """A profile; employer, role and city hold from 2024 on, other attributes are untimed."""
    attributes = [
        {
            "attribute": k,
            "value": v,
            **({"valid": SINCE} if k in ("employer", "role", "city") else {}),
        }
        for k, v in attrs.items()
    ]
    return EntityProfile.model_validate(
        {
            "entity_id": entity_id,
            "scope": "s",
            "type": type_,
            "names": [name],
            "identifiers": [{"kind": k, "value": v} for k, v in (ids or {}).items()],
            "attributes": attributes,
            "co_mentions": co,
            "episode_ids": [f"{entity_id}/ep"],
        }
    )


def mention(
    name: str,
    *,
    ids: dict[str, str] | None = None,
    co: tuple[str, ...] = (),
    entity_type: str | None = "person",
    **context: str,
) -> Mention:
    return Mention.model_validate(
        {
            "mention_id": "m1",
            "name": name,
            "scope": "s",
            "entity_type": entity_type,
            "identifiers": [{"kind": k, "value": v} for k, v in (ids or {}).items()],
            "context": context,
            "co_mentions": co,
            "episode_id": "ep-m1",
            "at": AT,
        }
    )


PRIYA = person(
    "priya",
    "Priya Raman",
    employer="Acme",
    role="engineer",
    city="Leeds",
    relation="friend",
    project="Cedar",
    ids={"email": "priya@acme.example"},
)


def test_posterior_is_prior_odds_times_likelihood_ratio() -> None:
    assert posterior(0.5, 0.0) == pytest.approx(0.5)
    assert posterior(0.2, 2.0) == pytest.approx(0.5)  # odds 1/4 * 2**2 = 1
    assert posterior(0.5, 500.0) == pytest.approx(1.0)
    assert 0.0 <= posterior(0.5, -500.0) < 1e-15


#: The hand-set weights, under which a lone exact name alone reaches the merge threshold: the
#: rules below must hold whatever the weights say (the learned ones give names little weight).
HAND_SET = ResolverConfig.with_weights(None)


def test_a_name_alone_never_merges_even_a_rare_lone_candidate() -> None:
    decision = resolve(mention("Priya Raman"), BlockingIndex([PRIYA]), now=NOW, config=HAND_SET)
    assert decision.outcome is Outcome.REVIEW
    assert decision.posterior is not None
    assert decision.posterior >= DEFAULT_CONFIG.thresholds.merge
    assert decision.possible_same_as == ("priya",)
    assert "name alone" in decision.reason


def test_a_name_and_a_distinguishing_attribute_merge() -> None:
    decision = resolve(mention("Priya Raman", employer="Acme"), BlockingIndex([PRIYA]), now=NOW)
    assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, "priya")
    (candidate,) = decision.candidates
    assert candidate.corroborated_by == (Field.EMPLOYER,)


def test_a_conflicting_user_id_is_a_veto() -> None:
    known = person("p", "Priya Raman", employer="Acme", ids={"user_id": "u1"})
    decision = resolve(
        mention("Priya Raman", employer="Acme", ids={"user_id": "u2"}),
        BlockingIndex([known]),
        now=NOW,
    )
    assert decision.outcome is Outcome.KEEP_APART
    (veto,) = decision.vetoes
    assert (veto.entity_id, veto.reason, veto.field) == (
        "p",
        VetoReason.IDENTIFIER_CONFLICT,
        Field.USER_ID,
    )


def test_a_type_mismatch_is_a_veto() -> None:
    org = person("org", "Jordan Park", type_="organisation", employer="Acme")
    decision = resolve(mention("Jordan Park", employer="Acme"), BlockingIndex([org]), now=NOW)
    assert decision.outcome is Outcome.KEEP_APART
    assert [v.reason for v in decision.vetoes] == [VetoReason.TYPE_MISMATCH]


def test_a_second_email_is_evidence_not_a_veto() -> None:
    decision = resolve(
        mention("Priya Raman", employer="Acme", role="engineer", ids={"email": "p@home.example"}),
        BlockingIndex([PRIYA]),
        now=NOW,
    )
    assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, "priya")
    (candidate,) = decision.candidates
    email = next(f for f in candidate.fields if f.field is Field.EMAIL)
    assert email.level is Level.DIFFERENT
    assert email.weight < 0


def test_a_shared_household_phone_does_not_merge_another_given_name() -> None:
    amara = person("amara", "Amara Okafor", city="Leeds", ids={"phone": "+44 20 7946 0018"})
    decision = resolve(
        mention("Kwame Okafor", city="Leeds", ids={"phone": "+442079460018"}),
        BlockingIndex([amara]),
        now=NOW,
    )
    assert decision.outcome is not Outcome.MERGE
    (candidate,) = decision.candidates
    assert candidate.level(Field.PHONE) is Level.EXACT
    assert candidate.level(Field.GIVEN_NAME) is Level.DIFFERENT


def test_a_user_id_settles_a_changed_name() -> None:
    amara = person("amara", "Amara Okafor", ids={"user_id": "u1"})
    decision = resolve(
        mention("Amara Brennan", ids={"user_id": "u1"}), BlockingIndex([amara]), now=NOW
    )
    assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, "amara")


def test_more_namesakes_and_commoner_names_lower_the_prior() -> None:
    def prior(*profiles: EntityProfile, name: str) -> float:
        decision = resolve(mention(name), BlockingIndex(profiles), now=NOW)
        return decision.candidates[0].prior

    one = prior(person("a", "Priya Raman"), name="Priya Raman")
    three = prior(*(person(i, "Priya Raman") for i in "abc"), name="Priya Raman")
    common = prior(person("a", "John Smith"), name="John Smith")
    assert one == pytest.approx(0.5)
    assert three < one
    assert common < one


def test_weak_corroboration_is_not_enough() -> None:
    # "Acme" vs "Acme Group" is a fuzzy match worth ~1.3 bits: below the corroboration floor.
    decision = resolve(
        mention("Priya Raman", employer="Acme Group"), BlockingIndex([PRIYA]), now=NOW
    )
    assert decision.outcome is Outcome.REVIEW
    assert "below" in decision.reason


def test_shared_generic_attributes_do_not_outvote_a_distinguishing_contradiction() -> None:
    index = BlockingIndex([PRIYA])
    contradicted = resolve(
        mention("Priya Raman", employer="Globex", city="Leeds", relation="friend", role="engineer"),
        index,
        now=NOW,
    )
    assert contradicted.outcome is Outcome.REVIEW
    assert "employer contradicts" in contradicted.reason
    settled = resolve(
        mention(
            "Priya Raman",
            employer="Globex",
            project="Cedar",
            city="Leeds",
            relation="friend",
            role="engineer",
        ),
        index,
        now=NOW,
    )
    assert (settled.outcome, settled.entity_id) == (Outcome.MERGE, "priya")


def test_namesakes_need_a_distinguishing_field_to_merge() -> None:
    twins = [
        person("a", "Priya Raman", employer="Acme", city="Leeds"),
        person("b", "Priya Raman", employer="Globex", city="York"),
    ]
    generic = resolve(
        mention("Priya Raman", city="Leeds"), BlockingIndex(twins), now=NOW, config=HAND_SET
    )
    assert generic.outcome is Outcome.REVIEW
    assert "share the name" in generic.reason
    lone = resolve(mention("Priya Raman", city="Leeds"), BlockingIndex(twins[:1]), now=NOW)
    assert (lone.outcome, lone.entity_id) == (Outcome.MERGE, "a")
    specific = resolve(mention("Priya Raman", employer="Acme"), BlockingIndex(twins), now=NOW)
    assert (specific.outcome, specific.entity_id) == (Outcome.MERGE, "a")


def test_two_plausible_candidates_make_it_ambiguous() -> None:
    twins = [
        person("a", "Priya Raman", employer="Acme"),
        person("b", "Priya Raman", employer="Acme"),
    ]
    decision = resolve(mention("Priya Raman", employer="Acme"), BlockingIndex(twins), now=NOW)
    assert decision.outcome is Outcome.REVIEW
    assert decision.possible_same_as == ("a", "b")
    assert "ambiguous" in decision.reason


def test_namesakes_are_told_apart_by_what_distinguishes_them() -> None:
    index = BlockingIndex(
        [
            person("acme-john", "John Smith", employer="Acme", city="Leeds"),
            person("globex-john", "John Smith", employer="Globex", city="York"),
        ]
    )
    decision = resolve(mention("John Smith", employer="Globex"), index, now=NOW)
    assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, "globex-john")
    newcomer = resolve(mention("John Smith", employer="Initech", city="Bath"), index, now=NOW)
    assert newcomer.outcome is Outcome.KEEP_APART


def test_no_candidate_means_keep_apart() -> None:
    decision = resolve(mention("Kwame Mensah"), BlockingIndex([PRIYA]), now=NOW)
    assert decision.outcome is Outcome.KEEP_APART
    assert decision.candidates == ()
    assert decision.prior is None
    assert decision.entity_id is None


def test_the_decision_holds_all_of_its_evidence() -> None:
    decision = resolve(mention("Priya Raman", employer="Acme"), BlockingIndex([PRIYA]), now=NOW)
    assert decision.mention == mention("Priya Raman", employer="Acme")
    assert decision.decided_by == RESOLVER
    assert not decision.is_manual
    assert decision.decided_at == NOW
    assert decision.rule_version == DEFAULT_CONFIG.rule_version
    assert decision.thresholds == DEFAULT_CONFIG.thresholds
    assert decision.source_episode_ids == ("ep-m1", "priya/ep")
    assert decision.automatic_outcome is Outcome.MERGE
    (candidate,) = decision.candidates
    assert [f.field for f in candidate.fields] == list(Field)
    assert candidate.weight == pytest.approx(sum(f.weight for f in candidate.fields))
    assert candidate.posterior == pytest.approx(posterior(candidate.prior, candidate.weight))
    assert candidate.blocking_keys
    assert candidate.episode_ids == ("priya/ep",)
    assert decision.decision_id == "m1@resolver@2026-01-06T12:00:00.000000Z"


def test_a_decision_round_trips_through_json() -> None:
    scorer = ConstantScorer("s", 1.0)
    index = BlockingIndex([PRIYA, person("b", "Priya Raman", employer="Globex")])
    decision = resolve(mention("Priya", employer="Acme"), index, now=NOW, scorer=scorer)
    assert ResolutionDecision.model_validate_json(decision.model_dump_json()) == decision


def test_now_must_be_aware() -> None:
    with pytest.raises(NaiveDatetimeError):
        resolve(mention("Priya Raman"), BlockingIndex([PRIYA]), now=datetime(2026, 1, 6))


def test_resolution_is_deterministic() -> None:
    index = BlockingIndex([PRIYA, person("b", "Priya Raman", employer="Globex")])
    m = mention("Priya", employer="Acme", co=("project/cedar",))
    assert resolve(m, index, now=NOW) == resolve(m, index, now=NOW)


class RecordingScorer:
    """Says +100 bits about everyone, and remembers whom it was asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    @property
    def name(self) -> str:
        return "recording"

    def score(self, mention: Mention, profile: EntityProfile) -> tuple[float, str] | None:
        self.asked.append(profile.entity_id)
        return 100.0, "very sure"


def test_a_scorer_adds_clipped_evidence_but_cannot_stand_in_for_a_field() -> None:
    scorer = RecordingScorer()
    decision = resolve(mention("Priya Raman"), BlockingIndex([PRIYA]), now=NOW, scorer=scorer)
    assert decision.outcome is Outcome.REVIEW  # still only the name agrees
    (candidate,) = decision.candidates
    (evidence,) = candidate.scorers
    assert (evidence.raw_weight, evidence.weight) == (100.0, DEFAULT_CONFIG.max_scorer_weight)


def test_a_scorer_cannot_override_a_veto_and_is_not_asked() -> None:
    scorer = RecordingScorer()
    known = person("p", "Priya Raman", employer="Acme", ids={"user_id": "u1"})
    decision = resolve(
        mention("Priya Raman", employer="Acme", ids={"user_id": "u2"}),
        BlockingIndex([known]),
        now=NOW,
        scorer=scorer,
    )
    assert decision.outcome is Outcome.KEEP_APART
    assert scorer.asked == []


def test_a_negative_scorer_can_hold_back_a_merge() -> None:
    doubtful = ConstantScorer("doubtful", -3.0)
    m = mention("Priya Raman", relation="friend")
    assert resolve(m, BlockingIndex([PRIYA]), now=NOW).outcome is Outcome.MERGE
    assert resolve(m, BlockingIndex([PRIYA]), now=NOW, scorer=doubtful).outcome is Outcome.REVIEW


def test_the_config_is_frozen_versioned_and_validated() -> None:
    assert DEFAULT_CONFIG.rule_version
    with pytest.raises(ValidationError):
        DEFAULT_CONFIG.rule_version = "mine"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Thresholds(merge=0.5, keep_apart=0.6)
    with pytest.raises(TypeError):
        DEFAULT_CONFIG.fields[Field.CITY] = DEFAULT_CONFIG.fields[Field.PROJECT]  # type: ignore[index]
    assert ResolverConfig.model_validate_json(DEFAULT_CONFIG.model_dump_json()) == DEFAULT_CONFIG
    assert DEFAULT_CONFIG.weight(Field.CITY, Level.MISSING) == 0.0
    assert DEFAULT_CONFIG.weight(Field.USER_ID, Level.EXACT) > 10
    assert DEFAULT_CONFIG.weight(Field.GIVEN_NAME, Level.DIFFERENT) < 0


def test_regression_a_bare_given_name_and_a_shared_city_never_merge() -> None:
    """Issue 15: a full name merged into an earlier *different* person recorded only by given
    name in the same city, at posterior 0.97. One weak field is not enough for a partial name."""
    from kg_memory.domain.resolution import Context, EntityProfile, Mention, grow_profile

    seen = grow_profile(None, "jo-1", Mention(mention_id="s", name="Jo", episode_id="s", at=AT,
                                              context=Context(city="Leeds")))
    full = Mention(mention_id="m", name="Jo Smith", episode_id="m", at=AT,
                   context=Context(city="Leeds"))
    decision = resolve(full, BlockingIndex([seen]), now=AT)
    assert decision.outcome is not Outcome.MERGE
    surname_only = EntityProfile(entity_id="s-1", names=("Smith,",))
    said = full.model_copy(update={"name": "Jo Smith"})
    assert resolve(said, BlockingIndex([surname_only.model_copy(update={
        "attributes": seen.attributes})]), now=AT).outcome is not Outcome.MERGE
