"""The rule review rules (seed 004, ``kg_memory.domain.rule_review``) restated from the module's
documentation: when a dated review condition comes due, what forgetting a rule's basis does to
it (against a small reference model), and what cutting forgotten words from a rule leaves.

``tests/test_rule_dependencies.py`` shows the rules by example through the rule book; here
each is checked at the boundaries where a flipped comparison or a dropped operand would change
the answer.
"""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory.domain.layers import Observation, PromotionPolicy, Rule, RuleType, Tier
from kg_memory.domain.residue import Matcher
from kg_memory.domain.rule_review import (
    cut_words,
    forget_basis,
    forget_words,
    forgotten_rule,
    next_review,
    review_due,
)
from tests.conftest import ManualClock, MemoryFactory, day, episode

POLICY = PromotionPolicy()  # 3 distinct tasks across 2 scene tags
STATUSES = ("active", "review", "expired", "overturned")


def _obs(n: int, task: str, scene: str, holds: bool = True) -> Observation:
    return Observation(episode_id=f"ep{n}", task_id=task, scene=scene, at=day(n), holds=holds)


def _rule(basis: tuple[Observation, ...] = (), **changes: object) -> Rule:
    fields: dict[str, object] = {"rule_id": "r", "scope": "u1", "content": "x",
                                 "tier": Tier.EXPERIENCE, "basis": basis}
    return Rule.model_validate(fields | changes)


# -- dated review conditions ----------------------------------------------------------------


def test_the_next_review_is_the_earlier_of_the_expiry_and_the_recheck_date() -> None:
    """next_review: "when the rule's dated review conditions next come due", the first of
    ``expires_at`` and ``review_every_days`` after the last transition."""
    weekly = _rule(proposed_at=day(0), review_every_days=7)
    assert next_review(weekly.model_copy(update={"expires_at": day(3)})) == day(3)
    assert next_review(weekly.model_copy(update={"expires_at": day(9)})) == day(7)
    assert next_review(_rule(expires_at=day(4))) == day(4)


def test_a_recheck_period_counts_from_a_transition_so_a_rule_without_one_is_not_dated() -> None:
    """``review_every_days`` runs from the rule's last transition (its proposal, a promotion,
    a review): a rule with none has no date for it, and only its expiry (if any) is due."""
    never_moved = _rule(review_every_days=7)
    assert next_review(never_moved) is None
    assert review_due(never_moved, day(400)) is None
    assert next_review(never_moved.model_copy(update={"expires_at": day(5)})) == day(5)
    assert next_review(never_moved._moved("ana", day(2), "kept")) == day(9)


# -- forgetting a rule's basis: the reference --------------------------------------------------


def _reference_outcome(rule: Rule, erased: set[str], policy: PromotionPolicy
                       ) -> tuple[str, int, int] | None:
    """The module docstring's rule, written out case by case: (outcome, dropped, kept)."""
    kept = [o for o in rule.basis if o.episode_id not in erased]
    dropped = len(rule.basis) - len(kept)
    if dropped == 0:
        return None
    held = [o for o in kept if o.holds]
    enough = (len({o.task_id for o in held}) >= policy.confirmations
              and len({o.scene for o in held}) >= policy.scenes)
    if not kept:
        if rule.type is not RuleType.SAFETY:
            outcome = "delete"
        else:  # a safety constraint changes only by design: a person looks (if it is live)
            outcome = "review" if rule.status == "active" else "trim"
    elif rule.status != "active" or rule.tier is Tier.SESSION or enough:
        outcome = "trim"
    else:
        outcome = "review"
    return outcome, dropped, len(kept)


# Drawn so that what is left often sits at the policy's count (mostly live rules, mostly
# observations that held, one or two erased), where a flipped comparison changes the outcome.
_observation = st.tuples(st.sampled_from(("t0", "t1", "t2", "t3")),
                         st.sampled_from(("a", "b", "c")),
                         st.sampled_from((True, True, True, False)))


@given(left=st.lists(_observation, max_size=5), gone=st.lists(_observation, max_size=2),
       order=st.randoms(use_true_random=False),
       tier=st.sampled_from(list(Tier)),
       safety=st.booleans(),
       status=st.sampled_from(("active", "active", *STATUSES)),
       confirmations=st.integers(1, 3), scenes=st.integers(1, 3))
def test_forgetting_basis_follows_the_reference(
    left: list[tuple[str, str, bool]], gone: list[tuple[str, str, bool]], order: Random,
    tier: Tier, safety: bool, status: str, confirmations: int, scenes: int
) -> None:
    drawn = [(o, False) for o in left] + [(o, True) for o in gone]
    order.shuffle(drawn)  # the erased observations anywhere in the basis
    basis = tuple(_obs(n, task, scene, holds)
                  for n, ((task, scene, holds), _) in enumerate(drawn))
    rule = _rule(basis, tier=tier, status=status,
                 type=RuleType.SAFETY if safety else RuleType.EXPERIENCE)
    policy = PromotionPolicy(confirmations=confirmations, scenes=scenes)
    episodes = {f"ep{n}" for n, (_, erased) in enumerate(drawn) if erased} | {"not-a-basis"}
    entry = forget_basis(rule, episodes, policy)
    expected = _reference_outcome(rule, episodes, policy)
    assert (None if entry is None else (entry.outcome, entry.dropped, entry.kept)) == expected
    if entry is not None:
        assert (entry.rule_id, entry.cut) == ("r", 0)  # counts only; no words were cut


