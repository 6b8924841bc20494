"""Field-by-field comparison of a mention with one candidate profile.

:func:`compare` returns one :class:`FieldComparison` per
:class:`~kg_memory.domain.resolution.field.Field`,
each at a :class:`~kg_memory.domain.resolution.field.Level`, with a short ``detail`` a person can
audit
("joanna ~ jo: nickname"). It assigns levels only; weights are the config's business, so the same
comparison can be re-weighed under a new rule version.

Attributes are compared twice on purpose, answering two different questions:

* the attribute fields ask "has this person ever had this value?" (Jo lived in Leeds once), and
* :attr:`Field.TEMPORAL` asks "does the profile hold a *different* value for the very time the
  mention speaks of?" Only single-valued attributes (one employer, one city at a time) can
  contradict; a person works on several projects at once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from kg_memory.domain.resolution.field import ATTRIBUTE_FIELDS, RECORD_FIELDS, Field, Level
from kg_memory.domain.resolution.mention import Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.name_kinds import SWAPPED, name_kind
from kg_memory.domain.resolution.name_tables import known_given_name
from kg_memory.domain.resolution.names import (
    PersonName,
    compare_family,
    compare_given,
    normalize_text,
    parse_name,
)
from kg_memory.domain.resolution.profile import AttributeValue, EntityProfile
from kg_memory.domain.resolution.record_fields import (
    compare_birth_date,
    compare_custom,
    compare_exact,
    compare_postcode,
    compare_text_jw,
)
from kg_memory.domain.resolution.similarity import jaro_winkler_at_least, near_miss

if TYPE_CHECKING:
    from kg_memory.domain.resolution.config import CustomAttribute, IdentifierRule

__all__ = ["FieldComparison", "compare", "compare_values"]

# Iterating an Enum class is slow (a generator over its members, per call); compare() runs
# once per candidate per mention, so the orders are read once here.
_FIELDS = tuple(Field)
_KINDS = tuple(IdentifierKind)
_KIND_FIELDS = {kind: kind.field for kind in _KINDS}
_LEVEL_RANK = {Level.EXACT: 3, Level.CLOSE: 2, Level.MISSING: 1, Level.DIFFERENT: 0}
#: How alike a contradicting name part must be to count as near (see ``_near``).
NEAR_NAME_JARO_WINKLER = 0.9
_FILLER = frozenset({"the", "ltd", "inc", "corp", "co", "plc", "llc", "gmbh", "team", "of"})


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldComparison:
    """One field's comparison: its level and what was compared, in words.

    A frozen dataclass rather than a model: one is built per field per candidate, only the
    resolver reads it (decisions record :class:`FieldEvidence`, which is validated), and
    validating it was a fifth of the resolver's time."""

    field: Field | str  # a Field, or ``custom.<name>`` for a declared custom attribute
    level: Level
    detail: str = ""
    near: bool = False  # a DIFFERENT name part within two edits (see FieldEvidence.near)
    #: Names only: the finer kind of the level, which the weight reads (see name_kinds).
    kind: str | None = None


#: A MISSING comparison is the same value for every candidate: one per field, not one each.
_MISSING = {f: FieldComparison(field=f, level=Level.MISSING) for f in _FIELDS}


def compare_values(a: str, b: str) -> Level:
    """Free-text attribute values: exact after normalisation; close when all of one value's
    words are in the other, filler aside ("Acme" vs "Acme Ltd", "Acme" vs "Acme Group"), or for
    one typo in values of five letters or more; else different. Symmetric."""
    na, nb = normalize_text(a), normalize_text(b)
    if na == nb:
        return Level.EXACT
    ta = frozenset(na.split()) - _FILLER
    tb = frozenset(nb.split()) - _FILLER
    if ta and tb and (ta <= tb or tb <= ta):
        return Level.CLOSE
    if near_miss(na, nb, min_length=5):  # shorter words differ by a letter all the time
        return Level.CLOSE
    return Level.DIFFERENT


def _near(a: str | None, b: str | None, level: Level, *, given: bool) -> bool:
    """A DIFFERENT name part that is still near: within two edits, the same first letter, and
    Jaro-Winkler 0.9 or more ("brinaa" for "brianna", "rebecc" for "rebecca"). Not "jaden" for
    "jared" or "will" for "lily": twins are given names that close (a twin probe on FEBRL
    merged 9 of 965 twins at two edits alone). Nor two given names that are both names people
    are registered under ("mason" for "madison", "daniela" for "daniel"): that is a typo only by
    coincidence of spelling, and a twin by the record. A part compares DIFFERENT only when
    both sides know it."""
    if level is not Level.DIFFERENT or a is None or b is None:
        return False
    x, y = a.replace(" ", ""), b.replace(" ", "")
    return (
        near_miss(x, y, edits=2, min_length=1)
        and x[0] == y[0]
        and jaro_winkler_at_least(x, y, NEAR_NAME_JARO_WINKLER)
        and not (given and known_given_name(x) and known_given_name(y))
    )


