"""The merge rules: what, beyond a high posterior, a MERGE needs, and what forbids one.

:func:`candidate_outcome` turns one candidate's posterior and field evidence into MERGE, REVIEW
or KEEP_APART with the reason in words; :func:`vetoes` lists what forbids a merge outright; and
:func:`check_custom` is the one rule for custom attributes (declared, and of their type). The
resolver (:mod:`~kg_memory.domain.resolution.resolver`) applies them in that order; the list of
rules is in its docstring.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.resolution.comparison import FieldComparison
from kg_memory.domain.resolution.config import ResolverConfig
from kg_memory.domain.resolution.decision import FieldEvidence, Outcome, Veto, VetoReason
from kg_memory.domain.resolution.field import (
    CORROBORATING_FIELDS,
    DISTINGUISHING_FIELDS,
    Field,
    Level,
)
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.record_fields import parses_as

__all__ = [
    "candidate_outcome",
    "check_custom",
    "contradicted_rival",
    "contradicts_distinguishing",
    "distinguishing_fields",
    "name_compatible",
    "record_agrees",
    "record_nearly_agrees",
    "vetoes",
]

_AGREE = (Level.EXACT, Level.CLOSE)


def name_compatible(fields: Sequence[FieldComparison | FieldEvidence]) -> bool:
    levels = {f.field: f.level for f in fields}
    return (
        levels[Field.GIVEN_NAME] is not Level.DIFFERENT
        and levels[Field.FAMILY_NAME] is not Level.DIFFERENT
    )


def distinguishing_fields(config: ResolverConfig) -> frozenset[Field | str]:
    """The distinguishing fields, with the custom attributes ``config`` declares as such."""
    custom = (c.field for c in config.custom if c.distinguishing)
    return frozenset((*DISTINGUISHING_FIELDS, *custom))


_distinguishing = distinguishing_fields
_ADDRESS = (Field.STREET_NUMBER, Field.STREET, Field.LOCALITY, Field.POSTCODE)
#: Distinguishing fields a household shares: they tell namesakes in two homes apart, not a
#: father from the son named after him.
_HOUSEHOLD = frozenset({Field.STREET})


def record_agrees(fields: Sequence[FieldComparison | FieldEvidence]) -> bool:
    """The surname, the date of birth and the whole address (house number, street, locality)
    agree exactly: one household's record, which a person and a twin both match."""
    levels = {f.field: f.level for f in fields}
    return all(
        levels.get(f) is Level.EXACT
        for f in (
            Field.FAMILY_NAME,
            Field.BIRTH_DATE,
            Field.STREET_NUMBER,
            Field.STREET,
            Field.LOCALITY,
        )
    )


def record_nearly_agrees(fields: Sequence[FieldComparison | FieldEvidence]) -> bool:
    """Both name parts compatible (neither contradicts), the date of birth exact, and at least
    three of house number, street, locality and postcode agreeing: one person's record with a
    typo or a gap. A twin fails on the given name."""
    levels = {f.field: f.level for f in fields}
    return (
        name_compatible(fields)
        and levels.get(Field.BIRTH_DATE) is Level.EXACT
        and sum(levels.get(f) in _AGREE for f in _ADDRESS) >= 3
    )


def _address_agrees(levels: dict[Field | str, Level]) -> bool:
    """House number, locality and postcode all exact."""
    return all(
        levels.get(f) is Level.EXACT for f in (Field.STREET_NUMBER, Field.LOCALITY, Field.POSTCODE)
    )


def _family_changed(
    fields: Sequence[FieldEvidence], distinguishing: frozenset[Field | str]
) -> bool:
    """A contradicting family name that the rest of the record explains: the given name exact
    or a typo (not an initial), the date of birth exact, the house number exact and two of
    street, locality and postcode agreeing, and nothing distinguishing but the street
    contradicting (registers put a building name in the street line)."""
    by = {f.field: f for f in fields}
    given = by[Field.GIVEN_NAME]
    if given.level not in _AGREE or given.kind == "initial":
        return False
    levels = {f.field: f.level for f in fields}
    if levels.get(Field.BIRTH_DATE) is not Level.EXACT:
        return False
    if levels.get(Field.STREET_NUMBER) is not Level.EXACT:
        return False
    if sum(levels.get(f) in _AGREE for f in (Field.STREET, Field.LOCALITY, Field.POSTCODE)) < 2:
        return False
    return not any(
        f.field in distinguishing and f.field is not Field.STREET and f.level is Level.DIFFERENT
        for f in fields
    )


