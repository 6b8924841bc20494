"""``kg-memory pending`` and ``kg-memory admissions``: what the write policy held back or
decided."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_memory import Outcome, Rule, Tier, WritePolicy
from kg_memory.cli import render
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    WideOption,
    open_memory,
    wanted_scope,
)
from kg_memory.cli.sheet import Column, Ident, Sheet, text

__all__ = [
    "WritePolicyOption", "admissions", "load_write_policy", "pending", "rules_app", "sweep",
]

WritePolicyOption = Annotated[
    Path | None,
    typer.Option("--write-policy", metavar="FILE", help="A write policy (JSON: admission, "
                 "reconcile, decay per predicate); see docs/policies.md."),
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
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        with open_memory(store, create=False) as memory:
            rows = memory.pending(tenant, status=None if all_ else "pending")
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
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        with open_memory(store, create=False) as memory:
            counts = memory.admission_counts(tenant)
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
    cap: Annotated[int, typer.Option(min=0, help="Most assertions a scope keeps.")],
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    delete: Annotated[bool, typer.Option(
        "--delete", help="Forget what is evicted (default: only report it).")] = False,
    write_policy: WritePolicyOption = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Keep each scope under CAP: already-invalid memories go first, then expired, then the
    least recently confirmed. Reports by default; --delete forgets them (erasure rules)."""
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        with open_memory(store, create=False) as memory:
            memory.write_policy = load_write_policy(write_policy)
            report = memory.sweep(cap=cap, scope=tenant, delete=delete)
        if json_out:
            render.emit_json(report)
            return
        verb = "forgotten" if delete else "would be evicted"
        sheet = Sheet(title=f"sweep to {cap} per scope: {len(report.evictions)} {verb}",
                      columns=[Column("scope", cut="middle"), Column("fact", cut="middle"),
                               Column("why", cut="end"), Column("id", priority=1)],
                      caption=", ".join(f"{k}: {n} held" for k, n in report.held.items())
                      or "nothing held")
        for e in report.evictions:
            sheet.add_row(e.scope, e.key, e.why, Ident(e.assertion_id))
        render.show(sheet, wide=wide)


rules_app = typer.Typer(help="Tiered rules (session, experience, metadata): promotion, "
                        "approval and review (seed 004).", no_args_is_help=True)
RuleArg = Annotated[str, typer.Argument(help="A rule id (rl_...).")]
ByOption = Annotated[str, typer.Option("--by", help="Who decides (recorded with the time).")]
ReasonOption = Annotated[str, typer.Option(help="Why.")]


def _rule_sheet(rows: list[Rule], title: str) -> Sheet:
    sheet = Sheet(title=title, columns=[
        Column("tier"), Column("status"), Column("content", cut="end"),
        Column("type", priority=2), Column("basis", justify="right", priority=1),
        Column("id", priority=1)], caption=f"{len(rows)} rule(s)")
    for r in rows:
        status = r.status + (" (candidate)" if r.candidate else "")
        sheet.add_row(r.tier.value, status, text(r.content), r.type.value, str(len(r.basis)),
                      Ident(r.rule_id))
    return sheet


def _emit_rule(rule: Rule, json_out: bool, wide: bool) -> None:
    if json_out:
        render.emit_json(rule)
        return
    render.show(_rule_sheet([rule], f"rule {rule.rule_id}"), wide=wide)
    for t in rule.transitions:
        render.say(f"{t.at.isoformat()}  {t.by}: {t.action}" + (f" ({t.reason})" if t.reason
                                                                else ""))


@rules_app.command("list")
def rules_list(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    tier: Annotated[Tier | None, typer.Option(help="Only this tier.")] = None,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """Every rule with its tier and status."""
    with render.errors(), open_memory(store, create=False) as memory:
        rows = memory.rules.all(wanted_scope(scope, all_scopes), tier)
        if json_out:
            render.emit_json(rows)
            return
        render.show(_rule_sheet(rows, "rules"), wide=wide)


@rules_app.command("show")
def rules_show(rule_id: RuleArg, scope: ScopeOption = None, all_scopes: AllScopesOption = False,
               store: StoreOption = None, json_out: JsonOption = False,
               wide: WideOption = False) -> None:
    """One rule, its basis and every transition (who, when, why)."""
    with render.errors(), open_memory(store, create=False) as memory:
        _emit_rule(memory.rules.show(rule_id, wanted_scope(scope, all_scopes)), json_out, wide)


@rules_app.command("approve")
def rules_approve(rule_id: RuleArg, by: ByOption, scope: ScopeOption = None,
                  all_scopes: AllScopesOption = False, store: StoreOption = None,
                  json_out: JsonOption = False, wide: WideOption = False) -> None:
    """A person approves a metadata candidate into the metadata tier."""
    with render.errors(), open_memory(store, create=False) as memory:
        tenant = wanted_scope(scope, all_scopes)
        _emit_rule(memory.rules.approve(rule_id, by, scope=tenant), json_out, wide)


@rules_app.command("demote")
def rules_demote(rule_id: RuleArg, by: ByOption, reason: ReasonOption = "",
                 scope: ScopeOption = None, all_scopes: AllScopesOption = False,
                 store: StoreOption = None, json_out: JsonOption = False,
                 wide: WideOption = False) -> None:
    """Move a rule one tier down."""
    with render.errors(), open_memory(store, create=False) as memory:
        tenant = wanted_scope(scope, all_scopes)
        _emit_rule(memory.rules.demote(rule_id, by, reason, scope=tenant), json_out, wide)


@rules_app.command("review")
def rules_review(
    rule_id: Annotated[str | None, typer.Argument(help="A rule id; none: list what waits.")]
    = None,
    outcome: Annotated[Outcome | None, typer.Option(help="keep, demote or expire.")] = None,
    by: Annotated[str | None, typer.Option("--by", help="Who decides.")] = None,
    reason: ReasonOption = "", scope: ScopeOption = None, all_scopes: AllScopesOption = False,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """List rules waiting for review, or end one review: keep, demote or expire."""
    with render.errors(), open_memory(store, create=False) as memory:
        tenant = wanted_scope(scope, all_scopes)
        if rule_id is None:
            rows = memory.rules.pending_review(tenant)
            if json_out:
                render.emit_json(rows)
                return
            render.show(_rule_sheet(rows, "waiting for review"), wide=wide)
            return
        if outcome is None or not by:
            raise typer.BadParameter("a review needs --outcome keep|demote|expire and --by")
        _emit_rule(memory.rules.review(rule_id, outcome, by, reason, scope=tenant),
                   json_out, wide)
