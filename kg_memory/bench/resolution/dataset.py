"""The resolver on a public labelled dataset, beside two baselines computed in the same run.

Each system reads the test part's records one by one, in the same seeded order, and builds its
own entities from its own decisions (an incremental deduplication, as a memory fed a person
register would): MERGE attaches the record to an entity, KEEP_APART and REVIEW found a new one
(REVIEW a provisional one, which counts as a miss). Labels are read only to score:

* a record is a **true match** if an earlier record of the same person was already read;
* a **merge** is correct if the entity it lands on was founded by that person's record;
* the **same-name slice** holds the records for which an earlier record of a *different* person
  had identical given and family names: merging them is the failure a memory cannot undo
  silently.

Systems: ``resolver`` (the shipped config, guards and all); ``exact-name`` (merge into the
first entity with the identical full name); ``plain-fs`` (Fellegi-Sunter alone: the same learned
weights, the same blocking, a flat prior of 1/2, merge the best candidate at posterior >= the
merge threshold, review down to the keep-apart threshold; no vetoes, guards or namesake
prior). Throughput is measured through the store path (``Memory.ingest_many`` into a
fresh embedded store) and, for a reference in the same process, through the pure resolver.
Both are timed in **process CPU time** (``time.process_time``), not wall time: on a machine
shared with other work a wall clock measures the neighbours, while the CPU this process spent
is what the code costs (SQLite runs in the process, so its work is counted; waiting for the
disk to sync is not).
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field

from kg_memory.bench.resolution.febrl import Part, Record, load_febrl
from kg_memory.bench.resolution.probes import with_juniors, with_near_twins, with_twins
from kg_memory.bench.resolution.slices import full_name, same_name_flags, twin_like_flags
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution.blocking import BlockingIndex
from kg_memory.domain.resolution.comparison import compare
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import Outcome
from kg_memory.domain.resolution.incremental import UpdatableIndex
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.profile import grow_profile
from kg_memory.domain.resolution.resolver import posterior, resolve
from kg_memory.services.memory import Memory

__all__ = [
    "Counts",
    "DatasetReport",
    "SystemResult",
    "benchmark_dataset",
    "cpu_throughput",
    "format_report",
    "ingest_line",
    "twin_probe",
]

#: Decides one mention against a system's own index: (outcome, entity it merges into, entity a
#: REVIEW's provisional copy belongs to).
Decide = Callable[[Mention, BlockingIndex], tuple[Outcome, str | None, str | None]]


class Counts(BaseModel):
    """Decisions on one slice of records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    records: int = 0
    true_matches: int = 0
    merges: int = 0
    correct_merges: int = 0
    false_merges: int = 0
    reviews: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def precision(self) -> float:
        return self.correct_merges / self.merges if self.merges else 1.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def recall(self) -> float:
        return self.correct_merges / self.true_matches if self.true_matches else 1.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def review_rate(self) -> float:
        return self.reviews / self.records if self.records else 0.0

    def plus(self, *, truth: bool, outcome: Outcome, correct: bool) -> Counts:
        merged = outcome is Outcome.MERGE
        return Counts(
            records=self.records + 1,
            true_matches=self.true_matches + truth,
            merges=self.merges + merged,
            correct_merges=self.correct_merges + (merged and correct),
            false_merges=self.false_merges + (merged and not correct),
            reviews=self.reviews + (outcome is Outcome.REVIEW),
        )


class SystemResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str
    all: Counts
    same_name: Counts
    #: The duplicates that are not twin-like, and those that are (see
    #: :mod:`~kg_memory.bench.resolution.slices`): recall is judged on the first, the second
    #: is REVIEW by design; each slice's review rate is the share of its duplicates reviewed.
    non_twin: Counts = Counts()
    twin_like: Counts = Counts()


