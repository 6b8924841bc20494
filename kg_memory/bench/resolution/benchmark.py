"""Measure the resolver on a labelled corpus: precision, recall, review rate and false merges.

The headline is **false merges on the same-name slice** (goal: zero): merging two people who
share a name pools their facts, and that is the failure a memory cannot recover from silently.
Recall counts a REVIEW as *not* merged (a provisional entity is safe but not a resolution), and
the review rate is reported on its own so that caution cannot hide in it.

Each mention is resolved independently against the profiles of its scope, exactly as given;
labels are read only after the decision, to score it.

Two naive baselines (:data:`BASELINES`) are scored the same way for contrast: linking on exact
name text, and merging into the only entity with a compatible name.

Run ``python -m kg_memory.domain.resolution`` to print the numbers for the committed corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

from pydantic import BaseModel, ConfigDict

from kg_memory import resources
from kg_memory.bench.resolution.corpus import Corpus, LabelledMention, Slice
from kg_memory.domain.instant import ensure_utc
from kg_memory.domain.resolution.blocking import BlockingIndex
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import Outcome
from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.names import (
    compare_family,
    compare_given,
    normalize_text,
    parse_name,
)
from kg_memory.domain.resolution.resolver import resolve
from kg_memory.domain.resolution.scorer import Scorer

__all__ = [
    "BASELINES",
    "CORPUS_DIR",
    "Decider",
    "ResolutionMetrics",
    "SliceMetrics",
    "evaluate",
    "evaluate_baseline",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: Where the committed corpus lives in a source checkout.
CORPUS_DIR = resources.path("resolution_corpus")


class SliceMetrics(BaseModel):
    """Counts for one slice (or, in :class:`ResolutionMetrics`, for the whole corpus)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    mentions: int = 0
    true_matches: int = 0  # mentions whose entity is already in memory
    merges: int = 0
    correct_merges: int = 0
    false_merges: int = 0  # merged into the wrong entity, or merged a newcomer
    reviews: int = 0
    keep_aparts: int = 0
    missed: int = 0  # true matches not merged (kept apart or sent to review)

    @property
    def precision(self) -> float:
        return self.correct_merges / self.merges if self.merges else 1.0

    @property
    def recall(self) -> float:
        return self.correct_merges / self.true_matches if self.true_matches else 1.0

    @property
    def review_rate(self) -> float:
        return self.reviews / self.mentions if self.mentions else 0.0

    def add(
        self, labelled: LabelledMention, outcome: Outcome, entity_id: str | None
    ) -> SliceMetrics:
        """These counts plus one decided mention."""
        merged = outcome is Outcome.MERGE
        correct = merged and entity_id == labelled.truth
        return self.model_copy(
            update={
                "mentions": self.mentions + 1,
                "true_matches": self.true_matches + (labelled.truth is not None),
                "merges": self.merges + merged,
                "correct_merges": self.correct_merges + correct,
                "false_merges": self.false_merges + (merged and not correct),
                "reviews": self.reviews + (outcome is Outcome.REVIEW),
                "keep_aparts": self.keep_aparts + (outcome is Outcome.KEEP_APART),
                "missed": self.missed + (labelled.truth is not None and not correct),
            }
        )

    def line(self) -> str:
        return (
            f"{self.name:<20} mentions {self.mentions:>5}  precision {self.precision:.4f}  "
            f"recall {self.recall:.4f}  review rate {self.review_rate:.4f}  "
            f"false merges {self.false_merges}"
        )


