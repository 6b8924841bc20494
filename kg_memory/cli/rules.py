"""``kg-memory rules``: tiered rules (seed 004) from proposal to review, over the rule book.

Each command parses, calls :class:`kg_memory.RuleBook` and prints the rule (a table within 80
columns and its transitions, or ``--json``). Rules belong to a tenant: every command names
``--scope`` (or ``--all-scopes``, an operator's view), and a rule of another scope is not
found.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

import typer

from kg_memory import Outcome, Rule, RuleBook, RuleType, ScopeError, Tier, parse_instant
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

__all__ = ["rules_app"]

rules_app = typer.Typer(help="Tiered rules (session, experience, metadata): proposal, "
                        "observation, promotion, approval, signals and review (seed 004).",
                        no_args_is_help=True)
RuleArg = Annotated[str, typer.Argument(help="A rule id (rl_...).")]
ByOption = Annotated[str, typer.Option("--by", help="Who decides (recorded with the time).")]
ReasonOption = Annotated[str, typer.Option(help="Why.")]
DesignOption = Annotated[bool, typer.Option(
    "--design-change", help="This is an explicit design change (what a safety constraint, or "
    "approving a rule that is not a candidate, takes).")]


class RuleKind(StrEnum):
    """The rule types by one word each (the stored names have spaces)."""

    SAFETY = "safety"
    EXPERIENCE = "experience"
    ENVIRONMENT = "environment"
    REPRESENTATION = "representation"


_TYPES = {
    RuleKind.SAFETY: RuleType.SAFETY, RuleKind.EXPERIENCE: RuleType.EXPERIENCE,
    RuleKind.ENVIRONMENT: RuleType.ENVIRONMENT, RuleKind.REPRESENTATION: RuleType.REPRESENTATION,
}


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


def _emit_rule(rule: Rule, book: RuleBook, json_out: bool, wide: bool) -> None:
    # The rule document keeps the values it was learned under; whether each binding still
    # holds is in the graph, so a binding a signal's move retired is never shown as current.
    bindings = book.bindings(rule)
    if json_out:
        render.emit_json({**rule.model_dump(mode="json"),
                          "bindings": [b.model_dump(mode="json") for b in bindings]})
        return
    render.show(_rule_sheet([rule], f"rule {rule.rule_id}"), wide=wide)
    for b in bindings:
        if b.current:
            render.say(f"bound to signal {b.signal} = {b.value}")
        else:
            now = f"reads {b.reads} now" if b.reads is not None else "no value now"
            render.say(f"retired binding: signal {b.signal} = {b.value} ({now})")
    if rule.transitions:
        # A table like every other: instants to the minute, one line per transition at 80
        # columns (full instants and reasons with --wide or --json).
        steps = Sheet(title="transitions", columns=[
            Column("at"), Column("by", cut="middle"), Column("action", cut="end"),
            Column("reason", cut="end")], caption=f"{len(rule.transitions)} transition(s)")
        for t in rule.transitions:
            steps.add_row(t.at, text(t.by), text(t.action), text(t.reason))
        render.show(steps, wide=wide)


def _emit_rules(rows: list[Rule], title: str, json_out: bool, wide: bool) -> None:
    if json_out:
        render.emit_json(rows)
        return
    render.show(_rule_sheet(rows, title), wide=wide)


def _one_scope(scope: str | None) -> str:
    if scope is None:
        raise typer.BadParameter("name the rule's tenant with --scope")
    if not scope:
        raise ScopeError("a scoped memory needs a non-empty scope")
    return scope


def _signals(pairs: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise typer.BadParameter(f"--signal {pair!r}: write NAME=VALUE")
        found[name] = value
    return found


@rules_app.command("list")
def rules_list(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    tier: Annotated[Tier | None, typer.Option(help="Only this tier.")] = None,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """Every rule with its tier and status."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        _emit_rules(opened().rules.all(tenant, tier), "rules", json_out, wide)