class DatasetReport(BaseModel):
    """One benchmark run: the dataset, the variant, every system's counts, and throughput."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dataset: str
    identifier: bool
    rule_version: str
    records: int
    people: int
    systems: tuple[SystemResult, ...]
    #: Mentions per CPU-second, best of three (:func:`cpu_throughput`).
    resolver_per_second: float | None = None
    store_per_second: float | None = None
    #: The twin probe (:func:`twin_probe`): per system, ``same_name`` counts the twins added.
    twins: tuple[SystemResult, ...] = ()
    #: The near-twin probe (:func:`twin_probe` with ``near``): twins one edit from the sibling.
    near_twins: tuple[SystemResult, ...] = ()
    #: The junior probe (:func:`with_juniors`), the resolver only: ``same_name`` counts them.
    juniors: SystemResult | None = None

    def system(self, name: str) -> SystemResult:
        return next(s for s in self.systems if s.system == name)


def _run(
    name: str, records: Sequence[Record], flags: Sequence[bool], decide: Decide,
    twin_like: Sequence[bool] | None = None,
) -> SystemResult:
    index = UpdatableIndex()
    founder: dict[str, str] = {}
    seen: set[str] = set()
    total, slice_, apart, twins = Counts(), Counts(), Counts(), Counts()
    twin_flags = twin_like if twin_like is not None else [False] * len(records)
    for record, same_name, twin in zip(records, flags, twin_flags, strict=True):
        mention = record.mention
        outcome, entity_id, copy_of = decide(mention, index)  # the label is not passed in
        correct = outcome is Outcome.MERGE and founder.get(entity_id or "") == record.person
        truth = record.person in seen
        total = total.plus(truth=truth, outcome=outcome, correct=correct)
        if same_name:
            slice_ = slice_.plus(truth=truth, outcome=outcome, correct=correct)
        if truth and twin:
            twins = twins.plus(truth=truth, outcome=outcome, correct=correct)
        elif truth:
            apart = apart.plus(truth=truth, outcome=outcome, correct=correct)
        target = entity_id if outcome is Outcome.MERGE and entity_id else mention.mention_id
        if target not in founder:
            founder[target] = record.person
        before = index.profile(mention.scope, target)
        index.upsert(grow_profile(before, target, mention, copy_of=copy_of))
        seen.add(record.person)
    return SystemResult(system=name, all=total, same_name=slice_, non_twin=apart,
                        twin_like=twins)


def _resolver(config: ResolverConfig) -> Decide:
    def decide(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None, str | None]:
        made = resolve(mention, index, now=mention.at, config=config)
        return made.outcome, made.entity_id, made.copy_of

    return decide


def _exact_name(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None, None]:
    said = full_name(mention)
    if said is not None:
        for candidate in index.candidates(mention):
            if said in {
                full_name(mention.model_copy(update={"name": n})) for n in candidate.profile.names
            }:
                return Outcome.MERGE, candidate.profile.entity_id, None
    return Outcome.KEEP_APART, None, None


def _plain_fs(config: ResolverConfig) -> Decide:
    rules = dict(config.identifiers)

    def decide(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None, None]:
        best: tuple[float, str] | None = None
        for candidate in index.candidates(mention):
            fields = compare(mention, candidate.profile, single_valued=(), identifiers=rules)
            weight = sum(config.weight(f.field, f.level) for f in fields)
            post = posterior(0.5, weight)
            if best is None or post > best[0]:
                best = (post, candidate.profile.entity_id)
        if best is None or best[0] < config.thresholds.keep_apart:
            return Outcome.KEEP_APART, None, None
        if best[0] < config.thresholds.merge:
            return Outcome.REVIEW, None, None
        return Outcome.MERGE, best[1], None

    return decide


def twin_probe(
    dataset: str = "febrl3",
    *,
    identifier: bool = False,
    limit: int | None = None,
    config: ResolverConfig = DEFAULT_CONFIG,
    near: bool = False,
) -> tuple[SystemResult, SystemResult]:
    """The resolver and plain-fs on ``dataset``'s test part with a twin of every person added
    (:func:`with_twins`; with ``near``, :func:`with_near_twins`: only the people whose given
    name has a registered neighbour one edit away); ``same_name`` of each result counts the
    twins."""
    probe = with_near_twins if near else with_twins
    records, flags = probe(load_febrl(dataset, part=Part.TEST, identifier=identifier,
                                      limit=limit))
    return (_run("resolver", records, flags, _resolver(config)),
            _run("plain-fs", records, flags, _plain_fs(config)))


def ingest_line(record: Record, *, operation_id: str | None = None,
                scope: str | None = None) -> IngestRecord:
    """``record`` as an ingest line: one ``resolve`` mention with every field it has (name,
    identifiers, every context value), from the source ``registry``. ``operation_id`` and
    ``scope`` default to the record's own (the growth benchmark files copies elsewhere)."""
    mention = record.mention
    return IngestRecord.model_validate(
        {
            "operation_id": operation_id or f"febrl-{mention.mention_id}",
            "source": "registry",
            "channel": "document",
            "occurred_at": mention.at.isoformat(),
            "scope": scope or mention.scope,
            "resolve": [
                {
                    "key": "p",
                    "name": mention.name,
                    "identifiers": {i.kind.value: i.value for i in mention.identifiers},
                    "context": {
                        k: v
                        for k, v in mention.context.model_dump().items()
                        if isinstance(v, str)
                    },
                }
            ],
        }
    )


def _store_rate(records: Sequence[Record]) -> float:
    lines = [ingest_line(r) for r in records]
    with tempfile.TemporaryDirectory() as folder, Memory.open(Path(folder) / "bench.db") as mem:
        started = time.process_time()  # CPU, not wall: see the module docstring
        mem.ingest_many(lines)
        elapsed = time.process_time() - started
    return len(lines) / elapsed if elapsed else 0.0


