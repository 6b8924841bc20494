"""The resolver's parameters as one frozen, versioned value: Fellegi-Sunter m/u probabilities per
field level, the prior, the decision thresholds and the veto rules.

Fellegi-Sunter in one paragraph: for each field level, ``m`` is the probability of seeing that
level when the mention and the candidate *are* the same entity, and ``u`` the probability when
they are not. The level's weight is ``log2(m / u)`` bits: positive when the level is likelier for
a match. Weights of independent fields add up, and added to the prior's log-odds they give the
posterior log-odds. A missing value weighs zero.

The ``u`` values here are *within a block*: the candidates a mention is compared with already
share a similar name, so agreeing on the given name is far less telling than it would be across
a whole population (that is why the name weights are small).

Every decision records :attr:`ResolverConfig.rule_version`; change a number, change the version.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

from kg_memory.domain.resolution.field import Field as CompareField
from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.mention import IdentifierKind
from kg_memory.domain.resolution.name_tables import NAME_TABLES_VERSION

__all__ = [
    "DEFAULT_CONFIG",
    "FieldParams",
    "LevelParams",
    "PriorParams",
    "ResolverConfig",
    "Thresholds",
]


class LevelParams(BaseModel):
    """``m`` = P(level | same entity), ``u`` = P(level | different entities)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    m: float = Field(gt=0.0, le=1.0)
    u: float = Field(gt=0.0, le=1.0)

    @property
    def weight(self) -> float:
        """The log-likelihood ratio ``log2(m / u)``, in bits."""
        return math.log2(self.m / self.u)