@rules_app.command("show")
def rules_show(rule_id: RuleArg, scope: ScopeOption = None, all_scopes: AllScopesOption = False,
               store: StoreOption = None, json_out: JsonOption = False,
               wide: WideOption = False) -> None:
    """One rule, its signal bindings and every transition.

    A binding a signal's move retired is marked retired, with what the signal reads now
    (--json: bindings[].current)."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        book = opened().rules
        _emit_rule(book.show(rule_id, tenant), book, json_out, wide)


@rules_app.command("propose")
def rules_propose(
    content: Annotated[str, typer.Argument(help="What the rule says.")],
    scope: ScopeOption = None,
    type_: Annotated[RuleKind, typer.Option("--type", help="What kind of rule.")]
    = RuleKind.EXPERIENCE,
    condition: Annotated[list[str] | None, typer.Option(
        "--condition", help="A condition it holds under (repeat for more).")] = None,
    signal: Annotated[list[str] | None, typer.Option(
        "--signal", metavar="NAME=VALUE",
        help="An environment signal it is learned under (repeat for more).")] = None,
    expires: Annotated[str | None, typer.Option(
        help="When it must be reviewed (ISO 8601, UTC offset required).")] = None,
    review_every: Annotated[float | None, typer.Option(
        min=0.001, help="Re-check it every this many days.")] = None,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """A new rule in the session tier, bound to the signals it was learned under (proposing
    the same rule again shows it unchanged)."""
    with store_command(store) as opened:
        tenant = _one_scope(scope)
        signals = _signals(signal or [])
        until = None if expires is None else parse_instant(expires, what="--expires")
        book = opened().rules
        rule = book.propose(tenant, content, type=_TYPES[type_],
                            conditions=tuple(condition or ()), signals=signals,
                            expires_at=until, review_every_days=review_every)
        _emit_rule(rule, book, json_out, wide)


@rules_app.command("observe")
def rules_observe(
    rule_id: RuleArg,
    episode: Annotated[str, typer.Option(help="The raw episode it was seen in (ep_...).")],
    task: Annotated[str, typer.Option(help="The task id (confirmations count distinct tasks).")],
    scene: Annotated[str, typer.Option(help="The scene tag.")],
    held: Annotated[bool, typer.Option(
        "--held/--failed", help="Whether the rule held there (--failed: a counterexample).")]
    = True,
    scope: ScopeOption = None,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """Add a raw observation to a rule's basis; a counterexample sends a trusted rule to
    review."""
    with store_command(store) as opened:
        tenant = _one_scope(scope)
        book = opened().rules
        rule = book.observe(rule_id, episode_id=episode, task_id=task, scene=scene,
                            holds=held, scope=tenant)
        _emit_rule(rule, book, json_out, wide)


@rules_app.command("promote")
def rules_promote(rule_id: RuleArg, scope: ScopeOption = None, store: StoreOption = None,
                  json_out: JsonOption = False, wide: WideOption = False) -> None:
    """session -> experience when its basis earns it; experience -> a metadata candidate
    (a person approves it with `rules approve`)."""
    with store_command(store) as opened:
        tenant = _one_scope(scope)
        book = opened().rules
        _emit_rule(book.promote(rule_id, scope=tenant), book, json_out, wide)


@rules_app.command("signal")
def rules_signal(
    name: Annotated[str, typer.Argument(help="The signal (map_version, tool_schema, ...).")],
    value: Annotated[str, typer.Argument(help="What it reads now.")],
    scope: ScopeOption = None, all_scopes: AllScopesOption = False,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """Move an environment signal (a fact in the graph) and list the rules bound to its old
    value, which go to review. --all-scopes: in every scope with a rule bound to it."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        moved = opened().rules.signal(name, value, tenant)
        _emit_rules(moved, f"signal {name} = {value}: sent to review", json_out, wide)


@rules_app.command("approve")
def rules_approve(rule_id: RuleArg, by: ByOption, design_change: DesignOption = False,
                  scope: ScopeOption = None,
                  all_scopes: AllScopesOption = False, store: StoreOption = None,
                  json_out: JsonOption = False, wide: WideOption = False) -> None:
    """A person approves a metadata candidate into the metadata tier."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        book = opened().rules
        _emit_rule(book.approve(rule_id, by, design_change=design_change, scope=tenant),
                   book, json_out, wide)


@rules_app.command("demote")
def rules_demote(rule_id: RuleArg, by: ByOption, reason: ReasonOption = "",
                 design_change: DesignOption = False,
                 scope: ScopeOption = None, all_scopes: AllScopesOption = False,
                 store: StoreOption = None, json_out: JsonOption = False,
                 wide: WideOption = False) -> None:
    """Move a rule one tier down."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        book = opened().rules
        _emit_rule(book.demote(rule_id, by, reason, design_change=design_change,
                               scope=tenant), book, json_out, wide)


@rules_app.command("review")
def rules_review(
    rule_id: Annotated[str | None, typer.Argument(help="A rule id; none: list what waits.")]
    = None,
    outcome: Annotated[Outcome | None, typer.Option(help="keep, demote or expire.")] = None,
    by: Annotated[str | None, typer.Option("--by", help="Who decides.")] = None,
    reason: ReasonOption = "",
    design_change: DesignOption = False,
    due: Annotated[bool, typer.Option(
        "--due", help="First send every rule whose review date passed (or whose signal "
        "moved) to review, and list those.")] = False,
    at: Annotated[str | None, typer.Option(
        help="With --due: judge at this time (ISO 8601), not now.")] = None,
    scope: ScopeOption = None, all_scopes: AllScopesOption = False,
    store: StoreOption = None, json_out: JsonOption = False, wide: WideOption = False,
) -> None:
    """List rules waiting for review, send the due ones there (--due), or end one review:
    keep, demote or expire."""
    with store_command(store) as opened:
        tenant = wanted_scope(scope, all_scopes)
        when: datetime | None = None if at is None else parse_instant(at, what="--at")
        if at is not None and not due:
            raise typer.BadParameter("--at goes with --due")
        memory = opened()
        if due:
            if rule_id is not None:
                raise typer.BadParameter("--due reviews every rule; give no rule id")
            book = memory.rules if when is None else RuleBook(
                memory.store, lambda: when, ingest=memory.ingest, writers=memory.policy)
            _emit_rules(book.due(tenant), "came due: sent to review", json_out, wide)
            return
        if rule_id is None:
            _emit_rules(memory.rules.pending_review(tenant), "waiting for review", json_out,
                        wide)
            return
        if outcome is None or not by:
            raise typer.BadParameter("a review needs --outcome keep|demote|expire and --by")
        _emit_rule(memory.rules.review(rule_id, outcome, by, reason,
                                       design_change=design_change, scope=tenant),
                   memory.rules, json_out, wide)
