"""The write-policy rules stated one by one, each against a small reference written from seed 003.

``tests/test_write_policy.py`` shows the rules working together on the store; here every rule
of admission, reconcile, decay, retention, pending candidates and the policy's own defaults is
checked at its boundary (exactly at the gate, exactly one margin more confident, exactly two
half-lives old), where a flipped comparison would change the answer.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory.domain.admission import admit_candidate
from kg_memory.domain.decay import confirmed_at, decay_factor, judge
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Kind, Qualifiers, Support
from kg_memory.domain.pending import (
    AdmissionDecision,
    Mention,
    PendingCandidate,
    pending_id_for,
    slot_lookup,
)
from kg_memory.domain.reconcile import verdict
from kg_memory.domain.retention import Held, plan_sweep
from kg_memory.domain.write_policy import Mode, PredicateRule, ScopeLabel, WritePolicy
from tests.conftest import EPOCH, day

# -- admission: the one-off filter first, then the confidence gate ----------------------------

thousandths = st.integers(0, 1000).map(lambda n: n / 1000)


@given(gate=thousandths, confidence=thousandths, label=st.sampled_from(ScopeLabel),
       durable_only=st.booleans())
def test_admission_admits_exactly_the_durable_candidates_at_or_above_the_gate(
    gate: float, confidence: float, label: ScopeLabel, durable_only: bool
) -> None:
    one_off = durable_only and label != ScopeLabel.DURABLE
    expected = "one-off" if one_off else "below gate" if confidence < gate else "accepted"
    decision = admit_candidate(PredicateRule(gate=gate, durable_only=durable_only), confidence,
                               label)
    assert (decision.admitted, decision.category) == (expected == "accepted", expected)


def test_a_candidate_exactly_at_the_gate_is_admitted() -> None:
    assert admit_candidate(PredicateRule(gate=0.6), 0.6, ScopeLabel.DURABLE).admitted
    assert not admit_candidate(PredicateRule(gate=0.6), 0.599, ScopeLabel.DURABLE).admitted


def test_the_one_off_filter_is_checked_before_the_gate() -> None:
    # A one-off below the gate is counted as a one-off: the reason a reviewer acts on.
    decision = admit_candidate(PredicateRule(gate=0.9), 0.1, ScopeLabel.SESSION)
    assert decision.category == "one-off"
    assert "session" in decision.reason


# -- reconcile: what a conflicting value needs to replace the current one ----------------------

VALUES = ("ebook", "audio", "paper", 1, True, 1.5)


def _reference_action(mode: Mode, current: list[tuple[object, int]], value: object,
                      confidence: int, explicit: bool, corroborating: int,
                      margin: int) -> str:
    """Seed 003 in thousandths, so that "exactly one margin more" is exact."""
    if mode == Mode.APPEND:
        return "append"
    if not current:
        return "write"
    if any(repr(v) == repr(value) for v, _ in current):  # 1, 1.0 and True are three values
        return "refresh"
    if mode == Mode.OVERWRITE:
        return "replace"
    if explicit or corroborating > 0:
        return "replace"
    return "replace" if confidence - max(c for _, c in current) >= margin else "pend"


@given(mode=st.sampled_from(Mode),
       current=st.lists(st.tuples(st.sampled_from(VALUES), st.integers(0, 1000)), max_size=3),
       value=st.sampled_from(VALUES), confidence=st.integers(0, 1000),
       explicit=st.booleans(), corroborating=st.integers(0, 3),
       margin=st.integers(0, 1000))
def test_reconcile_matches_seed_003(mode: Mode, current: list[tuple[object, int]],
                                    value: object, confidence: int, explicit: bool,
                                    corroborating: int, margin: int) -> None:
    rule = PredicateRule(margin=margin / 1000)
    got = verdict(mode, rule, current=[(v, c / 1000) for v, c in current],  # type: ignore[misc]
                  value=value, confidence=confidence / 1000,  # type: ignore[arg-type]
                  explicit=explicit, corroborating=corroborating)
    assert got.action == _reference_action(mode, current, value, confidence, explicit,
                                           corroborating, margin)


def test_exactly_one_margin_more_confident_replaces() -> None:
    def action(confidence: float, current: list[tuple[str, float]]) -> str:
        return verdict(Mode.RECONCILE, PredicateRule(), current=current, value="audio",
                       confidence=confidence, explicit=False, corroborating=0).action

    assert action(0.75, [("ebook", 0.5)]) == "replace"
    assert action(0.74, [("ebook", 0.5)]) == "pend"
    # The margin is over the *most* confident current value, wherever it is listed.
    assert action(0.75, [("ebook", 0.5), ("paper", 0.6)]) == "pend"
    assert action(0.75, [("paper", 0.6), ("ebook", 0.5)]) == "pend"


def test_the_same_value_of_another_type_is_a_conflict_not_a_restatement() -> None:
    # True == 1 in Python, but "yes" and the count 1 are different facts.
    got = verdict(Mode.RECONCILE, PredicateRule(), current=[(1, 0.9)], value=True,
                  confidence=0.5, explicit=False, corroborating=0)
    assert got.action == "pend"


def test_one_corroborating_mention_is_the_second_mention_and_replaces() -> None:
    got = verdict(Mode.RECONCILE, PredicateRule(window_days=7), current=[("ebook", 0.9)],
                  value="audio", confidence=0.1, explicit=False, corroborating=1)
    assert (got.action, got.reason) == ("replace", "mentioned twice within 7 days")


# -- decay: 0.5 ** (age / half-life) from the last confirmation -------------------------------

ages = st.integers(-100 * 24, 1000 * 24).map(lambda h: h / 24)  # whole hours, in days


@given(age=ages, half_life=st.integers(1, 400), confidence=thousandths,
       floor=thousandths)
def test_trust_halves_every_half_life_from_the_last_confirmation(
    age: float, half_life: int, confidence: float, floor: float
) -> None:
    rule = PredicateRule(half_life_days=half_life, floor=floor)
    trust = judge(rule, confidence, EPOCH, EPOCH + timedelta(days=age))
    expected = 0.5 ** (max(age, 0) / half_life)
    assert trust.age_days == pytest.approx(age, abs=1e-9)
    assert trust.factor == pytest.approx(expected, rel=1e-12)
    assert trust.score == pytest.approx(confidence * expected, abs=1e-11)
    assert trust.served == (trust.factor >= floor)
    assert (trust.reason == "") == trust.served


def test_a_confirmation_in_the_future_never_raises_trust_above_the_stated_confidence() -> None:
    assert decay_factor(-3, 10) == 1.0
    assert judge(PredicateRule(half_life_days=10), 0.8, day(5), day(2)).score == 0.8


def test_without_a_half_life_nothing_decays_however_old() -> None:
    trust = judge(PredicateRule(), 0.7, EPOCH, EPOCH + timedelta(days=10_000))
    assert (trust.factor, trust.score, trust.served) == (1.0, 0.7, True)


def test_exactly_at_the_floor_a_memory_is_still_served() -> None:
    # Two half-lives at the default floor 0.25: the last day it is served, not the first it is
    # not (ask again only *below* the floor).
    rule = PredicateRule(half_life_days=10)
    assert judge(rule, 0.8, EPOCH, EPOCH + timedelta(days=20)).served
    assert not judge(rule, 0.8, EPOCH, EPOCH + timedelta(days=20, hours=1)).served


def test_a_confirmation_counts_from_the_instant_it_occurred_and_never_before() -> None:
    """The last confirmation as of ``at`` is the newest support that occurred by then, the
    instant itself included; a later one says nothing about ``at``; none: the valid start."""
    fact = Assertion(assertion_id="as_1", revision=1, scope="u1", subject="ana",
                     predicate="diet", value="vegan", qualifiers=Qualifiers(), kind=Kind.STATED,
                     writer="user", valid=Interval(start=day(0)), system=Interval(start=day(0)),
                     recorded_by="ep_0")
    supports = [Support(episode_id=f"ep_{n}", source="user", occurred_at=day(n)) for n in (3, 7)]
    assert confirmed_at(fact, supports, day(7)) == day(7)  # confirmed that very instant
    assert confirmed_at(fact, supports, day(6)) == day(3)
    assert confirmed_at(fact, supports, day(2)) == day(0)


def test_age_is_counted_in_days_of_24_hours() -> None:
    trust = judge(PredicateRule(half_life_days=1), 1.0, EPOCH, EPOCH + timedelta(hours=24))
    assert (trust.age_days, trust.factor) == (1.0, 0.5)


# -- retention: invalid first, then expired, then least recently confirmed --------------------

held = st.builds(
    Held, assertion_id=st.sampled_from("abcdefgh"), scope=st.sampled_from(("s1", "s2")),
    key=st.just("r.f"), live=st.booleans(), expired=st.booleans(),
    last_confirmed=st.integers(0, 5).map(day))


@given(items=st.lists(held, max_size=10, unique_by=lambda h: h.assertion_id),
       cap=st.integers(0, 6))
def test_a_sweep_evicts_the_surplus_of_each_scope_in_the_stated_order(
    items: list[Held], cap: int
) -> None:
    def reference_class(h: Held) -> int:
        return 0 if not h.live else 1 if h.expired else 2

    expected = []
    for scope in sorted({h.scope for h in items}):
        mine = sorted((h for h in items if h.scope == scope),
                      key=lambda h: (reference_class(h), h.last_confirmed, h.assertion_id))
        expected += [(h.assertion_id, scope) for h in mine[:max(len(mine) - cap, 0)]]
    assert [(e.assertion_id, e.scope) for e in plan_sweep(items, cap=cap)] == expected


def _held(name: str, *, live: bool, expired: bool, when: int) -> Held:
    return Held(assertion_id=name, scope="s", key=f"r.{name}", live=live, expired=expired,
                last_confirmed=day(when))


def test_invalid_goes_before_expired_before_old_however_recently_confirmed() -> None:
    items = [_held("old", live=True, expired=False, when=0),
             _held("expired", live=True, expired=True, when=3),
             _held("invalid", live=False, expired=False, when=5)]
    evicted = plan_sweep(items, cap=1)
    assert [(e.assertion_id, e.why) for e in evicted] == [
        ("invalid", "already invalid"), ("expired", "expired (decayed below the floor)")]
    assert plan_sweep(items, cap=0)[-1].why == "least recently confirmed"


def test_a_cap_of_zero_empties_a_scope_and_a_negative_cap_is_refused() -> None:
    items = [_held("a", live=True, expired=False, when=0)]
    assert [e.assertion_id for e in plan_sweep(items, cap=0)] == ["a"]
    assert plan_sweep(items, cap=1) == []
    with pytest.raises(ValueError, match="cap"):
        plan_sweep(items, cap=-1)


# -- pending candidates: the second independent mention within the window ---------------------


def _mention(ep: str, when: float, source: str = "user", fp: str = "") -> Mention:
    return Mention(episode_id=ep, occurred_at=day(when), confidence=0.5, source=source,
                   fingerprint=fp or f"fp-{ep}")


def _candidate(*evidence: Mention) -> PendingCandidate:
    return PendingCandidate(pending_id="pd_1", scope="u1", subject="r1", predicate="format",
                            value="audio", kind=Kind.STATED, writer="user", evidence=evidence,
                            updated_at=day(0))


def test_a_second_mention_within_the_window_corroborates() -> None:
    waiting = _candidate(_mention("ep1", 0))
    assert waiting.corroborated_by(_mention("ep2", 10), window_days=30)
    assert waiting.corroborated_by(_mention("ep2", 30), window_days=30)  # the window's last day
    assert not waiting.corroborated_by(_mention("ep2", 31), window_days=30)


def test_a_copy_or_a_redelivery_is_not_a_second_mention() -> None:
    waiting = _candidate(_mention("ep1", 0, fp="same"))
    assert not waiting.corroborated_by(_mention("ep1", 1, fp="same"), window_days=30)
    assert not waiting.corroborated_by(_mention("ep9", 1, fp="same"), window_days=30)
    assert waiting.corroborated_by(_mention("ep9", 1, source="tool", fp="same"), window_days=30)


def test_evidence_from_after_the_new_mention_does_not_corroborate_it() -> None:
    # A replayed older mention is judged as of its own time, not with hindsight.
    waiting = _candidate(_mention("ep5", 5))
    assert not waiting.corroborated_by(_mention("ep1", 1), window_days=30)


def test_a_slot_without_a_project_is_one_slot_and_values_of_other_types_are_other_nodes() -> None:
    assert slot_lookup("u1", "r1", "format", None) == slot_lookup("u1", "r1", "format", "")
    assert slot_lookup("u1", "r1", "format", None) != slot_lookup("u1", "r1", "format", "p")
    ids = {pending_id_for("u1", "r1", "n", None, v) for v in (1, "1", True, 1.0)}
    assert len(ids) == 4
    assert pending_id_for("u1", "r1", "n", None, 1) == pending_id_for("u1", "r1", "n", None, 1)


# -- the policy's own defaults are seed 003's ---------------------------------------------------


def test_the_default_rule_gates_nothing_filters_one_offs_and_never_decays() -> None:
    rule = WritePolicy.default().rule_for("anything")
    assert admit_candidate(rule, 0.0, ScopeLabel.DURABLE).admitted
    assert not admit_candidate(rule, 1.0, ScopeLabel.REQUEST).admitted
    assert judge(rule, 0.9, EPOCH, EPOCH + timedelta(days=3650)).served
    assert WritePolicy.default().mode == Mode.OVERWRITE


def test_the_default_window_is_30_days_the_margin_025_and_the_floor_two_half_lives() -> None:
    rule = PredicateRule(half_life_days=1)
    waiting = _candidate(_mention("ep1", 0))
    assert waiting.corroborated_by(_mention("ep2", 30), window_days=rule.window_days)
    assert not waiting.corroborated_by(_mention("ep2", 30.5), window_days=rule.window_days)
    replace = verdict(Mode.RECONCILE, rule, current=[("a", 0.5)], value="b", confidence=0.75,
                      explicit=False, corroborating=0)
    assert replace.action == "replace"
    assert judge(rule, 1.0, EPOCH, EPOCH + timedelta(days=2)).served
    assert not judge(rule, 1.0, EPOCH, EPOCH + timedelta(days=2.01)).served


def test_the_first_matching_rule_wins_and_unmatched_predicates_get_the_default() -> None:
    policy = WritePolicy(rules=(PredicateRule(predicates=("gift_*", "wrap"), gate=0.7),
                                PredicateRule(predicates=("gift_*",), gate=0.2)))
    assert policy.rule_for("gift_wrap").gate == 0.7
    assert policy.rule_for("wrap").gate == 0.7
    assert policy.rule_for("format") == PredicateRule()


@pytest.mark.parametrize(("field", "accepted", "refused"), [
    ("gate", (0.0, 1.0), (-0.01, 1.01)),
    ("margin", (0.0, 1.0), (-0.01, 1.01)),
    ("floor", (0.0, 1.0), (-0.01, 1.01)),
    ("window_days", (0.5, 365), (0, -1)),
    ("half_life_days", (0.5, 365), (0, -1)),
])
def test_rule_bounds_accept_their_range_and_refuse_outside_it(
    field: str, accepted: tuple[float, float], refused: tuple[float, float]
) -> None:
    for value in accepted:
        assert getattr(PredicateRule.model_validate({field: value}), field) == value
    for value in refused:
        with pytest.raises(ValidationError, match=field):
            PredicateRule.model_validate({field: value})


def test_a_loaded_policy_is_immutable_and_unversioned_files_are_version_1(
    tmp_path: Path
) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"name": "shop", "rules": [{"gate": 0.5}], "retention": {"cap": 9}}',
                    encoding="utf-8")
    policy = WritePolicy.load(path)
    assert policy.version == 1
    # A sweep run under a policy must not find its cap changed by another holder of it.
    assert policy.retention is not None
    with pytest.raises(ValidationError):
        policy.retention.cap = 0  # type: ignore[misc]
    with pytest.raises(ValidationError):
        policy.rules[0].gate = 0.1  # type: ignore[misc]
    with pytest.raises(ValidationError):
        policy.mode = Mode.APPEND  # type: ignore[misc]


def test_a_decision_is_a_record_no_one_can_alter_afterwards() -> None:
    # Decisions are counted, audited and compared later: changing one in place would change
    # what was decided.
    records = [
        admit_candidate(PredicateRule(), 0.5, ScopeLabel.DURABLE),
        verdict(Mode.RECONCILE, PredicateRule(), current=[], value="a", confidence=0.5,
                explicit=False, corroborating=0),
        judge(PredicateRule(), 0.5, EPOCH, EPOCH),
    ]
    for record in records:
        field = next(iter(type(record).model_fields))
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, getattr(record, field))


def test_sweep_plans_and_pending_records_are_immutable() -> None:
    held = _held("a", live=True, expired=False, when=0)
    [eviction] = plan_sweep([held], cap=0)
    mention = _mention("ep1", 0)
    decision = AdmissionDecision(episode_id="ep1", index=0, scope="u1", key="r1.format",
                                 decision="pending", category="conflict", at=day(0))
    for record in (held, eviction, mention, _candidate(mention), decision):
        field = next(iter(type(record).model_fields))
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, getattr(record, field))
