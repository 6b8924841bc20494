"""Seed 000's picture of every read: one panel per run, stacked so the rows can be compared.

Each block is one read, from the first session day on the left to the last on the right: a short
grey block is right, red is stale, a hollow amber block is missing, and violet is the
restaurant's claim served as the user's own statement (injected).

The geometry is fixed in pixels (:class:`Layout`), not left to matplotlib's automatic layout, so
the same grid always draws the same image and a test can find any block by arithmetic. Drawing
needs matplotlib, the optional extra ``kg-memory-bitemporal[lab]``; it is imported only when a
picture is drawn, so the rest of the study runs without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg_memory.domain.errors import ExtraMissing
from kg_memory.sim.dinner import Verdict
from kg_memory.sim.grid import ReadsGrid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["BACKGROUND", "COLOURS", "Box", "Layout", "figure", "save"]

#: The fill (or, for a missing read, the outline) of each verdict's block.
COLOURS: dict[Verdict, str] = {
    Verdict.RIGHT: "#9e9e9e",
    Verdict.STALE: "#d62728",
    Verdict.MISSING: "#f0a202",
    Verdict.INJECTED: "#8e44ad",
}
BACKGROUND = "#ffffff"

_BLOCK_W = 0.7  # of a column
_BLOCK_H = 0.72  # of a row: stale, missing and injected blocks
_RIGHT_H = 0.3  # of a row: a right read is the short block, so the errors stand out
_EDGE_PX = 2.5  # outline of a missing (hollow) block


@dataclass(frozen=True)
class Box:
    """A rectangle in image pixels, origin at the top left (as image libraries index)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def centre(self) -> tuple[int, int]:
        return round((self.x0 + self.x1) / 2), round((self.y0 + self.y1) / 2)


@dataclass(frozen=True)
class Layout:
    """Where everything goes, in pixels at ``dpi``: margins, then one band per panel (a title
    gap above a plot area of ``rows`` rows by ``columns`` columns)."""

    panels: int
    columns: int
    rows: int = 4
    dpi: int = 100
    width: int = 1000
    left: int = 150  # room for the row labels
    right: int = 30
    top: int = 80  # the title and the legend
    bottom: int = 45  # the day axis under the last panel
    gap: int = 40  # each panel's title
    panel: int = 100  # the plot area of one panel

    @property
    def height(self) -> int:
        return self.top + self.panels * (self.gap + self.panel) + self.bottom

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the image in pixels."""
        return self.width, self.height

    def plot_area(self, panel: int) -> Box:
        top = self.top + panel * (self.gap + self.panel) + self.gap
        return Box(self.left, top, self.width - self.right, top + self.panel)

    def block(self, panel: int, row: int, column: int, verdict: Verdict) -> Box:
        """The block of the read in ``column`` of ``row`` of ``panel``."""
        area = self.plot_area(panel)
        col_w = (area.x1 - area.x0) / self.columns
        row_h = (area.y1 - area.y0) / self.rows
        cx = area.x0 + (column + 0.5) * col_w
        cy = area.y0 + (row + 0.5) * row_h
        h = (_RIGHT_H if verdict is Verdict.RIGHT else _BLOCK_H) * row_h
        w = _BLOCK_W * col_w
        return Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch, Rectangle
    except ImportError as exc:
        raise ExtraMissing(
            "drawing the picture needs matplotlib: pip install 'kg-memory-bitemporal[lab]'"
        ) from exc
    return matplotlib, Figure, Patch, Rectangle


def figure(grid: ReadsGrid) -> tuple[Figure, Layout]:
    """Draw ``grid``; the layout says where each block landed."""
    _, figure_cls, patch_cls, rectangle_cls = _matplotlib()
    layout = Layout(panels=len(grid.panels), columns=len(grid.days))
    width, height = layout.size
    fig = figure_cls(figsize=(width / layout.dpi, height / layout.dpi), dpi=layout.dpi)
    fig.patch.set_facecolor(BACKGROUND)
    fig.suptitle(
        f"Every read, day {grid.days[0]} to day {grid.days[-1]}"
        f" (TTL {grid.ttl}, unused {grid.unused_days}; lengths in days)",
        x=layout.left / width,
        y=1 - 8 / height,
        ha="left",
        va="top",
        fontsize=11,
    )
    legend = [
        patch_cls(facecolor=COLOURS[Verdict.RIGHT], label="right"),
        patch_cls(facecolor=COLOURS[Verdict.STALE], label="stale"),
        patch_cls(
            facecolor="none", edgecolor=COLOURS[Verdict.MISSING], linewidth=2, label="missing"
        ),
        patch_cls(facecolor=COLOURS[Verdict.INJECTED], label="the restaurant's claim"),
    ]
    fig.legend(
        handles=legend,
        loc="upper left",
        bbox_to_anchor=(layout.left / width, 1 - 32 / height),
        ncol=4,
        frameon=False,
        fontsize=9,
    )
    edge_pt = _EDGE_PX * 72 / layout.dpi
    for p, panel in enumerate(grid.panels):
        area = layout.plot_area(p)
        ax = fig.add_axes(
            (
                area.x0 / width,
                1 - area.y1 / height,
                (area.x1 - area.x0) / width,
                (area.y1 - area.y0) / height,
            )
        )
        ax.set_xlim(-0.5, layout.columns - 0.5)
        ax.set_ylim(layout.rows - 0.5, -0.5)  # row 0 at the top
        ax.set_facecolor(BACKGROUND)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.tick_params(length=0)
        ax.set_yticks(range(len(panel.rows)), [row.label for row in panel.rows], fontsize=9)
        last = p == len(grid.panels) - 1
        ax.set_xticks(range(layout.columns), [str(d) for d in grid.days] if last else [])
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(
            f"{panel.title}: {panel.stale} stale, {panel.missing} missing, "
            f"{panel.injected} injected",
            loc="left",
            fontsize=9,
        )
        for r, row in enumerate(panel.rows):
            for cell in row.cells:
                c = grid.column(cell.day)
                h = _RIGHT_H if cell.verdict is Verdict.RIGHT else _BLOCK_H
                hollow = cell.verdict is Verdict.MISSING
                colour = COLOURS[cell.verdict]
                ax.add_patch(
                    rectangle_cls(
                        (c - _BLOCK_W / 2, r - h / 2),
                        _BLOCK_W,
                        h,
                        facecolor="none" if hollow else colour,
                        edgecolor=colour if hollow else "none",
                        linewidth=edge_pt if hollow else 0,
                        # Crisp edges: every pixel of a block is exactly its colour.
                        antialiased=False,
                    )
                )
    return fig, layout


def save(grid: ReadsGrid, path: Path) -> Layout:
    """Draw ``grid`` into the PNG file ``path`` (``layout.size`` pixels)."""
    fig, layout = figure(grid)
    fig.savefig(path, format="png", dpi=layout.dpi, facecolor=BACKGROUND)
    return layout
