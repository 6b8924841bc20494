"""``kg-memory pending``, ``admissions`` and ``sweep``: what the write policy held back,
decided or evicts (the rule book's commands are in :mod:`kg_memory.cli.rules`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_memory import WritePolicy
from kg_memory.cli import render
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    WideOption,
    store_command,
    wanted_scope,
)
from kg_memory.cli.sheet import Column, Ident, Sheet, text

__all__ = ["WritePolicyOption", "admissions", "load_write_policy", "pending", "sweep"]

WritePolicyOption = Annotated[
    Path | None,
    typer.Option("--write-policy", metavar="FILE", envvar="KG_MEMORY_WRITE_POLICY",
                 help="A write policy (JSON: admission, reconcile, decay per predicate); "
                 "see docs/policies.md."),
]


def load_write_policy(path: Path | None) -> WritePolicy | None:
    return None if path is None else WritePolicy.load(path)


def pending(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    all_: Annotated[bool, typer.Option("--all", help="Promoted ones too.")] = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Values the write policy holds back until corroborated: never served as facts."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        rows = opened().pending(tenant, status=None if all_ else "pending")
        if json_out:
            render.emit_json(rows)
            return
        sheet = Sheet(
            title="pending candidates",
            columns=[Column("fact", cut="middle"), Column("value", cut="end"),
                     Column("status"), Column("mentions", justify="right"),
                     Column("last"), Column("id", priority=1)],
            caption=f"{len(rows)} candidate(s)",
        )
        for p in rows:
            sheet.add_row(p.key, text(p.value), p.status, str(len(p.evidence)),
                          max(m.occurred_at for m in p.evidence), Ident(p.pending_id))
        render.show(sheet, wide=wide)


def admissions(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Acceptance and rejection counts by reason, as the write policy decided them."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        counts = opened().admission_counts(tenant)
        if json_out:
            render.emit_json(counts)
            return
        total = sum(n for cats in counts.values() for n in cats.values())
        sheet = Sheet(title="admission decisions",
                      columns=[Column("decision"), Column("reason", cut="end"),
                               Column("count", justify="right"), Column("share", justify="right")],
                      caption=f"{total} decision(s)")
        for decision, cats in counts.items():
            for category, n in cats.items():
                sheet.add_row(decision, category, str(n), f"{n / total:.1%}")
        render.show(sheet, wide=wide)


def sweep(
    cap: Annotated[int | None, typer.Option(
        min=0, help="Most assertions a scope keeps (default: the write policy's retention).")]
    = None,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    delete: Annotated[bool | None, typer.Option(
        "--delete/--report", show_default=False,
        help="Forget what is evicted, or only report it (default: the write policy's "
        "retention says; without one, report).")] = None,
    write_policy: WritePolicyOption = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Keep each scope under CAP: already-invalid memories go first, then expired, then the
    least recently confirmed. Reports by default; --delete forgets them (erasure rules)."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        memory = opened()
        memory.write_policy = load_write_policy(write_policy)
        report = memory.sweep(cap=cap, scope=tenant, delete=delete)
        if json_out:
            render.emit_json(report)
            return
        verb = "forgotten" if report.deleted else "would be evicted"
        sheet = Sheet(title=f"sweep to {report.cap} per scope: {len(report.evictions)} {verb}",
                      columns=[Column("scope", cut="middle"), Column("fact", cut="middle"),
                               Column("why", cut="end"), Column("id", priority=1)],
                      caption=", ".join(f"{k}: {n} held" for k, n in report.held.items())
                      or "nothing held")
        for e in report.evictions:
            sheet.add_row(e.scope, e.key, e.why, Ident(e.assertion_id))
        render.show(sheet, wide=wide)
