"""Bad input to the write-policy and rule commands is a typed error naming the argument, exit 2,
never a traceback: text that is not UTF-8 (it arrives as a lone surrogate), an empty tenant,
an empty task id or scene tag (each would count as one more distinct confirmation)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_memory import InvalidArgument, Memory, Outcome, RuleType, ScopeError, Tier
from kg_memory.cli import app
from tests.conftest import ManualClock, episode

# A byte that is not UTF-8 on a command line reaches Python as this lone surrogate.
BAD = "b\udcff"
BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)


@pytest.fixture
def rule_store(tmp_path: Path) -> tuple[Path, str, str]:
    """A store with one episode and one rule of tenant u1: (path, rule id, episode id)."""
    path = tmp_path / "m.db"
    with Memory.open(path, clock=ManualClock(BASE)) as memory:
        seen = memory.ingest(episode("op-1", "agent", BASE, content="seen once"))
        rule = memory.rules.propose("u1", "retry on 503")
    return path, rule.rule_id, seen.episode_id


def _commands(rule: str, ep: str, bad: str) -> list[tuple[str, list[str]]]:
    """(the argument the error must name, the command) for each text argument."""
    return [
        ("scope", ["pending", "--scope", bad]),
        ("scope", ["admissions", "--scope", bad]),
        ("scope", ["sweep", "--cap", "1", "--scope", bad]),
        ("scope", ["rules", "list", "--scope", bad]),
        ("rule_id", ["rules", "show", bad, "--scope", "u1"]),
        ("scope", ["rules", "propose", "x", "--scope", bad]),
        ("content", ["rules", "propose", bad, "--scope", "u1"]),
        ("condition", ["rules", "propose", "x", "--condition", bad, "--scope", "u1"]),
        ("signal", ["rules", "propose", "x", "--signal", f"api={bad}", "--scope", "u1"]),
        ("task_id", ["rules", "observe", rule, "--episode", ep, "--task", bad, "--scene", "s",
                     "--scope", "u1"]),
        ("scene", ["rules", "observe", rule, "--episode", ep, "--task", "t", "--scene", bad,
                   "--scope", "u1"]),
        ("episode_id", ["rules", "observe", rule, "--episode", bad, "--task", "t", "--scene",
                        "s", "--scope", "u1"]),
        ("signal", ["rules", "signal", "api", bad, "--scope", "u1"]),
        ("by", ["rules", "demote", rule, "--by", bad, "--scope", "u1"]),
        ("reason", ["rules", "demote", rule, "--by", "ana", "--reason", bad, "--scope", "u1"]),
        ("by", ["rules", "review", rule, "--outcome", "keep", "--by", bad, "--scope", "u1"]),
        ("by", ["rules", "approve", rule, "--by", bad, "--scope", "u1"]),
    ]


@pytest.mark.parametrize("case", range(17))
def test_text_that_is_not_unicode_is_bad_input_naming_the_argument(
    rule_store: tuple[Path, str, str], case: int
) -> None:
    store, rule, ep = rule_store
    commands = _commands(rule, ep, BAD)
    assert len(commands) == 17
    name, args = commands[case]
    result = CliRunner().invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert name in result.output
    assert "not valid Unicode" in result.output
    with Memory.open(store) as memory:
        (kept,) = memory.rules.all("u1")
        assert (kept.tier.value, kept.status, kept.transitions) == ("session", "active", ())


@pytest.mark.parametrize("args", [
    ["pending", "--scope", ""], ["admissions", "--scope", ""],
    ["sweep", "--cap", "1", "--scope", ""], ["rules", "list", "--scope", ""],
    ["rules", "propose", "x", "--scope", ""], ["rules", "signal", "api", "v2", "--scope", ""],
])
def test_an_empty_tenant_is_bad_input_as_for_every_other_reader(
    rule_store: tuple[Path, str, str], args: list[str]
) -> None:
    store, _, _ = rule_store
    result = CliRunner().invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "ScopeError" in result.output
    with Memory.open(store) as memory:
        assert [r.scope for r in memory.rules.all()] == ["u1"]


def test_the_api_refuses_a_rule_for_no_tenant_and_text_that_is_not_unicode() -> None:
    book = Memory.open(":memory:").rules
    with pytest.raises(ScopeError):
        book.propose("", "x")
    with pytest.raises(InvalidArgument, match="content"):
        book.propose("u1", BAD)
    assert book.all() == []


@pytest.mark.parametrize("field", ["--task", "--scene"])
def test_an_empty_task_id_or_scene_tag_is_no_confirmation(
    rule_store: tuple[Path, str, str], field: str
) -> None:
    """Promotion counts distinct task ids and scene tags; an empty one is not a task."""
    store, rule, ep = rule_store
    values = {"--task": "t1", "--scene": "deploy", field: " "}
    result = CliRunner().invoke(app, [
        "rules", "observe", rule, "--episode", ep, "--task", values["--task"], "--scene",
        values["--scene"], "--scope", "u1", "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert field.lstrip("-") in result.output
    with Memory.open(store) as memory:
        assert memory.rules.show(rule).basis == ()


def test_a_safety_constraint_changes_on_the_command_line_only_by_a_design_change(
    tmp_path: Path,
) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store) as memory:
        safety = memory.rules.propose("u1", "confirm before deleting", type=RuleType.SAFETY)
    run = CliRunner().invoke
    base = ["--by", "ana", "--scope", "u1", "--store", str(store)]
    assert run(app, ["rules", "approve", safety.rule_id, *base]).exit_code == 2
    assert run(app, ["rules", "approve", safety.rule_id, *base, "--design-change"]).exit_code == 0
    refused = run(app, ["rules", "demote", safety.rule_id, *base])
    assert refused.exit_code == 2
    assert "design change" in refused.output
    assert run(app, ["rules", "review", safety.rule_id, "--outcome", "expire",
                     *base]).exit_code == 2
    with Memory.open(store) as memory:
        assert (memory.rules.show(safety.rule_id).tier, memory.rules.show(
            safety.rule_id).status) == (Tier.METADATA, "active")
    assert run(app, ["rules", "demote", safety.rule_id, *base, "--design-change"]).exit_code == 0
    with Memory.open(store) as memory:
        assert memory.rules.show(safety.rule_id).tier is Tier.EXPERIENCE


def test_a_rules_transitions_are_a_table_of_one_line_each_at_80_columns(
    rule_store: tuple[Path, str, str],
) -> None:
    """The CLI's tables never wrap a cell: a transition with its reason is one line."""
    store, rule, _ = rule_store
    with Memory.open(store) as memory:
        memory.rules.review(rule, Outcome.KEEP, "ana", "the 503s still come from the gateway")
        memory.rules.review(rule, Outcome.KEEP, "bob", "checked again against the new gateway")
    shown = CliRunner(env={"COLUMNS": "80"}).invoke(
        app, ["rules", "show", rule, "--scope", "u1", "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.rstrip("\n").split("\n")
    assert max(len(line) for line in lines) <= 80
    for by in ("ana", "bob"):
        (line,) = [x for x in lines if f" {by} " in x]
        assert "kept" in line
    # the rule's table and the transitions' table, each a title, header, rule, rows, caption
    assert len(lines) == (4 + 1) + (4 + 2)


@pytest.mark.parametrize(("args", "named"), [
    (["--plot", "/nonexistent-dir/lab.png"], "--plot"),
    (["--plot", "lab.svg"], "--plot"),
    (["--solution"], "--mission"),
    (["--half-life", "inf"], "--half-life"),
    (["--half-life", "nan"], "--half-life"),
    (["--half-life", "1e400"], "--half-life"),
])
def test_the_bookstore_lab_refuses_bad_flags_before_it_runs(
    tmp_path: Path, args: list[str], named: str
) -> None:
    """A picture it cannot write, or a solution of no mission, is bad input (exit 2) at once,
    not a traceback after minutes of simulation or a silent run of something else."""
    result = CliRunner().invoke(app, ["sim", "bookstore", "--seeds", "1", *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert named in result.output
