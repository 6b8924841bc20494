"""Resolution at ingest speed as the store grows: is the time per mention flat?

A memory is fed mentions for years, so what the store path costs per mention must not grow with
what the store already holds: blocking looks up a mention's keys, and a query whose cost is the
size of a scope (rather than of the mention's blocks) would show here as a slope.

The stream is a FEBRL population (every record of ``dataset``, both halves, seeded order; by
default with the national id, so every field is filed) repeated: copy ``k`` goes into scope
``febrl-k`` with fresh operation ids, so each copy is a new population of people with FEBRL's
names (its common surnames, typos and duplicates) and the blocks inside a scope grow as that
copy fills it, exactly as they did in the first. The store as a whole grows to the largest size
asked. Every mention goes through ``Memory.ingest_many`` into one fresh embedded store, timed in
process CPU time (see :mod:`~kg_memory.bench.resolution.dataset`).

Reported per checkpoint ``n`` (by default 1,000, 10,000, 100,000 mentions): the CPU time per
mention of the *window* of mentions that brought the store to ``n`` (as many as the first
checkpoint), and the mean number of candidates the resolver compared in that window, so a slope
can be told apart from bigger blocks. With checkpoints at multiples of a copy's size (FEBRL 4
has 10,000 records), the later windows resolve the same records, into the same-sized blocks, as
the earlier ones; only the store around them is larger.
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field

from kg_memory.bench.resolution.dataset import ingest_line
from kg_memory.bench.resolution.febrl import Part, Record, load_febrl
from kg_memory.domain.record import IngestRecord
from kg_memory.services.identity import DECISION, Resolved
from kg_memory.services.memory import Memory

__all__ = [
    "GrowthReport",
    "GrowthWindow",
    "format_growth",
    "growth_sizes",
    "growth_stream",
    "measure_growth",
]

#: Store sizes at which the time per mention is read (the first is also the window size).
DEFAULT_SIZES = (1_000, 10_000, 100_000)


class GrowthWindow(BaseModel):
    """The mentions that brought the store from ``end - mentions`` to ``end``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    end: int
    mentions: int
    cpu_seconds: float
    #: Mean candidates the resolver compared per mention of the window (its blocks' size).
    candidates: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ms_per_mention(self) -> float:
        return 1000 * self.cpu_seconds / self.mentions if self.mentions else 0.0


class GrowthReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    dataset: str
    identifier: bool
    #: Records in one copy of the population (one scope's worth).
    population: int
    mentions: int
    cpu_seconds: float
    windows: tuple[GrowthWindow, ...]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def per_second(self) -> float:
        """Mentions per CPU-second over the whole stream."""
        return self.mentions / self.cpu_seconds if self.cpu_seconds else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ratio(self) -> float:
        """The last window's CPU time per mention over the first's (1.0: flat)."""
        first, last = self.windows[0], self.windows[-1]
        return last.ms_per_mention / first.ms_per_mention if first.ms_per_mention else 0.0


def growth_sizes(largest: int) -> tuple[int, ...]:
    """The checkpoints up to ``largest``: 1,000 and each power of ten after it below
    ``largest``, then ``largest``; a stream of 1,000 or fewer is read at a tenth and at its end.

    >>> growth_sizes(100_000), growth_sizes(50_000), growth_sizes(40)
    ((1000, 10000, 100000), (1000, 10000, 50000), (4, 40))
    """
    if largest <= DEFAULT_SIZES[0]:
        return (max(1, largest // 10), largest)
    powers = []
    size = DEFAULT_SIZES[0]
    while size < largest:
        powers.append(size)
        size *= 10
    return (*powers, largest)


def growth_stream(population: Sequence[Record], total: int) -> list[IngestRecord]:
    """``total`` ingest lines: ``population`` repeated, copy ``k`` in scope ``febrl-k``, each
    copy later in time than the one before (so system time keeps moving forward)."""
    size = len(population)
    span = timedelta(minutes=size)
    lines = []
    for n in range(total):
        copy, record = divmod(n, size)
        base = population[record]
        moved = base.model_copy(update={"mention": base.mention.model_copy(
            update={"at": base.mention.at + copy * span})})
        lines.append(ingest_line(moved, operation_id=f"growth-{copy}-{base.mention.mention_id}",
                                 scope=f"febrl-{copy}"))
    return lines


def _candidates(mem: Memory, scope_episodes: dict[str, set[str]]) -> float:
    """Mean candidates compared per decision of the given episodes (read back from the store,
    after the timing)."""
    counts = []
    for scope, episodes in scope_episodes.items():
        for body in mem.store.documents(DECISION, scope):
            decision = Resolved.model_validate_json(body).decision
            if decision.mention.episode_id in episodes:
                counts.append(len(decision.candidates))
    return sum(counts) / len(counts) if counts else 0.0


def measure_growth(
    dataset: str = "febrl4",
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    identifier: bool = True,
    people: int | None = None,
) -> GrowthReport:
    """Ingest the growth stream up to ``max(sizes)`` mentions and read the CPU time per mention
    of the window ending at each size; ``people`` keeps that many people of the population
    (tests)."""
    ends = sorted(set(sizes))
    window = ends[0]
    population = load_febrl(dataset, part=Part.ALL, identifier=identifier, limit=people)
    lines = growth_stream(population, ends[-1])
    windows: list[GrowthWindow] = []
    total = 0.0
    with tempfile.TemporaryDirectory() as folder, Memory.open(
        Path(folder) / "growth.db", embedder="none"
    ) as mem:
        timed: list[tuple[int, float, dict[str, set[str]]]] = []
        start = 0
        for end in ends:
            # Untimed filling up to the window, then the window alone on the clock.
            for chunk in range(start, end - window, window):
                began = time.process_time()
                mem.ingest_many(lines[chunk:min(chunk + window, end - window)])
                total += time.process_time() - began
            first = max(start, end - window)
            gc.collect()
            began = time.process_time()
            reports = mem.ingest_many(lines[first:end])
            spent = time.process_time() - began
            total += spent
            episodes: dict[str, set[str]] = {}
            for line, report in zip(lines[first:end], reports, strict=True):
                episodes.setdefault(line.scope, set()).add(report.episode_id)
            timed.append((end - first, spent, episodes))
            start = end
        for end, (count, spent, episodes) in zip(ends, timed, strict=True):
            windows.append(GrowthWindow(end=end, mentions=count, cpu_seconds=spent,
                                        candidates=_candidates(mem, episodes)))
    return GrowthReport(dataset=dataset, identifier=identifier, population=len(population),
                        mentions=ends[-1], cpu_seconds=total, windows=tuple(windows))


def format_growth(report: GrowthReport) -> str:
    variant = "national id with typos" if report.identifier else "no identifier"
    lines = [
        f"{report.dataset} (all {report.population} records per scope, {variant}) repeated "
        f"to {report.mentions:,} mentions, one embedded store",
        f"  {'store at':>10} {'window':>7} {'ms/mention':>11} {'mentions/s':>11} "
        f"{'candidates':>11}",
    ]
    for w in report.windows:
        rate = 1000 / w.ms_per_mention if w.ms_per_mention else 0.0
        lines.append(f"  {w.end:>10,} {w.mentions:>7,} {w.ms_per_mention:>11.3f} "
                     f"{rate:>11,.0f} {w.candidates:>11.2f}")
    lines.append(f"growth (CPU time): last window / first = {report.ratio:.2f}; "
                 f"{report.per_second:,.0f} mentions/s over all {report.mentions:,}")
    return "\n".join(lines)
