"""``kg-memory sim dinner``: the 90-day dinner study of seed 000."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_memory.cli import render
from kg_memory.cli.bookstore import bookstore
from kg_memory.cli.options import WideOption
from kg_memory.cli.sheet import Column, Sheet
from kg_memory.sim.baseline import Settings
from kg_memory.sim.dinner import (
    POLICIES,
    format_log,
    format_prompt,
    format_table,
    run_all,
    run_policy,
)
from kg_memory.sim.grid import LABELS, format_grid, reads_grid
from kg_memory.sim.scenario import Scenario
from kg_memory.sim.session import session

__all__ = ["sim_app"]

sim_app = typer.Typer(
    help="Simulations that replay a scenario through the memory graph.", no_args_is_help=True
)
dinner_app = typer.Typer(
    help="The 90-day dinner study (seed 000): eight runs, 89 reads each.",
    invoke_without_command=True,
)
sim_app.add_typer(dinner_app, name="dinner")
sim_app.command("bookstore")(bookstore)

PolicyArg = Annotated[str, typer.Argument(help=f"One of: {', '.join(POLICIES)}.", metavar="POLICY")]
JsonOption = Annotated[bool, typer.Option("--json", help="JSON instead of text.")]
# The lengths are accepted before the subcommand (they apply to it) and on the lab's own
# subcommands; None there means "as given before the subcommand, else the seed's".
TtlOption = Annotated[
    int | None,
    typer.Option(
        "--ttl", min=1, metavar="DAYS", help="TTL of the two TTL runs, in days (default 7)."
    ),
]
UnusedOption = Annotated[
    int | None,
    typer.Option(
        "--unused-days",
        min=1,
        metavar="DAYS",
        help="Disuse window of 'Delete if unused', in days (default 30).",
    ),
]


def _policy(slug: str) -> str:
    if slug not in POLICIES:
        raise typer.BadParameter(f"unknown policy {slug!r}; choose from {', '.join(POLICIES)}")
    return slug


def _settings(ctx: typer.Context, ttl: int | None = None, unused: int | None = None) -> Settings:
    given: Settings = ctx.obj if isinstance(ctx.obj, Settings) else Settings()
    return Settings(
        ttl=given.ttl if ttl is None else ttl,
        unused_days=given.unused_days if unused is None else unused,
    )


@dinner_app.callback()
def dinner(
    ctx: typer.Context,
    ttl: TtlOption = None,
    unused_days: UnusedOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="A JSON list of rows.")] = False,
) -> None:
    """Print the results table: reads, stale, missing and injected for each policy.

    The two writer + dependency rows run through the real memory graph (write path and as-of
    query); the other six are baseline retention policies. --ttl and --unused-days rerun the
    time-based baselines with other lengths (the seed's are 7 and 30 days).
    """
    settings = ctx.obj = _settings(ctx, ttl, unused_days)
    if ctx.invoked_subcommand is not None:
        return
    with render.errors():
        rows = [run.row() for run in run_all(Scenario.load(), settings=settings)]
    if json_out:
        render.emit_json(rows)
    else:
        typer.echo(format_table(rows))


@dinner_app.command()
def writes(ctx: typer.Context, policy: PolicyArg) -> None:
    """Print the write log of POLICY: each input, who sent it and what the store did."""
    with render.errors():
        run = run_policy(Scenario.load(), _policy(policy), settings=_settings(ctx))
        typer.echo(format_log(run))


@dinner_app.command()
def prompt(
    ctx: typer.Context,
    policy: PolicyArg,
    day: Annotated[int, typer.Option(help="The day whose planner prompt to print.")] = 81,
) -> None:
    """Print what a planner would be sent on --day under POLICY, memory by memory."""
    scenario = Scenario.load()
    if not 0 <= day < scenario.days:
        raise typer.BadParameter(f"--day must be between 0 and {scenario.days - 1}")
    with render.errors():
        run = run_policy(scenario, _policy(policy), settings=_settings(ctx))
        typer.echo(format_prompt(run, day))


@dinner_app.command()
def inputs(json_out: JsonOption = False, wide: WideOption = False) -> None:
    """Print every input: its day, who sent it, through which channel, what it carries.

    What it carries are its events (R1.cancelled) and candidate facts (key = value, kind). Every
    run receives exactly these inputs.
    """
    with render.errors():
        items = Scenario.load().inputs()
    if json_out:
        render.emit_json(items)
        return
    sheet = Sheet(
        title="every input of the dinner study",
        columns=[
            Column("day", justify="right"),
            Column("sender"),
            Column("channel"),
            # What it carries is the point of the table: the text gives way first.
            Column("carries"),
            Column("text", cut="end", priority=1),
        ],
        caption=f"{len(items)} input(s)",
    )
    for item in items:
        carries = "; ".join(item.carries)
        sheet.add_row(str(item.day), item.sender, item.channel, carries, item.content)
    render.show(sheet, wide=wide)


@dinner_app.command()
def day(
    ctx: typer.Context,
    policy: PolicyArg,
    n: Annotated[int, typer.Argument(help="A session day (3, 6, ..., 87).", metavar="N")],
    ttl: TtlOption = None,
    unused_days: UnusedOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Print what memory answers on session day N under POLICY, read by read.

    Each read shows what was served and who wrote it, what was true that day and the verdict
    (right, stale, missing, injected). For the writer + dependency runs, also the as-of query
    that produced each answer, as a kg-memory asof command.
    """
    settings = _settings(ctx, ttl, unused_days)
    scenario = Scenario.load()
    if n not in scenario.session_days():
        days = scenario.session_days()
        raise typer.BadParameter(
            f"day {n} is not a session day; sessions are days {days[0]}, {days[1]}, ..., "
            f"{days[-1]}",
            param_hint="N",
        )
    with render.errors():
        answer = session(run_policy(scenario, _policy(policy), settings=settings), n, settings)
    if json_out:
        render.emit_json(answer)
        return
    sheet = Sheet(
        title=f"day {n}, {answer.title}",
        columns=[
            Column("memory"),
            Column("verdict"),
            Column("memory answers", cut="end"),
            Column("true that day", cut="end"),
        ],
        caption=f"{len(answer.reads)} read(s)",
    )
    for read in answer.reads:
        # One line per memory served, so a read that returns two values stays readable.
        served = [f"{s.value} ({s.writer}, day {s.day})" for s in read.served] or ["(nothing)"]
        sheet.add_row(
            LABELS.get(read.key, read.key),
            read.verdict.value,
            served[0],
            "(nothing)" if read.truth is None else str(read.truth),
        )
        for more in served[1:]:
            sheet.add_row("", "", more, "")
    render.show(sheet, wide=wide)
    commands = [(read.key, read.command) for read in answer.reads if read.command]
    if commands:
        # One line per command, unwrapped, so it can be pasted as it is.
        typer.echo("The as-of query behind each answer:")
        for key, command in commands:
            typer.echo(f"  {LABELS.get(key, key)}: {command}")


@dinner_app.command()
def reads(
    ctx: typer.Context,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            "-p",
            metavar="POLICY",
            help="Only this run (repeatable; default all eight).",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE.png",
            help="Draw the picture into this PNG (needs matplotlib: the extra 'lab').",
        ),
    ] = None,
    ttl: TtlOption = None,
    unused_days: UnusedOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="The grid as JSON.")] = False,
) -> None:
    """Print every read as a grid, or draw seed 000's picture of them with --plot.

    One panel per run, one row per memory (Ana's diet, next dinner, deposit approval,
    favourite), one block per read from day 3 to day 87. In the picture a short grey block is
    right, red is stale, a hollow amber block is missing and violet is the restaurant's claim;
    the panels are stacked so the rows line up.
    """
    settings = _settings(ctx, ttl, unused_days)
    slugs = [_policy(p) for p in policy] if policy else list(POLICIES)
    if plot is not None and plot.suffix.lower() != ".png":
        raise typer.BadParameter(f"{plot} must end in .png", param_hint="--plot")
    if plot is not None and not plot.parent.is_dir():
        raise typer.BadParameter(f"no directory {plot.parent} to write into", param_hint="--plot")
    with render.errors():
        scenario = Scenario.load()
        runs = [run_policy(scenario, slug, settings=settings) for slug in slugs]
        grid = reads_grid(scenario, runs, settings)
        if plot is not None:
            from kg_memory.sim.picture import save

            layout = save(grid, plot)
    if json_out:
        render.emit_json(grid)
        return
    typer.echo(format_grid(grid))
    if plot is not None:
        width, height = layout.size
        typer.echo(f"\npicture: {plot} ({width}x{height} pixels)")
