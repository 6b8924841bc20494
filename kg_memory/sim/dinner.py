"""The 90-day dinner study (seed 000): eight runs, 89 reads each, counted as stale / missing /
injected.

The two "writer + dependency" runs go through the real memory graph: the same
:meth:`~kg_memory.Memory.ingest` write path and :meth:`~kg_memory.Memory.asof` query users get,
on an embedded store whose clock follows the scenario's days. The six others are the baselines
of :mod:`kg_memory.sim.baseline`.
"""

from __future__ import annotations

import tempfile
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Kind, Value
from kg_memory.domain.result import Fact
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.memory import Memory
from kg_memory.sim.baseline import BaselineStore, Item, Policy, Settings, baselines
from kg_memory.sim.scenario import Scenario, ScenarioClock, misfile_bookings
from kg_memory.store.protocol import AsOfQuery

__all__ = [
    "POLICIES",
    "Read",
    "Row",
    "Run",
    "Served",
    "Settings",
    "Verdict",
    "format_log",
    "format_prompt",
    "format_table",
    "policies",
    "run_all",
    "run_policy",
]

GRAPH = "provenance"
MISFILED = "provenance-misfiled"


def policies(settings: Settings | None = None) -> dict[str, str]:
    """Every run at ``settings``, in the seed's order: slug -> title (titles name lengths)."""
    return {
        **{p.slug: p.title for p in baselines(settings)},
        GRAPH: "Writer + dependency",
        MISFILED: "Writer + dependency, bookings filed as stated",
    }


#: Every run at the seed's settings, in the seed's order: slug -> title.
POLICIES: dict[str, str] = policies()


class Verdict(StrEnum):
    RIGHT = "right"
    STALE = "stale"
    MISSING = "missing"
    INJECTED = "injected"


class Served(BaseModel):
    """A memory as the planner would see it: who wrote it, when, and what ends it."""

    model_config = ConfigDict(frozen=True)

    key: str
    value: Value
    writer: str
    day: int
    kind: Kind | None = None  # None for the baselines, which don't know kinds
    ends: str = ""
    as_user_statement: bool = True


class Read(BaseModel):
    """One memory read: what was served, what was true that day, and the verdict.

    ``query`` is the as-of query that produced the answer on the real memory graph (the writer
    + dependency runs); the baselines have no query to show.
    """

    model_config = ConfigDict(frozen=True)

    day: int
    key: str
    served: tuple[Served, ...]
    truth: Value | None = None
    verdict: Verdict
    query: AsOfQuery | None = None


class Row(BaseModel):
    """One line of the results table; field order is the JSON key order."""

    model_config = ConfigDict(frozen=True)

    policy: str
    reads: int
    stale: int
    missing: int
    injected: int


class Run(BaseModel):
    model_config = ConfigDict(frozen=True)

    slug: str
    title: str
    reads: tuple[Read, ...]
    log: tuple[tuple[int, str, str, str], ...]
    memories: dict[int, tuple[Served, ...]]  # what memory held at each day's read time

    def row(self) -> Row:
        count = {v: sum(1 for r in self.reads if r.verdict is v) for v in Verdict}
        return Row(
            policy=self.title,
            reads=len(self.reads),
            stale=count[Verdict.STALE],
            missing=count[Verdict.MISSING],
            injected=count[Verdict.INJECTED],
        )


def classify(scenario: Scenario, key: str, day: int, served: tuple[Served, ...]) -> Verdict:
    """One verdict per read: injected beats stale beats missing (seed 000)."""
    truth = scenario.true_value(key, day)
    if any(
        not s.as_user_statement or s.writer not in scenario.user_sources
        for s in served
        if s.as_user_statement or s.kind is Kind.CLAIM
    ):
        return Verdict.INJECTED
    if any(s.value != truth for s in served):
        return Verdict.STALE
    if truth is not None and truth not in [s.value for s in served]:
        return Verdict.MISSING
    return Verdict.RIGHT