def _swapped(said: PersonName, known: PersonName) -> bool:
    """Given and family name swapped: each part of one full name agrees with the other part of
    the other, and at least one of those agreements is more than an initial. "J Jones" and
    "J Jackson" are not swapped merely because both family names start with the initial J:
    read that way, a contradicting family name would turn into agreement."""
    if not (said.given and said.family and known.given and known.family):
        return False  # a partial name has nothing to swap with
    pairs = ((said.given, known.family), (said.family, known.given))
    if Level.DIFFERENT in (compare_given(*pairs[0]), compare_family(*pairs[1])):
        return False
    return any(len(a) > 1 and len(b) > 1 for a, b in pairs)


def _respaced(said: str, known: str) -> bool:
    """The same name with a space typed in or left out, and at most one other typo: "diamonnd
    bis hop" for "diamond bishop", "noa homa nn" for "noah homann". Only when the two split
    into a different number of words, so "Jon Smith" and "Jan Smith" (one letter, the same
    words) never qualify; and only for names of ten letters or more."""
    a, b = normalize_text(said).split(), normalize_text(known).split()
    if len(a) == len(b) or len(a) < 2 or len(b) < 2:
        return False
    x, y = "".join(a), "".join(b)
    return min(len(x), len(y)) >= 10 and (x == y or near_miss(x, y, edits=1))


def _names(
    mention: Mention, profile: EntityProfile, *, respaced: bool
) -> tuple[FieldComparison, FieldComparison]:
    """Compare against every name and alias; keep the alias that agrees best (the earlier one,
    the display name first, on a tie). Given and family name swapped ("Schuman Alexandra" for
    "Alexandra Schuman", a form filled in the wrong order) counts as CLOSE on both parts, never
    EXACT; a swap only explains a contradicting part, it never replaces a reading that agrees."""
    said = parse_name(mention.name)
    best: tuple[int, Level, Level, str, bool, bool, str | None, str | None] | None = None
    for alias in profile.names:
        known = parse_name(alias)
        given = compare_given(said.given, known.given)
        family = compare_family(said.family, known.family)
        near_given = _near(said.given, known.given, given, given=True)
        near_family = _near(said.family, known.family, family, given=False)
        given_kind = name_kind(said.given, known.given, given, given=True)
        family_kind = name_kind(said.family, known.family, family, given=False)
        if Level.DIFFERENT in (given, family) and _swapped(said, known):
            given = family = Level.CLOSE
            near_given = near_family = False
            given_kind = family_kind = SWAPPED
            alias = f"{alias} (swapped)"
        if respaced and Level.DIFFERENT in (given, family) and _respaced(mention.name, alias):
            # The words were split in another place; read as one typo on both parts.
            given = family = Level.CLOSE
            near_given = near_family = False
            given_kind = family_kind = "typo"
            alias = f"{alias} (respaced)"
        rank = _LEVEL_RANK[given] + _LEVEL_RANK[family]
        if best is None or rank > best[0]:
            best = (rank, given, family, alias, near_given, near_family, given_kind, family_kind)
    assert best is not None  # a profile has at least one name
    _, given, family, alias, near_given, near_family, given_kind, family_kind = best
    detail = f"{mention.name!r} vs {alias!r}"
    return (
        FieldComparison(
            field=Field.GIVEN_NAME, level=given, detail=detail, near=near_given, kind=given_kind
        ),
        FieldComparison(
            field=Field.FAMILY_NAME, level=family, detail=detail, near=near_family,
            kind=family_kind,
        ),
    )


def _keys_by_kind(identifiers: Iterable[Identifier]) -> dict[IdentifierKind, frozenset[str]]:
    """``identifier_keys`` of every kind, in one pass (five filters of every identifier, and a
    normalisation of each, per candidate before)."""
    grouped: dict[IdentifierKind, set[str]] = {}
    for i in identifiers:
        grouped.setdefault(i.kind, set()).add(i.key)
    return {kind: frozenset(keys) for kind, keys in grouped.items()}


