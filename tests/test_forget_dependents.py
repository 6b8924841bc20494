"""Forgetting a fact that other facts DEPENDS_ON: the dependents are retired, transitively.

The rule (see :mod:`kg_memory.domain.forgetting`): a believed fact whose dependency is erased is
retired the way the write path retires one whose dependency ended, except that an erased fact
never held in any history that remains, so the dependent is retired over its whole valid time.
Its own history stays; nothing of the forgotten fact's content survives in it.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from kg_memory import EdgeType, IngestReport, Memory, Selector
from kg_memory.domain.forgetting import ForgetPlan, LineageView, plan_forget
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EndReason, Kind
from tests.conftest import ManualClock, day, episode, fact

SECRET_VALUE = "dep-canary-9c1e"


def _ingest(memory: Memory, clock: ManualClock, when: float, op: str,
            *assertions: dict[str, object]) -> IngestReport:
    clock.now = day(when)
    return memory.ingest(episode(op, "user", day(when), assertions=list(assertions)))


def _chain(memory: Memory, clock: ManualClock) -> tuple[IngestReport, str, str]:
    """A (secret) <- B (reviews.assignee) <- C (dashboard.reviewer), plus an unrelated fact."""
    a = _ingest(memory, clock, 0, "lead", fact("teamx", "leadx", SECRET_VALUE))
    b = _ingest(memory, clock, 1, "rev",
                fact("reviews", "assignee", "Seoyun", depends_on=["fact:teamx/leadx"]))
    c = _ingest(memory, clock, 2, "dash",
                fact("dashboard", "reviewer", "Seoyun", depends_on=["fact:reviews/assignee"]))
    _ingest(memory, clock, 3, "other", fact("ana", "diet", "vegetarian"))
    return a, b.effects[0].assertion_id or "", c.effects[0].assertion_id or ""


def test_forgetting_a_dependency_retires_its_dependents_and_check_holds(
    memory: Memory, clock: ManualClock
) -> None:
    lead, b, c = _chain(memory, clock)
    clock.now = day(5)
    run = memory.forget(f"episode:{lead.episode_id}@u1")
    assert run.status == "complete"
    check = memory.check()
    assert check.ok, check.violations
    assert set(run.plan.retire) == {b, c}
    now = memory.asof(day(6), day(6))
    assert {f.key for f in now.facts} == {"ana.diet"}  # absent, not believed on erased ground
    # History is kept: before the forget, the dependents were believed.
    before = memory.asof(day(4), day(4, 23))
    assert {f.key for f in before.facts} == {"reviews.assignee", "dashboard.reviewer", "ana.diet"}
    for subject, predicate in (("reviews", "assignee"), ("dashboard", "reviewer")):
        [entry] = memory.history(subject, predicate)
        assert entry.version.system.end is not None
        assert entry.closed_by == run.activity_id
        assert entry.close_reason is EndReason.RETIRED


def test_the_dry_run_lists_the_retirements_the_run_executes(
    memory: Memory, clock: ManualClock
) -> None:
    lead, b, c = _chain(memory, clock)
    clock.now = day(5)
    planned = memory.forget(f"episode:{lead.episode_id}@u1", dry_run=True)
    assert set(planned.plan.retire) == {b, c}
    assert memory.asof(day(6), day(6)).facts  # a dry run changes nothing
    assert {f.key for f in memory.asof(day(6), day(6)).facts} >= {"reviews.assignee"}
    run = memory.forget(f"episode:{lead.episode_id}@u1")
    assert run.plan == planned.plan
    closed = {e.version.assertion_id for s, p in (("reviews", "assignee"),
                                                   ("dashboard", "reviewer"), ("ana", "diet"))
              for e in memory.history(s, p) if e.closed_by == run.activity_id}
    assert closed == set(run.plan.retire)
    again = memory.forget(f"episode:{lead.episode_id}@u1")
    assert again.status == "nothing-to-forget"  # idempotent: nothing left to retire


def test_no_content_of_the_forgotten_fact_survives_in_its_dependents(
    memory: Memory, clock: ManualClock
) -> None:
    lead, _, _ = _chain(memory, clock)
    clock.now = day(5)
    memory.forget(f"episode:{lead.episode_id}@u1")
    kept = [e.model_dump_json() for s, p in (("reviews", "assignee"), ("dashboard", "reviewer"))
            for e in memory.history(s, p)]
    assert kept
    for text in (SECRET_VALUE, "teamx", "leadx"):
        assert not any(text in row for row in kept)
        assert text not in memory.asof(day(4), day(4, 23)).model_dump_json()


def test_forgetting_the_dependency_by_assertion_also_retires(
    memory: Memory, clock: ManualClock
) -> None:
    lead, b, c = _chain(memory, clock)
    clock.now = day(5)
    run = memory.forget(f"assertion:{lead.effects[0].assertion_id}@u1")
    assert set(run.plan.retire) == {b, c}
    assert memory.check().ok


def test_the_cli_dry_run_shows_what_it_will_retire(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kg_memory.cli import app

    clock = ManualClock(day(0))
    store = tmp_path / "m.db"
    with Memory.open(store, clock=clock) as memory:
        lead, b, c = _chain(memory, clock)
    runner = CliRunner(env={"COLUMNS": "200"})
    dry = runner.invoke(app, ["forget", f"episode:{lead.episode_id}@u1", "--dry-run", "--wide",
                              "--store", str(store)])
    assert dry.exit_code == 0, dry.output
    for retired in (b, c):
        assert re.search(rf"retire\s+{retired}", dry.output), dry.output
    assert "2 retire" in dry.output
    run = runner.invoke(app, ["forget", f"episode:{lead.episode_id}@u1", "--json",
                              "--store", str(store)])
    assert run.exit_code == 0, run.output
    assert sorted(json.loads(run.output)["plan"]["retire"]) == sorted([b, c])
    checked = runner.invoke(app, ["check", "--store", str(store)])
    assert checked.exit_code == 0, checked.output


def _believed(assertion_id: str, *deps: str) -> Assertion:
    return Assertion(assertion_id=assertion_id, revision=1, scope="u1", subject=assertion_id,
                     predicate="p",
                     value="v", kind=Kind.STATED, writer="user", depends_on=deps,
                     valid=Interval(start=day(1)), system=Interval(start=day(1)),
                     recorded_by="ep_x")


def _view(facts: dict[str, tuple[str, ...]], believed: set[str],
          edges: tuple[tuple[str, EdgeType, str], ...] = ()) -> LineageView:
    view = LineageView()
    view.add_node("e0", "episode")
    for node, deps in facts.items():
        view.add_node(node, "assertion")
        if node in believed:
            view.believed[node] = (_believed(node, *deps),)
        for dep in deps:
            view.add_link(node, dep, EdgeType.DEPENDS_ON.value)
    for src, relation, dst in edges:
        view.add_link(src, dst, relation.value)
    return view


def test_the_plan_retires_a_diamond_once_and_skips_what_is_not_believed_or_deleted() -> None:
    # a <- b <- c, a <- c (a diamond); d depends on a but is no longer believed; e depends on a
    # and is deleted with it (same forgotten episode); f depends on nothing forgotten.
    facts = {"a": (), "b": ("a",), "c": ("a", "b"), "d": ("a",), "e": ("a",), "f": ()}
    view = _view(facts, believed={"a", "b", "c", "e", "f"},
                 edges=(("a", EdgeType.SUPPORTS, "e0"), ("e", EdgeType.SUPPORTS, "e0")))
    plan = plan_forget(view, Selector(kind="episode", value="e0", scope="u1"),
                       episodes={"e0"}, assertions=set())
    assert set(plan.delete) == {"a", "e"}
    assert plan.retire == ("b", "c")
    assert {"d", "f"} <= set(plan.retain)
    assert not set(plan.retire) & set(plan.retain)


def test_a_fact_resting_on_erased_ground_is_not_restored() -> None:
    # g replaced h, and h depends on the forgotten k: restoring h would make it believed again
    # on erased ground. m, replaced by g too, depends on nothing forgotten and comes back.
    facts = {"g": (), "h": ("k",), "k": (), "m": ()}
    view = _view(facts, believed={"g", "k"}, edges=(
        ("g", EdgeType.SUPPORTS, "e0"), ("k", EdgeType.SUPPORTS, "e0"),
        ("g", EdgeType.SUPERSEDES, "h"), ("g", EdgeType.SUPERSEDES, "m")))
    plan = plan_forget(view, Selector(kind="episode", value="e0", scope="u1"),
                       episodes={"e0"}, assertions=set())
    assert set(plan.delete) == {"g", "k"}
    assert plan.restore == ("m",)
    assert plan.retire == ()


def _dated(assertion_id: str, start: float, end: float | None, *deps: str) -> Assertion:
    return _believed(assertion_id, *deps).model_copy(update={"valid": Interval(
        start=day(start), end=None if end is None else day(end))})


def _forget_e0(view: LineageView) -> ForgetPlan:
    return plan_forget(view, Selector(kind="episode", value="e0", scope="u1"),
                       episodes={"e0"}, assertions=set())


def test_what_rests_on_a_forgotten_fact_through_another_is_retired_over_its_whole_time() -> None:
    """Rule: an erased fact never held, so every fact reachable from it is retired whole, not
    from where the fact between them began to hold: c, believed for days 1 to 3, rests on b,
    believed from day 5, which rests on the forgotten a."""
    view = _view({"a": (), "b": ("a",), "c": ("b",)}, believed={"a"},
                 edges=(("a", EdgeType.SUPPORTS, "e0"),))
    view.believed["b"] = (_dated("b", 5, None, "a"),)
    view.believed["c"] = (_dated("c", 1, 3, "b"),)
    plan = _forget_e0(view)
    assert plan.delete == ("a",)
    assert plan.retire == ("b", "c")


def test_planning_ends_on_a_dependency_cycle_and_retires_each_fact_of_it() -> None:
    """Rule: the plan applies each retirement before the next step, as the run's transaction
    does, so a fact reached again is found retired and the walk ends, even where dependencies
    form a cycle (b and c each rest on the other and on the forgotten a)."""
    view = _view({"a": (), "b": ("a", "c"), "c": ("a", "b")}, believed={"a", "b", "c"},
                 edges=(("a", EdgeType.SUPPORTS, "e0"),))
    planned: list[ForgetPlan] = []
    worker = threading.Thread(target=lambda: planned.append(_forget_e0(view)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert planned, "planning a forget over a dependency cycle did not end"
    assert planned[0].retire == ("b", "c")


def test_a_fact_is_retired_only_for_a_dependency_its_believed_revision_declares() -> None:
    """Rule: what a fact depends on is what its believed revision declares; a dependency edge
    no revision declares (what check() reports as a ``dependency-index`` violation) retires
    nothing. c's edge to the forgotten a is such a stray; c rests on the kept f only."""
    view = _view({"a": (), "c": ("f",), "f": ()}, believed={"a", "c", "f"},
                 edges=(("a", EdgeType.SUPPORTS, "e0"), ("c", EdgeType.DEPENDS_ON, "a")))
    plan = _forget_e0(view)
    assert plan.delete == ("a",)
    assert plan.retire == ()
    assert "c" in plan.retain
