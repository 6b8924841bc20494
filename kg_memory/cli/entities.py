"""``kg-memory entities``: who is who, how each mention was resolved, and a person's say."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import ValidationError
from rich.text import Text

from kg_memory import MentionCandidate, Resolved, ScopeError, preview_resolution
from kg_memory.cli import render
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    StoreOption,
    WideOption,
    open_memory,
    reader,
    wanted_scope,
)
from kg_memory.cli.options import ScopeOption as TenantOption
from kg_memory.cli.review_queue import pair_sheet, queue_sheet
from kg_memory.cli.sheet import Column, Ident, Sheet

__all__ = ["entities_app"]

entities_app = typer.Typer(help="Entity resolution: list, inspect, resolve, merge, unmerge.",
                           no_args_is_help=True)
#: Writes and previews act in one tenant, which must be named: no default tenant to fall into.
ScopeOption = Annotated[str, typer.Option("--scope", help="The tenant (scope), required.")]


def _tenant(scope: str) -> str:
    if not scope:
        raise ScopeError("name the tenant with --scope SCOPE")
    return scope
ByOption = Annotated[str, typer.Option("--by", help="Who decides (a person, for the audit).")]
ReasonOption = Annotated[str, typer.Option(help="Why, in their words.")]


def _decisions_sheet(title: str, rows: list[Resolved]) -> Sheet:
    sheet = Sheet(title=title, caption=f"{len(rows)} decision(s)", columns=[
        Column("decision", priority=1), Column("mention", cut="middle"),
        Column("outcome"),
        Column("entity"), Column("posterior", justify="right"),
        Column("by", cut="middle"), Column("reason", cut="end")])
    for r in rows:
        d = r.decision
        sheet.add_row(Ident(d.decision_id), d.mention.name, d.outcome.value, Ident(r.entity_id),
                      "" if d.posterior is None else f"{d.posterior:.3f}", d.decided_by,
                      d.reason)
    return sheet


@entities_app.command("list")
def list_entities(
    scope: TenantOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """List the entities of --scope with their type and name."""
    with render.errors(), open_memory(store, create=False) as memory:
        found = reader(memory, wanted_scope(scope, all_scopes)).entities()
    if json_out:
        render.emit_json(found)
        return
    sheet = Sheet(title="entities", caption=f"{len(found)} entit(ies)", columns=[
        Column("id"), Column("type", cut="middle"), Column("name", cut="middle"),
        Column("scope", cut="middle"), Column("owners", priority=1, cut="end")])
    for e in found:
        sheet.add_row(Ident(e.entity_id), e.type, e.name or "", e.scope, ", ".join(e.owners))
    render.show(sheet, wide=wide)


@entities_app.command()
def show(
    entity_id: Annotated[str, typer.Argument(metavar="ID")],
    scope: TenantOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """An entity's profile, the decisions that concern it and its current facts, in --scope
    (another scope's entity of the same id is a different entity)."""
    with render.errors(), open_memory(store, create=False) as memory:
        handle = reader(memory, wanted_scope(scope, all_scopes))
        profile = handle.profile(entity_id)
        decisions = handle.decisions(entity_id=entity_id)
        facts = handle.asof(subject=entity_id)
    if json_out:
        render.emit_json({"entity_id": entity_id,
                          "profile": profile.model_dump(mode="json") if profile else None,
                          "decisions": [d.model_dump(mode="json") for d in decisions],
                          "facts": facts.model_dump(mode="json")["facts"]})
        return
    if profile:
        # Plain text, not markup: names and identifiers are stored input.
        render.console.print(Text(f"{entity_id} {profile.type}: {', '.join(profile.names)}",
                                  style="bold"))
        for identifier in profile.identifiers:
            render.console.print(Text(f"  {identifier.kind.value}: {identifier.value}"))
    render.show(_decisions_sheet("decisions", decisions), wide=wide)
    render.show(render.asof_sheet(facts), wide=wide)


@entities_app.command("resolve")
def resolve_cmd(
    name: Annotated[str, typer.Argument(help="The name as mentioned.")],
    scope: ScopeOption = "",
    identifier: Annotated[list[str] | None, typer.Option(
        "--id", help="KIND:VALUE, e.g. user_id:j17 or email:jo@example.org.")] = None,
    context: Annotated[list[str] | None, typer.Option(
        "--context", help="FIELD=VALUE: employer, role, city, relation, project, birth_date, "
                          "street_number, street, locality, postcode, state.")] = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """How NAME would resolve now, with per-field evidence; records nothing."""
    try:
        ids = dict(i.split(":", 1) for i in identifier or [])
        ctx = dict(c.split("=", 1) for c in context or [])
        candidate = MentionCandidate(key="m", name=name, identifiers=ids, context=ctx)
    except ValidationError as exc:
        # The ingest rule for context keys and their values, said as a usage error.
        first = exc.errors()[0]
        raise typer.BadParameter(str(first["msg"]).removeprefix("Value error, ")) from None
    except ValueError:
        raise typer.BadParameter("use --id KIND:VALUE and --context FIELD=VALUE") from None
    with render.errors(), open_memory(store, create=False) as memory:
        decision = preview_resolution(memory.store, candidate, _tenant(scope))
    if json_out:
        render.emit_json(decision)
        return
    render.console.print(Text(f"{decision.outcome.value}: {decision.reason}"))
    sheet = Sheet(title="candidates", caption=f"{len(decision.candidates)} candidate(s)", columns=[
        Column("entity"), Column("prior", justify="right"),
        Column("bits", justify="right"), Column("posterior", justify="right"),
        Column("outcome"), Column("agreeing", cut="end"), Column("vetoes", cut="end")])
    for c in decision.candidates:
        sheet.add_row(Ident(c.entity_id), f"{c.prior:.3f}", f"{c.weight:+.1f}",
                      f"{c.posterior:.3f}", c.outcome.value,
                      ", ".join(str(f) for f in c.corroborated_by),
                      ", ".join(v.reason.value for v in c.vetoes))
    render.show(sheet, wide=wide)


@entities_app.command()
def merge(
    keep: Annotated[str, typer.Argument(help="The entity that stays.")],
    other: Annotated[str, typer.Argument(help="The entity that is the same as KEEP.")],
    by: ByOption,
    reason: ReasonOption = "",
    scope: ScopeOption = "",
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """A person's merge, recorded as SAME_AS with system time: facts pool, nothing moves."""
    with render.errors(), open_memory(store, create=False) as memory:
        resolved = memory.merge(keep, other, by=by, reason=reason, scope=_tenant(scope))
    render.emit_json(resolved) if json_out else render.say(
        f"merged {other} into {keep} ({resolved.decision.decision_id})")


@entities_app.command()
def unmerge(
    keep: Annotated[str | None, typer.Argument(help="The entity that was kept.")] = None,
    other: Annotated[str | None, typer.Argument(help="The entity merged into it.")] = None,
    decision: Annotated[str | None, typer.Option(
        "--decision", help="Undo the resolver's MERGE of one mention instead.")] = None,
    by: ByOption = "",
    reason: ReasonOption = "",
    scope: ScopeOption = "",
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """Undo a person's merge (KEEP OTHER), or a resolver's merge of a mention (--decision):
    facts go back to the entity their lineage says, and the keep-apart is recorded."""
    if not by:
        raise typer.BadParameter("--by names the person who decides")
    with render.errors(), open_memory(store, create=False) as memory:
        if decision:
            resolved = memory.scoped(_tenant(scope)).unmerge_decision(decision, by=by,
                                                                      reason=reason)
        elif keep and other:
            resolved = memory.unmerge(keep, other, by=by, reason=reason,
                                      scope=_tenant(scope))
        else:
            raise typer.BadParameter("give KEEP OTHER, or --decision ID")
    render.emit_json(resolved) if json_out else render.say(
        f"kept apart: {resolved.entity_id} ({resolved.decision.decision_id})")


@entities_app.command()
def review(
    scope: TenantOption = None,
    all_scopes: AllScopesOption = False,
    apart: Annotated[list[str] | None, typer.Option(
        "--apart", help="PROVISIONAL:CANDIDATE, settled as different people.")] = None,
    merge_into: Annotated[list[str] | None, typer.Option(
        "--merge", help="PROVISIONAL:CANDIDATE, settled as the same person.")] = None,
    by: Annotated[str | None, typer.Option("--by", help="Who settles it.")] = None,
    reason: Annotated[str, typer.Option(help="Why, in their words.")] = "",
    settled: Annotated[bool, typer.Option(
        "--settled", help="List the pairs people settled too, with who and which way.")] = False,
    limit: Annotated[int, typer.Option(
        min=0, help="Show the fields of the first N pairs (the queue lists them all).")] = 5,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """The review queue of --scope: each pair the resolver could not decide, most facts a merge
    would pool first (then conflicts), with its fields side by side. Settle pairs with --merge /
    --apart and --by; settling a pair the other way reverses it."""
    with render.errors(), open_memory(store, create=False) as memory:
        tenant = wanted_scope(scope, all_scopes)
        for pairs, decision in ((merge_into, "merge"), (apart, "apart")):
            for pair in pairs or []:
                provisional, _, candidate = pair.partition(":")
                if not provisional or not candidate:  # an empty id names no entity
                    raise typer.BadParameter(f"{pair!r}: write PROVISIONAL:CANDIDATE")
                if by is None:
                    raise typer.BadParameter("--by names the person who settles it")
                if tenant is None:
                    raise ScopeError("settling a review needs the tenant's --scope")
                done = memory.settle(provisional, candidate,
                                     "merge" if decision == "merge" else "apart",
                                     by=by, reason=reason, scope=tenant)
                if not json_out:
                    render.say(f"{decision} {provisional}:{candidate} by {by} "
                               f"({done.decision.decision_id})")
        queue = reader(memory, tenant).review_queue(settled=settled)
    if json_out:
        render.emit_json(queue)
        return
    render.show(queue_sheet(queue, shown=min(limit, len(queue))), wide=wide)
    for rank, asked in enumerate(queue[:limit], 1):
        render.show(pair_sheet(rank, asked), wide=wide)
    if any(p.settled is None for p in queue):
        render.say_fitted(["settle:", "--merge LEFT:RIGHT", "or", "--apart LEFT:RIGHT,",
                           "with", "--by WHO", "[--reason WHY];", "the other way reverses it"])


@entities_app.command()
def benchmark(
    dataset: Annotated[str, typer.Option(
        help="'corpus' (the committed generated corpus) or a public dataset: febrl1..febrl4 "
             "(needs the resolution-bench extra).")] = "corpus",
    identifier: Annotated[bool | None, typer.Option(
        "--identifier/--no-identifier",
        help="Public dataset: file the national id (typos and all); default both runs.")] = None,
    limit: Annotated[int | None, typer.Option(
        min=1, help="Public dataset: only this many people (a quick look).")] = None,
    growth: Annotated[int | None, typer.Option(
        min=10, help="Public dataset: instead, time the store path per mention as one store "
                     "grows to this many mentions (the dataset repeated, a scope per copy; "
                     "read at 1,000, 10,000, ... and at the end).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Precision, recall, F1, review rate and false merges, overall and on the same-name
    slice, beside the baselines; on a public dataset also throughput through the store."""
    from kg_memory.bench.resolution import (
        BASELINES,
        CORPUS_DIR,
        DATASETS,
        benchmark_dataset,
        evaluate,
        evaluate_baseline,
        format_report,
        load_corpus,
    )

    if dataset == "corpus":
        corpus = load_corpus(CORPUS_DIR)
        results = [evaluate(corpus, report=None if as_json else typer.echo)]
        for name in BASELINES:
            if not as_json:
                typer.echo("")
            results.append(evaluate_baseline(corpus, name,
                                             report=None if as_json else typer.echo))
        if as_json:
            render.emit_json([r.model_dump(mode="json") for r in results])
        return
    if dataset not in DATASETS:
        raise typer.BadParameter(f"{dataset!r}: one of corpus, {', '.join(DATASETS)}",
                                 param_hint="--dataset")
    if growth is not None:
        from kg_memory.bench.resolution.growth import format_growth, growth_sizes, measure_growth

        grown = measure_growth(dataset, sizes=growth_sizes(growth),
                               identifier=True if identifier is None else identifier,
                               people=limit)
        if as_json:
            render.emit_json(grown.model_dump(mode="json"))
        else:
            typer.echo(format_growth(grown))
        return
    variants = (False, True) if identifier is None else (identifier,)
    reports = [benchmark_dataset(dataset, identifier=v, limit=limit) for v in variants]
    if as_json:
        render.emit_json([r.model_dump(mode="json") for r in reports])
        return
    typer.echo("\n\n".join(format_report(r) for r in reports))