def contradicted_rival(
    winner: Sequence[FieldEvidence], rival: Sequence[FieldEvidence], config: ResolverConfig
) -> bool:
    """Whether ``rival`` is out of the running against ``winner``: nothing distinguishing
    contradicts the winner, and a distinguishing field that agrees exactly with the winner
    contradicts the rival (another birth date, another street)."""
    distinguishing = distinguishing_fields(config)
    if contradicts_distinguishing(winner, config):
        return False
    exact = {f.field for f in winner if f.field in distinguishing and f.level is Level.EXACT}
    return any(f.field in exact and f.level is Level.DIFFERENT for f in rival)


def contradicts_distinguishing(
    fields: Sequence[FieldEvidence], config: ResolverConfig
) -> bool:
    """Whether a distinguishing field (an identifier, employer, project, co-mention, birth date,
    street, or a declared distinguishing attribute) contradicts."""
    distinguishing = _distinguishing(config)
    return any(f.field in distinguishing and f.level is Level.DIFFERENT for f in fields)


def _name_explained(
    fields: Sequence[FieldEvidence], distinguishing: frozenset[Field | str], config: ResolverConfig
) -> bool:
    """A contradicting name part that the record explains: the other part agrees, at least
    ``name_change_evidence`` distinguishing fields agree (a date of birth and a street), one
    of them exactly, none contradicts, and the contradiction is a family name (people change
    it) or a given name within two edits ("rebecc", "bre"). Wholly different given names with
    the same birth date and address are twins or siblings more often than one person: never."""
    if config.name_change_evidence <= 0:
        return False
    by = {f.field: f for f in fields}
    given, family = by[Field.GIVEN_NAME], by[Field.FAMILY_NAME]
    if given.level is Level.DIFFERENT and family.level is Level.DIFFERENT:
        return False
    if given.level is Level.DIFFERENT and not given.near:
        replaced = config.replaced_given_explained_by_record and record_agrees(fields)
        return replaced and not any(
            f.field in distinguishing and f.level is Level.DIFFERENT for f in fields
        )
    if Level.MISSING in (given.level, family.level):
        return False
    if (
        family.level is Level.DIFFERENT
        and config.family_change_explained_by_address
        and _family_changed(fields, distinguishing)
    ):
        return True
    agree = [f for f in fields if f.field in distinguishing and f.level in _AGREE]
    against = [f for f in fields if f.field in distinguishing and f.level is Level.DIFFERENT]
    exact = any(f.level is Level.EXACT for f in agree)
    return exact and len(agree) >= config.name_change_evidence and not against


def check_custom(mention: Mention, config: ResolverConfig) -> None:
    """The one rule for custom attributes, on every path: declared in the config, and of the
    declared type."""
    for name, value in mention.context.custom:
        declared = config.custom_attribute(name)
        if declared is None:
            known = ", ".join(c.name for c in config.custom) or "none declared"
            raise ResolutionError(
                f"context key 'custom.{name}' is not declared in resolver config "
                f"{config.rule_version} ({known})"
            )
        if not parses_as(declared.comparator, value):
            raise ResolutionError(
                f"context key 'custom.{name}': {value!r} is not a {declared.comparator.value} value"
            )


def vetoes(
    entity_id: str, fields: Sequence[FieldComparison], config: ResolverConfig
) -> tuple[Veto, ...]:
    vetoing = {k.field for k in config.vetoing_identifiers}
    if config.id_conflict_outvoted_by_record and record_agrees(fields):
        levels = {f.field: f.level for f in fields}
        if levels[Field.GIVEN_NAME] is not Level.DIFFERENT:
            vetoing = set()
    if config.id_conflict_outvoted_by_near_record and record_nearly_agrees(fields):
        vetoing = set()
    found: list[Veto] = []
    for f in fields:
        if f.level is not Level.DIFFERENT:
            continue
        if f.field in vetoing:
            found.append(
                Veto(
                    entity_id=entity_id,
                    reason=VetoReason.IDENTIFIER_CONFLICT,
                    field=f.field,
                    detail=f.detail,
                )
            )
        elif f.field is Field.ENTITY_TYPE:
            found.append(
                Veto(
                    entity_id=entity_id,
                    reason=VetoReason.TYPE_MISMATCH,
                    field=f.field,
                    detail=f.detail,
                )
            )
    return tuple(found)


