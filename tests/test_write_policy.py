"""Write policies as data: admission, reconcile and decay, as pure rules and on the store."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import IngestRecord, Memory, PolicyError
from kg_memory.domain.admission import admit_candidate
from kg_memory.domain.decay import decay_factor, judge
from kg_memory.domain.reconcile import verdict
from kg_memory.domain.write_policy import Mode, PredicateRule, ScopeLabel, WritePolicy
from kg_memory.services.decayed_recall import recall_value
from kg_memory.sim.bookstore import LabConfig
from tests.conftest import EPOCH, ManualClock, day, episode, fact

# -- admission ------------------------------------------------------------------------------


def test_the_gate_is_per_predicate_and_names_its_threshold() -> None:
    policy = WritePolicy(rules=(PredicateRule(predicates=("delivery_*",), gate=0.7),
                                PredicateRule(gate=0.6)))
    refused = admit_candidate(policy.rule_for("delivery_region"), 0.65, ScopeLabel.DURABLE)
    assert (refused.admitted, refused.category) == (False, "below gate")
    assert "0.70" in refused.reason
    assert "0.65" in refused.reason
    assert admit_candidate(policy.rule_for("format"), 0.65, ScopeLabel.DURABLE).admitted


@pytest.mark.parametrize("label", [ScopeLabel.REQUEST, ScopeLabel.SESSION])
def test_one_offs_never_become_durable_however_confident(label: ScopeLabel) -> None:
    decision = admit_candidate(PredicateRule(), 1.0, label)
    assert (decision.admitted, decision.category) == (False, "one-off")
    assert admit_candidate(PredicateRule(durable_only=False), 1.0, label).admitted


def test_policies_load_from_json_like_the_writer_gate(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    policy = WritePolicy(name="shop", mode=Mode.RECONCILE,
                         rules=(PredicateRule(gate=0.6, half_life_days=11),))
    path.write_text(policy.model_dump_json())
    assert WritePolicy.load(path) == policy
    path.write_text(json.dumps({"mode": "reconcile", "rules": [{"gate": 1.5}]}))
    with pytest.raises(PolicyError, match="gate"):
        WritePolicy.load(path)
    path.write_text(json.dumps({"mode": "sometimes"}))
    with pytest.raises(PolicyError, match="mode"):
        WritePolicy.load(path)


@pytest.mark.parametrize("text", ["Infinity", "-Infinity", "NaN", "1e999", "0", "-3"])
def test_a_half_life_is_a_finite_positive_number_of_days(tmp_path: Path, text: str) -> None:
    """Rule: a half-life is a finite positive number of days, in a policy file and in the
    bookstore lab's configuration alike (an infinite one is "no decay", which is spelt
    ``half_life_days: null``, and JSON has no spelling for it to print back)."""
    path = tmp_path / "policy.json"
    path.write_text('{"rules": [{"half_life_days": ' + text + "}]}")
    with pytest.raises(PolicyError, match="half_life_days"):
        WritePolicy.load(path)
    value = float(text)
    with pytest.raises(ValidationError, match="half_life"):
        PredicateRule(half_life_days=value)
    with pytest.raises(ValidationError, match="half_life"):
        LabConfig(half_life=value)
    assert PredicateRule(half_life_days=1e-3).half_life_days == 1e-3
    assert LabConfig(half_life=1e6).half_life == 1e6


# -- reconcile --------------------------------------------------------------------------------

RULE = PredicateRule()


def _verdict(mode: Mode = Mode.RECONCILE, *, value: str = "audio", confidence: float = 0.7,
             explicit: bool = False, corroborating: int = 0,
             current: tuple[tuple[str, float], ...] = (("ebook", 0.8),)) -> str:
    return verdict(mode, RULE, current=current, value=value, confidence=confidence,
                   explicit=explicit, corroborating=corroborating).action


def test_reconcile_replaces_only_with_a_reason_and_otherwise_waits() -> None:
    assert _verdict(current=()) == "write"
    assert _verdict(value="ebook", confidence=0.1) == "refresh"
    assert _verdict() == "pend"
    assert _verdict(explicit=True) == "replace"
    assert _verdict(corroborating=1) == "replace"
    assert _verdict(confidence=1.0) == "pend"  # 1.0 < 0.8 + 0.25
    assert _verdict(confidence=1.0, current=(("ebook", 0.7),)) == "replace"


def test_the_baselines_are_selectable() -> None:
    assert _verdict(Mode.OVERWRITE) == "replace"
    assert _verdict(Mode.OVERWRITE, value="ebook") == "refresh"
    assert _verdict(Mode.APPEND, value="ebook") == "append"


# -- decay -----------------------------------------------------------------------------------


def test_decay_halves_trust_every_half_life_and_abstains_below_the_floor() -> None:
    rule = PredicateRule(half_life_days=10)
    assert decay_factor(10, 10) == 0.5
    assert decay_factor(20, 10) == 0.25
    assert decay_factor(5, None) == 1.0
    assert judge(rule, 0.8, EPOCH, EPOCH + timedelta(days=19)).served
    late = judge(rule, 0.8, EPOCH, EPOCH + timedelta(days=21))
    assert not late.served
    assert "ask again" in late.reason


@given(age=st.floats(0, 1000), half_life=st.floats(0.5, 400), later=st.floats(0, 100))
def test_decay_is_monotone_and_bounded(age: float, half_life: float, later: float) -> None:
    first, second = decay_factor(age, half_life), decay_factor(age + later, half_life)
    assert 0.0 <= second <= first <= 1.0


# -- on the store -----------------------------------------------------------------------------

RECONCILE = WritePolicy(name="lab", mode=Mode.RECONCILE,
                        rules=(PredicateRule(gate=0.6, half_life_days=10),))


def _say(n: int, value: str, conf: float = 0.8, **extra: Any) -> IngestRecord:
    return episode(f"op-{n}", "user", day(n), content=f"day {n}: {value}", assertions=[
        fact("r1", "format", value, confidence=conf, **extra)])


def test_recall_refreshes_on_restatement_and_abstains_when_unconfirmed(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    memory = Memory.open(tmp_path / "m.db", clock=clock, write_policy=RECONCILE)
    memory.ingest(_say(0, "ebook"))
    memory.ingest(_say(15, "ebook"))
    clock.now = day(34)
    served = recall_value(memory.store, RECONCILE, scope="u1", subject="r1",
                          predicate="format", now=day(34))
    assert (served.status, served.value) == ("served", "ebook")  # 19 days since the restatement
    clock.now = day(40)
    gone = recall_value(memory.store, RECONCILE, scope="u1", subject="r1",
                        predicate="format", now=day(40))
    assert (gone.status, gone.value) == ("abstain", None)
    assert "ask again" in gone.reason
    # Expiry bounds trust; the fact itself is still what the store believes.
    assert memory.asof(subject="r1").values() == ["ebook"]


# -- history is never rewritten: a reference model and as-of snapshots ------------------------

VALUES = ("ebook", "paperback", "audio")
step = st.tuples(st.integers(0, 3), st.sampled_from(VALUES), st.floats(0.3, 1.0),
                 st.booleans())


def _reference(steps: list[tuple[int, str, float, bool]], gate: float,
               window: float, margin: float) -> str | None:
    """Seed 003's ``write_memory`` as a dict, written independently of the store.

    Times are whole minutes (step ``n`` happens ``n`` minutes into its day) and confidences
    thousandths, so that boundaries are exact.
    """
    current: tuple[str, int] | None = None
    pending: dict[str, list[int]] = {}
    day_ = 0
    for n, (gap, value, conf, explicit) in enumerate(steps):
        day_ += gap
        t, c = day_ * 1440 + n, round(conf * 1000)
        if c < round(gate * 1000):
            continue
        if current is None:
            current = (value, c)
        elif current[0] == value:
            pass
        elif explicit or any(t - window * 1440 <= s for s in pending.get(value, [])) \
                or c >= current[1] + round(margin * 1000):
            current = (value, c)
            pending.pop(value, None)
        else:
            pending.setdefault(value, []).append(t)
    return None if current is None else current[0]


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_reconcile_matches_the_reference_and_never_rewrites_history(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[int, str, float, bool]]
) -> None:
    clock = ManualClock(day(0))
    path = tmp_path_factory.mktemp("prop") / "m.db"
    policy = WritePolicy(mode=Mode.RECONCILE,
                         rules=(PredicateRule(gate=0.5, window_days=2, half_life_days=1),))
    snapshots = []
    with Memory.open(path, clock=clock, write_policy=policy) as memory:
        t = 0
        for n, (gap, value, conf, explicit) in enumerate(steps):
            t += gap
            clock.now = day(t) + timedelta(minutes=n)
            memory.ingest(episode(f"op-{n}", "user", clock.now, content=f"turn {n}", assertions=[
                fact("r1", "format", value, confidence=round(conf, 3), explicit=explicit)]))
            answer = memory.asof(valid_at=clock.now, known_at=clock.now, subject="r1")
            snapshots.append((clock.now, answer.values()))
            # Decay only reads; recall it at once and much later.
            for later in (0, 30):
                recall_value(memory.store, policy, scope="u1", subject="r1",
                             predicate="format", now=clock.now + timedelta(days=later))
        expected = _reference([(g, v, round(c, 3), e) for g, v, c, e in steps],
                              gate=0.5, window=2, margin=0.25)
        assert memory.asof(valid_at=clock.now, known_at=clock.now, subject="r1").values() == (
            [] if expected is None else [expected])
        for known, values in snapshots:
            assert memory.asof(valid_at=known, known_at=known, subject="r1").values() == values
