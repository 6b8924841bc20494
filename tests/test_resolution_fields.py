"""Person-record fields (date of birth, address, postcode, state), identifier kinds as config,
custom attributes, and one rule for unknown context keys on the API and the ingest path."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from kg_memory import Memory
from kg_memory.domain.errors import IngestError
from kg_memory.domain.record import parse_record
from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    BlockingIndex,
    Comparator,
    Context,
    CustomAttribute,
    EntityProfile,
    FieldParams,
    Identifier,
    IdentifierKind,
    IdentifierRule,
    LevelParams,
    Mention,
    Outcome,
    ResolutionError,
    compare,
    grow_profile,
    resolve,
)
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.record_fields import (
    compare_birth_date,
    compare_custom,
    compare_postcode,
    compare_text_jw,
)
from kg_memory.domain.resolution.similarity import jaro_winkler, near_miss
from kg_memory.services.identity import load_decisions
from tests.conftest import ManualClock, day, episode

AT = datetime(2026, 3, 1, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("a", "b", "level", "detail"),
    [
        ("1981-02-03", "19810203", Level.EXACT, "19810203"),
        ("1981-02-03", "1981-03-02", Level.CLOSE, "transposed day/month"),
        ("1981", "1981-07-09", Level.CLOSE, "year only"),
        ("1980", "1981-07-09", Level.DIFFERENT, "year 1980 vs 1981"),
        ("1981-02-03", "1981-02-08", Level.CLOSE, "one digit differs"),
        ("1981-02-28", "1981-03-10", Level.CLOSE, "10 days apart"),
        ("1981-02-03", "1975-11-20", Level.DIFFERENT, "19810203 vs 19751120"),
    ],
)
def test_birth_date_levels(a: str, b: str, level: Level, detail: str) -> None:
    assert compare_birth_date(a, b) == (level, detail)


def test_birth_date_shape_is_checked_with_the_field_named() -> None:
    with pytest.raises(ValidationError, match="birth_date"):
        Context(birth_date="3rd of May")
    assert Context(birth_date="  ").birth_date is None  # blank means unknown


def test_address_postcode_and_jaro_winkler() -> None:
    assert round(jaro_winkler("dwayne", "duane"), 3) == 0.84
    assert compare_text_jw("Tullaroop Street", "tullarop street") is Level.CLOSE
    assert compare_text_jw("Giblin Street", "Goldfinch Circuit") is Level.DIFFERENT
    assert compare_postcode("2600", "2600") is Level.EXACT
    assert compare_postcode("2600", "2611") is Level.DIFFERENT  # two edits
    assert compare_postcode("2600", "2060") is Level.CLOSE  # one transposition
    assert compare_postcode("2600", "2601") is Level.CLOSE


def test_custom_comparators() -> None:
    assert compare_custom(Comparator.NUMERIC, "172", "174", 3) is Level.CLOSE
    assert compare_custom(Comparator.NUMERIC, "172", "180", 3) is Level.DIFFERENT
    assert compare_custom(Comparator.DATE, "2020-01-01", "2020-01-05", 7) is Level.CLOSE
    assert compare_custom(Comparator.EXACT, "Gold", "gold", 0) is Level.EXACT
    assert compare_custom(Comparator.JARO_WINKLER, "silverr", "silver", 0.9) is Level.CLOSE
    assert compare_custom(Comparator.NUMERIC, "n/a", "1", 1) is Level.DIFFERENT


def _record(**context: Any) -> Mention:
    return Mention(mention_id="m1", name="Lachlan Berry", episode_id="e1", at=AT,
                   context=Context(**context))


def _profile(entity_id: str = "p1", name: str = "Lachlan Berry", **context: Any) -> EntityProfile:
    return grow_profile(None, entity_id, Mention(
        mention_id=f"seed-{entity_id}", name=name, episode_id=f"seed-{entity_id}", at=AT,
        context=Context(**context)))


def test_every_record_field_is_compared() -> None:
    fields = compare(
        _record(birth_date="1999-02-19", street_number="69", street="Giblin Street",
                locality="Killarney", postcode="4814", state="qld"),
        _profile(birth_date="1999-19-02", street_number="69", street="Giblin Stret",
                 locality="Killarney", postcode="4841", state="vic"),
        single_valued=(),
    )
    levels = {f.field: f.level for f in fields}
    assert levels[Field.BIRTH_DATE] is Level.CLOSE  # day and month transposed
    assert levels[Field.STREET_NUMBER] is Level.EXACT
    assert levels[Field.STREET] is Level.CLOSE
    assert levels[Field.LOCALITY] is Level.EXACT
    assert levels[Field.POSTCODE] is Level.CLOSE  # one transposition
    assert levels[Field.STATE] is Level.DIFFERENT


def test_a_full_record_merges_and_a_namesake_with_another_birth_date_does_not() -> None:
    index = BlockingIndex([
        _profile("p1", birth_date="1999-02-19", street="Giblin Street", postcode="4814"),
        _profile("p2", birth_date="1960-02-10", street="Goldfinch Circuit", postcode="2776"),
    ])
    same = resolve(_record(birth_date="1999-02-19", street="giblin street", postcode="4814"),
                   index, now=AT)
    assert (same.outcome, same.entity_id) == (Outcome.MERGE, "p1")
    stranger = resolve(_record(birth_date="1971-05-30", street="Kirby Place", postcode="3088"),
                       index, now=AT)
    assert stranger.outcome is not Outcome.MERGE


def _with_id(value: str, **context: str) -> Mention:
    return _record(**context).model_copy(
        update={"identifiers": (Identifier(kind=IdentifierKind.NATIONAL_ID, value=value),)})


def test_near_miss_on_a_one_per_person_identifier_is_close_not_a_veto() -> None:
    profile = grow_profile(None, "p1", _with_id("6988048", birth_date="1999-02-19"))
    index = BlockingIndex([profile])
    transposed = resolve(_with_id("6988084", birth_date="1999-02-19"), index, now=AT)
    [candidate] = transposed.candidates
    assert candidate.level(Field.NATIONAL_ID) is Level.CLOSE
    assert not transposed.vetoes
    assert transposed.outcome is Outcome.MERGE
    other = resolve(_with_id("1234567", birth_date="1999-02-19"), index, now=AT)
    assert other.vetoes
    assert other.outcome is Outcome.KEEP_APART


def test_identifier_kinds_are_config() -> None:
    assert near_miss("j17x9", "j17x8")
    assert not near_miss("12", "13")
    shared_national_id = DEFAULT_CONFIG.model_copy(update={"identifiers": {
        **DEFAULT_CONFIG.identifiers, IdentifierKind.NATIONAL_ID: IdentifierRule()}})
    profile = grow_profile(None, "p1", _with_id("6988048"))
    decision = resolve(_with_id("1234567"), BlockingIndex([profile]), now=AT,
                       config=shared_national_id)
    assert not decision.vetoes  # a shared kind's difference is evidence, never a veto
    assert IdentifierKind.NATIONAL_ID in DEFAULT_CONFIG.vetoing_identifiers
    assert IdentifierKind.PHONE not in DEFAULT_CONFIG.vetoing_identifiers


HEIGHT = CustomAttribute(
    name="height_cm", comparator=Comparator.NUMERIC, close=2, distinguishing=True,
    params=FieldParams(exact=LevelParams(m=0.6, u=0.02), close=LevelParams(m=0.35, u=0.05),
                       different=LevelParams(m=0.05, u=0.93)))


def test_custom_attributes_are_declared_typed_and_weighed() -> None:
    config = DEFAULT_CONFIG.model_copy(update={"custom": (HEIGHT,)})
    profile = _profile(custom={"height_cm": "181"})
    decision = resolve(_record(custom={"height_cm": "182"}), BlockingIndex([profile]),
                       now=AT, config=config)
    [candidate] = decision.candidates
    assert candidate.level("custom.height_cm") is Level.CLOSE
    assert candidate.weight > 0
    with pytest.raises(ResolutionError, match=r"custom\.height_cm"):
        resolve(_record(custom={"height_cm": "tall"}), BlockingIndex([profile]), now=AT,
                config=config)
    with pytest.raises(ResolutionError, match="not declared"):
        resolve(_record(custom={"height_cm": "181"}), BlockingIndex([profile]), now=AT)


def _line(**context: str) -> dict[str, Any]:
    return {"operation_id": "op1", "source": "crm", "channel": "webhook",
            "occurred_at": "2026-03-01T09:00:00+00:00",
            "resolve": [{"key": "p", "name": "Lachlan Berry", "context": context}]}


def test_unknown_context_keys_are_an_error_on_the_api_and_at_ingest_alike() -> None:
    with pytest.raises(ValidationError, match="shoe_size"):
        Context(shoe_size="44")  # type: ignore[call-arg]
    with pytest.raises(IngestError) as refused:
        parse_record(_line(shoe_size="44"), line=7)
    assert refused.value.line == 7
    assert refused.value.field == "resolve.0.context"
    assert "unknown context key 'shoe_size'" in str(refused.value)
    with pytest.raises(IngestError, match="birth_date"):
        parse_record(_line(birth_date="May 1990"), line=1)
    parse_record(_line(birth_date="1990-05-01", postcode="2600", **{"custom.tier": "gold"}))


def test_the_ingest_path_keeps_every_record_field(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(1)
    memory.ingest(episode("crm-1", "registry", day(1), channel="document", resolve=[{
        "key": "p", "name": "Lachlan Berry",
        "context": {"birth_date": "1999-02-19", "street": "Giblin Street", "postcode": "4814",
                    "state": "qld"}}]))
    clock.now = day(2)
    memory.ingest(episode("crm-2", "registry", day(2), channel="document", resolve=[{
        "key": "p", "name": "Lachlan Berry",
        "context": {"birth_date": "1999-02-19", "street": "Giblin St", "postcode": "4814"}}]))
    decisions = [r.decision for r in load_decisions(memory.store)]
    assert decisions[-1].outcome is Outcome.MERGE
    [candidate] = decisions[-1].candidates
    assert candidate.level(Field.BIRTH_DATE) is Level.EXACT
    assert candidate.level(Field.POSTCODE) is Level.EXACT


def test_an_undeclared_custom_attribute_at_ingest_is_bad_input_and_nothing_is_written(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(1)
    with pytest.raises(IngestError, match="not declared") as refused:
        memory.ingest(episode("crm-1", "registry", day(1), channel="document", resolve=[{
            "key": "p", "name": "Lachlan Berry", "context": {"custom.tier": "gold"}}]))
    assert refused.value.field == "resolve.0.context"
    assert load_decisions(memory.store) == []


def test_fuzzy_comparison_is_bounded_so_a_huge_value_cannot_stall_resolution() -> None:
    from kg_memory.domain.resolution.similarity import MAX_FUZZY_LENGTH

    long_a = "a" * (MAX_FUZZY_LENGTH + 1)
    long_b = long_a[:-1] + "b"
    assert not near_miss(long_a, long_b)  # one edit apart, but too long to be fuzzed
    assert jaro_winkler(long_a, long_b) == 0.0
    assert compare_text_jw(long_a, long_a) is Level.EXACT  # equal values still agree
    huge = "x" * 50_000
    decision = resolve(
        _record(street=huge).model_copy(update={"identifiers": (
            Identifier(kind=IdentifierKind.NATIONAL_ID, value="9" * 50_000),)}),
        BlockingIndex([_profile(street=huge[:-1] + "y")]), now=AT)
    assert decision.candidates[0].level(Field.STREET) is Level.DIFFERENT