def _item(item: Item) -> Served:
    return Served(key=item.key, value=item.value, writer=item.source, day=item.day)


def _order(scenario: Scenario, served: list[Served]) -> tuple[Served, ...]:
    rank = {k: i for i, k in enumerate(scenario.keys)}
    return tuple(sorted(served, key=lambda s: (rank.get(s.key, len(rank)), s.day)))


def _run_baseline(scenario: Scenario, policy: Policy) -> Run:
    store = BaselineStore(policy)
    reads: list[Read] = []
    memories: dict[int, tuple[Served, ...]] = {}
    for day in range(scenario.days):
        for record in scenario.records:
            if scenario.day_of(record.occurred_at) == day:
                store.feed(record, scenario)
        for read in (r for r in scenario.reads if r.day == day):
            served = tuple(_item(i) for i in store.read(read.key, day))
            reads.append(
                Read(
                    day=day,
                    key=read.key,
                    served=served,
                    truth=scenario.true_value(read.key, day),
                    verdict=classify(scenario, read.key, day, served),
                )
            )
        memories[day] = _order(scenario, [_item(i) for i in store.alive_on(day)])
    return Run(
        slug=policy.slug,
        title=policy.title,
        reads=tuple(reads),
        log=tuple(store.log),
        memories=memories,
    )


def _served(scenario: Scenario, fact: Fact) -> Served:
    if fact.kind is Kind.WORLD and fact.depends_on:
        ends = f"until an event on {', '.join(fact.depends_on)}"
    elif fact.kind is Kind.STATED:
        ends = "until the user says otherwise"
    else:
        ends = "until its sources change"
    first = min((s.occurred_at for s in fact.supported_by), default=fact.valid.start)
    return Served(
        key=scenario.key_of(fact.subject, fact.predicate),
        value=fact.value,
        writer=fact.writer,
        day=scenario.day_of(first),
        kind=fact.kind,
        ends=ends,
        as_user_statement=fact.kind is Kind.STATED,
    )


def _log_lines(
    scenario: Scenario, report: IngestReport, source: str, day: int
) -> list[tuple[int, str, str, str]]:
    rows: list[list[str]] = []

    def key(raw: str) -> str:
        subject, _, predicate = raw.partition(".")
        return scenario.key_of(subject, predicate)

    for effect in report.effects:
        if effect.action == "event":
            rows.append([effect.key, ""])
        elif effect.action == "refused":
            rows.append(
                [
                    f"{key(effect.key)} = {effect.value}",
                    f"refused: {source} may not write {key(effect.key)}",
                ]
            )
        elif effect.action in ("written", "refreshed"):
            rows.append([f"{key(effect.key)} = {effect.value}", effect.action])
        else:  # replaced / retired / retracted: what the row's write or event ended
            verb = "replaces" if effect.action == "replaced" else effect.action
            text = f"{verb} {key(effect.key)} = {effect.value}"
            if not rows:
                rows.append([text, ""])
            else:
                rows[-1][1] = f"{rows[-1][1]}, {text}" if rows[-1][1] else text
    return [(day, source, item, outcome or "no effect") for item, outcome in rows]


