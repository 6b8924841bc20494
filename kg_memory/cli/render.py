"""How the CLI prints: tables for people that fit the terminal, JSON for machines, errors on
stderr.

The tables are :class:`~kg_memory.cli.sheet.Sheet` s: one line per row at any width, compact
instants and intervals (kg_memory.cli.instants), short ids; ``--wide`` shows every column and
full ids; ``--json`` prints everything exactly and never changes with the terminal.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import typer
from pydantic import BaseModel
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kg_memory import (
    EXIT_CODES,
    AsOfAnswer,
    Fact,
    HistoryEntry,
    Interval,
    KgMemoryError,
    Refusal,
)
from kg_memory.cli.instants import Precision, TimeFormat, exact
from kg_memory.cli.sheet import Cell, Column, Ident, Sheet, cut_middle, text

__all__ = [
    "PROSE_WIDTH",
    "asof_sheet",
    "asof_table",
    "console",
    "emit_json",
    "errors",
    "fail",
    "fit",
    "history_sheet",
    "history_table",
    "ingest_summary",
    "interval",
    "prose_width",
    "refusals_sheet",
    "say",
    "say_fitted",
    "show",
    "when",
]

console = Console()
_err = Console(stderr=True)


@contextmanager
def errors() -> Iterator[None]:
    """Turn a kg-memory error into one clear line on stderr and its documented exit code."""
    try:
        yield
    except KgMemoryError as exc:
        code = next(c for cls, c in EXIT_CODES if isinstance(exc, cls))
        _err.print(
            # Escaped: a message may quote brackets (an extra's name) that rich would eat.
            f"[bold red]error[/]: {type(exc).__name__}: {escape(str(exc))}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code) from None


def fail(message: str, code: int) -> None:
    """End a command whose work did not fully succeed (no exception to say so): ``message`` on
    stderr, exit ``code``."""
    _err.print(f"[bold red]error[/]: {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def emit_json(data: BaseModel | list[Any] | dict[str, Any]) -> None:
    if isinstance(data, BaseModel):
        payload: Any = data.model_dump(mode="json")
    else:
        payload = (
            [d.model_dump(mode="json") if isinstance(d, BaseModel) else d for d in data]
            if isinstance(data, list)
            else data
        )
    try:
        text = json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        # Ingest refuses NaN and infinities, but a store written by an older version may hold
        # one: JSON has no spelling for them, so they print as null rather than as invalid JSON.
        text = json.dumps(_finite(payload), indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.write(text + "\n")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def say(message: str) -> None:
    """Print one line for people as written: stored ids and values are never read as markup."""
    console.print(Text(text(message)), highlight=False)


#: what a line of prose fits in, as the tables fit an 80-column terminal
PROSE_WIDTH = 80


def fit(parts: Sequence[str], *, width: int = PROSE_WIDTH, indent: str = "  ") -> list[str]:
    """``parts`` joined by spaces into lines of at most ``width`` columns, never breaking a
    part (a count with its noun, a goal), continuation lines indented so a wrapped sentence
    reads as one. Left to the terminal, a long line breaks anywhere, at column 0."""
    lines: list[str] = []
    for part in parts:
        if lines and cell_len(f"{lines[-1]} {part}") <= width:
            lines[-1] = f"{lines[-1]} {part}"
        else:
            lines.append(f"{indent if lines else ''}{part}")
    return lines


def prose_width() -> int:
    """What a line of prose fits in: 80 columns, or the terminal's width when narrower."""
    return min(PROSE_WIDTH, console.width)


def say_fitted(parts: Sequence[str]) -> None:
    """Print :func:`fit`'s lines, within :func:`prose_width`."""
    for line in fit(parts, width=prose_width()):
        say(line)


def ingest_summary(counts: dict[str, int], location: str, *, pending: bool) -> list[str]:
    """An ingest's counts as the parts of one sentence, each whole on a line (:func:`fit`);
    the store's path cut in its middle, as ``check`` prints it, so the sentence never wraps
    (--json has it whole)."""
    parts = [f"{counts['accepted']} accepted,", f"{counts['duplicate']} duplicate,",
             *([f"{counts['forgotten']} forgotten,"] if counts.get("forgotten") else []),
             f"{counts['envelopes_refused']} envelope(s) refused,",
             f"{counts['refused']} candidate(s) refused"
             + (f", {counts.get('pending', 0)} pending" if pending else " by the writer gate")]
    return [*parts, f"→ {cut_middle(location, prose_width() - 4)}"]


def show(sheet: Sheet, *, wide: bool = False) -> None:
    """Print a sheet for people on the CLI's console (see kg_memory.cli.sheet for the rules)."""
    sheet.print(console, wide=wide)


