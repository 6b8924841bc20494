"""README.md is an entry point a newcomer can act on: short, its examples run as printed, its
links lead somewhere, and the demo it starts says what to try next in commands that work."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.test_cli import _commands

README = ROOT / "README.md"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_readme_is_an_entry_point_not_a_manual() -> None:
    assert len(_readme().splitlines()) <= 250


def test_the_quickstart_holds_exactly_two_commands() -> None:
    match = re.search(r"^## Quickstart$(.*?)^```\w*\n(.*?)^```", _readme(), re.M | re.S)
    assert match is not None
    lines = [line for line in match.group(2).splitlines()
             if line.strip() and not line.strip().startswith("#")]
    assert len(lines) == 2
    assert lines[1] == "bash .ci/test"


def test_the_python_example_prints_the_fact(tmp_path: Path) -> None:
    """It asks about the past on both axes (known_at before the day it runs), as the finding
    that it printed nothing did, and answers."""
    match = re.search(r"^```python\n(.*?)^```", _readme(), re.M | re.S)
    assert match is not None
    assert "known_at=day2" in match.group(1)
    done = subprocess.run([sys.executable, "-c", match.group(1)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "ana diet vegetarian user stated" in done.stdout.splitlines()
    assert "the user's statement" in done.stdout


def test_every_command_the_readme_shows_exists() -> None:
    known = set(_commands())
    shown = re.findall(r"^ {4}kg-memory ([a-z0-9]+(?: [a-z0-9]+)?)", _readme(), re.M)
    assert shown
    unknown = [c for c in shown if c not in known and c.split()[0] not in known]
    assert unknown == []


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken: list[str] = []
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # an external address
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_demo_ends_with_commands_that_work_on_its_store(tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "kg_memory.cli"]
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("KG_MEMORY_STORE", None)
    done = subprocess.run([*cli, "demo"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "stale: served a value that" in done.stdout
    # a command continued with a backslash is one command, as the shell reads it
    tail = done.stdout.split("Try next on the demo's store")[1].replace("\\\n", " ").splitlines()
    exports = [line.split("export ", 1)[1] for line in tail if "export KG_MEMORY_STORE=" in line]
    assert len(exports) == 1
    env["KG_MEMORY_STORE"] = exports[0].split("=", 1)[1]
    commands = [line.strip().split("  (")[0] for line in tail
                if line.startswith("  kg-memory ") and " ID " not in line]
    assert len(commands) >= 5
    for command in commands:
        args = shlex.split(command)[1:]
        ran = subprocess.run([*cli, *args], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120, check=False)
        assert ran.returncode == 0, (command, ran.stdout, ran.stderr)
        assert ran.stdout.strip(), command
