"""The review queue's rules: which pairs a person is asked about, how they compare, what a merge
would change, and in which order a person should see them.

A REVIEW decision leaves a provisional entity linked POSSIBLE_SAME_AS to each candidate it may
be; each ``(provisional, candidate)`` link is one *pair* a person settles (merge or keep apart).
Everything here is pure (``now`` is passed in); the store reading is
:mod:`kg_memory.services.review_queue`'s.

* :func:`side_by_side`: every field either side has, the mention as the resolver saw it beside
  the candidate as its profile holds it now, each row agreeing, close, disagreeing, or known to
  one side only. Agreement is the resolver's own comparison (:func:`compare`), so a row says
  what the resolver's evidence said, in values a person can read.
* :func:`impact`: what merging the pair would change as of ``now`` on both time axes: how many
  facts would be pooled, and which of them conflict (the same predicate, in the same project,
  held with different values on the two sides).
* :func:`settlement`: the latest person's decision about the pair, which is final until another
  person's decision replaces it (a merge is undone by keeping apart, and the other way round).
* :func:`ordered`: most impact first (facts pooled, then conflicts), ties by the pair's id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, computed_field

from kg_memory.domain.instant import UtcDatetime, ensure_utc
from kg_memory.domain.resolution.comparison import compare
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import Outcome, ResolutionDecision
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.mention import IdentifierKind, Mention
from kg_memory.domain.resolution.names import parse_name
from kg_memory.domain.resolution.profile import EntityProfile
from kg_memory.domain.result import Fact

__all__ = [
    "FactConflict",
    "FieldRow",
    "Impact",
    "ReviewPair",
    "Settlement",
    "Verdict",
    "impact",
    "ordered",
    "pairs_of",
    "settlement",
    "side_by_side",
]

#: The predicate a person's merge is recorded under; bookkeeping, never a fact to pool.
_SAME_AS = "same_as"
_IDENTIFIERS = frozenset(k.value for k in IdentifierKind)


class Verdict(StrEnum):
    """How one field compares across a pair."""

    AGREE = "agree"  # the same value
    CLOSE = "close"  # compatible: a typo, a nickname, a transposed date, one edit off
    DISAGREE = "disagree"  # both sides know it, and it differs
    ONLY_PROVISIONAL = "only_provisional"  # only the mention says it
    ONLY_CANDIDATE = "only_candidate"  # only the candidate's profile holds it


_VERDICT = {Level.EXACT: Verdict.AGREE, Level.CLOSE: Verdict.CLOSE,
            Level.DIFFERENT: Verdict.DISAGREE}


class FieldRow(BaseModel):
    """One field side by side: the mention's values, the candidate's, and how they compare."""

    model_config = ConfigDict(frozen=True)

    field: str
    provisional: tuple[str, ...]
    candidate: tuple[str, ...]
    verdict: Verdict
    detail: str = ""


class FactConflict(BaseModel):
    """A predicate both sides hold now (in one project) with different values: after a merge
    the group would hold both."""

    model_config = ConfigDict(frozen=True)

    predicate: str
    project: str | None = None
    provisional: tuple[str, ...]
    candidate: tuple[str, ...]


class Impact(BaseModel):
    """What merging a pair would change now: facts pooled into one group, and conflicts."""

    model_config = ConfigDict(frozen=True)

    pooled: int
    conflicts: tuple[FactConflict, ...] = ()


class Settlement(BaseModel):
    """A person's decision about a pair: who, when, why, and which way."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    decision_id: str
    decided_by: str
    decided_at: UtcDatetime
    reason: str


class ReviewPair(BaseModel):
    """One question for a person: is ``provisional`` the same as ``candidate``?"""

    model_config = ConfigDict(frozen=True)

    scope: str
    provisional: str
    candidate: str
    decision_id: str  # the resolver's REVIEW decision that asked it
    mention: str  # the name as mentioned
    posterior: float | None  # the resolver's, for this candidate
    reason: str  # the resolver's, for this candidate
    fields: tuple[FieldRow, ...]
    impact: Impact
    settled: Settlement | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pair_id(self) -> str:
        """``PROVISIONAL:CANDIDATE``, as ``entities review --merge/--apart`` takes it."""
        return f"{self.provisional}:{self.candidate}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def token(self) -> str:
        """A digest of what a person is shown (fields, impact, settlement): a decision that
        quotes it was made on exactly this, and any change since gives another token."""
        body = self.model_dump_json(exclude={"pair_id", "token"})
        return "rv_" + hashlib.sha256(body.encode()).hexdigest()[:20]


def pairs_of(decisions: Iterable[tuple[str, ResolutionDecision]]
             ) -> list[tuple[str, str, ResolutionDecision]]:
    """``(provisional, candidate, decision)`` for every POSSIBLE_SAME_AS link of the REVIEW
    decisions among ``(entity_id, decision)``, first asked first (a pair asked twice in one
    scope is the first decision's)."""
    seen: set[tuple[str, str, str]] = set()
    found: list[tuple[str, str, ResolutionDecision]] = []
    for entity_id, decision in decisions:
        if decision.outcome is not Outcome.REVIEW:
            continue
        for candidate in decision.possible_same_as:
            key = (decision.mention.scope, entity_id, candidate)
            if key not in seen:
                seen.add(key)
                found.append((entity_id, candidate, decision))
    return found


