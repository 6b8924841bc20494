"""Comparison: one level per field, names split, identifiers, attributes and time."""

from __future__ import annotations

from datetime import UTC, datetime

from kg_memory.domain.resolution.comparison import compare, compare_values
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.profile import EntityProfile

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
SINGLE = (Field.EMPLOYER, Field.ROLE, Field.CITY)

PROFILE = EntityProfile.model_validate(
    {
        "entity_id": "jo",
        "names": ["Joanna Park", "Jo Park"],
        "identifiers": [
            {"kind": "user_id", "value": "j17"},
            {"kind": "email", "value": "jo@northwind.example"},
        ],
        "attributes": [
            {
                "attribute": "employer",
                "value": "Northwind Ltd",
                "valid": {"start": "2024-01-01T00:00:00Z"},
            },
            {
                "attribute": "city",
                "value": "Leeds",
                "valid": {"start": "2020-01-01T00:00:00Z", "end": "2025-01-01T00:00:00Z"},
            },
            {"attribute": "city", "value": "York", "valid": {"start": "2025-01-01T00:00:00Z"}},
            {"attribute": "project", "value": "Cedar"},
            {"attribute": "relation", "value": "colleague"},
        ],
        "co_mentions": ["project/c1", "person/ana", "team/pm"],
    }
)


def _levels(**mention: object) -> dict[Field | str, Level]:
    m = Mention.model_validate({"mention_id": "m", "episode_id": "e", "at": AT, **mention})
    return {c.field: c.level for c in compare(m, PROFILE, single_valued=SINGLE)}


def test_every_field_is_compared_once_in_order() -> None:
    m = Mention(mention_id="m", name="Jo", episode_id="e", at=AT)
    assert [c.field for c in compare(m, PROFILE, single_valued=SINGLE)] == list(Field)


def test_names_are_compared_part_by_part_against_the_best_alias() -> None:
    levels = _levels(name="Jo Park")
    assert (levels[Field.GIVEN_NAME], levels[Field.FAMILY_NAME]) == (Level.EXACT, Level.EXACT)
    levels = _levels(name="Jo Lee")
    assert (levels[Field.GIVEN_NAME], levels[Field.FAMILY_NAME]) == (Level.EXACT, Level.DIFFERENT)
    levels = _levels(name="Jo")
    assert (levels[Field.GIVEN_NAME], levels[Field.FAMILY_NAME]) == (Level.EXACT, Level.MISSING)
    assert _levels(name="Josie Park")[Field.GIVEN_NAME] is Level.CLOSE  # Josephine, not Joanna


def test_identifiers() -> None:
    assert (
        _levels(name="Jo", identifiers=[{"kind": "user_id", "value": "j17"}])[Field.USER_ID]
        is Level.EXACT
    )
    assert (
        _levels(name="Jo", identifiers=[{"kind": "user_id", "value": "j99"}])[Field.USER_ID]
        is Level.DIFFERENT
    )
    assert (
        _levels(name="Jo", identifiers=[{"kind": "email", "value": "JO@Northwind.example"}])[
            Field.EMAIL
        ]
        is Level.EXACT
    )
    assert _levels(name="Jo")[Field.PHONE] is Level.MISSING


def test_entity_type() -> None:
    assert _levels(name="Jo")[Field.ENTITY_TYPE] is Level.EXACT
    assert _levels(name="Jo", entity_type="organisation")[Field.ENTITY_TYPE] is Level.DIFFERENT
    assert _levels(name="Jo", entity_type=None)[Field.ENTITY_TYPE] is Level.MISSING


def test_attribute_levels() -> None:
    assert _levels(name="Jo", context={"employer": "Northwind Ltd"})[Field.EMPLOYER] is Level.EXACT
    assert _levels(name="Jo", context={"employer": "Northwind"})[Field.EMPLOYER] is Level.CLOSE
    assert _levels(name="Jo", context={"employer": "Globex"})[Field.EMPLOYER] is Level.DIFFERENT
    assert _levels(name="Jo", context={"role": "pm"})[Field.ROLE] is Level.MISSING
    # "Has she ever lived there?": a former city still agrees on the attribute field.
    assert _levels(name="Jo", context={"city": "Leeds"})[Field.CITY] is Level.EXACT


def test_compare_values() -> None:
    assert compare_values("Acme", "ACME") is Level.EXACT
    assert compare_values("Acme", "Acme Corp") is Level.CLOSE
    assert compare_values("Northwnd", "Northwind") is Level.CLOSE
    assert compare_values("Acme", "Globex") is Level.DIFFERENT


def test_temporal_contradiction_over_overlapping_valid_time_counts_against() -> None:
    # In 2026 the profile says York: "Leeds" contradicts it.
    assert _levels(name="Jo", context={"city": "Leeds"})[Field.TEMPORAL] is Level.DIFFERENT
    assert _levels(name="Jo", context={"city": "York"})[Field.TEMPORAL] is Level.EXACT
    early = {"name": "Jo", "context": {"city": "Leeds"}, "at": "2022-06-01T00:00:00Z"}
    assert _levels(**early)[Field.TEMPORAL] is Level.EXACT  # Leeds held in 2022
    before_york = {"name": "Jo", "context": {"city": "York"}, "at": "2022-06-01T00:00:00Z"}
    assert _levels(**before_york)[Field.TEMPORAL] is Level.DIFFERENT
    # Projects are not single-valued: a new project never contradicts.
    assert _levels(name="Jo", context={"project": "Birch"})[Field.TEMPORAL] is Level.MISSING
    # Relation has no valid time: it never contradicts either.
    assert _levels(name="Jo", context={"relation": "friend"})[Field.TEMPORAL] is Level.MISSING


def test_temporal_close_when_a_value_held_only_at_another_time() -> None:
    profile = PROFILE.model_copy(
        update={"attributes": tuple(a for a in PROFILE.attributes if a.value != "York")}
    )
    m = Mention(mention_id="m", name="Jo", context={"city": "Leeds"}, episode_id="e", at=AT)
    levels = {c.field: c.level for c in compare(m, profile, single_valued=SINGLE)}
    assert levels[Field.TEMPORAL] is Level.CLOSE


def test_co_mentions() -> None:
    assert (
        _levels(name="Jo", co_mentions=["project/c1", "team/pm"])[Field.CO_MENTIONS] is Level.EXACT
    )
    assert _levels(name="Jo", co_mentions=["project/c1"])[Field.CO_MENTIONS] is Level.CLOSE
    assert _levels(name="Jo", co_mentions=["project/zz"])[Field.CO_MENTIONS] is Level.DIFFERENT
    assert _levels(name="Jo", co_mentions=["jo"])[Field.CO_MENTIONS] is Level.MISSING  # itself


def test_a_mention_compared_again_after_another_keeps_its_own_identifiers() -> None:
    # compare() keeps the last mention's identifier keys (a block's candidates meet one mention
    # in a row); two mentions alike in all but their ids, alternating, must never share them.
    def mention(user_id: str) -> Mention:
        return Mention.model_validate({"mention_id": "m", "episode_id": "e", "at": AT,
                                       "name": "Jo Park",
                                       "identifiers": [{"kind": "user_id", "value": user_id}]})

    same, other = mention("J17"), mention("j99")
    for m, level in ((same, Level.EXACT), (other, Level.DIFFERENT), (same, Level.EXACT),
                     (same, Level.EXACT), (other, Level.DIFFERENT)):
        fields = {c.field: c for c in compare(m, PROFILE, single_valued=SINGLE)}
        assert fields[Field.USER_ID].level is level
    assert fields[Field.USER_ID].detail == "['j99'] vs ['j17']"