class FieldParams(BaseModel):
    """The m/u parameters of one field's levels. A level left out weighs zero, like MISSING."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exact: LevelParams | None = None
    close: LevelParams | None = None
    different: LevelParams | None = None

    def weight(self, level: Level) -> float:
        params = {
            Level.EXACT: self.exact,
            Level.CLOSE: self.close,
            Level.DIFFERENT: self.different,
        }.get(level)
        return 0.0 if params is None else params.weight


class Thresholds(BaseModel):
    """Posterior cut-offs: MERGE needs at least ``merge``; below ``keep_apart`` is KEEP_APART;
    anything between goes to REVIEW. A MERGE also needs every *other* unvetoed candidate below
    ``rival`` (default: ``merge``): two plausible winners make the mention ambiguous."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    merge: float = Field(gt=0.0, lt=1.0)
    keep_apart: float = Field(gt=0.0, lt=1.0)
    rival: float | None = Field(default=None, gt=0.0, lt=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.keep_apart >= self.merge:
            raise ValueError("the keep-apart threshold must be below the merge threshold")
        if self.rival is not None and self.rival > self.merge:
            raise ValueError("the rival threshold cannot be above the merge threshold")
        return self

    @property
    def rival_floor(self) -> float:
        """The posterior at which another candidate counts as a rival."""
        return self.merge if self.rival is None else self.rival


class PriorParams(BaseModel):
    """The prior that a mention refers to one particular candidate, before any field is read.

    The candidate competes with the ``n`` same-name entities already in scope and with ``new``,
    the weight of "someone the memory has never seen"::

        new   = new_entity_slots * (1 + namesake_growth * (n - 1))
                + common_name_slots * commonness
        prior = 1 / (n + new)

    ``commonness`` (0..1, from the shipped frequency table) is the common-name discount: a new
    "John Smith" is likelier than a new "Ottoline Vance". ``namesake_growth`` reads the scope
    itself as evidence of commonness: a user who already knows two Priya Ramans meets a third
    more easily than one who knows a single Priya Raman. With the defaults, one rare-named
    candidate has prior 1/2, each of two Priya Ramans 1/4, each of two John Smiths 1/6.

    >>> p = PriorParams()
    >>> p.probability(1, 0.0), p.probability(2, 0.0), round(p.probability(2, 1.0), 4)
    (0.5, 0.25, 0.1667)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    new_entity_slots: float = Field(default=1.0, gt=0.0)
    common_name_slots: float = Field(default=2.0, ge=0.0)
    namesake_growth: float = Field(default=1.0, ge=0.0)

    def probability(self, same_name_candidates: int, commonness: float) -> float:
        n = max(1, same_name_candidates)
        new = (
            self.new_entity_slots * (1.0 + self.namesake_growth * (n - 1))
            + self.common_name_slots * commonness
        )
        return 1.0 / (n + new)


def _p(m: float, u: float) -> LevelParams:
    return LevelParams(m=m, u=u)


_C = CompareField
_DEFAULT_FIELDS: Mapping[CompareField, FieldParams] = MappingProxyType(
    {
        # Names: weak inside a block (everyone in it has a similar name), but a clearly different
        # given name is strong evidence against: nicknames and typos are CLOSE, not DIFFERENT.
        _C.GIVEN_NAME: FieldParams(
            exact=_p(0.87, 0.30), close=_p(0.12, 0.10), different=_p(0.01, 0.60)
        ),
        _C.FAMILY_NAME: FieldParams(
            exact=_p(0.92, 0.35), close=_p(0.06, 0.05), different=_p(0.02, 0.60)
        ),
        # Strong identifiers: agreement is near-proof. A person has one user id but may have
        # several emails, phones and handles, so only a user-id conflict is a veto (see below).
        _C.USER_ID: FieldParams(exact=_p(0.99, 1e-5), different=_p(0.001, 0.99)),
        _C.EMAIL: FieldParams(exact=_p(0.95, 1e-4), different=_p(0.30, 0.95)),
        _C.PHONE: FieldParams(exact=_p(0.95, 2e-4), different=_p(0.30, 0.95)),
        _C.HANDLE: FieldParams(exact=_p(0.95, 1e-4), different=_p(0.30, 0.95)),
        _C.ENTITY_TYPE: FieldParams(exact=_p(0.99, 0.70), different=_p(0.01, 0.30)),
        # Context: how specific a shared value is (many people share a city, few a project), and how
        # often the same person shows a different value (people move and change jobs).
        _C.EMPLOYER: FieldParams(
            exact=_p(0.80, 0.04), close=_p(0.05, 0.02), different=_p(0.15, 0.94)
        ),
        _C.ROLE: FieldParams(exact=_p(0.80, 0.08), close=_p(0.05, 0.03), different=_p(0.15, 0.89)),
        _C.CITY: FieldParams(exact=_p(0.78, 0.12), close=_p(0.02, 0.02), different=_p(0.20, 0.86)),
        _C.RELATION: FieldParams(
            exact=_p(0.85, 0.20), close=_p(0.03, 0.03), different=_p(0.12, 0.77)
        ),
        _C.PROJECT: FieldParams(
            exact=_p(0.70, 0.02), close=_p(0.05, 0.02), different=_p(0.25, 0.96)
        ),
        _C.CO_MENTIONS: FieldParams(
            exact=_p(0.35, 0.005), close=_p(0.40, 0.04), different=_p(0.25, 0.955)
        ),
        # Temporal: mostly re-reads the attributes, so it weighs little on top of them. Differing
        # values nearly always overlap in time (open intervals), for strangers and for people whose
        # move the memory has not heard of alike; a contradiction still counts a little against.
        _C.TEMPORAL: FieldParams(
            exact=_p(0.50, 0.35), close=_p(0.10, 0.10), different=_p(0.40, 0.60)
        ),
    }
)


class ResolverConfig(BaseModel):
    """Everything that decides a resolution, frozen and versioned as one value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_version: str = Field(min_length=1)
    fields: Mapping[CompareField, FieldParams]
    prior: PriorParams = PriorParams()
    thresholds: Thresholds
    #: Identifier kinds a person has exactly one of: a conflict is a veto, not just evidence.
    vetoing_identifiers: tuple[IdentifierKind, ...] = (IdentifierKind.USER_ID,)
    #: Identifier kinds whose agreement may merge despite a different given or family name
    #: (people change names; they do not swap accounts). Other identifiers can be shared (a
    #: household phone, a team inbox), so with a conflicting name they only reach REVIEW.
    decisive_identifiers: tuple[IdentifierKind, ...] = (IdentifierKind.USER_ID,)
    #: The least evidence, in bits, the agreeing non-name fields must carry together for a
    #: MERGE. One agreeing field is required by rule; this sets how telling it must be, so a
    #: fuzzy match alone ("Acme" vs "Acme Group", 1.3 bits) does not count as corroboration.
    min_corroboration: float = Field(default=2.0, ge=0.0)
    #: With several same-name entities in scope, only a distinguishing field (an identifier,
    #: employer, project or co-mentioned entity) can say which one is meant: two John Smiths
    #: may both live in Leeds. Shared generic attributes then lead to REVIEW, not MERGE.
    namesakes_need_distinguishing: bool = True
    #: Attributes holding one value at a time; only these can contradict over valid time.
    single_valued: tuple[CompareField, ...] = (_C.EMPLOYER, _C.ROLE, _C.CITY)
    #: The most (in bits, either way) a plug-in scorer may add to a candidate's weight.
    max_scorer_weight: float = Field(default=3.0, ge=0.0)

    @field_validator("fields", mode="after")
    @classmethod
    def _read_only(
        cls, value: Mapping[CompareField, FieldParams]
    ) -> Mapping[CompareField, FieldParams]:
        # Frozen means frozen: a shared config's table must not be editable in place.
        return MappingProxyType(dict(value))

    @field_serializer("fields")
    def _plain(self, value: Mapping[CompareField, FieldParams]) -> dict[CompareField, FieldParams]:
        return dict(value)

    def weight(self, field: CompareField, level: Level) -> float:
        """The weight in bits of ``field`` at ``level`` (zero for MISSING or an unset level)."""
        params = self.fields.get(field)
        return 0.0 if params is None or level is Level.MISSING else params.weight(level)

    @classmethod
    def default(cls) -> ResolverConfig:
        """The shipped parameters.

        The m/u values were set by reasoning about people (and adjusted by hand during
        development), not fitted to labels. The thresholds, the
        corroboration floor and the prior's slots were chosen on development corpora (seeds
        1-4 of :mod:`~kg_memory.bench.resolution.corpus`) and measured once on the committed corpus,
        whose seed was not used for tuning (see :mod:`~kg_memory.bench.resolution.benchmark`).
        """
        return cls(
            rule_version=f"fs-1/{NAME_TABLES_VERSION}",
            fields=_DEFAULT_FIELDS,
            prior=PriorParams(new_entity_slots=1.0, common_name_slots=2.0, namesake_growth=1.0),
            thresholds=Thresholds(merge=0.9, keep_apart=0.2),
            min_corroboration=2.0,
        )


DEFAULT_CONFIG = ResolverConfig.default()
