"""``kg-memory check``: verify a store's invariants and list every violation with its ids."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from kg_memory import INTEGRITY_EXIT
from kg_memory.cli import render
from kg_memory.cli.options import JsonOption, StoreOption, open_memory

__all__ = ["check"]


def check(
    store: StoreOption = None,
    json_out: JsonOption = False,
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
    else:
        counted = ", ".join(f"{n} {what}" for what, n in report.checked.items())
        if report.ok:
            render.console.print(f"ok: {report.location} ({counted})", highlight=False)
        else:
            table = Table(title=f"{len(report.violations)} violation(s) in {report.location}")
            for column in ("rule", "ids", "detail"):
                table.add_column(column, overflow="fold")
            for v in report.violations:
                table.add_row(v.rule, "\n".join(v.ids), v.detail)
            render.console.print(table)
        for note in report.notes:
            render.console.print(f"note: {note}", highlight=False)
    if not report.ok:
        raise typer.Exit(INTEGRITY_EXIT)
