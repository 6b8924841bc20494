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
The shipped weights are learned (``trained.json``, see :mod:`~kg_memory.domain.resolution.weights`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

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
from kg_memory.domain.resolution.record_fields import Comparator
from kg_memory.domain.resolution.weights import (
    STARTING_FIELDS,
    FieldParams,
    LevelParams,
    TrainedWeights,
    load_trained,
)

__all__ = [
    "DEFAULT_CONFIG",
    "RULES_VERSION",
    "CustomAttribute",
    "FieldParams",
    "IdentifierRule",
    "LevelParams",
    "PriorParams",
    "ResolverConfig",
    "Thresholds",
    "TrainedWeights",
]


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


class IdentifierRule(BaseModel):
    """How one identifier kind behaves.

    ``one_per_person`` kinds (an account id, a national id): a conflict is a veto, but a
    near-miss (at most ``near_miss_edits`` edits, a transposition counting as one) is CLOSE
    evidence *for*, never a veto, because a mistyped digit is far likelier than two people one
    keystroke apart. Shared kinds (phone, email, handle): several per person and shared by
    households and teams, so a difference is weak and a near-miss means nothing.
    ``decisive`` kinds may merge despite a conflicting name (people change names; they do not
    swap accounts).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    one_per_person: bool = False
    decisive: bool = False
    near_miss_edits: int = Field(default=1, ge=0, le=2)



_NO_RULE = IdentifierRule()

class CustomAttribute(BaseModel):
    """An attribute a deployment declares: its name (the ``custom.<name>`` context key), how it
    is compared, the ``close`` threshold (Jaro-Winkler similarity, numeric distance or days),
    and the m/u parameters of its levels."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    comparator: Comparator
    close: float = Field(default=0.0, ge=0.0)
    params: FieldParams
    #: Whether agreement tells namesakes apart (like an employer), or is shared by many.
    distinguishing: bool = False

    @property
    def field(self) -> str:
        """The name its evidence is recorded under."""
        return f"custom.{self.name}"


# Iterating an Enum class costs a generator per call, and these are read per candidate (not
# cached on the config: ``model_copy`` would carry a stale answer into a changed copy).
_KINDS: Final = tuple(IdentifierKind)

#: The merge rules' own version, the last part of :attr:`ResolverConfig.rule_version`: a rule
#: switched on or off by default changes decisions as surely as a weight does.
RULES_VERSION: Final = "rules-3"

_IDENTIFIER_RULES: Mapping[IdentifierKind, IdentifierRule] = MappingProxyType(
    {
        IdentifierKind.USER_ID: IdentifierRule(one_per_person=True, decisive=True),
        # Two edits (two substitutions, a dropped and a changed digit) are still one national
        # number typed twice far more often than two people's in one name block; account ids
        # stay at one edit (accounts are numbered in sequence: 1009 and 1010 are two people).
        # Measured in docs/resolution.md ("Round 3").
        IdentifierKind.NATIONAL_ID: IdentifierRule(
            one_per_person=True, decisive=True, near_miss_edits=2
        ),
        IdentifierKind.EMAIL: IdentifierRule(),
        IdentifierKind.PHONE: IdentifierRule(),
        IdentifierKind.HANDLE: IdentifierRule(),
    }
)


class ResolverConfig(BaseModel):
    """Everything that decides a resolution, frozen and versioned as one value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_version: str = Field(min_length=1)
    fields: Mapping[CompareField, FieldParams]
    prior: PriorParams = PriorParams()
    thresholds: Thresholds
    #: How each identifier kind behaves (:class:`IdentifierRule`); a kind left out is shared.
    identifiers: Mapping[IdentifierKind, IdentifierRule] = Field(
        default_factory=lambda: dict(_IDENTIFIER_RULES)
    )
    #: Attributes the deployment declares (``custom.<name>`` context keys).
    custom: tuple[CustomAttribute, ...] = ()
    #: The least evidence, in bits, the agreeing non-name fields must carry together for a
    #: MERGE. One agreeing field is required by rule; this sets how telling it must be, so a
    #: fuzzy match alone ("Acme" vs "Acme Group", 1.3 bits) does not count as corroboration.
    min_corroboration: float = Field(default=2.0, ge=0.0)
    #: With several same-name entities in scope, only a distinguishing field (an identifier,
    #: employer, project or co-mentioned entity) can say which one is meant: two John Smiths
    #: may both live in Leeds. Shared generic attributes then lead to REVIEW, not MERGE.
    namesakes_need_distinguishing: bool = True
    #: Attributes holding one value at a time; only these can contradict over valid time.
    single_valued: tuple[CompareField, ...] = (
        CompareField.EMPLOYER,
        CompareField.ROLE,
        CompareField.CITY,
    )
    #: How many distinguishing fields must agree (one exactly; none may contradict) for a record to
    #: explain a contradicting name part: a changed family name, or a given name two edits off.
    #: Zero turns the explanation off: then only a decisive identifier overrides a name.
    name_change_evidence: int = Field(default=2, ge=0)
    #: Whether a conflicting one-per-person identifier is only evidence against (its DIFFERENT
    #: weight), not a veto, when the surname, the date of birth and the whole address agree
    #: exactly and the given name does not contradict (so never for twins). FEBRL replaces whole
    #: numbers; measured in docs/resolution.md ("Whole-id and given-name replacement").
    id_conflict_outvoted_by_record: bool = True
    #: Whether a wholly replaced given name is explained when the surname, the date of birth
    #: and the whole address agree exactly. Off: that is what twins look like (on, it merged
    #: 863 of 965 twins added to FEBRL 3), measured in the same section.
    replaced_given_explained_by_record: bool = False
    #: Whether a conflicting one-per-person identifier is also only evidence against when the
    #: record *nearly* agrees: both name parts compatible, the date of birth exact, and three of
    #: house number, street, locality and postcode agreeing (a typo'd street, a missing number).
    #: Never for twins (their given names differ). Measured in docs/resolution.md ("Round 3").
    id_conflict_outvoted_by_near_record: bool = True
    #: Whether a contradicting family name is explained by the given name (exact or a typo),
    #: the date of birth (exact) and the address (house number exact, and locality or postcode
    #: agreeing) when no birth date, identifier, employer or project contradicts. A surname is
    #: what people change; a twin keeps it. Measured in docs/resolution.md ("Round 3").
    family_change_explained_by_address: bool = True
    #: Whether a contradicting street is outvoted by the rest of the address: house number,
    #: locality and postcode exact, both name parts compatible and nothing else distinguishing
    #: contradicting. Registers put a building name in the street line. Measured in
    #: docs/resolution.md ("Round 3").
    street_outvoted_by_address: bool = True
    #: Whether a rival stops being one when a distinguishing field contradicts it that agrees
    #: exactly with the winner, and nothing distinguishing contradicts the winner: "John Smith
    #: born 1970-01-02" is not ambiguous between the John Smith born that day and another.
    contradicted_rival_is_no_rival: bool = True
    #: Whether a contradicting birth date needs agreement on a distinguishing field a
    #: household does not share (an identifier, employer, project, co-mention) to be outvoted:
    #: the street alone does not tell John Smith from John Smith junior at the same address.
    #: Measured in docs/resolution.md ("Round 3", the junior probe).
    birth_date_needs_personal_evidence: bool = True
    #: Whether a name whose words are split in another place, with at most one other typo
    #: ("diamonnd bis hop" for "diamond bishop"), compares as a typo of both parts rather than
    #: as two contradicting parts. Measured in docs/resolution.md ("Round 3").
    respaced_names: bool = True
    #: A rival only makes a MERGE ambiguous when its evidence is within this many bits of the
    #: winner's (``None``: any rival above the rival threshold does). An earlier REVIEW leaves
    #: a provisional copy of a person that would otherwise block every later merge.
    rival_margin: float | None = Field(default=10.0, gt=0.0)
    #: The most (in bits, either way) a plug-in scorer may add to a candidate's weight.
    max_scorer_weight: float = Field(default=3.0, ge=0.0)

    @field_validator("fields", "identifiers", mode="after")
    @classmethod
    def _read_only(cls, value: Mapping[object, object]) -> Mapping[object, object]:
        # Frozen means frozen: a shared config's table must not be editable in place.
        return MappingProxyType(dict(value))

    @field_serializer("fields", "identifiers")
    def _plain(self, value: Mapping[object, object]) -> dict[object, object]:
        return dict(value)

    @model_validator(mode="after")
    def _unique_custom(self) -> ResolverConfig:
        names = [c.name for c in self.custom]
        if len(set(names)) != len(names):
            raise ValueError(f"custom attributes declared twice: {sorted(names)}")
        return self

    def rule(self, kind: IdentifierKind) -> IdentifierRule:
        # One shared default (a frozen value): .get's default is built even when unused.
        return self.identifiers.get(kind, _NO_RULE)

    @property
    def vetoing_identifiers(self) -> tuple[IdentifierKind, ...]:
        """Kinds a person has exactly one of: a conflict is a veto, not just evidence."""
        return tuple(k for k in _KINDS if self.rule(k).one_per_person)

    @property
    def decisive_identifiers(self) -> tuple[IdentifierKind, ...]:
        """Kinds whose agreement may merge despite a different given or family name."""
        return tuple(k for k in _KINDS if self.rule(k).decisive)

    def custom_attribute(self, name: str) -> CustomAttribute | None:
        return next((c for c in self.custom if c.name == name), None)

    def weight(self, field: CompareField | str, level: Level, kind: str | None = None) -> float:
        """The weight in bits of ``field`` at ``level`` (zero for MISSING or an unset level);
        ``custom.<name>`` for a declared custom attribute. A name part's ``kind`` weighs what
        its learned kind does, where the parameters have one."""
        if level is Level.MISSING:
            return 0.0
        if isinstance(field, CompareField):
            params = self.fields.get(field)
        else:
            declared = self.custom_attribute(field.removeprefix("custom."))
            params = None if declared is None else declared.params
        return 0.0 if params is None else params.weight(level, kind)

    @classmethod
    def default(cls) -> ResolverConfig:
        """The shipped parameters: the trained weights of ``trained.json`` where it has them.

        The m/u values of the fields in ``trained.json`` were learned by EM on unlabelled pairs
        (see :mod:`~kg_memory.domain.resolution.weights`); the rest are the hand-set starting
        values. The thresholds, the corroboration floor and the prior's slots were chosen on
        development corpora (seeds 1-4 of :mod:`~kg_memory.bench.resolution.corpus`) and are
        not learned: the prior stays conservative for same-name candidates.
        """
        return cls.with_weights(load_trained())

    @classmethod
    def with_weights(cls, trained: TrainedWeights | None) -> ResolverConfig:
        """The shipped rules with ``trained`` weights over the starting ones (``None``: the
        hand-set starting point alone, rule version ``fs-2``)."""
        fields = dict(STARTING_FIELDS)
        version = f"fs-2/{NAME_TABLES_VERSION}/{RULES_VERSION}"
        if trained is not None:
            fields.update(trained.fields)
            version = f"{trained.rule_version}/{NAME_TABLES_VERSION}/{RULES_VERSION}"
        return cls(
            rule_version=version,
            fields=fields,
            prior=PriorParams(new_entity_slots=1.0, common_name_slots=2.0, namesake_growth=1.0),
            thresholds=Thresholds(merge=0.9, keep_apart=0.2),
            min_corroboration=2.0,
        )


DEFAULT_CONFIG = ResolverConfig.default()
