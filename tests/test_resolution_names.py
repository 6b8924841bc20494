"""Names: parsing, nicknames, the phonetic key, edit distance and the given/family levels."""

from __future__ import annotations

import pytest

from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.names import (
    PersonName,
    compare_family,
    compare_given,
    edit_distance,
    name_commonness,
    nickname_groups,
    normalize_text,
    parse_name,
    soundex,
)


@pytest.mark.parametrize(
    ("text", "given", "family"),
    [
        ("Jo", "jo", None),
        ("John Smith", "john", "smith"),
        ("Smith, John", "john", "smith"),
        ("Dr. Joanna  Park-Lee", "joanna", "park-lee"),
        ("Dr Okafor", None, "okafor"),
        ("John Ronald Reuel Tolkien", "john", "tolkien"),
        ("Martin Luther King Jr.", "martin", "king"),
        ("Zoë O'Brien", "zoe", "obrien"),
        ("", None, None),
    ],
)
def test_parse_name(text: str, given: str | None, family: str | None) -> None:
    assert parse_name(text) == PersonName(given=given, family=family)


def test_normalize_text_folds_case_accents_and_punctuation() -> None:
    assert normalize_text("  José  María-  ") == "jose maria"
    assert normalize_text("Acme, Ltd.") == "acme ltd"


def test_nickname_groups_are_ambiguous_on_purpose() -> None:
    assert nickname_groups("jo") == {"joanna", "josephine", "joseph"}
    assert nickname_groups("bob") == {"robert"}
    assert nickname_groups("bill") == {"william"}
    assert "elizabeth" in nickname_groups("liz")
    assert nickname_groups("ottoline") == {"ottoline"}


@pytest.mark.parametrize(
    ("word", "code"),
    [
        ("Robert", "R163"),
        ("Rupert", "R163"),
        ("Ashcraft", "A261"),
        ("Tymczak", "T522"),
        ("Pfister", "P236"),
        ("Honeyman", "H555"),
        ("Smith", "S530"),
        ("Smyth", "S530"),
        ("Lee", "L000"),
        ("", ""),
    ],
)
def test_soundex(word: str, code: str) -> None:
    assert soundex(word) == code


def test_edit_distance_counts_transpositions_as_one() -> None:
    assert edit_distance("john", "jonh") == 1
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("same", "same") == 0


@pytest.mark.parametrize(
    ("a", "b", "level"),
    [
        ("jo", "jo", Level.EXACT),
        ("jo", "joanna", Level.CLOSE),  # nickname
        ("bob", "robert", Level.CLOSE),
        ("j", "john", Level.CLOSE),  # initial
        ("beatirz", "beatriz", Level.CLOSE),  # typo
        ("jon", "jan", Level.DIFFERENT),  # short names: one letter is another person
        ("paula", "paulo", Level.DIFFERENT),  # gendered pair, not a typo
        ("daniel", "daniela", Level.DIFFERENT),
        ("jo", "bob", Level.DIFFERENT),
        (None, "jo", Level.MISSING),
    ],
)
def test_compare_given(a: str | None, b: str | None, level: Level) -> None:
    assert compare_given(a, b) is level


@pytest.mark.parametrize(
    ("a", "b", "level"),
    [
        ("park", "park", Level.EXACT),
        ("lindqvist", "lindqvsit", Level.CLOSE),
        ("park", "park-lee", Level.CLOSE),
        ("park", "lee", Level.DIFFERENT),
        ("park", None, Level.MISSING),
    ],
)
def test_compare_family(a: str | None, b: str | None, level: Level) -> None:
    assert compare_family(a, b) is level


def test_common_names_are_commoner() -> None:
    john_smith = name_commonness(parse_name("John Smith"))
    jo_park = name_commonness(parse_name("Jo Park"))
    rare = name_commonness(parse_name("Ottoline Vance"))
    assert john_smith == 1.0
    assert rare == 0.0
    assert rare < jo_park < john_smith
    # A bare given name is as unspecific as it gets.
    assert name_commonness(parse_name("Ottoline")) == 1.0


@pytest.mark.parametrize(
    ("text", "given", "family"),
    [
        ("Jan van der Hoek", "jan", "van der hoek"),
        ("Maria de la Cruz", "maria", "de la cruz"),
        ("Ahmad bin Ismail", "ahmad", "bin ismail"),
        ("Dr van Dijk", None, "van dijk"),
        ("Waller,", None, "waller"),
        ("van der Hoek, Jan", "jan", "van der hoek"),
        ("J. Park", "j", "park"),
    ],
)
def test_parse_name_keeps_particles_and_reads_family_only_records(
    text: str, given: str | None, family: str | None
) -> None:
    assert parse_name(text) == PersonName(given=given, family=family)


def test_particles_dropped_are_close_and_formatting_round_trips() -> None:
    from kg_memory.domain.resolution.names import format_name

    assert compare_family("van der hoek", "hoek") is Level.CLOSE
    assert compare_family("de la cruz", "cruz") is Level.CLOSE
    assert compare_family("van der hoek", "van der berg") is Level.DIFFERENT
    for given, family in (("Jo", None), (None, "Waller"), ("Jan", "van der Hoek")):
        parsed = parse_name(format_name(given, family))
        assert parsed.given == (given.casefold() if given else None)
        assert parsed.family == (family.casefold() if family else None)
    assert parse_name("Jo").is_partial
    assert parse_name("Waller,").is_partial
    assert not parse_name("Jo Park").is_partial
