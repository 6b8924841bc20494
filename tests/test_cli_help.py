"""``--help`` reads as written, at every width: no type on a flag, no double negative, brackets
kept, a paragraph wrapped once by the terminal; and one exit-code table covers every code."""

from __future__ import annotations

import re
from typing import Any

import click
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from kg_memory import EXIT_CODES, EXIT_MEANINGS, INTEGRITY_EXIT
from kg_memory.cli import app
from tests.conftest import ROOT

WIDTHS = [60, 80, 120, 160]


def _walk() -> list[tuple[list[str], click.Command]]:
    found: list[tuple[list[str], click.Command]] = []

    def walk(command: Any, path: list[str]) -> None:
        found.append((path, command))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(get_command(app), [])
    return found


COMMANDS = _walk()


def _help(path: list[str], width: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], terminal_width=width,
                                env={"COLUMNS": str(width), "TERMINAL_WIDTH": str(width)})
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text: str) -> str:
    """The help's words, with the panels' borders and the terminal's wrapping taken out."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) or "kg-memory"
                                                             for p, _ in COMMANDS])
def test_help_reads_as_written(path: list[str], command: click.Command, width: int) -> None:
    text = _help(path, width)
    assert "<bool>" not in text
    assert "--no-no-" not in text
    words = _flat(text)
    helps = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
    for source in helps:
        for bracketed in re.findall(r"\[[^\]\s]+\]", source):
            # a token wider than a narrow column is folded, not eaten: compare without spaces
            assert bracketed in words.replace(" ", ""), f"{bracketed} was eaten as markup"


def test_a_paragraph_is_wrapped_by_the_terminal_not_by_the_source() -> None:
    """At 160 columns the sweep command's summary (two lines in its docstring) is one line."""
    text = _help([], 160)
    line = next(line for line in text.splitlines() if "sweep" in line)
    assert "least recently confirmed" in line


def _codes_in_source() -> set[int]:
    """Every literal exit code a module of the CLI or the launcher can return."""
    codes = {c for _, c in EXIT_CODES} | {0, INTEGRITY_EXIT, 2}  # 2: click's usage errors
    for path in (ROOT / "kg_memory").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= {int(c) for c in re.findall(r"(?:typer\.Exit|sys\.exit|SystemExit)\((\d+)\)",
                                             text)}
    launcher = (ROOT / "docker" / "neo4j-local" / "neo4j-local.sh").read_text(encoding="utf-8")
    codes |= {int(c) for c in re.findall(r"\bexit (\d+)", launcher)}  # kg-memory neo4j ...
    return codes


def test_one_exit_code_table_covers_every_code() -> None:
    codes = _codes_in_source()
    assert codes - set(EXIT_MEANINGS) == set()
    table = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## Exit codes")[1]
    for code, meaning in EXIT_MEANINGS.items():
        assert f"| {code} | {meaning} |" in table
    root = _flat(_help([], 120))
    for code in EXIT_MEANINGS:
        assert re.search(rf"\b{code} ", root.split("Exit codes:")[1]), code
    assert "docs/cli.md#exit-codes" in root
    assert "docs/cli.md#exit-codes" in (ROOT / "README.md").read_text(encoding="utf-8")
