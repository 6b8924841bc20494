"""How the CLI prints: rich tables for people, JSON for machines, errors on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kg_memory import EXIT_CODES, AsOfAnswer, HistoryEntry, Interval, KgMemoryError

__all__ = ["asof_table", "console", "emit_json", "errors", "history_table", "interval", "when"]

console = Console()
_err = Console(stderr=True)


@contextmanager
def errors() -> Iterator[None]:
    """Turn a kg-memory error into one clear line on stderr and its documented exit code."""
    try:
        yield
    except KgMemoryError as exc:
        code = next(c for cls, c in EXIT_CODES if isinstance(exc, cls))
        # The message is data, not markup: "kg-memory[mcp]" must print as written.
        _err.print(
            f"[bold red]error[/]: {type(exc).__name__}: {escape(str(exc))}", highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code) from None


def emit_json(data: BaseModel | list[Any] | dict[str, Any]) -> None:
    if isinstance(data, BaseModel):
        payload: Any = data.model_dump(mode="json")
    else:
        payload = (
            [d.model_dump(mode="json") if isinstance(d, BaseModel) else d for d in data]
            if isinstance(data, list)
            else data
        )
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def when(value: datetime | None) -> str:
    """Compact UTC for tables (JSON output keeps full precision)."""
    if value is None:
        return "∞"
    if value.second == 0 and value.microsecond == 0:
        return value.strftime("%Y-%m-%d %H:%M")
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def interval(value: Interval) -> str:
    return f"[{when(value.start)}, {when(value.end)})"


def short(node_id: str) -> str:
    """Ids are long hashes; tables show a prefix that is unique in practice (JSON has all)."""
    return node_id[:11]


def _evidence(episode_ids: list[str]) -> str:
    if not episode_ids:
        return ""
    more = f" +{len(episode_ids) - 1}" if len(episode_ids) > 1 else ""
    return short(episode_ids[-1]) + more


def asof_table(answer: AsOfAnswer) -> Table:
    table = Table(
        title=f"valid at {when(answer.valid_at)} · known at {when(answer.known_at)}",
        caption=f"{len(answer.facts)} fact(s)",
    )
    for column in ("fact", "value", "kind", "writer", "valid", "system", "evidence", "id"):
        table.add_column(column, overflow="fold")
    for fact in answer.facts:
        qualifiers = fact.qualifiers
        label = fact.key
        if qualifiers.project:
            label += f" @{qualifiers.project}"
        value = str(fact.value)
        if qualifiers.exceptions:
            value += f" (except {', '.join(qualifiers.exceptions)})"
        table.add_row(
            label,
            value,
            fact.kind.value,
            fact.writer,
            interval(fact.valid),
            interval(fact.system),
            _evidence([s.episode_id for s in fact.supported_by]),
            f"{short(fact.assertion_id)}#{fact.revision}",
        )
    return table


def history_table(subject: str, entries: list[HistoryEntry]) -> Table:
    table = Table(title=f"history of {subject}", caption=f"{len(entries)} revision(s)")
    for column in (
        "fact",
        "value",
        "kind",
        "writer",
        "valid",
        "system",
        "because",
        "closed by",
        "id",
    ):
        table.add_column(column, overflow="fold")
    for entry in entries:
        v = entry.version
        closed = (
            "" if entry.closed_by is None else f"{entry.close_reason} by {short(entry.closed_by)}"
        )
        table.add_row(
            v.key,
            str(v.value),
            v.kind.value,
            v.writer,
            interval(v.valid),
            interval(v.system),
            f"{entry.created_because.value} by {short(v.recorded_by)}",
            closed,
            f"{short(v.assertion_id)}#{v.revision}",
        )
    return table
