"""Every read of the dinner study as a grid: one panel per run, one row per memory, one cell per
read.

This is the data behind seed 000's picture (:mod:`kg_memory.sim.picture` draws it) and behind
``kg-memory sim dinner reads --json``. Columns are the session days (day 3 to day 87, every three
days); a memory read on only some of them (the favourite: days 3 and 81) has cells on those
days only, so the rows of every panel line up day by day.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kg_memory.sim.baseline import Settings
from kg_memory.sim.dinner import Run, Verdict
from kg_memory.sim.scenario import Scenario

__all__ = [
    "LABELS",
    "SYMBOLS",
    "Cell",
    "GridRow",
    "Panel",
    "ReadsGrid",
    "format_grid",
    "reads_grid",
]

#: How the picture names each memory the study reads.
LABELS: dict[str, str] = {
    "ana_diet": "Ana's diet",
    "next_dinner": "next dinner",
    "deposit_preapproved": "deposit approval",
    "favourite": "favourite",
}

#: One character per verdict in the text grid (a blank is a day the memory was not read).
SYMBOLS: dict[Verdict, str] = {
    Verdict.RIGHT: ".",
    Verdict.STALE: "S",
    Verdict.MISSING: "M",
    Verdict.INJECTED: "I",
}


class Cell(BaseModel):
    model_config = ConfigDict(frozen=True)

    day: int
    verdict: Verdict


class GridRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    label: str
    cells: tuple[Cell, ...]


class Panel(BaseModel):
    """One run: its four rows and its totals (the results table's row)."""

    model_config = ConfigDict(frozen=True)

    policy: str
    title: str
    stale: int
    missing: int
    injected: int
    rows: tuple[GridRow, ...]


class ReadsGrid(BaseModel):
    """The whole picture as data; field order is the JSON key order."""

    model_config = ConfigDict(frozen=True)

    ttl: int
    unused_days: int
    days: tuple[int, ...]  # the columns: every session day
    panels: tuple[Panel, ...]

    def column(self, day: int) -> int:
        """The column a read on ``day`` is drawn in."""
        return self.days.index(day)


def reads_grid(scenario: Scenario, runs: list[Run], settings: Settings | None = None) -> ReadsGrid:
    """The grid of ``runs`` (in the order given), rows in the scenario's order of memories."""
    s = settings or Settings()
    panels = []
    for run in runs:
        row = run.row()
        panels.append(
            Panel(
                policy=run.slug,
                title=run.title,
                stale=row.stale,
                missing=row.missing,
                injected=row.injected,
                rows=tuple(
                    GridRow(
                        key=key,
                        label=LABELS.get(key, key),
                        cells=tuple(
                            Cell(day=r.day, verdict=r.verdict) for r in run.reads if r.key == key
                        ),
                    )
                    for key in scenario.keys
                ),
            )
        )
    return ReadsGrid(
        ttl=s.ttl,
        unused_days=s.unused_days,
        days=tuple(scenario.session_days()),
        panels=tuple(panels),
    )


def format_grid(grid: ReadsGrid) -> str:
    """The grid as text, one character per read, for terminals (fits 80 columns)."""
    width = max(len(label) for label in LABELS.values()) + 2
    legend = ", ".join(f"{sym} {verdict.value}" for verdict, sym in SYMBOLS.items())
    first, last = grid.days[0], grid.days[-1]
    axis = f"day {first}".ljust(len(grid.days) - len(str(last))) + str(last)
    lines = [f"one character per read, day {first} to day {last}: {legend}", ""]
    for panel in grid.panels:
        lines.append(
            f"{panel.title}: {panel.stale} stale, {panel.missing} missing, "
            f"{panel.injected} injected"
        )
        lines.append(" " * width + axis)
        for row in panel.rows:
            chars = [" "] * len(grid.days)
            for cell in row.cells:
                chars[grid.column(cell.day)] = SYMBOLS[cell.verdict]
            lines.append(row.label.ljust(width) + "".join(chars).rstrip())
        lines.append("")
    return "\n".join(lines).rstrip()