def candidate_outcome(
    post: float,
    vetoes: Sequence[Veto],
    corroborated: Sequence[Field | str],
    fields: Sequence[FieldEvidence],
    namesakes: int,
    config: ResolverConfig,
    *,
    generation_apart: bool = False,
) -> tuple[Outcome, str]:
    """MERGE, REVIEW or KEEP_APART for one candidate, with the reason in words.

    ``generation_apart``: the mention's birth date is a generation from every one the
    candidate has (:func:`~kg_memory.domain.resolution.record_fields.generation_apart`)."""
    thresholds = config.thresholds
    if vetoes:
        return Outcome.KEEP_APART, "vetoed: " + "; ".join(v.reason.value for v in vetoes)
    if post < thresholds.keep_apart:
        return Outcome.KEEP_APART, f"posterior {post:.3f} below {thresholds.keep_apart}"
    if post < thresholds.merge:
        return Outcome.REVIEW, f"posterior {post:.3f} between thresholds"
    if not corroborated:
        return Outcome.REVIEW, "only the name agrees; a name alone never merges"
    support = sum(f.weight for f in fields if f.field in corroborated)
    if support < config.min_corroboration:
        return Outcome.REVIEW, (
            f"non-name agreement ({', '.join(str(f) for f in corroborated)}) carries "
            f"{support:.1f} bits, below {config.min_corroboration}"
        )
    distinguishing = _distinguishing(config)
    contradicted = [
        str(f.field) for f in fields if f.field in distinguishing and f.level is Level.DIFFERENT
    ]
    levels = {f.field: f.level for f in fields}
    if (
        contradicted == [str(Field.STREET)]
        and config.street_outvoted_by_address
        and name_compatible(fields)
        and _address_agrees(levels)
    ):
        contradicted = []
    generic_against = [
        str(f.field)
        for f in fields
        if f.field in CORROBORATING_FIELDS
        and f.field not in distinguishing
        and f.level is Level.DIFFERENT
    ]
    if len(generic_against) >= 2 and not distinguishing.intersection(corroborated):
        return Outcome.REVIEW, (
            f"{', '.join(generic_against)} contradict and nothing distinguishing agrees"
        )
    if contradicted and not distinguishing.intersection(corroborated):
        return Outcome.REVIEW, (
            f"{', '.join(contradicted)} contradicts and only shared generic attributes "
            "speak for the match"
        )
    if (
        generation_apart
        and config.birth_date_needs_personal_evidence
        and str(Field.BIRTH_DATE) in contradicted
        and not (distinguishing - _HOUSEHOLD).intersection(corroborated)
    ):
        return Outcome.REVIEW, (
            "a birth date a generation away at an address that agrees: a junior or a senior "
            "of the household, and only the household's fields speak for the match"
        )
    if (
        namesakes > 1
        and config.namesakes_need_distinguishing
        and not (distinguishing.intersection(corroborated))
    ):
        return Outcome.REVIEW, (
            f"{namesakes} entities share the name; shared generic attributes cannot tell "
            "which one is meant"
        )
    decisive = {k.field for k in config.decisive_identifiers}
    if (
        not name_compatible(fields)
        and not any(levels[d] is Level.EXACT for d in decisive)
        and not _name_explained(fields, distinguishing, config)
    ):
        return Outcome.REVIEW, (
            "a name part contradicts; only a user id or a near name with "
            f"{config.name_change_evidence} exact distinguishing fields could settle it"
        )
    partial = Level.MISSING in (levels[Field.GIVEN_NAME], levels[Field.FAMILY_NAME])
    if partial and len(corroborated) < 2 and not distinguishing.intersection(corroborated):
        return Outcome.REVIEW, (
            "only part of the name is known on one side; one shared generic attribute cannot "
            "say who is meant"
        )
    agreeing = ", ".join(str(f) for f in corroborated)
    return Outcome.MERGE, f"posterior {post:.3f}, corroborated by {agreeing}"
