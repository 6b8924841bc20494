"""``kg-memory rules propose|observe|promote|signal|review --due``: what only the library could do
before, on the command line, with --json, typed errors and exit codes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from kg_memory import Memory
from kg_memory.cli import app
from tests.conftest import ManualClock, episode

# The commands run on the system clock, so the observations are recent (a promotion counts
# those within its window of now).
BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)


def _store(tmp_path: Path, clock: ManualClock) -> tuple[Path, list[str]]:
    store = tmp_path / "m.db"
    with Memory.open(store, clock=clock) as memory:
        ids = []
        for n in range(4):
            clock.now = BASE + timedelta(hours=n)
            ids.append(memory.ingest(episode(f"op-{n}", "agent", clock.now,
                                             content=f"seen {n}")).episode_id)
    return store, ids


def _run(store: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["rules", *args, "--store", str(store)])


def _json(result: Result) -> object:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_rule_from_proposal_to_metadata_on_the_command_line(
    tmp_path: Path, clock: ManualClock
) -> None:
    store, eps = _store(tmp_path, clock)
    proposed = _json(_run(store, "propose", "retry on 503", "--scope", "u1", "--type",
                          "environment", "--signal", "api=v1", "--condition", "api=v1",
                          "--json"))
    assert isinstance(proposed, dict)
    rule_id = proposed["rule_id"]
    assert (proposed["tier"], proposed["type"], proposed["signals"]) == (
        "session", "environment default", {"api": "v1"})
    for n, scene in enumerate(("deploy", "deploy", "migrate")):
        _json(_run(store, "observe", rule_id, "--episode", eps[n], "--task", f"t{n}",
                   "--scene", scene, "--scope", "u1", "--json"))
    promoted = _json(_run(store, "promote", rule_id, "--scope", "u1", "--json"))
    assert isinstance(promoted, dict)
    assert promoted["tier"] == "experience"
    table = _run(store, "promote", rule_id, "--scope", "u1")
    assert table.exit_code == 0, table.output
    assert "proposed for metadata" in table.output
    assert "bound to signal api = v1" in table.output
    assert max(len(line) for line in table.output.splitlines()) <= 80

    # The signal moves: the rules bound to its old value are listed, and wait for review.
    moved = _run(store, "signal", "api", "v2", "--scope", "u1")
    assert moved.exit_code == 0, moved.output
    assert "retry on 503" in moved.output
    assert "1 rule(s)" in moved.output
    with Memory.open(store) as memory:
        assert memory.asof(subject="env:api", scope="u1").values() == ["v2"]
        assert memory.rules.show(rule_id).status == "review"
    again = _json(_run(store, "signal", "api", "v2", "--scope", "u1", "--json"))
    assert again == []  # nothing left bound to another value

    # Lineage shows what the rule depends on and the raw episodes it was learned from.
    graph = _json(CliRunner().invoke(app, ["lineage", rule_id, "--up", "--scope", "u1",
                                           "--store", str(store), "--json"]))
    assert isinstance(graph, dict)
    relations = {(e["relation"], e["source"][:3]) for e in graph["edges"]
                 if e["derivative"] == rule_id}
    assert relations == {("DEPENDS_ON", "as_"), ("BASED_ON", "ep_")}
    assert {e["source"] for e in graph["edges"] if e["relation"] == "BASED_ON"} == set(eps[:3])
    assert CliRunner().invoke(app, ["lineage", rule_id, "--scope", "u2",
                                    "--store", str(store)]).exit_code == 4

    # A counterexample with --failed.
    failed = _json(_run(store, "observe", rule_id, "--episode", eps[3], "--task", "t3",
                        "--scene", "deploy", "--failed", "--scope", "u1", "--json"))
    assert isinstance(failed, dict)
    assert failed["basis"][-1]["holds"] is False


def test_rules_show_prints_only_current_signal_bindings_as_bound(
    tmp_path: Path, clock: ManualClock
) -> None:
    """Rule: `rules show` says a rule is bound to a signal only while its binding fact holds.
    A binding the signal's move retired is marked retired, with what the signal reads now, in
    the table and in --json (``bindings[].current``); a keep binds it anew."""
    store, _ = _store(tmp_path, clock)
    rule = _json(_run(store, "propose", "retry on 503", "--scope", "u1", "--signal", "api=v1",
                      "--signal", "region=eu", "--json"))
    assert isinstance(rule, dict)
    rule_id = rule["rule_id"]
    assert rule["bindings"] == [
        {"signal": "api", "value": "v1", "current": True, "reads": "v1"},
        {"signal": "region", "value": "eu", "current": True, "reads": "eu"}]
    assert _run(store, "signal", "api", "v2", "--scope", "u1").exit_code == 0

    shown = _json(_run(store, "show", rule_id, "--scope", "u1", "--json"))
    assert isinstance(shown, dict)
    assert shown["bindings"] == [
        {"signal": "api", "value": "v1", "current": False, "reads": "v2"},
        {"signal": "region", "value": "eu", "current": True, "reads": "eu"}]
    table = _run(store, "show", rule_id, "--scope", "u1")
    assert table.exit_code == 0, table.output
    assert "bound to signal api" not in table.output
    assert "retired binding: signal api = v1 (reads v2 now)" in table.output
    assert "bound to signal region = eu" in table.output
    assert max(len(line) for line in table.output.splitlines()) <= 80

    kept = _json(_run(store, "review", rule_id, "--outcome", "keep", "--by", "ana",
                      "--scope", "u1", "--json"))
    assert isinstance(kept, dict)
    assert [(b["signal"], b["value"], b["current"]) for b in kept["bindings"]] == [
        ("api", "v2", True), ("region", "eu", True)]
    again = _run(store, "show", rule_id, "--scope", "u1")
    assert "bound to signal api = v2" in again.output
    assert "retired" not in again.output


def test_the_rules_commands_refuse_bad_input_with_their_exit_codes(
    tmp_path: Path, clock: ManualClock
) -> None:
    store, eps = _store(tmp_path, clock)
    rule = _json(_run(store, "propose", "retry on 503", "--scope", "u1", "--json"))
    assert isinstance(rule, dict)
    rule_id = rule["rule_id"]
    assert _run(store, "propose", "x", "--signal", "novalue", "--scope", "u1").exit_code == 2
    assert _run(store, "propose", "x").exit_code == 2  # whose rule?
    assert _run(store, "propose", "x", "--scope", "u1", "--expires",
                "2026-01-01T00:00:00").exit_code == 2  # naive time
    assert _run(store, "propose", "x", "--scope", "u1", "--type", "nope").exit_code == 2
    not_ready = _run(store, "promote", rule_id, "--scope", "u1")
    assert not_ready.exit_code == 2
    assert "stays in session" in not_ready.output
    # Another tenant's rule and episodes are not found, nor confirmed to exist.
    assert _run(store, "promote", rule_id, "--scope", "u2").exit_code == 4
    assert _run(store, "observe", rule_id, "--episode", eps[0], "--task", "t", "--scene", "s",
                "--scope", "u2").exit_code == 4
    assert _run(store, "observe", rule_id, "--episode", "ep_nope", "--task", "t", "--scene",
                "s", "--scope", "u1").exit_code == 4
    assert _run(store, "signal", "a/b", "x", "--scope", "u1").exit_code == 2
    assert _run(store, "signal", "api", "x").exit_code == 2  # which tenant?
    assert _run(store, "review", "--at", "2026-03-01T00:00:00Z").exit_code == 2  # needs --due
    missing = CliRunner().invoke(app, ["rules", "promote", rule_id, "--scope", "u1",
                                       "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 3


@pytest.mark.parametrize("args", [
    ["rules", "list"], ["rules", "show", "rl_x"], ["rules", "signal", "api", "v2"],
    ["rules", "propose", "x"], ["rules", "review", "--at", "2026-03-01T00:00:00Z", "--scope",
                                "u1"],
    ["pending"], ["admissions"], ["sweep", "--cap", "1"],
    ["forget", "nonsense"], ["forget", "entity:ana@u1", "--scope", "u1", "--all-scopes"],
    ["blocks", "list"], ["blocks", "revoke", "blk_x"],
])
def test_bad_arguments_are_bad_input_before_any_store_is_opened(
    tmp_path: Path, args: list[str]
) -> None:
    """One frame for every policies, rules and forget command: arguments are checked before the
    store is asked for, so a bad one is exit 2 (not 3 for a store it never needed)."""
    missing = tmp_path / "none.db"
    result = CliRunner().invoke(app, [*args, "--store", str(missing)])
    assert result.exit_code == 2, result.output
    assert not missing.exists()


@pytest.mark.parametrize("args", [
    ["rules", "list", "--scope", "u1"], ["rules", "promote", "rl_x", "--scope", "u1"],
    ["pending", "--scope", "u1"], ["sweep", "--cap", "1", "--scope", "u1"],
    ["forget", "entity:ana@u1"], ["blocks", "list", "--scope", "u1"],
])
def test_a_missing_store_is_exit_3_with_one_line_saying_so(
    tmp_path: Path, args: list[str]
) -> None:
    missing = tmp_path / "none.db"
    result = CliRunner().invoke(app, [*args, "--store", str(missing)])
    assert result.exit_code == 3, result.output
    assert result.output.startswith("error: StoreUnavailable: ")
    assert "Traceback" not in result.output
    assert not missing.exists()


def test_review_due_sends_rules_past_their_date_to_review(
    tmp_path: Path, clock: ManualClock
) -> None:
    store, _ = _store(tmp_path, clock)
    clock.now = BASE + timedelta(hours=4)
    with Memory.open(store, clock=clock) as memory:
        weekly = memory.rules.propose("u1", "check the window", review_every_days=7)
        memory.rules.propose("u1", "prefer small diffs")
    early = _json(_run(store, "review", "--due", "--at",
                       (clock.now + timedelta(days=6.9)).isoformat(), "--scope", "u1",
                       "--json"))
    assert early == []
    due = _json(_run(store, "review", "--due", "--at",
                     (clock.now + timedelta(days=7)).isoformat(), "--scope", "u1",
                     "--json"))
    assert isinstance(due, list)
    assert [(r["rule_id"], r["status"]) for r in due] == [(weekly.rule_id, "review")]
    assert due[0]["transitions"][-1]["reason"].startswith("re-check every 7 days")
    listed = _run(store, "review", "--scope", "u1")
    assert "check the window" in listed.output
    assert _run(store, "review", weekly.rule_id, "--due", "--scope", "u1").exit_code == 2


def test_a_forget_dry_run_shows_what_it_does_to_rules(tmp_path: Path, clock: ManualClock) -> None:
    store, eps = _store(tmp_path, clock)
    clock.now = BASE + timedelta(hours=5)
    with Memory.open(store, clock=clock) as memory:
        rule = memory.rules.propose("u1", "retry on 503")
        for n, scene in enumerate(("a", "b", "b")):
            memory.rules.observe(rule.rule_id, episode_id=eps[n], task_id=f"t{n}", scene=scene)
    dry = CliRunner().invoke(app, ["forget", f"episode:{eps[0]}@u1", "--dry-run",
                                   "--store", str(store)])
    assert dry.exit_code == 0, dry.output
    assert "rule trim (1 of 3)" in dry.output
    assert max(len(line) for line in dry.output.splitlines()) <= 80
    planned = _json(CliRunner().invoke(app, ["forget", f"episode:{eps[0]}@u1", "--dry-run",
                                             "--store", str(store), "--json"]))
    assert isinstance(planned, dict)
    assert planned["plan"]["rules"] == [{
        "rule_id": rule.rule_id, "dropped": 1, "kept": 2, "outcome": "trim",
        "reason": "1 observation(s) of its basis forgotten, 2 left", "cut": 0}]
    with Memory.open(store) as memory:
        assert len(memory.rules.show(rule.rule_id).basis) == 3