#: The last mention compared, with its identifier keys: a mention meets every candidate of
#: its block in a row. One entry, read and replaced whole (threads may share it), holding the
#: frozen mention itself so that the identity test cannot meet a reused id.
_LAST_SAID: dict[str, tuple[Mention, dict[IdentifierKind, frozenset[str]]]] = {}


def _said_keys(mention: Mention) -> dict[IdentifierKind, frozenset[str]]:
    last = _LAST_SAID.get("said")
    if last is not None and last[0] is mention:
        return last[1]
    keys = _keys_by_kind(mention.identifiers)
    _LAST_SAID["said"] = (mention, keys)
    return keys


def _identifier(
    said: frozenset[str], known: frozenset[str], kind: IdentifierKind, rule: IdentifierRule | None
) -> FieldComparison:
    if not said or not known:
        return _MISSING[kind.field]
    shared = said & known
    if shared:
        return FieldComparison(field=kind.field, level=Level.EXACT, detail=min(shared))
    detail = f"{sorted(said)} vs {sorted(known)}"
    if rule is not None and rule.one_per_person:
        # One number per person: one typo away is the same number mistyped, not a conflict
        # (``near_miss_edits`` 0 turns that off: no two different numbers are zero edits apart).
        edits = rule.near_miss_edits
        if any(near_miss(a, b, edits=edits) for a in said for b in known):
            detail = "near miss: " + detail
            return FieldComparison(field=kind.field, level=Level.CLOSE, detail=detail)
    return FieldComparison(field=kind.field, level=Level.DIFFERENT, detail=detail)


@lru_cache(maxsize=65536)
def _record_level(field: Field, said: str, known: str) -> tuple[Level, str]:
    # Memoised: a block's profiles meet every mention of the block, mostly with the same
    # street, state and postcode again, and these are string functions of the two values.
    if field is Field.BIRTH_DATE:
        return compare_birth_date(said, known)
    if field is Field.POSTCODE:
        return compare_postcode(said, known), ""
    if field in (Field.STREET_NUMBER, Field.STATE):
        return compare_exact(said, known), ""
    return compare_text_jw(said, known), ""


def _record_field(mention: Mention, known: tuple[AttributeValue, ...], field: Field
                  ) -> FieldComparison:
    said = mention.context.get(field)
    if said is None or not known:
        return _MISSING[field]
    # A profile holds one value per record it grew from, mostly the same street again: each
    # distinct value is compared once, in first-seen order, and an exact one ends the search.
    # Only a strictly better value replaces the best, so the first best is kept, as max() did.
    seen: set[str] = set()
    best: tuple[Level, str] | None = None
    value = ""
    rank = -1
    for v in known:
        text = v.value
        if text in seen:
            continue
        seen.add(text)
        found = _record_level(field, said, text)
        if _LEVEL_RANK[found[0]] > rank:
            best, value, rank = found, text, _LEVEL_RANK[found[0]]
            if found[0] is Level.EXACT:
                break
    assert best is not None  # known is not empty
    level, why = best
    detail = f"{said!r} vs {value!r}" + (f": {why}" if why and level is not Level.EXACT else "")
    return FieldComparison(field=field, level=level, detail=detail)


def _custom(mention: Mention, profile: EntityProfile, declared: CustomAttribute) -> FieldComparison:
    said = mention.context.custom_value(declared.name)
    known = profile.custom_values(declared.name)
    if said is None or not known:
        return FieldComparison(field=declared.field, level=Level.MISSING)
    levels = [(compare_custom(declared.comparator, said, v, declared.close), v) for v in known]
    level, value = max(levels, key=lambda f: _LEVEL_RANK[f[0]])
    return FieldComparison(field=declared.field, level=level, detail=f"{said!r} vs {value!r}")


def _entity_type(mention: Mention, profile: EntityProfile) -> FieldComparison:
    if mention.entity_type is None:
        return _MISSING[Field.ENTITY_TYPE]
    same = mention.entity_type.casefold() == profile.type.casefold()
    level = Level.EXACT if same else Level.DIFFERENT
    detail = f"{mention.entity_type} vs {profile.type}"
    return FieldComparison(field=Field.ENTITY_TYPE, level=level, detail=detail)


def _attribute(mention: Mention, known: tuple[AttributeValue, ...], field: Field
               ) -> FieldComparison:
    said = mention.context.get(field)
    if said is None or not known:
        return _MISSING[field]
    best = max(known, key=lambda v: _LEVEL_RANK[compare_values(said, v.value)])
    level = compare_values(said, best.value)
    return FieldComparison(field=field, level=level, detail=f"{said!r} vs {best.value!r}")


