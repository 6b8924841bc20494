"""``kg-memory forget`` and ``kg-memory blocks``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kg_memory import INCOMPLETE_EXIT, ForgetReport, ScopeError, Selector, node_about
from kg_memory.cli import render
from kg_memory.cli.lineage import about as about_text
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    WideOption,
    reader,
    store_command,
    wanted_scope,
)
from kg_memory.cli.sheet import Column, Ident, Sheet

__all__ = ["blocks_app", "forget"]

ACTIONS = ("delete", "rebuild", "erase", "redact", "restore", "retire", "retain", "entities")


def _what(node: str, about: dict[str, dict[str, Any]], dry_run: bool) -> str | None:
    """A plan's node as a lineage tree describes it (kg_memory.cli.lineage.about), without
    its words: a plan is printed, logged and shown for approval, and must not carry the text
    it is about to erase (a fact's value, an entity's name), only which node that is."""
    if node == "-":
        return None
    kind = "assertion" if node.startswith("as_") else "episode" if node.startswith(
        "ep_") else "entity"
    said = about_text({"kind": kind, "about": about.get(node)}, words=False)
    return said or (None if dry_run else "(gone)")


blocks_app = typer.Typer(help="Collection blocks left by forget requests.", no_args_is_help=True)


def forget(
    selector: Annotated[
        str,
        typer.Argument(
            help="episode:ID, operation:ID (the operation id given at ingest), assertion:ID, "
            "entity:ID, source:NAME (each [@SCOPE]) or "
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
    keep_residues: Annotated[
        bool, typer.Option("--keep-residues",
                           help="Do not cut unlinked copies of the erased text out of what is "
                           "kept (they are still listed and counted).")
    ] = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Forget SELECTOR and everything derived only from it: erasure, not supersession.

    A selector acts within one tenant: give its scope as @SCOPE or --scope; a selector
    without one is refused (exit 2) unless an operator says --all-scopes (an operation id
    always needs its scope).

    An id that names nothing in the scope is not found (exit 4); one an earlier forget erased
    reports nothing-to-forget, so a re-run is safe. A source or category that matches nothing
    reports nothing-to-forget (exit 0).

    The plan classifies every affected node (delete, rebuild, erase, redact, restore, retire,
    retain) by lineage (retire: believed facts that depended on an erased one, retired whole,
    history kept), adds the entities that go (an entity selector's own, even one only
    declared, and those only the forgotten input referred to), those kept that lose the name
    and type it gave them (unnamed), and the residues: unlinked copies of the erased text
    (entity names included) in what is kept, which are cut out unless --keep-residues;
    --dry-run prints exactly that plan. The real run is one transaction, then the store
    scrubs its files; it reports completion per destination (exit 9 while one is
    incomplete) and is safe to re-run.
    """
    with store_command(store) as opened:
        try:
            chosen = Selector.parse(selector)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        if scope is not None and all_scopes:
            raise ScopeError("give --scope or --all-scopes, not both")
        if scope is not None:
            report = opened().scoped(scope).forget(chosen, dry_run=dry_run, block=block,
                                                   keep_residues=keep_residues)
        else:
            report = opened().forget(chosen, dry_run=dry_run, block=block,
                                     all_scopes=all_scopes, keep_residues=keep_residues)
        # What each node is, read after the run: a dry run's nodes are all there; a real
        # run's erased ones are gone and described as such, their words never read back.
        about = {} if json_out else node_about(
            opened().store, [n for a in (*ACTIONS, "unnamed") for n in getattr(report.plan, a)],
            scope or chosen.scope)
    if json_out:
        render.emit_json(report)
    else:
        _show(report, about, dry_run=dry_run, wide=wide)
    if report.status == "incomplete":
        # Stored, but erased bytes are still somewhere (a journal a full disk kept from its
        # checkpoint, a mirror): a script must not take this for done.
        unfinished = "; ".join(f"{d['destination']} {d.get('location', '')}: "
                               f"{d.get('reason') or 'incomplete'}"
                               for d in report.destinations if d.get("status") != "complete")
        render.fail(f"forget is incomplete ({unfinished}); the erasure is committed, run the "
                    "same command again to finish it", INCOMPLETE_EXIT)


def _show(report: ForgetReport, about: dict[str, dict[str, Any]], *, dry_run: bool,
          wide: bool) -> None:
    plan = report.plan
    counts = ", ".join(f"{len(getattr(plan, a))} {a}" for a in (*ACTIONS, "unnamed")
                       if getattr(plan, a))
    sheet = Sheet(title=f"forget {report.selector}" + (" (dry run)" if dry_run else ""),
                  caption=counts or "nothing to forget",
                  columns=[Column("action"), Column("node"),
                           Column("what", cut="end", identifies=True)])
    for action in ACTIONS:
        # One node per row, so the plan reads down one column however long it is.
        for node in getattr(plan, action) or ["-"]:
            sheet.add_row(action, Ident(node), _what(node, about, dry_run))
    for node in plan.unnamed:  # kept, without the name and type the forgotten input gave
        sheet.add_row("unnamed", Ident(node), _what(node, about, dry_run))
    for rule in plan.rules:  # how many observations it loses, never which
        cut = f", {rule.cut} cut" if rule.cut else ""  # copies in its words, never the words
        sheet.add_row(f"rule {rule.outcome} ({rule.dropped} of {rule.dropped + rule.kept}{cut})",
                      Ident(rule.rule_id), None)
    for residue in plan.residues:  # where the copies are and how many, never their text
        sheet.add_row(f"residue ({residue.where}, {residue.spans})", Ident(residue.node), None)
    render.show(sheet, wide=wide)
    render.say(f"residues: {report.residues_found} found, {report.residues_redacted} redacted")
    for destination in report.destinations:
        render.say(f"{destination['destination']}: {destination['status']}")
    render.say(f"status: {report.status}")


@blocks_app.command("list")
def list_blocks(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """List the collection blocks of --scope, active and revoked."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        found = reader(opened(), tenant).blocks()
    if json_out:
        render.emit_json(found)
        return
    sheet = Sheet(title="collection blocks", caption=f"{len(found)} block(s)", columns=[
        Column("id"), Column("scope", cut="middle"), Column("subject", cut="middle"),
        Column("predicates", cut="middle"), Column("project", cut="middle"), Column("since"),
        Column("revoked")])
    for b in found:
        sheet.add_row(Ident(b.block_id), b.scope, b.subject, b.predicates, b.project or "",
                      b.created_at, b.revoked_at)
    render.show(sheet, wide=wide)


@blocks_app.command("revoke")
def revoke_block(
    block_id: Annotated[str, typer.Argument(help="The block to lift.")],
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
) -> None:
    """Re-enable collection for a blocked category of --scope."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        reader(opened(), tenant).revoke_block(block_id)
    render.say(f"revoked {block_id}")