# One instant, interval or id in a line of prose (tables format theirs as a whole, in Sheet).
def when(value: datetime | None) -> str:
    """An instant with its year and every digit it has: ``2026-02-04 09:00``, ``∞`` if open."""
    return exact(value)


def interval(value: Interval) -> str:
    """An interval as one token with years: ``2026-02-04 09:00→∞``."""
    return TimeFormat(precision=Precision.EXACT).interval(value)


def asof_table(answer: AsOfAnswer) -> Table:
    """The as-of table laid out for the CLI's console (commands print it with ``show``)."""
    return asof_sheet(answer).render(console.width)


def history_table(subject: str, entries: list[HistoryEntry]) -> Table:
    return history_sheet(subject, entries).render(console.width)


def _evidence(episode_ids: list[str], sources: int | None = None) -> Ident | None:
    if not episode_ids:
        return None
    more = f" +{len(episode_ids) - 1}" if len(episode_ids) > 1 else ""
    if more and sources is not None:
        # Episodes are not corroboration: say how many independent sources there are.
        more += f" ({sources} src)"
    return Ident(episode_ids[-1], more)


def _fact_cells(fact: Fact, mark: str = "") -> tuple[Cell, ...]:
    qualifiers = fact.qualifiers
    label = mark + fact.key
    if qualifiers.project:
        label += f" @{qualifiers.project}"
    value = text(fact.value)
    if qualifiers.exceptions:
        value += f" (except {', '.join(qualifiers.exceptions)})"
    return (
        label,
        value,
        fact.kind.value,
        fact.writer,
        fact.valid,
        fact.system,
        _evidence([s.episode_id for s in fact.supported_by], fact.corroboration.sources),
        Ident(fact.assertion_id, f"#{fact.revision}"),
    )


def asof_sheet(answer: AsOfAnswer) -> Sheet:
    """An as-of answer: what held, who wrote it, both intervals; ids and evidence if room.

    Values a lower-authority writer holds against a served fact follow as rows marked ``!``.
    """
    caption = f"{len(answer.facts)} fact(s)"
    if answer.conflicts:
        caption += f", {len(answer.conflicts)} conflict(s) (!, not served)"
    sheet = Sheet(
        title=("valid at ", answer.valid_at, " · known at ", answer.known_at),
        columns=[
            Column("fact", cut="middle", identifies=True),
            Column("value", cut="end", identifies=True),
            Column("kind"),
            Column("writer", cut="middle"),
            Column("valid"),
            Column("system"),
            Column("evidence", priority=2),
            Column("id", priority=1),
        ],
        caption=caption,
    )
    for fact in answer.facts:
        sheet.add_row(*_fact_cells(fact))
    for conflict in answer.conflicts:
        sheet.add_row(*_fact_cells(conflict.fact, mark="! "))
    return sheet


def history_sheet(subject: str, entries: list[HistoryEntry]) -> Sheet:
    """Every revision about ``subject``: facts are named by predicate (the subject is the title)."""
    sheet = Sheet(
        title=f"history of {subject}",
        columns=[
            Column("fact", cut="middle", identifies=True),
            Column("value", cut="end", identifies=True),
            Column("kind", priority=2),
            Column("writer", priority=2, cut="middle"),
            Column("valid"),
            Column("system"),
            # Why a revision exists reads after what it says: left out before a fact is cut.
            Column("because", priority=2),
            Column("by", priority=4),
            Column("closed", priority=1),
            Column("closed by", priority=4),
            Column("id", priority=3),
        ],
        caption=f"{len(entries)} revision(s)",
    )
    for entry in entries:
        v = entry.version
        sheet.add_row(
            v.predicate if v.subject == subject else v.key,
            text(v.value),
            v.kind.value,
            v.writer,
            v.valid,
            v.system,
            entry.created_because.value,
            Ident(v.recorded_by),
            entry.close_reason.value if entry.close_reason else None,
            Ident(entry.closed_by) if entry.closed_by else None,
            Ident(v.assertion_id, f"#{v.revision}"),
        )
    return sheet


def refusals_sheet(rows: list[Refusal]) -> Sheet:
    sheet = Sheet(
        title="refused by the writer gate",
        columns=[
            Column("at"),
            # The reason names the source: its column goes before what identifies the row.
            Column("source", cut="middle", priority=2),
            Column("what", cut="end", identifies=True),
            Column("reason", cut="end", identifies=True),
            Column("episode", priority=1),
        ],
        caption=f"{len(rows)} refusal(s)",
    )
    for r in rows:
        sheet.add_row(r.at, r.source, r.what, r.reason, Ident(r.episode_id))
    return sheet
