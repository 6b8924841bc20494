"""The CLI end to end: real files, real store, the installed command's app object."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from kg_memory.cli import app
from tests.conftest import ROOT

runner = CliRunner(env={"COLUMNS": "200"})
DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _commands() -> list[str]:
    root = get_command(app)
    names: list[str] = []

    def walk(cmd: object, prefix: str) -> None:
        subs = getattr(cmd, "commands", None)
        if subs is None:
            names.append(prefix)
            return
        if prefix.count(" ") >= 1 and getattr(cmd, "invoke_without_command", False):
            names.append(prefix)
        for name, sub in subs.items():
            walk(sub, f"{prefix} {name}".strip())

    walk(root, "")
    return names


def test_every_command_is_documented_in_the_guide() -> None:
    """docs/cli.md is generated from the help; the guide is prose a person wrote, so a command
    missing from it is a command nobody explained."""
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    commands = _commands()
    assert "ingest" in commands
    assert "sim dinner" in commands
    missing = [c for c in commands if f"kg-memory {c}" not in guide]
    assert missing == []


def test_ingest_then_asof_and_history_as_json(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(DINNER), "--trust-envelopes", "--store", store, "--json")
    assert code == 0, out
    assert json.loads(out)["accepted"] == 7
    assert json.loads(out)["refused"] == 1
    code, out = run("ingest", str(DINNER), "--trust-envelopes", "--store", store, "--json")
    assert json.loads(out)["duplicate"] == 7
    assert json.loads(out)["accepted"] == 0

    code, out = run(
        "asof", "--store", store, "--valid-at", "2026-01-10T12:00:00Z", "--subject", "ana",
        "--scope", "u1", "--json"
    )
    assert code == 0, out
    answer = json.loads(out)
    assert [f["value"] for f in answer["facts"]] == ["vegetarian"]
    fact = answer["facts"][0]
    assert {
        "assertion_id",
        "revision",
        "writer",
        "kind",
        "valid",
        "system",
        "supported_by",
    } <= fact.keys()
    assert fact["supported_by"][0]["source"] == "user"

    code, out = run("history", "ana", "--store", store, "--scope", "u1", "--json")
    assert code == 0
    assert [e["version"]["value"] for e in json.loads(out)] == [
        "vegetarian",
        "vegetarian",
        "eats fish",
    ]
    code, out = run("refusals", "--store", store, "--scope", "u1", "--json")
    assert json.loads(out)[0]["source"] == "restaurant"


def test_asof_on_a_missing_store_fails_with_exit_3(tmp_path: Path) -> None:
    code, out = run("asof", "--store", str(tmp_path / "absent.db"), "--scope", "u1")
    assert code == 3
    assert "StoreUnavailable" in out


def test_naive_time_on_the_command_line_is_refused(tmp_path: Path) -> None:
    code, out = run("asof", "--store", str(tmp_path / "x.db"), "--valid-at", "2026-01-10T12:00",
                    "--scope", "u1")
    assert code == 2
    assert "no timezone" in out


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"operation_id": "x"', None, "malformed JSON"),
        (
            '{"operation_id": "x", "source": "user", "channel": "chat", '
            '"occurred_at": "2026-01-05T09:00:00"}',
            "occurred_at",
            "no timezone",
        ),
        (
            '{"operation_id": "x", "source": "user", "channel": "chat", '
            '"occurred_at": "2026-01-05T09:00:00Z", "assertions": [{"subject": "a", '
            '"predicate": "b", "value": 1, "kind": "stated", "valid_from": "2026-01-05T00:00:00Z", '
            '"valid_to": "2026-01-04T00:00:00Z"}]}',
            "assertions.0.valid_to",
            "after valid_from",
        ),
        (
            '{"operation_id": "x", "source": "user", "channel": "chat", '
            '"occurred_at": "2026-01-05T09:00:00Z", "assertions": [{"subject": "a", '
            '"predicate": "b", "value": 1, "kind": "rumour"}]}',
            "assertions.0.kind",
            "stated",
        ),
        (
            '{"operation_id": "x", "source": "user", "channel": "chat", '
            '"occurred_at": "2026-01-05T09:00:00Z", "colour": "red"}',
            "colour",
            "unknown field",
        ),
    ],
)
def test_bad_line_names_line_and_field_and_keeps_earlier_lines(
    tmp_path: Path, line: str, field: str | None, message: str
) -> None:
    good = DINNER.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join([*good, line, *good]) + "\n")
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(path), "--trust-envelopes", "--store", store)
    assert code == 2
    assert "line 4" in out
    assert message in out
    if field:
        assert f"field {field!r}" in out
    code, out = run("history", "ana", "--store", store, "--scope", "u1", "--json")
    assert len(json.loads(out)) == 1  # the first three lines stayed accepted


def test_schema_describes_the_fixture_lines() -> None:
    code, out = run("schema")
    assert code == 0
    schema = json.loads(out)
    for line in DINNER.read_text(encoding="utf-8").splitlines():
        jsonschema.validate(json.loads(line), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"operation_id": "x"}, schema)


def test_sim_dinner_json_matches_the_table() -> None:
    code, out = run("sim", "dinner", "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == 8
    assert list(rows[0]) == ["policy", "reads", "stale", "missing", "injected"]
    code, table = run("sim", "dinner")
    for row in rows:
        assert re.search(
            rf"{re.escape(row['policy'])}\s+89\s+{row['stale']}\s+"
            rf"{row['missing']}\s+{row['injected']}",
            table,
        )


def test_sim_dinner_writes_and_prompt() -> None:
    code, out = run("sim", "dinner", "writes", "provenance")
    assert code == 0
    assert "refused: restaurant may not write deposit_preapproved" in out
    code, out = run("sim", "dinner", "prompt", "provenance", "--day", "81")
    assert code == 0
    assert "- favourite: Chez Lili  (user, day 0; until the user says otherwise)" in out
    code, out = run("sim", "dinner", "prompt", "nonsense")
    assert code != 0


def test_demo_runs_on_a_fresh_store(tmp_path: Path) -> None:
    code, out = run("demo", "--store", str(tmp_path / "demo.db"))
    assert code == 0, out
    assert "Writer + dependency" in out
    assert "eats fish" in out
