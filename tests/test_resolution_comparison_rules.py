"""The comparison rules besides names: free text, identifiers, record fields, custom attributes,
time and co-mentions (``kg_memory.domain.resolution.comparison``).

Rules protected:

* free text is CLOSE when all of one value's words are in the other ("Acme" in "Acme Group"),
  filler words aside, or for one typo in a value of five letters or more; comparison is
  symmetric;
* a one-per-person identifier one typo away (a transposed digit) is CLOSE, never DIFFERENT (so
  never a veto), within the kind's ``near_miss_edits``; for a shared kind a near-miss means
  nothing; a person with several identifiers of a kind agrees on any one of them;
* every record field and custom attribute is MISSING when either side lacks it, otherwise the
  best-agreeing of the profile's values counts (people move); house number and state compare
  exactly, street and locality by Jaro-Winkler; the detail names what was compared and, for a
  CLOSE date, which kind of closeness;
* a value with no known valid time is no evidence over time; co-mentions need both sides;
* a comparison is a frozen value, and only a name part can be near.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory.domain.resolution.comparison import FieldComparison, compare, compare_values
from kg_memory.domain.resolution.config import CustomAttribute, IdentifierRule
from kg_memory.domain.resolution.field import RECORD_FIELDS, Field, Level
from kg_memory.domain.resolution.mention import IdentifierKind, Mention
from kg_memory.domain.resolution.names import normalize_text
from kg_memory.domain.resolution.profile import EntityProfile
from kg_memory.domain.resolution.record_fields import Comparator
from kg_memory.domain.resolution.weights import FieldParams, LevelParams

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
C, D, E, M = Level.CLOSE, Level.DIFFERENT, Level.EXACT, Level.MISSING
ONE_PER_PERSON = IdentifierRule(one_per_person=True)


def _compare(
    mention: dict[str, Any], profile: dict[str, Any], **options: Any
) -> dict[Field | str, FieldComparison]:
    m = Mention.model_validate({"mention_id": "m", "episode_id": "e", "at": AT, "name": "Jo",
                                **mention})
    p = EntityProfile.model_validate({"entity_id": "jo", "names": ["Jo"], **profile})
    options.setdefault("single_valued", (Field.EMPLOYER, Field.ROLE, Field.CITY))
    return {c.field: c for c in compare(m, p, **options)}


@pytest.mark.parametrize(("a", "b", "level"), [
    # All of one value's words are in the other: a shortened name, CLOSE (the config's own
    # example of a fuzzy match too weak to corroborate alone).
    ("Acme", "Acme Group", C),
    ("Acme Group", "Acme Holdings", D),  # sharing a word is not enough
    ("Ltd", "Acme", D),  # filler alone is no agreement
    ("The Team", "Acme Team", D),
    ("Paris", "Parks", C),  # one typo in five letters
])
def test_free_text_is_close_when_one_value_holds_all_of_the_others_words(
    a: str, b: str, level: Level
) -> None:
    assert compare_values(a, b) is level
    assert compare_values(b, a) is level


_WORDS = st.sampled_from(["acme", "Acme", "ltd", "the", "group", "leeds", "leods", "york",
                          "north", "wind", "northwind", "Northwnd", "team", "co"])


@given(a=st.lists(_WORDS, min_size=1, max_size=3), b=st.lists(_WORDS, min_size=1, max_size=3))
def test_free_text_comparison_is_symmetric_and_exact_only_when_equal_after_normalising(
    a: list[str], b: list[str]
) -> None:
    x, y = " ".join(a), " ".join(b)
    assert compare_values(x, y) is compare_values(y, x)
    assert (compare_values(x, y) is E) == (normalize_text(x) == normalize_text(y))


def _ids(kind: str, *values: str) -> list[dict[str, str]]:
    return [{"kind": kind, "value": v} for v in values]


def _user_id(said: str, known: str, rule: IdentifierRule | None) -> FieldComparison:
    rules = None if rule is None else {IdentifierKind.USER_ID: rule}
    return _compare({"identifiers": _ids("user_id", said)},
                    {"identifiers": _ids("user_id", known)}, identifiers=rules)[Field.USER_ID]


def test_a_one_per_person_identifier_one_typo_away_is_close_not_a_conflict() -> None:
    near = _user_id("6988048", "6988084", ONE_PER_PERSON)
    assert near.level is C
    assert near.detail.startswith("near miss")
    assert _user_id("6988048", "1234567", ONE_PER_PERSON).level is D
    assert _user_id("6988048", "6988048", ONE_PER_PERSON).level is E


def test_a_near_miss_means_nothing_for_a_shared_kind_or_without_a_rule() -> None:
    assert _user_id("6988048", "6988084", IdentifierRule()).level is D
    assert _user_id("6988048", "6988084", None).level is D  # no rules: compared exactly


def test_the_kinds_near_miss_edits_bound_what_counts_as_a_typo() -> None:
    two_edits = ("6988048", "6988840")
    assert _user_id(*two_edits, ONE_PER_PERSON).level is D
    wider = IdentifierRule(one_per_person=True, near_miss_edits=2)
    assert _user_id(*two_edits, wider).level is C
    off = IdentifierRule(one_per_person=True, near_miss_edits=0)
    assert _user_id("6988048", "6988084", off).level is D


@st.composite
def _one_typo(draw: st.DrawFn) -> tuple[str, str]:
    number = draw(st.text("0123456789", min_size=5, max_size=10))
    i = draw(st.integers(0, len(number) - 2))
    if draw(st.booleans()) and number[i] != number[i + 1]:
        typed = number[:i] + number[i + 1] + number[i] + number[i + 2:]  # transposed digits
    else:
        digit = draw(st.sampled_from([d for d in "0123456789" if d != number[i]]))
        typed = number[:i] + digit + number[i + 1:]  # one digit mistyped
    return number, typed


@given(pair=_one_typo())
def test_a_mistyped_one_per_person_identifier_is_never_evidence_against(
    pair: tuple[str, str]
) -> None:
    number, typed = pair
    assert _user_id(number, typed, ONE_PER_PERSON).level is C
    assert _user_id(typed, number, ONE_PER_PERSON).level is C


def test_a_person_with_several_identifiers_of_a_kind_agrees_on_any_one() -> None:
    profile = {"identifiers": _ids("email", "jo@home.example", "jo@work.example")}
    said = {"identifiers": _ids("email", "JO@work.example")}
    assert _compare(said, profile)[Field.EMAIL].level is E


_SAMPLE = {Field.BIRTH_DATE: "1981-02-03", Field.STREET_NUMBER: "12", Field.STREET: "Giblin St",
           Field.LOCALITY: "Killarney", Field.POSTCODE: "4814", Field.STATE: "qld"}


def _attrs(field: Field, *values: str, valid: dict[str, str] | None = None) -> dict[str, Any]:
    return {"attributes": [{"attribute": field.value, "value": v, "valid": valid}
                           for v in values]}


@pytest.mark.parametrize("field", RECORD_FIELDS)
def test_a_record_field_either_side_lacks_is_missing(field: Field) -> None:
    value = _SAMPLE[field]
    assert _compare({"context": {field.value: value}}, {})[field].level is M
    assert _compare({}, _attrs(field, value))[field].level is M
    assert _compare({"context": {field.value: value}}, _attrs(field, value))[field].level is E


@pytest.mark.parametrize(("field", "said", "values", "level"), [
    (Field.STREET, "Giblin Street", ("Kirby Place", "Giblin Stret", "Giblin Street"), E),
    (Field.STREET, "Giblin Street", ("Kirby Place", "Giblin Stret"), C),
    (Field.BIRTH_DATE, "1981-02-03", ("1981-03-02", "1981-02-03"), E),
    (Field.POSTCODE, "4814", ("2600", "4841"), C),
])
def test_the_best_agreeing_of_a_profiles_record_values_counts_whatever_the_order(
    field: Field, said: str, values: tuple[str, ...], level: Level
) -> None:
    for order in (values, tuple(reversed(values))):
        assert _compare({"context": {field.value: said}}, _attrs(field, *order))[field].level \
            is level


@pytest.mark.parametrize(("field", "said", "known", "level"), [
    (Field.STREET_NUMBER, "112", "1112", D),  # two houses, however alike the digits look
    (Field.STATE, "Queensland", "Queenslnd", D),
    (Field.LOCALITY, "Queensland", "Queenslnd", C),  # free text: Jaro-Winkler 0.98
    (Field.STREET, "Tullaroop Street", "Tullarop Street", C),
    (Field.POSTCODE, "4814", "4841", C),  # one transposition
    (Field.BIRTH_DATE, "1981-02-03", "1981-03-02", C),  # day and month transposed
])
def test_each_record_field_has_its_comparator(
    field: Field, said: str, known: str, level: Level
) -> None:
    assert _compare({"context": {field.value: said}}, _attrs(field, known))[field].level is level


def test_a_record_fields_detail_names_what_was_compared_and_which_closeness() -> None:
    def detail(field: Field, said: str, known: str) -> str:
        return _compare({"context": {field.value: said}}, _attrs(field, known))[field].detail

    assert detail(Field.BIRTH_DATE, "1981-02-03", "1981-03-02") == \
        "'1981-02-03' vs '1981-03-02': transposed day/month"
    assert detail(Field.BIRTH_DATE, "1981-02-03", "19810203") == "'1981-02-03' vs '19810203'"
    assert detail(Field.POSTCODE, "4814", "4841") == "'4814' vs '4841'"


HEIGHT = CustomAttribute(
    name="height_cm", comparator=Comparator.NUMERIC, close=2,
    params=FieldParams(exact=LevelParams(m=0.6, u=0.02), close=LevelParams(m=0.35, u=0.05),
                       different=LevelParams(m=0.05, u=0.93)))


def _height(said: str | None, *known: str) -> FieldComparison:
    mention = {} if said is None else {"context": {"custom": {"height_cm": said}}}
    profile = {"custom": [("height_cm", v) for v in known]}
    return _compare(mention, profile, custom=(HEIGHT,))["custom.height_cm"]


def test_a_custom_attribute_either_side_lacks_is_missing_else_its_best_value_counts() -> None:
    assert _height("181").level is M
    assert _height(None, "181").level is M
    assert _height("181", "150", "182").level is C
    assert _height("181", "182", "181").level is E
    assert _height("181", "181", "150").detail == "'181' vs '181'"
    assert _height("181", "150").level is D


def test_a_value_of_unknown_valid_time_is_no_evidence_over_time() -> None:
    """It still agrees on the attribute field ("has she ever lived in Leeds?"), but whether it
    held when the mention was made is not known, so the temporal summary says nothing."""
    levels = _compare({"context": {"city": "Leeds"}}, _attrs(Field.CITY, "Leeds"))
    assert levels[Field.CITY].level is E
    assert levels[Field.TEMPORAL].level is M
    other = _compare({"context": {"city": "York"}}, _attrs(Field.CITY, "Leeds"))
    assert other[Field.TEMPORAL].level is M  # nor a contradiction


def test_co_mentions_need_both_sides() -> None:
    said = {"co_mentions": ["team/pm"]}
    assert _compare(said, {})[Field.CO_MENTIONS].level is M
    assert _compare({}, said)[Field.CO_MENTIONS].level is M
    assert _compare(said, said)[Field.CO_MENTIONS].level is C


def test_a_comparison_is_a_frozen_value_and_only_a_name_part_is_near() -> None:
    fields = _compare(
        {"name": "Rebecc Smith", "identifiers": _ids("user_id", "6988048"),
         "context": {"city": "Leeds", "postcode": "4814"}, "co_mentions": ["team/pm"]},
        {"names": ["Rebecca Smith"], "identifiers": _ids("user_id", "6988084"),
         **_attrs(Field.CITY, "Leeds"), "co_mentions": ["team/pm"]},
        identifiers={IdentifierKind.USER_ID: ONE_PER_PERSON},
    )
    assert [f for f, c in fields.items() if c.near] == [Field.GIVEN_NAME]
    with pytest.raises(FrozenInstanceError):
        fields[Field.CITY].level = D  # type: ignore[misc]
