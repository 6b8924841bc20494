"""``kg-memory forget`` and ``kg-memory blocks``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from kg_memory import ScopeError, Selector
from kg_memory.cli import render
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    open_memory,
    reader,
    wanted_scope,
)

__all__ = ["blocks_app", "forget"]

blocks_app = typer.Typer(help="Collection blocks left by forget requests.", no_args_is_help=True)


def forget(
    selector: Annotated[
        str,
        typer.Argument(
            help="episode:ID, assertion:ID, entity:ID, source:NAME (each [@SCOPE]) or "
            "category:SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT]."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; change nothing.")
    ] = False,
    block: Annotated[
        bool, typer.Option("--block", help="Also stop collecting this category until re-enabled.")
    ] = False,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """Forget SELECTOR and everything derived only from it: erasure, not supersession.

    A selector acts within one tenant: give its scope as @SCOPE or --scope; a selector
    without one is refused (exit 2) unless an operator says --all-scopes.

    The plan classifies every affected node (delete, rebuild, erase, redact, restore, retain) by
    lineage; --dry-run prints exactly that plan. The real run is one transaction, then the store
    scrubs its files; it reports completion per destination and is safe to re-run.
    """
    with render.errors(), open_memory(store, create=False) as memory:
        try:
            chosen = Selector.parse(selector)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        if scope is not None and all_scopes:
            raise ScopeError("give --scope or --all-scopes, not both")
        if scope is not None:
            report = memory.scoped(scope).forget(chosen, dry_run=dry_run, block=block)
        else:
            report = memory.forget(chosen, dry_run=dry_run, block=block, all_scopes=all_scopes)
    if json_out:
        render.emit_json(report)
        return
    plan = report.plan
    table = Table(title=f"forget {report.selector}" + (" (dry run)" if dry_run else ""))
    table.add_column("action")
    table.add_column("nodes")
    for action in ("delete", "rebuild", "erase", "redact", "restore", "retain"):
        table.add_row(action, "\n".join(getattr(plan, action)) or "-")
    render.console.print(table)
    for destination in report.destinations:
        render.console.print(f"{destination['destination']}: {destination['status']}")
    render.console.print(f"status: {report.status}")


@blocks_app.command("list")
def list_blocks(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """List the collection blocks of --scope, active and revoked."""
    with render.errors(), open_memory(store, create=False) as memory:
        found = reader(memory, wanted_scope(scope, all_scopes)).blocks()
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
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
) -> None:
    """Re-enable collection for a blocked category of --scope."""
    with render.errors(), open_memory(store, create=False) as memory:
        reader(memory, wanted_scope(scope, all_scopes)).revoke_block(block_id)
    render.console.print(f"revoked {block_id}")
