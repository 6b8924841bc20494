"""``kg-memory forget`` and ``kg-memory blocks``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from kg_memory.cli import render
from kg_memory.cli.options import JsonOption, StoreOption, open_memory

__all__ = ["blocks_app", "forget"]

blocks_app = typer.Typer(help="Collection blocks left by forget requests.", no_args_is_help=True)


def forget(
    selector: Annotated[
        str,
        typer.Argument(
            help="episode:ID, assertion:ID, entity:ID, source:NAME[@SCOPE] or "
            "category:SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT]."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; change nothing.")
    ] = False,
    block: Annotated[
        bool, typer.Option("--block", help="Also stop collecting this category until re-enabled.")
    ] = False,
    keep_residues: Annotated[
        bool, typer.Option("--keep-residues",
                           help="Do not cut unlinked copies of the erased text out of what is "
                           "kept (they are still listed and counted).")
    ] = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """Forget SELECTOR and everything derived only from it: erasure, not supersession.

    The plan classifies every affected node (delete, rebuild, erase, redact, restore, retain) by
    lineage, adds the entities only the forgotten input referred to, and the residues: unlinked
    copies of the erased text in what is kept, which are cut out unless --keep-residues;
    --dry-run prints exactly that plan. The real run is one transaction, then the store
    scrubs its files; it reports completion per destination and is safe to re-run.
    """
    with render.errors(), open_memory(store, create=False) as memory:
        try:
            report = memory.forget(selector, dry_run=dry_run, block=block,
                                   keep_residues=keep_residues)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    if json_out:
        render.emit_json(report)
        return
    plan = report.plan
    table = Table(title=f"forget {report.selector}" + (" (dry run)" if dry_run else ""))
    table.add_column("action")
    table.add_column("nodes")
    for action in ("delete", "rebuild", "erase", "redact", "restore", "retain", "entities"):
        table.add_row(action, "\n".join(getattr(plan, action)) or "-")
    table.add_row("residues", "\n".join(
        f"{r.where} {r.node} ({r.spans})" for r in plan.residues) or "-")
    render.console.print(table)
    render.console.print(f"residues: {report.residues_found} found, "
                         f"{report.residues_redacted} redacted")
    for destination in report.destinations:
        render.console.print(f"{destination['destination']}: {destination['status']}")
    render.console.print(f"status: {report.status}")


@blocks_app.command("list")
def list_blocks(
    scope: Annotated[str | None, typer.Option(help="Only this scope.")] = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """List collection blocks, active and revoked."""
    with render.errors(), open_memory(store, create=False) as memory:
        found = memory.blocks(scope)
    if json_out:
        render.emit_json(found)
        return
    table = Table(title="collection blocks")
    for column in ("id", "scope", "subject", "predicates", "project", "since", "revoked"):
        table.add_column(column)
    for b in found:
        table.add_row(
            b.block_id,
            b.scope,
            b.subject,
            b.predicates,
            b.project or "",
            render.when(b.created_at),
            render.when(b.revoked_at) if b.revoked_at else "",
        )
    render.console.print(table)


@blocks_app.command("revoke")
def revoke_block(
    block_id: Annotated[str, typer.Argument(help="The block to lift.")],
    store: StoreOption = None,
) -> None:
    """Re-enable collection for a blocked category."""
    with render.errors(), open_memory(store, create=False) as memory:
        memory.revoke_block(block_id)
    render.console.print(f"revoked {block_id}")
