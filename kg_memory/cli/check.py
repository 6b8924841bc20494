"""``kg-memory check``: verify a store's invariants and list every violation with its ids."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from kg_memory import INTEGRITY_EXIT, IntegrityReport
from kg_memory.cli import render
from kg_memory.cli.options import JsonOption, StoreOption, WideOption, open_memory
from kg_memory.cli.sheet import Column, Ident, Sheet, cut_middle

__all__ = ["check", "violations_sheet"]

_EDGE = re.compile(r"^(?P<src>.+?)-(?P<type>[A-Z_]+)->(?P<dst>.+)$")
_TAG = re.compile(r"^(?P<id>.+)#(?P<revision>\d+)$")


def _short(node: str, wide: bool) -> str:
    return Ident(node).show(wide=wide)


def _id_text(value: str, wide: bool) -> str:
    """An id as the tables show ids: a revision tag or an edge with each id shortened."""
    if edge := _EDGE.match(value):
        return f"{_short(edge['src'], wide)}-{edge['type']}->{_short(edge['dst'], wide)}"
    if tag := _TAG.match(value):
        return f"{_short(tag['id'], wide)}#{tag['revision']}"
    return _short(value, wide)


def violations_sheet(report: IntegrityReport, *, wide: bool = False) -> Sheet:
    sheet = Sheet(
        title=f"integrity of {report.location}",
        columns=[Column("rule"), Column("ids", cut="middle"), Column("detail", cut="end")],
        caption=f"{len(report.violations)} violation(s); --json lists every id in full",
    )
    for v in report.violations:
        sheet.add_row(v.rule, " ".join(_id_text(i, wide) for i in v.ids), v.detail)
    return sheet


def check(
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
    mirror: Annotated[bool, typer.Option(
        "--mirror", help="Also read the cursor of the Neo4j mirror this store syncs to.")] = False,
) -> None:
    """Check the store's invariants: exit 0 when all hold, 8 listing each violation.

    Intervals, no two believed revisions of a slot overlapping in valid time, revision
    numbering, dangling edges and supports, dependencies and tombstones honoured, acyclic
    lineage, the outbox and the mirror cursor. Reads one consistent view and never waits for a
    writer; a file that is not a kg-memory store is refused (exit 3) and left untouched.
    """
    with render.errors(), open_memory(store, create=False) as memory:
        report = memory.check(mirror=mirror)
    if json_out:
        render.emit_json(report)
    elif report.ok:
        whats = ("revisions", "edges", "episodes", "tombstones")
        counted = [f"{report.checked[w]} {w}" + ("," if w != whats[-1] else "") for w in whats]
        # Left whole, a long path wraps anywhere; cut in its middle it keeps the file's name,
        # and --json has it whole.
        render.say(f"ok: {cut_middle(report.location, render.PROSE_WIDTH - len('ok: '))}")
        render.say_fitted(["checked", *counted, "(--json for every count)"])
    else:
        render.show(violations_sheet(report, wide=wide), wide=wide)
    if not json_out:
        for note in report.notes:
            render.say(f"note: {note}")
    if not report.ok:
        raise typer.Exit(INTEGRITY_EXIT)
