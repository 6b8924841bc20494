"""Learn the resolver's m/u weights from unlabelled candidate pairs by expectation-maximisation
(Fellegi-Sunter, as splink and recordlinkage's ECM classifier do), and write them as the
versioned config the resolver loads.

A tool, not part of the resolver: it runs offline, reads no labels, and its output is one JSON
file (``kg_memory/domain/resolution/trained.json``) that
:meth:`~kg_memory.domain.resolution.config.ResolverConfig.default` loads. The online resolver
only reads the numbers.

The pairs are what the resolver itself would compare: each mention against the profiles its
blocking keys find (so ``u`` is "within a block", as the config's docstring explains). Each
pair is a vector of field levels. EM alternates

* E: the probability ``g`` that each pair is a match, from the current m, u and the match
  share ``lambda`` of its source (each source of pairs has its own: a person-record file and a
  conversation corpus do not have the same share of duplicates);
* M: ``m[field][level]`` = the ``g``-weighted share of the pairs showing that level among the
  pairs where the field is not missing, ``u`` the same with ``1 - g``, ``lambda`` the mean ``g``.

MISSING is left out of both (it weighs zero by rule), and each field gets one pseudo-observation
per class spread like the starting values (so no weight is infinite, and a rarely seen field
stays near where it started). The prior the resolver uses is *not* learned: it stays
conservative for same-name candidates (see
:class:`~kg_memory.domain.resolution.config.PriorParams`), because the match share of a training
file says nothing about how many namesakes a user's memory holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.resolution.blocking import BlockingIndex
from kg_memory.domain.resolution.comparison import compare
from kg_memory.domain.resolution.config import (
    DEFAULT_CONFIG,
    FieldParams,
    LevelParams,
    ResolverConfig,
    TrainedWeights,
)
from kg_memory.domain.resolution.field import IDENTIFIER_FIELDS, Level
from kg_memory.domain.resolution.field import Field as CompareField
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.name_kinds import NAME_KINDS
from kg_memory.domain.resolution.profile import EntityProfile, grow_profile

__all__ = [
    "PairSource",
    "TrainingReport",
    "candidate_pairs",
    "categories",
    "estimate",
    "learn",
    "trained_weights",
    "write_weights",
]

_LEVELS: Final = (Level.EXACT, Level.CLOSE, Level.DIFFERENT)
#: The name parts are learned over their kinds (:data:`NAME_KINDS`), not their three levels.
NAME_FIELDS: Final = frozenset({CompareField.GIVEN_NAME, CompareField.FAMILY_NAME})
#: Not learned: every candidate is a person (no information), and the temporal summary only
#: re-reads the attributes (learning it would count them twice).
_NOT_LEARNED: Final = frozenset({CompareField.ENTITY_TYPE, CompareField.TEMPORAL})
_PSEUDO: Final = 1.0
#: A field needs this many non-missing pairs to be learned; fewer keep their starting values.
MIN_OBSERVED: Final = 50

#: A pair's category per field: a level's value, or for a name part its kind.
Pair = dict[CompareField, str]


def categories(field: CompareField) -> tuple[str, ...]:
    """What EM estimates m and u over for ``field``: the name kinds for a name part, the three
    non-missing levels for any other field."""
    if field in NAME_FIELDS:
        return tuple(NAME_KINDS)
    return tuple(level.value for level in _LEVELS)


class PairSource(BaseModel):
    """Unlabelled candidate pairs from one source, with a name for the report."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    pairs: tuple[tuple[tuple[CompareField, str], ...], ...]


def candidate_pairs(
    name: str,
    mentions: Sequence[Mention],
    profiles: Iterable[EntityProfile] | None = None,
    *,
    config: ResolverConfig = DEFAULT_CONFIG,
) -> PairSource:
    """The pairs the resolver would compare, without labels.

    With ``profiles`` (a corpus's memory), each mention is compared with the profiles its keys
    find. Without, every mention is also a one-mention profile and each unordered pair of
    mentions sharing a blocking key is compared once (a file of records, deduplicated).
    """
    rules = dict(config.identifiers)
    found: list[tuple[tuple[CompareField, str], ...]] = []

    def add(mention: Mention, profile: EntityProfile) -> None:
        fields = compare(mention, profile, single_valued=config.single_valued,
                         identifiers=rules)
        found.append(tuple(
            (f.field, f.kind if f.field in NAME_FIELDS and f.kind else f.level.value)
            for f in fields
            if isinstance(f.field, CompareField) and f.level is not Level.MISSING))

    if profiles is not None:
        index = BlockingIndex(profiles)
        for mention in mentions:
            for candidate in index.candidates(mention):
                add(mention, candidate.profile)
    else:
        singles = {m.mention_id: grow_profile(None, m.mention_id, m) for m in mentions}
        index = BlockingIndex(singles.values())
        for mention in mentions:
            for candidate in index.candidates(mention, exclude=[mention.mention_id]):
                if candidate.profile.entity_id > mention.mention_id:  # each pair once
                    add(mention, candidate.profile)
    return PairSource(name=name, pairs=tuple(found))


