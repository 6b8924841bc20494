"""The m/u parameters: their types, the hand-set starting point, and the trained file.

The resolver's field weights come from ``trained.json`` in this package, learned by
expectation-maximisation on unlabelled candidate pairs (:mod:`kg_memory.bench.resolution.training`,
an offline tool). :data:`STARTING_FIELDS` are the hand-set values EM starts from, and the values
kept for a field the training data never showed (a conversation's employer is not in a person
register); the file says which fields were learned and on what.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.resolution.field import Field as CompareField
from kg_memory.domain.resolution.field import Level

__all__ = [
    "STARTING_FIELDS",
    "FieldParams",
    "LevelParams",
    "TrainedWeights",
    "load_trained",
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
    """The m/u parameters of one field's levels. A level left out weighs zero, like MISSING.

    ``kinds`` (names only) are finer categories of the levels, learned on their own: "initial"
    and "nickname" are both CLOSE, but not the same evidence. A kind present there weighs its
    own parameters; any other falls back to its level's.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    exact: LevelParams | None = None
    close: LevelParams | None = None
    different: LevelParams | None = None
    kinds: dict[str, LevelParams] = Field(default_factory=dict)

    def weight(self, level: Level, kind: str | None = None) -> float:
        if kind is not None and kind in self.kinds:
            return self.kinds[kind].weight
        params = {
            Level.EXACT: self.exact,
            Level.CLOSE: self.close,
            Level.DIFFERENT: self.different,
        }.get(level)
        return 0.0 if params is None else params.weight


def _p(m: float, u: float) -> LevelParams:
    return LevelParams(m=m, u=u)


_C = CompareField
STARTING_FIELDS: Mapping[CompareField, FieldParams] = MappingProxyType(
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
        # A near-miss (one typo or transposed digit) is CLOSE: the same number mistyped far more
        # often than two people's numbers one keystroke apart.
        _C.USER_ID: FieldParams(
            exact=_p(0.97, 1e-5), close=_p(0.02, 1e-4), different=_p(0.01, 0.99)
        ),
        _C.NATIONAL_ID: FieldParams(
            exact=_p(0.90, 1e-5), close=_p(0.09, 1e-4), different=_p(0.01, 0.99)
        ),
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
        # Person-record fields: a date of birth is nearly unique within a block, an address a
        # little less (households), a postcode and a state are shared by many.
        _C.BIRTH_DATE: FieldParams(
            exact=_p(0.85, 0.002), close=_p(0.12, 0.01), different=_p(0.03, 0.988)
        ),
        _C.STREET_NUMBER: FieldParams(exact=_p(0.85, 0.05), different=_p(0.15, 0.95)),
        _C.STREET: FieldParams(
            exact=_p(0.80, 0.005), close=_p(0.12, 0.01), different=_p(0.08, 0.985)
        ),
        _C.LOCALITY: FieldParams(
            exact=_p(0.80, 0.02), close=_p(0.12, 0.02), different=_p(0.08, 0.96)
        ),
        _C.POSTCODE: FieldParams(
            exact=_p(0.85, 0.02), close=_p(0.10, 0.05), different=_p(0.05, 0.93)
        ),
        _C.STATE: FieldParams(exact=_p(0.95, 0.25), different=_p(0.05, 0.75)),
        # Temporal: mostly re-reads the attributes, so it weighs little on top of them. Differing
        # values nearly always overlap in time (open intervals), for strangers and for people whose
        # move the memory has not heard of alike; a contradiction still counts a little against.
        _C.TEMPORAL: FieldParams(
            exact=_p(0.50, 0.35), close=_p(0.10, 0.10), different=_p(0.40, 0.60)
        ),
    }
)




class TrainedWeights(BaseModel):
    """The versioned output of training: the learned fields, what they were learned on, how."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_version: str = Field(min_length=1)
    trained_on: tuple[str, ...]
    fields: dict[CompareField, FieldParams]
    report: dict[str, Any] = Field(default_factory=dict)


TRAINED_FILE = "trained.json"


def load_trained() -> TrainedWeights | None:
    """The shipped trained weights, or ``None`` if the package has none."""
    source = resources.files("kg_memory.domain.resolution") / TRAINED_FILE
    if not source.is_file():
        return None
    return TrainedWeights.model_validate_json(source.read_text(encoding="utf-8"))
