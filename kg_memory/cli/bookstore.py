"""``kg-memory sim bookstore``: seed 003's lab of write policies on 40 readers over 90 days."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from kg_memory import Mode
from kg_memory.cli import render
from kg_memory.cli.sheet import Column, Sheet
from kg_memory.sim.bookstore import OUTCOMES, LabConfig, run_lab
from kg_memory.sim.bookstore_missions import MISSIONS, Mission

__all__ = ["bookstore", "title_lines", "verdict_lines"]

_FLAG: dict[str, Any] = {"show_default": False}


def verdict_lines(mission: Mission, failed: list[str]) -> list[str]:
    """"mission N (title): passed", or "not yet: " and each goal ``failed``, within 80
    columns (mission 4's title alone is longer): wrapped between words, never inside a goal."""
    words = [f"mission {mission.number}", *f"({mission.title}):".split()]
    if not failed:
        return render.fit([*words, "passed"])
    goals = [goal + ("" if n == len(failed) - 1 else ";") for n, goal in enumerate(failed)]
    return render.fit([*words, "not yet:", *goals])


def title_lines(config: LabConfig) -> list[str]:
    """"bookstore lab: " and ``config``'s settings within 80 columns: one line when it fits
    (the table's title), else wrapped between settings, never inside one. Left to the table,
    a long title wraps anywhere and widens the table to the terminal."""
    settings = config.label().split(", ")
    return render.fit(["bookstore lab:", *(s + "," for s in settings[:-1]), settings[-1]])


def _configured(base: LabConfig, flags: dict[str, Any]) -> LabConfig:
    """``base`` changed by ``flags``, validated by the lab's own rules (a copy with updates
    is not validated: ``--half-life inf`` ran and printed null); a flag a rule refuses is bad
    input naming the option."""
    try:
        return LabConfig.model_validate({**base.model_dump(), **flags})
    except ValidationError as exc:
        error = exc.errors()[0]
        name = "--" + str(error["loc"][0]).replace("_", "-")
        why = (f"a half-life is a finite number of days, not {flags['half_life']:g}"
               if name == "--half-life" else error["msg"])
        raise typer.BadParameter(why, param_hint=name) from exc


def bookstore(
    policy: Annotated[Mode | None, typer.Option(help="Conflict policy (default append).")] = None,
    gate: Annotated[float | None, typer.Option(min=0, max=1, help="Confidence gate.")] = None,
    half_life: Annotated[float | None, typer.Option(
        "--half-life", min=0.1, metavar="DAYS", help="Decay half-life (default 365).")] = None,
    one_off_filter: Annotated[bool | None, typer.Option(
        "--one-off-filter/--no-one-off-filter", help="Keep one-offs out.", **_FLAG)] = None,
    provenance: Annotated[bool | None, typer.Option(
        "--provenance/--no-provenance", help="Only readers' turns write.", **_FLAG)] = None,
    drift: Annotated[bool | None, typer.Option(
        "--drift/--no-drift", help="Facts change about monthly.", **_FLAG)] = None,
    injection: Annotated[bool | None, typer.Option(
        "--injection/--no-injection", help="Injected text in 4% of talks.", **_FLAG)] = None,
    mission: Annotated[int | None, typer.Option(
        min=1, max=4, help="Load a mission's broken store; flags change it.")] = None,
    solution: Annotated[bool, typer.Option(help="Load the mission's solution instead.")] = False,
    seeds: Annotated[int, typer.Option(min=1, max=50, help="Seeds to average.")] = 5,
    json_out: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
    plot: Annotated[Path | None, typer.Option(
        metavar="FILE",
        help="Draw the first seed as a PNG (needs kg-memory-bitemporal[lab]).")] = None,
) -> None:
    """Run the bookstore lab through the real write path and report answer quality.

    Rates are shares of answers (correct, stale: used to be true, wrong: never true, poisoned:
    injected, re-ask: nothing trusted), averaged over seeds with their spread.
    """
    # Checked before the simulation runs, which takes minutes: bad flags fail at once.
    if solution and mission is None:
        raise typer.BadParameter("--solution loads a mission's solution: give --mission N",
                                 param_hint="--mission")
    if plot is not None and plot.suffix.lower() != ".png":
        raise typer.BadParameter(f"{plot} must end in .png", param_hint="--plot")
    if plot is not None and not plot.parent.is_dir():
        raise typer.BadParameter(f"no directory {plot.parent} to write into", param_hint="--plot")
    chosen = MISSIONS[mission] if mission else None
    base = LabConfig() if chosen is None else (chosen.solution if solution else chosen.start)
    given = {"policy": policy, "gate": gate, "half_life": half_life,
             "one_off_filter": one_off_filter, "provenance": provenance, "drift": drift,
             "injection": injection}
    config = _configured(base, {k: v for k, v in given.items() if v is not None})
    with render.errors():
        summary, results = run_lab(config, seeds)
        reference = None
        if chosen is not None and chosen.reference is not None and config.injection:
            reference = run_lab(config.model_copy(update={"injection": False}), seeds)[0].mean
        failed = chosen.check(summary.mean, reference) if chosen else None
        if plot is not None:
            from kg_memory.sim.bookstore_picture import save

            save(results[0], plot, title=config.label())
        if json_out:
            payload: dict[str, Any] = summary.model_dump(mode="json")
            if chosen is not None:
                payload["mission"] = {"number": chosen.number, "title": chosen.title,
                                      "failed": failed, "passed": not failed}
            render.emit_json(payload)
            return
        title = title_lines(config)
        if len(title) > 1:
            for line in title:
                render.say(line)
        sheet = Sheet(title=title[0] if len(title) == 1 else "",
                      columns=[Column("measure"), Column("mean", justify="right"),
                               Column("spread", justify="right")],
                      caption=f"{summary.answers} answers over {seeds} seed(s)")
        for outcome in OUTCOMES:
            sheet.add_row(outcome, f"{summary.mean[outcome]:.1%}",
                          f"±{summary.spread[outcome]:.1%}")
        sheet.add_row("live records", f"{summary.mean['live_records']:.0f}",
                      f"±{summary.spread['live_records']:.0f}")
        render.show(sheet, wide=False)
        if summary.admissions:
            total = sum(n for c in summary.admissions.values() for n in c.values())
            parts = [f"{d} {sum(c.values()) / total:.0%}" for d, c in summary.admissions.items()]
            render.say("admission: " + ", ".join(parts))
        if chosen is not None:
            for line in verdict_lines(chosen, failed or []):
                render.say(line)