class TrainingReport(BaseModel):
    """What EM converged to, for the versioned file and the docs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    iterations: int
    converged: bool
    match_share: dict[str, float]  # lambda per source
    pairs: dict[str, int]
    observed: dict[CompareField, int]  # non-missing pairs per learned field
    not_learned: tuple[CompareField, ...]  # too few observations (or by rule)


def _start(
    config: ResolverConfig, field: CompareField
) -> tuple[dict[str, float], dict[str, float]]:
    """EM's starting m and u for ``field``: the config's, a name kind sharing its level's
    equally with the other kinds of that level."""
    params = config.fields.get(field, FieldParams())
    m: dict[str, float] = {}
    u: dict[str, float] = {}
    for category in categories(field):
        level = NAME_KINDS[category] if field in NAME_FIELDS else Level(category)
        given = params.kinds.get(category) or getattr(params, level.value)
        share = 1 if field not in NAME_FIELDS or category in params.kinds else sum(
            1 for k in NAME_KINDS.values() if k is level)
        m[category] = (given.m if given is not None else 0.01) / share
        u[category] = (given.u if given is not None else 0.01) / share
    total_m, total_u = sum(m.values()), sum(u.values())
    return ({k: v / total_m for k, v in m.items()}, {k: v / total_u for k, v in u.items()})


def _monotone(m: dict[str, float], u: dict[str, float]) -> FieldParams:
    """The field's parameters, with CLOSE never weighing more than EXACT: a near agreement is
    weaker evidence than an exact one by meaning, but EM on a file whose strangers almost never
    differ by one letter gives it a tiny ``u`` (FEBRL: 14 bits for "noble pzrk" ~ "noble park",
    which merged two namesakes)."""
    exact, close = m["exact"] / u["exact"], m["close"] / u["close"]
    u_close = u["close"] if close <= exact else m["close"] / exact
    return FieldParams(
        exact=LevelParams(m=m["exact"], u=u["exact"]),
        close=LevelParams(m=m["close"], u=min(1.0, u_close)),
        different=LevelParams(m=m["different"], u=u["different"]),
    )


def _name_params(m: dict[str, float], u: dict[str, float]) -> FieldParams:
    """A name part's parameters: one per kind, and per level the kinds' sums (what a caller
    without kinds reads), with the kinds kept in order of agreement. No DIFFERENT kind weighs
    more than zero (a name that disagrees is never evidence *for* a match, however often a
    training file's duplicates replace one, as FEBRL's do), and every CLOSE kind weighs between
    the best DIFFERENT kind and EXACT (a nickname is no weaker than a near name and no stronger
    than the name itself; a file without nicknames learns "nickname" from strangers alone).
    A clipped kind keeps its ``m`` and takes the ``u`` that gives the bound."""

    def bound(kind: str, low: float, high: float) -> LevelParams:
        ratio = min(max(m[kind] / u[kind], low), high)
        return LevelParams(m=m[kind], u=min(1.0, m[kind] / ratio))

    exact = LevelParams(m=m["exact"], u=u["exact"])
    different = [k for k, lv in NAME_KINDS.items() if lv is Level.DIFFERENT]
    kinds = {k: bound(k, 0.0, 1.0) for k in different}
    floor = max(kinds[k].m / kinds[k].u for k in different)
    ceiling = max(floor, exact.m / exact.u)
    for kind, level in NAME_KINDS.items():
        if level is Level.CLOSE:
            kinds[kind] = bound(kind, floor, ceiling)
    kinds["exact"] = exact

    def level_sum(level: Level) -> LevelParams:
        names = [k for k, lv in NAME_KINDS.items() if lv is level]
        return LevelParams(m=min(1.0, sum(kinds[k].m for k in names)),
                           u=min(1.0, sum(kinds[k].u for k in names)))

    return FieldParams(
        exact=exact,
        close=level_sum(Level.CLOSE),
        different=level_sum(Level.DIFFERENT),
        kinds={k: kinds[k] for k in NAME_KINDS},
    )


def estimate(
    sources: Sequence[PairSource],
    *,
    start: ResolverConfig = DEFAULT_CONFIG,
    iterations: int = 200,
    tolerance: float = 1e-6,
    initial_share: float = 0.2,
) -> tuple[dict[CompareField, FieldParams], TrainingReport]:
    """Estimate m and u per field level by EM over the pairs of ``sources``.

    Starts from ``start``'s parameters (EM only finds a local optimum; starting from m > u
    for agreement keeps "match" the class where fields agree). Returns the learned parameters of
    every field seen often enough, and the report.
    """
    observed: dict[CompareField, int] = {}
    for source in sources:
        for pair in source.pairs:
            for field, _ in pair:
                observed[field] = observed.get(field, 0) + 1
    learned = sorted(f for f, n in observed.items() if n >= MIN_OBSERVED and f not in _NOT_LEARNED)
    m: dict[CompareField, dict[str, float]] = {}
    u: dict[CompareField, dict[str, float]] = {}
    for field in learned:
        m[field], u[field] = _start(start, field)
    m0, u0 = dict(m), dict(u)
    share = {s.name: initial_share for s in sources}
    converged = False
    done = 0
    for done in range(1, iterations + 1):  # noqa: B007 - the count is reported
        # One pseudo-observation per field and class, spread as the starting values are: a
        # flat count of one per level would swamp a rare field (128 user-id pairs) and make an
        # account match look like something strangers share.
        m_acc = {f: {lv: _PSEUDO * p for lv, p in m0[f].items()} for f in learned}
        u_acc = {f: {lv: _PSEUDO * p for lv, p in u0[f].items()} for f in learned}
        new_share: dict[str, float] = {}
        for source in sources:
            prior = math.log(share[source.name] / (1.0 - share[source.name]))
            total_g = 0.0
            for pair in source.pairs:
                used = [(f, lv) for f, lv in pair if f in m]
                # The name parts are learned but do not vote: the pairs were chosen for a
                # similar name, so letting the names pick the classes teaches EM that the
                # names themselves are the match (round 1's finding). They are read against
                # classes the other fields define, as splink trains a blocking key's m.
                llr = prior + sum(
                    math.log(m[f][lv] / u[f][lv]) for f, lv in used if f not in NAME_FIELDS
                )
                g = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, llr))))
                total_g += g
                for f, lv in used:
                    m_acc[f][lv] += g
                    u_acc[f][lv] += 1.0 - g
            count = max(1, len(source.pairs))
            new_share[source.name] = min(0.99, max(1e-4, total_g / count))
        delta = max(abs(new_share[k] - share[k]) for k in share) if share else 0.0
        for f in learned:
            tm, tu = sum(m_acc[f].values()), sum(u_acc[f].values())
            new_m = {lv: v / tm for lv, v in m_acc[f].items()}
            new_u = {lv: v / tu for lv, v in u_acc[f].items()}
            delta = max(delta, *(abs(new_m[c] - m[f][c]) for c in new_m))
            m[f], u[f] = new_m, new_u
        share = new_share
        if delta < tolerance:
            converged = True
            break
    for f in learned:
        if f not in IDENTIFIER_FIELDS and f not in NAME_FIELDS:
            # A share below one in the pairs observed cannot be estimated from them: EM on a
            # synthetic file whose strangers never share a suburb says 1e-5 (16 bits for a
            # suburb). Identifiers keep theirs: sharing one is what strangers do not do.
            # Only EXACT: a rare CLOSE is rare for matches too (its m is as small), and the
            # monotone rule below keeps it under EXACT.
            u[f] = {**u[f], "exact": max(u[f]["exact"], 1.0 / observed[f])}
    params = {
        f: _name_params(m[f], u[f]) if f in NAME_FIELDS else _monotone(m[f], u[f])
        for f in learned
    }
    report = TrainingReport(
        iterations=done,
        converged=converged,
        match_share={k: round(v, 6) for k, v in share.items()},
        pairs={s.name: len(s.pairs) for s in sources},
        observed={f: observed[f] for f in learned},
        not_learned=tuple(sorted(set(start.fields) - set(learned))),
    )
    return params, report


def _round(params: FieldParams) -> FieldParams:
    def r(level: LevelParams | None) -> LevelParams | None:
        if level is None:
            return None
        return LevelParams(m=float(f"{level.m:.6g}"), u=float(f"{level.u:.6g}"))

    kinds = {k: v for k, v in ((k, r(p)) for k, p in params.kinds.items()) if v is not None}
    return FieldParams(
        exact=r(params.exact), close=r(params.close), different=r(params.different), kinds=kinds
    )


def trained_weights(
    rule_version: str,
    learned: Mapping[CompareField, FieldParams],
    reports: Sequence[TrainingReport],
    trained_on: Sequence[str],
) -> TrainedWeights:
    """The versioned file's content: learned fields, what they were learned on, how."""
    return TrainedWeights(
        rule_version=rule_version,
        trained_on=tuple(trained_on),
        fields={f: _round(p) for f, p in sorted(learned.items())},
        report={"sources": [r.model_dump(mode="json") for r in reports]},
    )


def write_weights(weights: TrainedWeights, path: Path) -> None:
    path.write_text(weights.model_dump_json(indent=2) + "\n", encoding="utf-8")


def learn(
    sources: Sequence[PairSource], *, start: ResolverConfig = DEFAULT_CONFIG
) -> tuple[dict[CompareField, FieldParams], list[TrainingReport]]:
    """EM on each source separately; each field takes the parameters of the source that showed
    it most often. Pooling a person register with a conversation corpus under one match share
    mixes two populations (pooled, the corpus gained a false merge); fields rarely overlap
    between them anyway.
    """
    chosen: dict[CompareField, tuple[int, FieldParams]] = {}
    reports: list[TrainingReport] = []
    for source in sources:
        params, report = estimate([source], start=start)
        reports.append(report)
        for field, p in params.items():
            seen = report.observed[field]
            if field not in chosen or seen > chosen[field][0]:
                chosen[field] = (seen, p)
    return {f: p for f, (_, p) in chosen.items()}, reports
