"""Why the resolver missed what it missed: every true duplicate it did not merge, in classes.

A benchmark figure says *how many* duplicates were missed; deciding which rule to try next needs
*which kind*. :func:`classify_misses` replays a dataset's test half exactly as the benchmark does
(:func:`~kg_memory.bench.resolution.dataset.benchmark_dataset`: records read in the same seeded
order, each system's entities built from its own decisions) and, for every record that had an
earlier record of the same person and was not merged into one of that person's entities, reads
the evidence about the person's own candidates and names the first class that fits (see
:data:`CLASSES`). Labels are read only after the decision, as in the benchmark.

The classes that matter most are the **twin-like** ones: a duplicate whose given name was
replaced while the record agrees is, field for field, what a twin is (the twin probe shows the
cost of merging them), so no rule over these fields can recover it safely.

Run ``python -m kg_memory.bench.resolution misses febrl3 [--identifier]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.resolution.febrl import Part, Record, load_febrl
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import CandidateEvidence, FieldEvidence, Outcome
from kg_memory.domain.resolution.field import DISTINGUISHING_FIELDS, Field, Level
from kg_memory.domain.resolution.incremental import UpdatableIndex
from kg_memory.domain.resolution.merge_rules import record_agrees
from kg_memory.domain.resolution.profile import grow_profile
from kg_memory.domain.resolution.resolver import resolve

__all__ = ["CLASSES", "MissReport", "classify_misses", "format_misses", "miss_class"]

#: Each class, in the order they are tried, and whether it is twin-like (see the module doc).
CLASSES: dict[str, bool] = {
    "not blocked: no record of the person was compared": False,
    "merged into another person": False,
    "identifier conflict vetoed, whole record agrees": False,
    "identifier conflict vetoed, record differs too": False,
    "ambiguous: a copy of the same person outside the family": False,
    "ambiguous: another person": False,
    "given name replaced, record agrees (twin-like)": True,
    "given name replaced, record differs too (twin-like)": True,
    "given and family name replaced": False,  # no name part agrees: only the record speaks
    "given name near, too far for the twin guard": True,
    "family name replaced or near": False,
    "birth date or street contradicts, only generic fields agree": False,
    "birth date a generation away, only the household's fields agree": False,
    "posterior below the merge threshold": False,
    "other": False,
}


class MissReport(BaseModel):
    """One variant's misses by class, with the outcome each miss had."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dataset: str
    identifier: bool
    true_matches: int
    correct_merges: int
    #: ``(class, outcome) -> count``, serialised as ``"class|outcome"``.
    counts: dict[str, int]
    #: One example per class: the mention's name and the candidate's name, for a person to read.
    examples: dict[str, str]

    @property
    def misses(self) -> int:
        return self.true_matches - self.correct_merges

    def by_class(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for key, n in self.counts.items():
            total[key.rsplit("|", 1)[0]] += n
        return total


def _levels(c: CandidateEvidence) -> dict[Field | str, FieldEvidence]:
    return {f.field: f for f in c.fields}


def miss_class(
    own: Sequence[CandidateEvidence], others: Sequence[CandidateEvidence], outcome: Outcome
) -> str:
    """The class of one miss, from the evidence about the person's own candidates (``own``)
    and everyone else's (``others``) and the decision's ``outcome``."""
    names = list(CLASSES)
    if outcome is Outcome.MERGE:
        return names[1]
    if not own:
        return names[0]
    open_ = [c for c in own if not c.vetoes]
    if not open_:
        best = max(own, key=lambda c: c.posterior)
        return names[2] if record_agrees(best.fields) else names[3]
    best = max(open_, key=lambda c: (c.outcome is Outcome.REVIEW, c.posterior))
    if "ambiguous" in best.reason and not best.reason.startswith("a name part"):
        same = len(open_) > 1 and not any(
            "ambiguous" in c.reason and c.posterior >= best.posterior * 0.5 for c in others
        )
        return names[4] if same else names[5]
    by = _levels(best)
    given, family = by[Field.GIVEN_NAME], by[Field.FAMILY_NAME]
    given_off = given.level is Level.DIFFERENT
    family_off = family.level is Level.DIFFERENT
    if given_off and family_off:
        return names[8]
    if given_off and given.kind == "near":
        return names[9]
    if given_off:
        return names[6] if record_agrees(best.fields) else names[7]
    if family_off:
        return names[10]
    if any(
        f.field in DISTINGUISHING_FIELDS and f.level is Level.DIFFERENT for f in best.fields
    ) and "contradict" in best.reason:
        return names[11]
    if "generation" in best.reason:
        return names[12]
    if "posterior" in best.reason and best.outcome is not Outcome.MERGE:
        return names[13]
    return names[14]


def replay(
    records: Sequence[Record], config: ResolverConfig = DEFAULT_CONFIG
) -> MissReport:
    """Resolve ``records`` in order as the benchmark's resolver system does, and classify every
    miss (the dataset fields of the report are left for the caller)."""
    index = UpdatableIndex()
    founder: dict[str, str] = {}
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    truths = correct = 0
    for record in records:
        mention = record.mention
        made = resolve(mention, index, now=mention.at, config=config)
        merged = made.outcome is Outcome.MERGE
        right = merged and founder.get(made.entity_id or "") == record.person
        truth = record.person in seen
        truths += truth
        correct += right
        if truth and not right:
            own = [c for c in made.candidates if founder.get(c.entity_id) == record.person]
            others = [c for c in made.candidates if founder.get(c.entity_id) != record.person]
            kind = miss_class(own, others, made.outcome)
            counts[f"{kind}|{made.outcome.value}"] += 1
            if kind not in examples:
                known = index.profile(mention.scope, own[0].entity_id) if own else None
                examples[kind] = f"{mention.name!r} vs {known.names if known else None}"
        target = made.entity_id if merged and made.entity_id else mention.mention_id
        founder.setdefault(target, record.person)
        before = index.profile(mention.scope, target)
        index.upsert(grow_profile(before, target, mention, copy_of=made.copy_of))
        seen.add(record.person)
    return MissReport(
        dataset="", identifier=False, true_matches=truths, correct_merges=correct,
        counts=dict(counts), examples=examples,
    )


def classify_misses(
    dataset: str = "febrl3",
    *,
    identifier: bool = False,
    limit: int | None = None,
    config: ResolverConfig = DEFAULT_CONFIG,
) -> MissReport:
    """Every miss of the resolver on ``dataset``'s test half, classified (see :data:`CLASSES`)."""
    records = load_febrl(dataset, part=Part.TEST, identifier=identifier, limit=limit)
    report = replay(records, config)
    return report.model_copy(update={"dataset": dataset, "identifier": identifier})


def format_misses(report: MissReport) -> str:
    """The breakdown as lines: class, misses, how many were REVIEWs, twin-like or not."""
    variant = "national id with typos" if report.identifier else "no identifier"
    lines = [
        f"{report.dataset} test half, {variant}: {report.misses} misses of "
        f"{report.true_matches} true matches",
    ]
    reviews: Counter[str] = Counter()
    for key, n in report.counts.items():
        kind, outcome = key.rsplit("|", 1)
        if outcome == Outcome.REVIEW.value:
            reviews[kind] += n
    for kind, n in report.by_class().most_common():
        twin = " (twin-like)" if CLASSES[kind] and "twin" not in kind else ""
        lines.append(f"  {n:>4} ({reviews[kind]:>4} REVIEW)  {kind}{twin}")
        lines.append(f"        e.g. {report.examples.get(kind, '')}")
    return "\n".join(lines)