def _run_graph(scenario: Scenario, slug: str, store_dir: Path) -> Run:
    records = misfile_bookings(scenario.records) if slug == MISFILED else scenario.records
    clock = ScenarioClock(scenario.epoch)
    reads: list[Read] = []
    log: list[tuple[int, str, str, str]] = []
    memories: dict[int, tuple[Served, ...]] = {}
    with Memory.open(store_dir / f"{slug}.db", clock=clock, policy=WriterPolicy.default()) as mem:
        for day in range(scenario.days):
            for record in records:
                if scenario.day_of(record.occurred_at) == day:
                    clock.now = record.occurred_at  # received as it happened
                    report = mem.ingest(record)
                    log.extend(_log_lines(scenario, report, record.source, day))
            at = clock.now = scenario.at(day)
            for read in (r for r in scenario.reads if r.day == day):
                subject, predicate = scenario.keys[read.key]
                query = AsOfQuery(
                    valid_at=at,
                    known_at=at,
                    subject=subject,
                    predicate=predicate,
                    scope=scenario.scope,
                )
                answer = mem.asof(
                    query.valid_at,
                    query.known_at,
                    subject=query.subject,
                    predicate=query.predicate,
                    scope=query.scope,
                )
                served = tuple(_served(scenario, f) for f in answer.facts)
                reads.append(
                    Read(
                        day=day,
                        key=read.key,
                        served=served,
                        truth=scenario.true_value(read.key, day),
                        verdict=classify(scenario, read.key, day, served),
                        query=query,
                    )
                )
            snapshot = mem.asof(valid_at=at, known_at=at, scope=scenario.scope)
            memories[day] = _order(scenario, [_served(scenario, f) for f in snapshot.facts])
    return Run(
        slug=slug, title=POLICIES[slug], reads=tuple(reads), log=tuple(log), memories=memories
    )


def run_policy(
    scenario: Scenario,
    slug: str,
    store_dir: Path | None = None,
    settings: Settings | None = None,
) -> Run:
    """Run one policy by slug (see :data:`POLICIES`) at ``settings`` (default: the seed's).

    The lengths only change the time-based baselines; the writer + dependency runs do not
    decide by time, so they answer the same at any setting.
    """
    if slug not in POLICIES:
        raise KeyError(f"unknown policy {slug!r}; choose from {', '.join(POLICIES)}")
    for policy in baselines(settings):
        if policy.slug == slug:
            return _run_baseline(scenario, policy)
    if store_dir is not None:
        return _run_graph(scenario, slug, store_dir)
    with tempfile.TemporaryDirectory(prefix="kg-memory-dinner-") as tmp:
        return _run_graph(scenario, slug, Path(tmp))


def run_all(
    scenario: Scenario, store_dir: Path | None = None, settings: Settings | None = None
) -> list[Run]:
    """The eight runs, in the seed's order."""
    return [run_policy(scenario, slug, store_dir, settings) for slug in POLICIES]


def format_table(rows: list[Row]) -> str:
    """The results table, laid out exactly as seed 000 prints it."""
    lines = [f"{'policy':<49}{'reads':>5}{'stale':>6}{'missing':>8}{'injected':>9}"]
    lines.extend(
        f"{r.policy:<49}{r.reads:>5}{r.stale:>6}{r.missing:>8}{r.injected:>9}" for r in rows
    )
    return "\n".join(lines)


def format_log(run: Run) -> str:
    lines = [run.title]
    lines.extend(
        f"{day:>3}  {src:<10}  {item:<31}  {outcome}" for day, src, item, outcome in run.log
    )
    return "\n".join(lines)


_SYSTEM = (
    "system: You are the user's dinner assistant. Plan the dinner they ask for, book it, and tell"
    " the\n        group. Ask the user before paying any deposit, unless they have pre-approved"
    " deposits."
)


def format_prompt(run: Run, day: int) -> str:
    """What a planner would be sent on ``day``: each memory with its writer, day and end."""
    served = run.memories[day]
    attributed = run.slug in (GRAPH, MISFILED)
    if attributed:
        heading = "Memories about the user. Each says who wrote it, on which day, and what ends it:"
        lines = [f"- {s.key}: {s.value}  ({s.writer}, day {s.day}; {s.ends})" for s in served]
    else:
        heading = "Memories about the user:"
        lines = [f"- {s.key}: {s.value}" for s in served]
    return "\n".join(
        [
            f"day {day}, {run.title}",
            "",
            _SYSTEM,
            "",
            heading,
            *lines,
            "",
            "user: Plan this week's dinner.",
        ]
    )
