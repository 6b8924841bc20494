"""Seed 004's promotion rules stated one by one: who may move a rule, when, and what is kept.

``tests/test_layers.py`` walks the Mt. Moon case through the rule book; here each transition is
checked as a pure function, with a small reference for "ready to promote", at the cases where a
dropped condition would let a rule promote itself or lose its history.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import PolicyError
from kg_memory.domain.layers import (
    Observation,
    Outcome,
    PromotionPolicy,
    Rule,
    RuleType,
    Tier,
    approve,
    move_signal,
    observe,
    overturn,
    promote,
    promotion_ready,
    review,
)
from tests.conftest import day

POLICY = PromotionPolicy()


def _obs(n: int, task: str, scene: str = "deploy", holds: bool = True) -> Observation:
    return Observation(episode_id=f"ep{n}", task_id=task, scene=scene, at=day(n), holds=holds)


def _rule(tier: Tier = Tier.SESSION, **fields: object) -> Rule:
    return Rule.model_validate({"rule_id": "r1", "scope": "u1", "content": "retry on 503",
                                "tier": tier, **fields})


READY = (_obs(1, "t1", "deploy"), _obs(2, "t2", "migrate"), _obs(3, "t3", "deploy"))

# -- ready to promote: distinct tasks and scenes within the window, no counterexample ----------

observations = st.lists(st.builds(
    _obs, n=st.integers(0, 12), task=st.sampled_from(("t1", "t2", "t3", "t4")),
    scene=st.sampled_from(("deploy", "migrate", "audit")), holds=st.integers(0, 5).map(bool)),
    max_size=7)


@given(basis=observations, now=st.integers(0, 14), confirmations=st.integers(1, 4),
       scenes=st.integers(1, 3), window=st.integers(1, 10))
def test_a_session_rule_is_ready_exactly_when_seed_004_says(
    basis: list[Observation], now: int, confirmations: int, scenes: int, window: int
) -> None:
    recent = [o for o in basis if o.holds and now - window <= (o.at - day(0)).days <= now]
    expected = (not any(not o.holds for o in basis)
                and len({o.task_id for o in recent}) >= confirmations
                and len({o.scene for o in recent}) >= scenes)
    policy = PromotionPolicy(confirmations=confirmations, scenes=scenes, window_days=window)
    assert promotion_ready(_rule(basis=tuple(basis)), policy, day(now))[0] == expected


def test_the_window_includes_its_first_day_and_excludes_the_future() -> None:
    rule = _rule(basis=READY)
    assert promotion_ready(rule, PromotionPolicy(window_days=2), day(3))[0]  # day 1 counts
    assert not promotion_ready(rule, PromotionPolicy(window_days=1.9), day(3))[0]
    assert not promotion_ready(rule, POLICY, day(2))[0]  # day 3's task has not happened yet
    counter = _rule(basis=(*READY, _obs(0, "t0", holds=False)))
    assert promotion_ready(counter, POLICY, day(4)) == (False, "1 counterexample(s)")


def test_the_seed_004_scaffold_defaults_and_bounds() -> None:
    assert (POLICY.confirmations, POLICY.scenes, POLICY.window_days) == (3, 2, 30)
    for bad in ({"confirmations": 0}, {"scenes": 0}, {"window_days": 0}):
        with pytest.raises(ValidationError):
            PromotionPolicy.model_validate(bad)
    assert PromotionPolicy(confirmations=1, scenes=1, window_days=0.5).confirmations == 1


@pytest.mark.parametrize("window", [math.inf, -math.inf, math.nan, 1e999, 0, -3, 36_526])
def test_a_promotion_window_is_a_finite_positive_number_of_days_up_to_a_century(
    window: float
) -> None:
    """Rule: the window's start is a datetime, so an infinite window (or one past the
    calendar) is refused, naming the field, rather than overflowing in ``promotion_ready``."""
    with pytest.raises(ValidationError, match="window_days"):
        PromotionPolicy(window_days=window)
    for accepted in (36_525, 1e-3):
        assert PromotionPolicy(window_days=accepted).window_days == accepted
    assert promotion_ready(_rule(basis=READY), PromotionPolicy(window_days=36_525), day(3))[0]


def test_enough_tasks_in_too_few_scenes_is_not_ready() -> None:
    """Rule: promotion needs both, distinct tasks and enough scene tags; three tasks all in one
    scene fall short of the default two scenes."""
    one_scene = (_obs(1, "t1"), _obs(2, "t2"), _obs(3, "t3"))
    assert promotion_ready(_rule(basis=one_scene), POLICY, day(4)) == (False,
                                                                         "1 of 2 scene tags")
    with pytest.raises(PolicyError, match="stays in session: 1 of 2 scene tags"):
        promote(_rule(basis=one_scene), POLICY, day(4))


def test_a_review_period_is_any_positive_number_of_days() -> None:
    """Rule: ``review_every_days`` is unset or positive; a period under a day is a period, zero
    or a negative one would send the rule to review at once, forever, and is refused."""
    assert _rule(review_every_days=0.5).review_every_days == 0.5
    assert _rule().review_every_days is None
    for bad in (0, -1):
        with pytest.raises(ValidationError):
            _rule(review_every_days=bad)


# -- observing: a counterexample sends a trusted rule to review --------------------------------


@pytest.mark.parametrize("tier", [Tier.EXPERIENCE, Tier.METADATA])
def test_a_counterexample_sends_a_trusted_active_rule_to_review(tier: Tier) -> None:
    seen = observe(_rule(tier), _obs(4, "t9", holds=False))
    assert seen.status == "review"
    assert seen.counterexamples == (_obs(4, "t9", holds=False),)
    assert [(t.by, t.action, t.at) for t in seen.transitions] == [("kg-memory", "review",
                                                                   day(4))]


def test_a_counterexample_is_only_recorded_for_a_session_note_or_a_rule_already_in_review(
) -> None:
    note = observe(_rule(), _obs(4, "t9", holds=False))
    assert (note.status, note.transitions, len(note.basis)) == ("active", (), 1)
    pending = observe(_rule(Tier.EXPERIENCE, status="review"), _obs(4, "t9", holds=False))
    assert (pending.status, pending.transitions) == ("review", ())
    held = observe(_rule(Tier.METADATA), _obs(4, "t9"))
    assert (held.status, held.transitions, held.counterexamples) == ("active", (), ())


# -- promoting: one tier at a time, and never into metadata without a person -------------------


def test_a_ready_session_rule_promotes_to_experience_and_says_why() -> None:
    promoted = promote(_rule(basis=READY), POLICY, day(4))
    assert (promoted.tier, promoted.candidate) == (Tier.EXPERIENCE, False)
    [step] = promoted.transitions
    assert (step.by, step.action, step.at) == ("kg-memory", "promoted to experience", day(4))
    assert step.reason == "3 tasks across 2 scenes"


def test_an_unready_session_rule_stays_and_says_what_is_missing() -> None:
    with pytest.raises(PolicyError, match="stays in session: 1 of 3 confirmations"):
        promote(_rule(basis=READY[:1]), POLICY, day(4))


def test_experience_only_becomes_a_candidate_and_metadata_goes_no_further() -> None:
    proposed = promote(_rule(Tier.EXPERIENCE), POLICY, day(4))
    assert (proposed.tier, proposed.candidate) == (Tier.EXPERIENCE, True)
    assert proposed.transitions[-1].action == "proposed for metadata"
    with pytest.raises(PolicyError, match="already metadata"):
        promote(_rule(Tier.METADATA), POLICY, day(4))


@pytest.mark.parametrize("status", ["review", "expired", "overturned"])
def test_only_active_rules_promote(status: str) -> None:
    with pytest.raises(PolicyError, match="only active rules promote"):
        promote(_rule(Tier.EXPERIENCE, status=status, basis=READY), POLICY, day(4))


def test_a_safety_constraint_never_promotes() -> None:
    with pytest.raises(PolicyError, match="design change"):
        promote(_rule(type=RuleType.SAFETY, basis=READY), POLICY, day(4))


# -- approving: a person, a candidate, and for safety an explicit design change ---------------


def test_a_person_approves_a_candidate_into_metadata() -> None:
    approved = approve(_rule(Tier.EXPERIENCE, candidate=True), "ana", day(5))
    assert (approved.tier, approved.candidate) == (Tier.METADATA, False)
    assert (approved.transitions[-1].by, approved.transitions[-1].at) == ("ana", day(5))


@pytest.mark.parametrize("by", ["", "   "])
def test_an_approval_names_who_approved(by: str) -> None:
    with pytest.raises(PolicyError, match="names who"):
        approve(_rule(Tier.EXPERIENCE, candidate=True), by, day(5))


def test_a_non_candidate_needs_a_design_change_and_safety_always_does() -> None:
    with pytest.raises(PolicyError, match="not a metadata candidate"):
        approve(_rule(Tier.EXPERIENCE), "ana", day(5))
    assert approve(_rule(Tier.EXPERIENCE), "ana", day(5), design_change=True).tier is (
        Tier.METADATA)
    safety = _rule(Tier.EXPERIENCE, candidate=True, type=RuleType.SAFETY)
    with pytest.raises(PolicyError, match="design change"):
        approve(safety, "ana", day(5))
    assert approve(safety, "ana", day(5), design_change=True).tier is Tier.METADATA


# -- environment signals ----------------------------------------------------------------------


def test_a_moved_signal_sends_a_bound_rule_to_review_once_it_differs() -> None:
    rule = _rule(Tier.METADATA, signals={"schema": "v1"})
    moved = move_signal(rule, "schema", "v2", day(6))
    assert moved.status == "review"
    assert moved.transitions[-1].reason == "signal schema: v1 -> v2"
    assert move_signal(rule, "schema", "v1", day(6)) is rule  # the value it was learned under
    assert move_signal(rule, "config", "v9", day(6)) is rule  # a signal it is not bound to
    again = move_signal(moved, "schema", "v3", day(7))
    assert (again.status, len(again.transitions)) == ("review", 2)


@pytest.mark.parametrize("status", ["expired", "overturned"])
def test_a_signal_does_not_revive_a_finished_rule(status: str) -> None:
    rule = _rule(Tier.METADATA, signals={"schema": "v1"}, status=status)
    assert move_signal(rule, "schema", "v2", day(6)) is rule


# -- review and overturn: an ending, who decided it, and the rule kept ------------------------


@pytest.mark.parametrize(("tier", "lower"), [(Tier.METADATA, Tier.EXPERIENCE),
                                              (Tier.EXPERIENCE, Tier.SESSION)])
def test_demoting_moves_one_tier_down_active_and_no_longer_a_candidate(tier: Tier,
                                                                       lower: Tier) -> None:
    demoted = review(_rule(tier, status="review", candidate=True), Outcome.DEMOTE, "ana", day(8))
    assert (demoted.tier, demoted.status, demoted.candidate) == (lower, "active", False)
    assert demoted.transitions[-1].action == f"demoted to {lower.value}"


def test_demoting_a_session_note_overturns_it_and_expiring_ends_candidacy() -> None:
    note = review(_rule(status="review"), Outcome.DEMOTE, "ana", day(8))
    assert (note.tier, note.status) == (Tier.SESSION, "overturned")
    expired = review(_rule(Tier.EXPERIENCE, candidate=True), Outcome.EXPIRE, "ana", day(8))
    assert (expired.status, expired.candidate, expired.tier) == ("expired", False,
                                                                 Tier.EXPERIENCE)
    kept = review(_rule(Tier.METADATA, status="review"), Outcome.KEEP, "ana", day(8), "fine")
    assert (kept.status, kept.tier, kept.transitions[-1].reason) == ("active", Tier.METADATA,
                                                                     "fine")


def test_an_overturned_session_note_is_not_a_metadata_candidate() -> None:
    """Rule: a rule leaves candidacy when it is overturned, and demoting a session note
    overturns it; it never becomes a candidate on the way out."""
    for note in (_rule(status="review"), _rule(status="review", candidate=True)):
        overturned = review(note, Outcome.DEMOTE, "ana", day(8))
        assert (overturned.status, overturned.candidate) == ("overturned", False)


def test_a_review_and_an_overturn_name_who_and_an_overturn_why() -> None:
    with pytest.raises(PolicyError):
        review(_rule(), Outcome.KEEP, " ", day(8))
    for by, reason in (("", "falsified"), ("ana", " ")):
        with pytest.raises(PolicyError, match="who and why"):
            overturn(_rule(), by, day(8), reason)


def test_an_overturned_rule_is_kept_with_its_basis_and_history() -> None:
    rule = _rule(Tier.METADATA, candidate=True, basis=READY)
    gone = overturn(rule, "ana", day(9), "falsified by t4")
    assert (gone.status, gone.candidate, gone.basis) == ("overturned", False, READY)
    assert [(t.by, t.action, t.reason) for t in gone.transitions] == [
        ("ana", "overturned", "falsified by t4")]


def test_rules_observations_and_transitions_are_records_changed_only_by_the_rules_above() -> None:
    # Every change goes through a function that appends a Transition; an edit in place would
    # leave no trace of who changed the rule.
    rule = promote(_rule(basis=READY), POLICY, day(4))
    for record in (rule, rule.basis[0], rule.transitions[0], POLICY):
        field = next(iter(type(record).model_fields))
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, getattr(record, field))


def test_an_observation_holds_unless_it_is_marked_as_a_counterexample() -> None:
    seen = Observation(episode_id="ep1", task_id="t1", scene="deploy", at=day(1))
    assert seen.holds
    assert _rule().candidate is False
    assert _rule().status == "active"


# -- safety constraints and falsified rules stay what they are --------------------------------


@pytest.mark.parametrize("outcome", [Outcome.DEMOTE, Outcome.EXPIRE])
def test_a_review_changes_a_safety_constraint_only_by_a_design_change(outcome: Outcome) -> None:
    """Seed 004: safety-constraint metadata moves only with a design change and human review,
    so a review may keep one, but demoting or expiring it takes ``design_change``."""
    safety = _rule(Tier.METADATA, status="review", type=RuleType.SAFETY)
    with pytest.raises(PolicyError, match="design change"):
        review(safety, outcome, "ana", day(8))
    changed = review(safety, outcome, "ana", day(8), design_change=True)
    assert changed.status != "review"
    assert review(safety, Outcome.KEEP, "ana", day(8)).status == "active"


def test_a_safety_constraint_is_overturned_only_by_a_design_change() -> None:
    safety = _rule(Tier.METADATA, type=RuleType.SAFETY)
    with pytest.raises(PolicyError, match="design change"):
        overturn(safety, "ana", day(9), "looked wrong")
    assert overturn(safety, "ana", day(9), "redesigned", design_change=True).status == (
        "overturned")


@pytest.mark.parametrize("outcome", list(Outcome))
def test_an_expired_rule_stays_expired_whatever_a_review_says(outcome: Outcome) -> None:
    """Rule: keep must not undo an expiry. An expired rule is finished, as a falsified one is
    (a moved signal does not revive it either): a review of it is refused with a typed error
    and the rule is unchanged, so no keep or demote makes it active again."""
    for tier in Tier:
        expired = review(_rule(tier, status="review", basis=READY), Outcome.EXPIRE, "ana",
                         day(9))
        with pytest.raises(PolicyError, match="expired"):
            review(expired, outcome, "bob", day(10), "still fine")
        assert expired.status == "expired"


@pytest.mark.parametrize("outcome", list(Outcome))
def test_a_falsified_rule_stays_a_counterexample_whatever_a_review_says(
    outcome: Outcome,
) -> None:
    """A falsified rule is kept as a counterexample: no review revives, demotes or expires it
    (its correction is a new rule that names it in ``corrects``)."""
    gone = overturn(_rule(Tier.EXPERIENCE, basis=READY), "ana", day(9), "falsified")
    with pytest.raises(PolicyError, match="overturned"):
        review(gone, outcome, "bob", day(10))
