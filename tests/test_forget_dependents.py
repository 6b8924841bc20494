"""Forgetting a fact that other facts DEPENDS_ON: the dependents are retired, transitively.

The rule (see :mod:`kg_memory.domain.forgetting`): a believed fact whose dependency is erased is
retired the way the write path retires one whose dependency ended, except that an erased fact
never held in any history that remains, so the dependent is retired over its whole valid time.
Its own history stays; nothing of the forgotten fact's content survives in it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kg_memory import IngestReport, Memory
from kg_memory.domain.model import EndReason
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
