"""How ``--help`` reads: typer's rich help panels, with the help text taken as plain prose.

Typer renders help in its "rich" markup mode, which has three effects a reader of kg-memory's
help should never see:

* text in brackets is markup, so ``kg-memory-bitemporal[lab]`` printed as
  ``kg-memory-bitemporal``: help here is prose, and its brackets are literal;
* a paragraph keeps the line breaks of the docstring it came from, so a sentence wrapped at the
  source's width breaks again at the terminal's: the lines of a paragraph are joined and the
  terminal wraps them once (a blank line still separates paragraphs);
* a flag shows a type (``--json <bool>``) though it takes no value: a flag shows none.

:func:`install` applies the three to typer's renderer; the CLI calls it once at import, and
``tests/test_cli_help.py`` holds every command's help to them at several widths.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from rich.text import Text
from typer import core, rich_utils

__all__ = ["install", "prose"]

_installed = False


def prose(text: str) -> str:
    """``text`` as the reader should see it: indentation removed, each paragraph one line.

    >>> print(prose('''Keep each scope under CAP: invalid memories go first,
    ...     then expired.
    ...
    ...     Needs kg-memory-bitemporal[lab].'''))
    Keep each scope under CAP: invalid memories go first, then expired.
    <BLANKLINE>
    Needs kg-memory-bitemporal[lab].
    """
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(re.sub(r"[ \t]*\n[ \t]*", " ", p).strip() for p in paragraphs)


def _make_text(*, text: str, style: str = "", markup_mode: Any = None) -> Text:
    del markup_mode  # help is prose in every mode: nothing in it is markup
    # fold, never cut: a word wider than its column (a selector's grammar) is shown whole
    return rich_utils.highlighter(Text(prose(text), style=style, overflow="fold"))


def _display_type(self: core.TyperOption, ctx: Any) -> str | None:
    # Any: typer's Context type differs by release (click's or its own vendored copy)
    if self.is_flag and not self.count:
        return None  # a flag takes no value, so it has no type to show
    return _typed(self, ctx)


_typed = core.TyperOption.display_type_rich


def install() -> None:
    """Apply the three corrections to typer's help renderer (idempotent)."""
    global _installed
    if _installed:
        return
    rich_utils._make_rich_text = _make_text
    core.TyperOption.display_type_rich = _display_type  # type: ignore[method-assign]
    _installed = True