def test_what_is_left_must_span_enough_scenes_as_well_as_enough_tasks() -> None:
    """Promotion's count is ``confirmations`` distinct tasks *across* ``scenes`` scene tags: a
    trusted rule left with three tasks in one scene, or two tasks in two scenes, goes to
    review; three tasks in three scenes is more than enough."""
    two_tasks = _rule((_obs(0, "t0", "a"), _obs(1, "t1", "b"), _obs(2, "t1", "b"),
                       _obs(3, "t3", "b")))
    entry = forget_basis(two_tasks, {"ep3"}, POLICY)
    assert entry is not None
    assert (entry.outcome, entry.kept) == ("review", 3)
    one_scene = _rule((_obs(0, "t0", "a"), _obs(1, "t1", "a"), _obs(2, "t2", "a"),
                       _obs(3, "t3", "b")))
    entry = forget_basis(one_scene, {"ep3"}, POLICY)
    assert entry is not None
    assert (entry.outcome, entry.kept) == ("review", 3)
    three_scenes = _rule((_obs(0, "t0", "a"), _obs(1, "t1", "b"), _obs(2, "t2", "c"),
                          _obs(3, "t3", "c")))
    entry = forget_basis(three_scenes, {"ep3"}, POLICY)
    assert entry is not None
    assert (entry.outcome, entry.kept) == ("trim", 3)


def test_a_safety_constraint_left_without_basis_goes_to_review_in_any_tier() -> None:
    """Never deleted by forgetting, and never quietly trimmed to nothing: a person looks, even
    at a session-tier constraint (the tier test is for a thinned basis, not an empty one)."""
    for tier in Tier:
        rule = _rule((_obs(0, "t0", "a"),), tier=tier, type=RuleType.SAFETY)
        entry = forget_basis(rule, {"ep0"}, POLICY)
        assert entry is not None
        assert (entry.outcome, entry.kept) == ("review", 0)


def test_a_plan_entry_is_immutable() -> None:
    """The dry run shows the very entries the run carries out: nothing may change one after
    it is planned."""
    entry = forget_basis(_rule((_obs(0, "t0", "a"),)), {"ep0"}, POLICY)
    assert entry is not None
    with pytest.raises(ValidationError):
        entry.outcome = "trim"  # type: ignore[misc]


# -- forgotten words in a rule --------------------------------------------------------------


def test_a_rule_with_nothing_to_cut_is_returned_as_it_is_and_keeps_its_meaning() -> None:
    rule = _rule((_obs(0, "t0", "a"),), content="knock twice", conditions=("at night",))
    assert cut_words(rule, Matcher(["the blue side door"])) == (rule, 0, False)


def test_without_the_needles_the_run_cuts_no_words_and_still_trims_the_basis() -> None:
    """forgotten_rule: ``match`` cuts the copies forget_words counted, "none without it"."""
    words = Matcher(["the blue side door"])
    rule = _rule((_obs(0, "t0", "a"), _obs(1, "t1", "b")), tier=Tier.SESSION,
                 content="knock at the blue side door")
    entry = forget_words(rule, forget_basis(rule, {"ep0"}, POLICY), {"ep0"}, words)
    assert entry is not None
    assert (entry.outcome, entry.cut) == ("review", 1)
    after = forgotten_rule(rule, entry, {"ep0"}, day(3))
    assert after is not None
    assert (after.content, [o.episode_id for o in after.basis]) == (rule.content, ["ep1"])
    cut = forgotten_rule(rule, entry, {"ep0"}, day(3), words)
    assert cut is not None
    assert (cut.content, cut.status) == ("knock at [forgotten]", "review")


def test_a_review_for_cut_words_says_why_a_person_must_look() -> None:
    """The reason a person reads: a rule sent to review because what it says was cut is told
    apart from one whose copies were only redacted (the same cut, an overturned rule)."""
    words = Matcher(["the blue side door"])
    active = _rule(content="knock at the blue side door")
    overturned = active.model_copy(update={"status": "overturned"})
    review = forget_words(active, None, set(), words)
    redact = forget_words(overturned, None, set(), words)
    assert review is not None
    assert redact is not None
    assert (review.outcome, redact.outcome, review.cut, redact.cut) == ("review", "redact", 1, 1)
    assert review.reason != redact.reason


def test_keeping_residues_keeps_a_rules_quoted_words_when_its_basis_is_forgotten(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """``keep_residues``: unlinked copies of the erased text stay where they are, a rule's own
    words included; the rule loses only the observation that was in the erased episode."""
    memory = make_memory(clock)
    sentence = "The spare key is under the green gate mat."
    secret = memory.ingest(episode("secret", "agent", day(1),
                                   content=f"{sentence} Nothing else to add.")).episode_id
    other = memory.ingest(episode("other", "agent", day(1, 10),
                                  content="the porch light was on")).episode_id
    book = memory.rules
    rule = book.propose("u1", f"when locked out, remember: {sentence}")
    book.observe(rule.rule_id, episode_id=secret, task_id="t0", scene="porch")
    book.observe(rule.rule_id, episode_id=other, task_id="t1", scene="yard")
    clock.now = day(2)
    report = memory.forget(f"episode:{secret}@u1", keep_residues=True)
    assert [(r.rule_id, r.outcome, r.cut) for r in report.plan.rules] == [
        (rule.rule_id, "trim", 0)]
    after = book.show(rule.rule_id)
    assert (after.content, [o.episode_id for o in after.basis]) == (rule.content, [other])
    assert memory.check().ok
