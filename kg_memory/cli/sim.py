"""``kg-memory sim dinner``: the 90-day dinner study of seed 000."""

from __future__ import annotations

from typing import Annotated

import typer

from kg_memory.cli import render
from kg_memory.sim.dinner import (
    POLICIES,
    format_log,
    format_prompt,
    format_table,
    run_all,
    run_policy,
)
from kg_memory.sim.scenario import Scenario

__all__ = ["sim_app"]

sim_app = typer.Typer(
    help="Simulations that replay a scenario through the memory graph.", no_args_is_help=True
)
dinner_app = typer.Typer(
    help="The 90-day dinner study (seed 000): eight runs, 89 reads each.",
    invoke_without_command=True,
)
sim_app.add_typer(dinner_app, name="dinner")

PolicyArg = Annotated[str, typer.Argument(help=f"One of: {', '.join(POLICIES)}.", metavar="POLICY")]


def _policy(slug: str) -> str:
    if slug not in POLICIES:
        raise typer.BadParameter(f"unknown policy {slug!r}; choose from {', '.join(POLICIES)}")
    return slug


@dinner_app.callback()
def dinner(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="A JSON list of rows.")] = False,
) -> None:
    """Print the results table: reads, stale, missing and injected for each policy.

    The two writer + dependency rows run through the real memory graph (write path and as-of
    query); the other six are baseline retention policies.
    """
    if ctx.invoked_subcommand is not None:
        return
    with render.errors():
        rows = [run.row() for run in run_all(Scenario.load())]
    if json_out:
        render.emit_json(rows)
    else:
        typer.echo(format_table(rows))


@dinner_app.command()
def writes(policy: PolicyArg) -> None:
    """Print the write log of POLICY: each input, who sent it and what the store did."""
    with render.errors():
        typer.echo(format_log(run_policy(Scenario.load(), _policy(policy))))


@dinner_app.command()
def prompt(
    policy: PolicyArg,
    day: Annotated[int, typer.Option(help="The day whose planner prompt to print.")] = 81,
) -> None:
    """Print what a planner would be sent on --day under POLICY, memory by memory."""
    scenario = Scenario.load()
    if not 0 <= day < scenario.days:
        raise typer.BadParameter(f"--day must be between 0 and {scenario.days - 1}")
    with render.errors():
        typer.echo(format_prompt(run_policy(scenario, _policy(policy)), day))
