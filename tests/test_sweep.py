"""Retention: ``sweep`` keeps a scope under its cap, evicting the already-invalid first."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory import ForgottenError, Memory, PolicyError
from kg_memory.cli import app
from kg_memory.domain.retention import Held, plan_sweep
from kg_memory.domain.write_policy import Retention, WritePolicy
from tests.conftest import EPOCH, ManualClock, MemoryFactory, day, episode, fact


def _fill(memory: Memory, clock: ManualClock) -> None:
    """Four facts in u1 (one of them replaced, one retracted) and one in u2."""
    steps = [
        ("op-1", 0, [fact("r1", "format", "ebook")], "u1"),
        ("op-2", 1, [fact("r1", "genres", "mystery")], "u1"),
        ("op-3", 2, [fact("r1", "newsletter", "weekly")], "u1"),
        ("op-4", 3, [fact("r1", "format", "audio")], "u1"),
        ("op-5", 4, [fact("r2", "format", "paper")], "u2"),
    ]
    for op, n, assertions, scope in steps:
        clock.now = day(n)
        memory.ingest(episode(op, "user", day(n), assertions=assertions, scope=scope))
    clock.now = day(5)
    memory.ingest(episode("op-6", "user", day(5), retractions=[
        {"subject": "r1", "predicate": "genres"}]))
    clock.now = day(6)


def test_the_sweep_evicts_already_invalid_memories_first_and_forgets_them(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    _fill(memory, clock)
    report = memory.sweep(cap=2)
    assert report.held == {"u1": 4, "u2": 1}
    assert [(e.key, e.why) for e in report.evictions] == [
        ("r1.format", "already invalid"), ("r1.genres", "already invalid")]
    assert memory.history("r1", scope="u1") != []  # a report changes nothing
    kept_before = memory.history("r1", "newsletter", scope="u1")
    done = memory.sweep(cap=2, delete=True)
    assert done.evictions == report.evictions
    assert sorted(memory.asof(subject="r1").values()) == ["audio", "weekly"]
    assert memory.history("r1", "genres", scope="u1") == []
    # What the sweep kept keeps its history, revision for revision.
    assert memory.history("r1", "newsletter", scope="u1") == kept_before
    assert memory.sweep(cap=2).evictions == ()
    # Evicted means forgotten: old evidence of what was evicted cannot come back.
    with pytest.raises(ForgottenError):
        memory.ingest(episode("op-2b", "user", day(1), assertions=[
            fact("r1", "genres", "mystery")]))


def test_the_least_recently_confirmed_go_once_nothing_invalid_is_left(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    _fill(memory, clock)
    evicted = memory.sweep(cap=1, scope="u1").evictions
    assert [e.why for e in evicted] == [
        "already invalid", "already invalid", "least recently confirmed"]
    assert evicted[-1].key == "r1.newsletter"


def test_the_sweep_command_reports_and_deletes(tmp_path: object, clock: ManualClock) -> None:
    from pathlib import Path

    store = Path(str(tmp_path)) / "m.db"
    with Memory.open(store, clock=clock) as memory:
        _fill(memory, clock)
    runner = CliRunner()
    assert runner.invoke(app, ["sweep", "--cap", "2", "--store", str(store)]).exit_code == 2
    shown = runner.invoke(app, ["sweep", "--cap", "2", "--all-scopes", "--store", str(store),
                                "--json"])
    assert shown.exit_code == 0, shown.output
    assert '"already invalid"' in shown.output
    bad = runner.invoke(app, ["sweep", "--cap", "-1", "--scope", "u1", "--store", str(store)])
    assert bad.exit_code == 2


held = st.builds(Held, assertion_id=st.text("abc", min_size=1, max_size=3),
                 scope=st.sampled_from(["u1", "u2"]), key=st.just("r.f"), live=st.booleans(),
                 expired=st.booleans(),
                 last_confirmed=st.integers(0, 100).map(lambda n: EPOCH + timedelta(days=n)))


@given(st.lists(held, max_size=12, unique_by=lambda h: h.assertion_id), st.integers(0, 5))
def test_no_scope_keeps_more_than_the_cap_and_nothing_valid_goes_before_the_invalid(
    items: list[Held], cap: int
) -> None:
    evicted = {e.assertion_id for e in plan_sweep(items, cap=cap)}
    for scope in ("u1", "u2"):
        mine = [h for h in items if h.scope == scope]
        kept = [h for h in mine if h.assertion_id not in evicted]
        assert len(kept) == min(cap, len(mine))
        if any(h.live for h in mine if h.assertion_id in evicted):
            assert all(h.live for h in kept)


def test_a_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        plan_sweep([], cap=-1)


fact_step = st.tuples(st.sampled_from(["format", "genres", "newsletter"]),
                      st.sampled_from(["a", "b", "c"]), st.booleans())


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(fact_step, min_size=1, max_size=10), cap=st.integers(0, 3))
def test_a_sweep_never_rewrites_the_history_of_what_it_keeps(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, bool]], cap: int
) -> None:
    clock = ManualClock(day(0))
    with Memory.open(tmp_path_factory.mktemp("sweep") / "m.db", clock=clock) as memory:
        for n, (predicate, value, retract) in enumerate(steps):
            clock.now = day(n)
            if retract:
                memory.ingest(episode(f"op-{n}", "user", day(n), retractions=[
                    {"subject": "r1", "predicate": predicate}]))
            else:
                memory.ingest(episode(f"op-{n}", "user", day(n), content=f"turn {n}",
                                      assertions=[fact("r1", predicate, value)]))
        clock.now = day(len(steps))
        ids = memory.store.find_assertions(scope="u1")
        before = {i: memory.store.versions([i]) for i in ids}
        report = memory.sweep(cap=cap, scope="u1", delete=True)
        evicted = {e.assertion_id for e in report.evictions}
        assert len(set(ids) - evicted) == min(cap, len(ids))
        for assertion_id in set(ids) - evicted:
            assert memory.store.versions([assertion_id]) == before[assertion_id]
        for assertion_id in evicted:
            assert memory.store.versions([assertion_id]) == []


def test_the_cap_and_delete_are_policy_data_like_the_rest_of_the_write_policy(
    tmp_path: object, clock: ManualClock
) -> None:
    """Retention is part of the write policy (JSON): its cap and whether a sweep deletes;
    the command's --cap and --delete/--report override it for one run."""
    from pathlib import Path

    root = Path(str(tmp_path))
    store = root / "m.db"
    with Memory.open(store, clock=clock) as memory:
        _fill(memory, clock)
    policy = root / "policy.json"
    policy.write_text(WritePolicy(retention=Retention(cap=2)).model_dump_json())
    run = CliRunner().invoke
    base = ["sweep", "--scope", "u1", "--store", str(store), "--json"]
    assert run(app, base).exit_code == 2  # no cap from anywhere
    planned = run(app, [*base, "--write-policy", str(policy)])
    assert planned.exit_code == 0, planned.output
    assert [e["why"] for e in json.loads(planned.output)["evictions"]] == [
        "already invalid", "already invalid"]
    assert json.loads(planned.output)["deleted"] is False
    one = json.loads(run(app, [*base, "--write-policy", str(policy), "--cap", "1"]).output)
    assert len(one["evictions"]) == 3
    policy.write_text(WritePolicy(retention=Retention(cap=2, delete=True)).model_dump_json())
    report = json.loads(run(app, [*base, "--write-policy", str(policy), "--report"]).output)
    assert report["deleted"] is False
    with Memory.open(store) as memory:
        assert memory.history("r1", "genres", scope="u1") != []
    done = json.loads(run(app, [*base, "--write-policy", str(policy)]).output)
    assert done["deleted"] is True
    with Memory.open(store) as memory:
        assert memory.history("r1", "genres", scope="u1") == []
    policy.write_text('{"retention": {"cap": -1}}')
    assert run(app, [*base, "--write-policy", str(policy)]).exit_code == 2


def test_a_memory_sweeps_by_its_policys_retention_unless_told_otherwise(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    _fill(memory, clock)
    with pytest.raises(PolicyError, match="cap"):
        memory.sweep()
    memory.write_policy = WritePolicy(retention=Retention(cap=1))
    assert len(memory.sweep(scope="u1").evictions) == 3
    assert len(memory.sweep(cap=3, scope="u1").evictions) == 1
    assert memory.sweep(scope="u1").deleted is False