def _pure_rate(records: Sequence[Record], config: ResolverConfig) -> float:
    flags = [False] * len(records)
    started = time.process_time()
    _run("resolver", records, flags, _resolver(config))
    elapsed = time.process_time() - started
    return len(records) / elapsed if elapsed else 0.0


def cpu_throughput(
    records: Sequence[Record], *, config: ResolverConfig = DEFAULT_CONFIG, repeats: int = 3
) -> tuple[float, float]:
    """(pure resolver, store path) mentions per CPU-second: the best of ``repeats`` runs of
    each, alternating, each after a full garbage collection. The best, because on a shared
    machine a run is only ever slowed (caches and cores shared with the neighbours), never
    sped up; alternating, so both see the same machine."""
    pure = store = 0.0
    for _ in range(repeats):
        gc.collect()
        pure = max(pure, _pure_rate(records, config))
        gc.collect()
        store = max(store, _store_rate(records))
    return pure, store


def benchmark_dataset(
    dataset: str = "febrl3",
    *,
    identifier: bool = False,
    limit: int | None = None,
    config: ResolverConfig = DEFAULT_CONFIG,
    throughput: bool = True,
) -> DatasetReport:
    """Run the resolver and both baselines on the test part of ``dataset``.

    ``identifier`` files each record's social-security number as a national id (with FEBRL's
    typos); ``limit`` keeps that many people (for tests); ``throughput`` also times the pure
    resolver and the store path on the same records.
    """
    records = load_febrl(dataset, part=Part.TEST, identifier=identifier, limit=limit)
    flags, twins = same_name_flags(records), twin_like_flags(records)
    systems = [
        _run(name, records, flags, decide, twins)
        for name, decide in (
            ("resolver", _resolver(config)),
            ("exact-name", _exact_name),
            ("plain-fs", _plain_fs(config)),
        )
    ]
    pure, store = cpu_throughput(records, config=config) if throughput else (None, None)
    return DatasetReport(
        dataset=dataset,
        identifier=identifier,
        rule_version=config.rule_version,
        records=len(records),
        people=len({r.person for r in records}),
        systems=tuple(systems),
        resolver_per_second=pure,
        store_per_second=store,
        twins=twin_probe(dataset, identifier=identifier, limit=limit, config=config),
        near_twins=twin_probe(dataset, identifier=identifier, limit=limit, config=config,
                              near=True),
        juniors=_run("resolver", *with_juniors(records), _resolver(config)),
    )


def _row(label: str, c: Counts) -> str:
    return (
        f"  {label:<10}{c.records:>6} {c.precision:>7.4f} {c.recall:>7.4f} {c.f1:>7.4f} "
        f"{c.review_rate:>7.4f} {c.false_merges:>6}"
    )


def format_report(report: DatasetReport) -> str:
    """The report as lines that fit 80 columns: per system, all records and the same-name
    slice, then throughput (the store path's rate and its ratio to the pure resolver's)."""
    variant = "national id with typos" if report.identifier else "all fields, no identifier"
    lines = [
        f"{report.dataset} test half: {report.records} records of {report.people} people; "
        f"{variant}",
        f"rule {report.rule_version}",
        f"  {'slice':<10}{'recs':>6} {'prec':>7} {'recall':>7} {'F1':>7} {'review':>7} "
        f"{'f.merge':>6}",
    ]
    for result in report.systems:
        lines.append(result.system)
        lines.append(_row("all", result.all))
        lines.append(_row("same-name", result.same_name))
        if result.non_twin.records or result.twin_like.records:
            lines.append(_row("non-twin", result.non_twin))
            lines.append(_row("twin-like", result.twin_like))
    for result in report.twins:
        twins = result.same_name
        lines.append(
            f"twin probe, {result.system}: {twins.false_merges} of {twins.records} twins "
            f"merged; precision {result.all.precision:.4f}, recall {result.all.recall:.4f}"
        )
    for result in report.near_twins:
        twins = result.same_name
        lines.append(
            f"near-twin probe, {result.system}: {twins.false_merges} of {twins.records} "
            f"one edit apart merged; precision {result.all.precision:.4f}"
        )
    if report.juniors is not None:
        juniors = report.juniors.same_name
        lines.append(
            f"junior probe, resolver: {juniors.false_merges} of {juniors.records} juniors "
            f"merged; precision {report.juniors.all.precision:.4f}"
        )
    if report.store_per_second is not None and report.resolver_per_second:
        ratio = report.store_per_second / report.resolver_per_second
        lines.append(
            f"throughput (CPU time): store path {report.store_per_second:,.0f} mentions/s, "
            f"{ratio:.2f}x the pure resolver's {report.resolver_per_second:,.0f}/s"
        )
    return "\n".join(lines)
