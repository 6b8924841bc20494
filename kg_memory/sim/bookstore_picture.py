"""The bookstore lab's picture, drawn as seed 003's lab draws it.

The top panels follow three readers: for each of their six facts a thin line shows the true
value over the 90 days (colour is the value) and a thicker bar above it what memory would
serve that day (no bar: nothing trusted, the agent asks again). The bottom panel is the share
of the day's answers that used a correct memory. Needs matplotlib (``kg-memory-bitemporal[lab]``).
"""

from __future__ import annotations

from pathlib import Path

from kg_memory.domain.errors import ExtraMissing
from kg_memory.sim.bookstore import FOLLOWED, SeedResult
from kg_memory.sim.bookstore_world import DAYS, FACTS

__all__ = ["save"]

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
_INJECTED = "#000000"


def _colour(fact: str, value: str | None) -> str:
    values = FACTS[fact]
    return _PALETTE[values.index(value)] if value in values else _INJECTED


def save(result: SeedResult, path: Path, *, title: str) -> Path:
    """Draw ``result`` (run with ``follow=True``) to ``path`` as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ExtraMissing(
            "the picture needs matplotlib: pip install 'kg-memory-bitemporal[lab]'") from exc
    readers = [r for r in FOLLOWED if f"reader-{r}/format" in result.followed]
    fig, axes = plt.subplots(len(readers) + 1, 1, figsize=(10, 2.2 * len(readers) + 2.4),
                             sharex=True, gridspec_kw={"height_ratios": [2] * len(readers) + [1.4]})
    for ax, reader in zip(axes[:-1], readers, strict=True):
        for row, fact in enumerate(FACTS):
            days = result.followed[f"reader-{reader}/{fact}"]
            for day, (true, held) in enumerate(days):
                ax.plot([day, day + 1], [row, row], color=_colour(fact, true), linewidth=1.2)
                if held is not None:
                    ax.plot([day, day + 1], [row + 0.3, row + 0.3], color=_colour(fact, held),
                            linewidth=4, solid_capstyle="butt")
                    if held != true:
                        ax.plot(day + 0.5, row + 0.3, marker="o", markersize=2.5,
                                color="white")
        ax.set_yticks(range(len(FACTS)), list(FACTS), fontsize=7)
        ax.set_ylim(-0.5, len(FACTS))
        ax.set_title(f"reader-{reader}: true value (thin) and what memory serves (bar)",
                     fontsize=8, loc="left")
    share = [ok / n if n else float("nan") for n, ok in result.daily]
    axes[-1].plot(range(DAYS), share, color="#2ca02c")
    axes[-1].set_ylim(0, 1)
    axes[-1].set_ylabel("correct", fontsize=8)
    axes[-1].set_xlabel("day", fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=90)
    plt.close(fig)
    return path