class ResolutionMetrics(BaseModel):
    """The benchmark's result: totals, per-slice counts, and the rule version measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_version: str
    corpus_version: str
    total: SliceMetrics
    slices: tuple[SliceMetrics, ...]

    @property
    def precision(self) -> float:
        return self.total.precision

    @property
    def recall(self) -> float:
        return self.total.recall

    @property
    def review_rate(self) -> float:
        return self.total.review_rate

    @property
    def false_merges(self) -> int:
        return self.total.false_merges

    @property
    def same_name_false_merges(self) -> int:
        """The headline: false merges among same-name different people (goal: zero)."""
        return next((s.false_merges for s in self.slices if s.name == Slice.SAME_NAME), 0)

    def summary(self) -> str:
        head = (
            f"rule {self.rule_version} on {self.corpus_version}: "
            f"same-name false merges {self.same_name_false_merges} (goal 0)"
        )
        return "\n".join([head, self.total.line(), *(s.line() for s in self.slices)])


#: Decides one mention: (outcome, entity id it merges into, if any).
Decider = Callable[[Mention, BlockingIndex], tuple[Outcome, str | None]]


def _score(
    corpus: Corpus, decide: Decider, rule_version: str, report: Callable[[str], None] | None
) -> ResolutionMetrics:
    index = BlockingIndex(corpus.profiles)
    total = SliceMetrics(name="all")
    slices = {s: SliceMetrics(name=s.value) for s in Slice}
    for labelled in corpus.mentions:
        outcome, entity_id = decide(labelled.mention, index)  # the label is not passed in
        total = total.add(labelled, outcome, entity_id)
        slices[labelled.slice] = slices[labelled.slice].add(labelled, outcome, entity_id)
    metrics = ResolutionMetrics(
        rule_version=rule_version,
        corpus_version=corpus.version,
        total=total,
        slices=tuple(slices[s] for s in Slice),
    )
    if report is not None:
        report(metrics.summary())
    return metrics


def evaluate(
    corpus: Corpus,
    *,
    config: ResolverConfig = DEFAULT_CONFIG,
    scorer: Scorer | None = None,
    now: datetime | None = None,
    report: Callable[[str], None] | None = None,
) -> ResolutionMetrics:
    """Resolve every mention of ``corpus`` and score the decisions against the labels.

    ``now`` stamps the decisions (default: the latest mention's time), and ``report``, if
    given, receives the printable summary (pass ``print`` to print it).
    """
    decided_at = (
        ensure_utc(now)
        if now is not None
        else max((m.mention.at for m in corpus.mentions), default=_EPOCH)
    )

    def decide(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None]:
        decision = resolve(mention, index, now=decided_at, config=config, scorer=scorer)
        return decision.outcome, decision.entity_id

    return _score(corpus, decide, config.rule_version, report)


def _exact_text(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None]:
    """Link on exact name text, as a text-keyed memory does: the first entity whose name or
    alias equals the mention's name after case folding."""
    said = normalize_text(mention.name)
    for candidate in index.candidates(mention):
        if said in {normalize_text(n) for n in candidate.profile.names}:
            return Outcome.MERGE, candidate.profile.entity_id
    return Outcome.KEEP_APART, None


def _only_namesake(mention: Mention, index: BlockingIndex) -> tuple[Outcome, str | None]:
    """Merge into the only entity with a compatible name, as a resolver that asks "is there a
    John Smith already?" does; with several, it cannot choose and keeps apart."""
    said = parse_name(mention.name)
    namesakes = [
        c.profile.entity_id
        for c in index.candidates(mention)
        if any(
            compare_given(said.given, known.given) is not Level.DIFFERENT
            and compare_family(said.family, known.family) is not Level.DIFFERENT
            for known in map(parse_name, c.profile.names)
        )
    ]
    if len(namesakes) == 1:
        return Outcome.MERGE, namesakes[0]
    return Outcome.KEEP_APART, None


#: Naive deciders modelled on two behaviours the resolver is meant to beat. They are sketches of
#: a behaviour, not reproductions of any product.
BASELINES: Final[Mapping[str, Decider]] = MappingProxyType(
    {"exact-text": _exact_text, "only-namesake": _only_namesake}
)


def evaluate_baseline(
    corpus: Corpus, name: str, *, report: Callable[[str], None] | None = None
) -> ResolutionMetrics:
    """Score one of :data:`BASELINES` on ``corpus``, the same way :func:`evaluate` does."""
    return _score(corpus, BASELINES[name], f"baseline:{name}", report)