def _agrees(said: str, value: AttributeValue) -> bool:
    return compare_values(said, value.value) is not Level.DIFFERENT


def _temporal(
    mention: Mention, held: Mapping[Field, tuple[AttributeValue, ...]],
    single_valued: Collection[Field],
) -> FieldComparison:
    """Contradiction over overlapping valid time counts against; agreement at that time for."""
    contradictions: list[str] = []
    current: list[str] = []
    former: list[str] = []
    for field in ATTRIBUTE_FIELDS:
        said = mention.context.get(field)
        if said is None or field not in single_valued:
            continue
        values = held.get(field, ())
        holding = [v for v in values if v.holds_at(mention.at)]
        if any(_agrees(said, v) for v in holding):
            current.append(field.value)
        elif holding:
            contradictions.append(f"{field.value} {said!r} vs {holding[0].value!r}")
        elif any(_agrees(said, v) for v in values if v.valid is not None):
            former.append(field.value)
    if contradictions:
        detail = "; ".join(contradictions)
        return FieldComparison(field=Field.TEMPORAL, level=Level.DIFFERENT, detail=detail)
    if current:
        detail = "holds at mention time: " + ", ".join(current)
        return FieldComparison(field=Field.TEMPORAL, level=Level.EXACT, detail=detail)
    if former:
        detail = "held at another time: " + ", ".join(former)
        return FieldComparison(field=Field.TEMPORAL, level=Level.CLOSE, detail=detail)
    return _MISSING[Field.TEMPORAL]


def _co_mentions(mention: Mention, profile: EntityProfile) -> FieldComparison:
    said = frozenset(mention.co_mentions) - {profile.entity_id}
    known = frozenset(profile.co_mentions)
    if not said or not known:
        return _MISSING[Field.CO_MENTIONS]
    shared = sorted(said & known)
    if not shared:
        return FieldComparison(field=Field.CO_MENTIONS, level=Level.DIFFERENT)
    level = Level.EXACT if len(shared) >= 2 else Level.CLOSE
    return FieldComparison(field=Field.CO_MENTIONS, level=level, detail=", ".join(shared))


def compare(
    mention: Mention,
    profile: EntityProfile,
    *,
    single_valued: Collection[Field],
    identifiers: dict[IdentifierKind, IdentifierRule] | None = None,
    custom: Collection[CustomAttribute] = (),
    respaced_names: bool = False,
) -> tuple[FieldComparison, ...]:
    """Compare ``mention`` with ``profile`` on every field, in :class:`Field` order, then each
    declared custom attribute in declaration order.

    ``single_valued`` names the attributes that hold one value at a time (usually employer,
    role and city); only those can contradict in :attr:`Field.TEMPORAL`. ``identifiers`` gives
    each kind's rule (a one-per-person kind's near-miss is CLOSE); without it every kind is
    compared exactly. ``respaced_names`` reads a name whose words were split in another place
    ("bis hop") as a typo of both parts (``ResolverConfig.respaced_names``).
    """
    given, family = _names(mention, profile, respaced=respaced_names)
    # The profile's values by field, in one pass (EntityProfile.values per field was a
    # filter over every value, twenty times per candidate).
    held: dict[Field, list[AttributeValue]] = {}
    for value in profile.attributes:
        held.setdefault(value.attribute, []).append(value)
    known = {field: tuple(values) for field, values in held.items()}
    by_field = {
        Field.GIVEN_NAME: given,
        Field.FAMILY_NAME: family,
        Field.ENTITY_TYPE: _entity_type(mention, profile),
        Field.CO_MENTIONS: _co_mentions(mention, profile),
        Field.TEMPORAL: _temporal(mention, known, single_valued),
    }
    rules = identifiers or {}
    said_keys, known_keys = _said_keys(mention), _keys_by_kind(profile.identifiers)
    none = frozenset[str]()
    for kind in _KINDS:
        by_field[_KIND_FIELDS[kind]] = _identifier(
            said_keys.get(kind, none), known_keys.get(kind, none), kind, rules.get(kind))
    for field in ATTRIBUTE_FIELDS:
        by_field[field] = _attribute(mention, known.get(field, ()), field)
    for field in RECORD_FIELDS:
        by_field[field] = _record_field(mention, known.get(field, ()), field)
    return (*(by_field[f] for f in _FIELDS), *(_custom(mention, profile, c) for c in custom))