def _concerns(decision: ResolutionDecision, a: str, b: str) -> bool:
    """Whether a person's decision settles ``a`` against ``b`` (either way round): a merge or
    keep-apart is recorded about a mention ``entity:X`` naming the other entity."""
    subject = decision.mention.mention_id.removeprefix("entity:")
    if not decision.is_manual or decision.mention.mention_id == subject:
        return False
    other = b if subject == a else a if subject == b else None
    return other is not None and (decision.entity_id == other
                                  or other in decision.kept_apart_from)


def settlement(provisional: str, candidate: str,
               decisions: Sequence[ResolutionDecision]) -> Settlement | None:
    """The latest person's decision about the pair (stored order breaks a tie in time), or
    ``None`` while no person has decided it. The resolver's decisions never count: only a
    person settles a pair, and only a person's later decision unsettles it."""
    mine = [(d.decided_at, i, d) for i, d in enumerate(decisions)
            if _concerns(d, provisional, candidate)]
    if not mine:
        return None
    *_, last = max(mine, key=lambda t: (t[0], t[1]))
    return Settlement(outcome=last.outcome, decision_id=last.decision_id,
                      decided_by=last.decided_by, decided_at=last.decided_at,
                      reason=last.reason)


def _distinct(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _sides(mention: Mention, profile: EntityProfile, field: Field | str
           ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The values each side has for ``field``, as written (the comparison normalises)."""
    if field in (Field.GIVEN_NAME, Field.FAMILY_NAME):
        part = "given" if field is Field.GIVEN_NAME else "family"
        said = getattr(parse_name(mention.name), part)
        return _distinct([said]), _distinct(getattr(parse_name(n), part) for n in profile.names)
    if field is Field.ENTITY_TYPE:
        return _distinct([mention.entity_type]), (profile.type,)
    if field is Field.CO_MENTIONS:
        return (_distinct(c for c in mention.co_mentions if c != profile.entity_id),
                _distinct(profile.co_mentions))
    if isinstance(field, Field) and field.value in _IDENTIFIERS:
        kind = IdentifierKind(field.value)
        return (_distinct(i.value for i in mention.identifiers if i.kind is kind),
                _distinct(i.value for i in profile.identifiers if i.kind is kind))
    if isinstance(field, Field):
        return (_distinct([mention.context.get(field)]),
                _distinct(v.value for v in profile.values(field)))
    name = field.removeprefix("custom.")
    return (_distinct([mention.context.custom_value(name)]),
            _distinct(profile.custom_values(name)))


def side_by_side(mention: Mention, profile: EntityProfile, *,
                 config: ResolverConfig = DEFAULT_CONFIG) -> tuple[FieldRow, ...]:
    """Every field the mention or the candidate's profile has, in the resolver's field order,
    with the verdict of the resolver's own comparison. Fields neither side has are left out;
    the temporal summary is too (it re-reads the attributes, which have rows of their own)."""
    rows: list[FieldRow] = []
    for compared in compare(mention, profile, single_valued=config.single_valued,
                            identifiers=dict(config.identifiers), custom=config.custom,
                            respaced_names=config.respaced_names):
        if compared.field is Field.TEMPORAL:
            continue
        mine, theirs = _sides(mention, profile, compared.field)
        if not mine and not theirs:
            continue
        if not theirs:
            verdict = Verdict.ONLY_PROVISIONAL
        elif not mine:
            verdict = Verdict.ONLY_CANDIDATE
        else:
            # Both sides know it, so the comparison saw both: MISSING cannot come back here,
            # and if it ever did, "disagree" is the answer that asks a person to look.
            verdict = _VERDICT.get(compared.level, Verdict.DISAGREE)
        name = compared.field.value if isinstance(compared.field, Field) else compared.field
        rows.append(FieldRow(field=name, provisional=mine, candidate=theirs, verdict=verdict,
                             detail=compared.detail))
    return tuple(rows)


def _current(facts: Iterable[Fact], now: datetime) -> dict[str, Fact]:
    return {f.assertion_id: f for f in facts
            if f.predicate != _SAME_AS and f.valid.contains(now) and f.system.contains(now)}


def _slots(facts: Iterable[Fact]) -> dict[tuple[str, str | None], tuple[str, ...]]:
    slots: dict[tuple[str, str | None], list[str]] = {}
    for f in facts:
        slots.setdefault((f.predicate, f.qualifiers.project), []).append(str(f.value))
    return {k: tuple(sorted(set(v))) for k, v in slots.items()}


def impact(provisional: Iterable[Fact], candidate: Iterable[Fact], *, now: datetime) -> Impact:
    """What merging the pair would change as of ``now``, on both time axes: the facts of the two
    sides that hold now and are believed now (a fact of both sides, as after an earlier merge,
    counts once), and the predicates both sides hold in the same project with different values.
    ``same_as`` revisions are a merge's bookkeeping, never pooled facts."""
    at = ensure_utc(now, what="now")
    mine, theirs = _current(provisional, at), _current(candidate, at)
    pooled = len(mine.keys() | theirs.keys())
    left, right = _slots(mine.values()), _slots(theirs.values())
    conflicts = tuple(
        FactConflict(predicate=predicate, project=project, provisional=left[(predicate, project)],
                     candidate=right[(predicate, project)])
        for predicate, project in sorted(left.keys() & right.keys(),
                                         key=lambda k: (k[0], k[1] or ""))
        if left[(predicate, project)] != right[(predicate, project)])
    return Impact(pooled=pooled, conflicts=conflicts)


def ordered(pairs: Iterable[ReviewPair]) -> list[ReviewPair]:
    """Most impact first: the facts a merge would pool, then its conflicts; ties by pair id, so
    the same queue always reads in the same order."""
    return sorted(pairs, key=lambda p: (-p.impact.pooled, -len(p.impact.conflicts), p.pair_id))
