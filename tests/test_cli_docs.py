"""docs/cli.md documents every command and option, and is what kg_memory.cli.docs generates."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from typer.main import get_command

from kg_memory.cli import app
from kg_memory.cli.docs import REGENERATE, generate
from tests.conftest import ROOT

DOC = ROOT / "docs" / "cli.md"
HOW = f"regenerate it with `{REGENERATE}` (from the repository root) and commit it"


def commands() -> Iterator[tuple[str, list[str], str]]:
    """(full name, its options, its help's first line) for every command of the live CLI."""

    def walk(command: Any, ctx: Any) -> Iterator[tuple[str, list[str], str]]:
        options = [o for p in command.get_params(ctx) if p.param_type_name == "option"
                   for o in (*p.opts, *p.secondary_opts)]
        first_line = (command.help or "").strip().split("\n")[0]
        yield ctx.command_path, options, first_line
        for name in getattr(command, "list_commands", lambda _: [])(ctx):
            sub = command.get_command(ctx, name)
            yield from walk(sub, sub.context_class(sub, info_name=name, parent=ctx))

    root = get_command(app)
    yield from walk(root, root.context_class(root, info_name="kg-memory"))


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_command_and_option_is_in_docs_cli_md() -> None:
    documented = sections(DOC.read_text(encoding="utf-8"))
    found = list(commands())
    assert {"kg-memory asof", "kg-memory sim dinner prompt", "kg-memory blocks list"} <= {
        name for name, _, _ in found
    }
    missing = [
        f"{name} {option}".strip()
        for name, options, _ in found
        for option in ("", *options)
        if name not in documented or option not in documented[name]
    ]
    assert missing == [], f"docs/cli.md lacks {', '.join(missing)}: {HOW}"
    undescribed = [n for n, _, first in found if " ".join(first.split()[:4]) not in
                   " ".join(documented[n].split())]
    assert undescribed == [], f"docs/cli.md has old help for {', '.join(undescribed)}: {HOW}"


def test_docs_cli_md_is_what_the_generator_prints() -> None:
    current = DOC.read_text(encoding="utf-8")
    expected = generate(app)
    diff = "".join(list(difflib.unified_diff(
        current.splitlines(keepends=True), expected.splitlines(keepends=True),
        "docs/cli.md", "generated"))[:40])
    assert current == expected, f"docs/cli.md is out of date: {HOW}\n{diff}"


def test_the_readme_command_line_section_links_the_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/cli.md" in sections(readme)["Command line"]
