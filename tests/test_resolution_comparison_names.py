"""How the resolver reads a mention's name against a profile's names and aliases.

Rules protected (``kg_memory.domain.resolution.comparison``):

* the alias that agrees best counts, ranked EXACT > CLOSE > MISSING (that part unknown) >
  DIFFERENT and summed over the given and the family name; on a tie the earlier name (the
  display name first) is the one reported;
* given and family name swapped ("Schuman Alexandra") compare CLOSE on both parts, never EXACT;
  a swap only explains a contradicting part (it never replaces a reading that agrees), needs a
  full name on both sides, and needs an agreement beyond an initial ("J Jones" is not "J
  Jackson" swapped);
* a name part is *near* exactly when it is DIFFERENT and within two edits of the other part
  (spaces ignored): what lets record evidence explain "rebecc" for "rebecca" (merge_rules);
* with ``respaced_names``, a name of ten letters or more whose words were split in another
  place, with at most one other typo, is CLOSE on both parts (a typo, never *near*); a
  one-word name, a short one, or the same words with a letter changed never qualifies.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kg_memory.domain.resolution import BlockingIndex, Context, Outcome, grow_profile, resolve
from kg_memory.domain.resolution.comparison import (
    NEAR_NAME_JARO_WINKLER,
    FieldComparison,
    compare,
)
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.names import edit_distance, parse_name
from kg_memory.domain.resolution.profile import EntityProfile
from kg_memory.domain.resolution.similarity import jaro_winkler

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
C, D, E, M = Level.CLOSE, Level.DIFFERENT, Level.EXACT, Level.MISSING


def _names(said: str, *names: str) -> tuple[FieldComparison, FieldComparison]:
    mention = Mention(mention_id="m", name=said, episode_id="e", at=AT)
    profile = EntityProfile(entity_id="p", names=names)
    by = {c.field: c for c in compare(mention, profile, single_valued=())}
    return by[Field.GIVEN_NAME], by[Field.FAMILY_NAME]


def _levels(said: str, *names: str) -> tuple[Level, Level]:
    given, family = _names(said, *names)
    return given.level, family.level


@pytest.mark.parametrize(("names", "levels"), [
    # Agreeing on both parts beats an exact given name with a contradicting family name.
    (("Jo Lee", "Joanna Parke"), (C, C)),
    # Knowing nothing of the family name beats contradicting it.
    (("Jo Lee", "Jo"), (E, M)),
    # Agreeing on the family name beats knowing nothing of it.
    (("Jo", "Jo Parke"), (E, C)),
    (("Jo Parke", "Jo Park"), (E, E)),
])
def test_the_alias_that_agrees_best_counts_whatever_its_place(
    names: tuple[str, ...], levels: tuple[Level, Level]
) -> None:
    assert _levels("Jo Park", *names) == levels
    assert _levels("Jo Park", *reversed(names)) == levels


def test_on_equal_agreement_the_earlier_name_the_display_name_first_is_reported() -> None:
    given, _ = _names("Jo Park", "Jo Park", "JO PARK")
    assert given.detail == "'Jo Park' vs 'Jo Park'"
    given, _ = _names("Jo Park", "JO PARK", "Jo Park")
    assert given.detail == "'Jo Park' vs 'JO PARK'"


@pytest.mark.parametrize(("said", "known"), [
    ("Schuman Alexandra", "Alexandra Schuman"),  # a form filled in the wrong order
    ("Li Yu", "Yu Li"),  # two-letter names are more than initials
    ("Smith J", "J Smith"),  # the initial is on one side only: smith = smith witnesses it
    ("J Jones", "Jones Jack"),
])
def test_swapped_given_and_family_names_are_close_on_both_parts_never_exact(
    said: str, known: str
) -> None:
    given, family = _names(said, known)
    assert (given.level, family.level) == (C, C)
    assert "(swapped)" in given.detail
    assert (given.near, family.near) == (False, False)  # CLOSE agrees: not a near contradiction


def test_regression_an_initial_alone_never_witnesses_a_swap() -> None:
    """Both family names start with J, so read swapped every part "agreed" by initial, and a
    contradicting family name turned into CLOSE agreement on both parts."""
    given, family = _names("J Jones", "J Jackson")
    assert (given.level, family.level) == (E, D)
    assert "(swapped)" not in given.detail
    # What it cost: "J Jones" merged into "J Jackson" on a shared city and role alone.
    context = Context(city="Leeds", role="PM")
    known = grow_profile(None, "jackson", Mention(mention_id="s", name="J Jackson",
                                                  episode_id="s", at=AT, context=context))
    said = Mention(mention_id="m", name="J Jones", episode_id="e", at=AT, context=context)
    assert resolve(said, BlockingIndex([known]), now=AT).outcome is not Outcome.MERGE


@pytest.mark.parametrize(("said", "known"), [
    ("Jake Jakes", "Jake Jakes"),  # exact as written: the swapped reading also agrees
    ("Jakes Jake", "Jake Jakes"),  # CLOSE on both parts as written already
])
def test_a_swap_never_replaces_a_reading_that_agrees(said: str, known: str) -> None:
    straight = _levels(said, known)
    assert D not in straight
    given, family = _names(said, known)
    assert "(swapped)" not in given.detail
    assert (given.level, family.level) == straight == ((E, E) if said == known else (C, C))


def test_half_a_swap_is_no_swap() -> None:
    """"Jo Jones" against "Jones Smith": the family name agrees with the other's given name,
    but "jo" has nothing to do with "smith", so both parts still contradict."""
    assert _levels("Jo Jones", "Jones Smith") == (D, D)


@pytest.mark.parametrize(("said", "known", "levels"), [
    ("Smith,", "Smith Jones", (M, D)),  # a family-only mention
    ("Jones", "Smith Jones", (D, M)),  # a given-only mention
    ("Smith Jones", "Jones", (D, M)),  # a given-only profile
    ("Smith Jones", "Smith,", (M, D)),  # a family-only profile
])
def test_a_partial_name_is_never_read_swapped(
    said: str, known: str, levels: tuple[Level, Level]
) -> None:
    """With one part unknown there is nothing to swap: reading "Smith," against "Smith Jones"
    swapped would invent agreement on a part nobody stated."""
    assert _levels(said, known) == levels


def _squeezed(part: str | None) -> str:
    return (part or "").replace(" ", "")


_GIVEN = ("j", "k", "jo", "bo", "joanna", "rebecc", "rebecca", "alexandra", "li", "yu", "jake")
_FAMILY = ("park", "parke", "pike", "reid", "rei", "li", "yu", "van der hoek", "hoek", "jones",
           "schuman", "jakes", "j")
_NAME = st.one_of(
    st.builds(lambda g, f: f"{g} {f}", st.sampled_from(_GIVEN), st.sampled_from(_FAMILY)),
    st.sampled_from(_GIVEN),
    st.builds(lambda f: f"{f},", st.sampled_from(_FAMILY)),
)


@given(said=_NAME, known=_NAME)
@example(said="Rebecc Smith", known="Rebecca Smith")  # a given name one letter short
@example(said="Jo Rei", known="Jo Reid")  # too short to be a typo, near enough to explain
@example(said="J Park", known="K Park")  # within two edits, but another first letter
@example(said="Jo Park", known="Jo Pike")  # three edits: not near
@example(said="Alexandnany Smith", known="Alexandrina Smith")  # three edits, however alike
@example(said="Adrcew Smith", known="Andrew Smith")  # Jaro-Winkler exactly 0.9: still near
@example(said="Schuman Alexandra", known="Alexandra Schuman")
def test_a_name_part_is_near_exactly_when_different_within_two_edits_and_alike(
    said: str, known: str
) -> None:
    """Near means a typo, not another name: within two edits, the same first letter and
    Jaro-Winkler at least NEAR_NAME_JARO_WINKLER (names that close are what twins have)."""
    given, family = _names(said, known)
    said_name, known_name = parse_name(said), parse_name(known)
    for part, ours, theirs in ((given, said_name.given, known_name.given),
                               (family, said_name.family, known_name.family)):
        x, y = _squeezed(ours), _squeezed(theirs)
        alike = (edit_distance(x, y) <= 2 and x[:1] == y[:1]
                 and jaro_winkler(x, y) >= NEAR_NAME_JARO_WINKLER)
        assert part.near is (part.level is D and alike), (part, ours, theirs)


@given(a=_NAME, b=_NAME)
@example(a="Thomas Thomas", b="Thomas Thomas")
def test_name_comparison_is_symmetric_and_a_name_is_exact_with_itself(a: str, b: str) -> None:
    assert _levels(a, b) == _levels(b, a)
    parsed = parse_name(a)
    expected = (E if parsed.given else M, E if parsed.family else M)
    assert _levels(a, a) == expected


def _respaced(said: str, known: str) -> tuple[FieldComparison, FieldComparison]:
    mention = Mention(mention_id="m", name=said, episode_id="e", at=AT)
    profile = EntityProfile(entity_id="p", names=(known,))
    compared = compare(mention, profile, single_valued=(), respaced_names=True)
    by = {c.field: c for c in compared}
    return by[Field.GIVEN_NAME], by[Field.FAMILY_NAME]


@pytest.mark.parametrize(("said", "known", "respaced"), [
    ("Diamonnd Bis Hop", "Diamond Bishop", True),  # FEBRL's, as typed: a space and one typo
    ("Diamond Bishop", "Diamonnd Bis Hop", True),  # either way round
    ("Mar Ia Lopez", "Maria Lopez", True),  # the same letters exactly, ten of them
    # One word has no family name to agree with: reading it respaced would invent one.
    ("Diamondbishop", "Diamond Bishop", False),
    ("Diamond Bishop", "Diamondbishop", False),
    ("Li Na Wu", "Lina Wu", False),  # six letters: too little text to tell a typo
    ("Diamonnd Bis Hopp", "Diamond Bishop", False),  # a respacing and two more typos
    ("Jon Smithson", "Jan Smithson", False),  # the same words, another letter: a twin's name
])
def test_a_respaced_name_is_a_typo_on_both_parts_and_never_near(
    said: str, known: str, respaced: bool
) -> None:
    """A respacing explains both contradicting parts as one typo. It is not a *near* name
    part: near is a letter or two within one part, which record evidence may then explain."""
    given, family = _respaced(said, known)
    assert ("respaced" in given.detail) is respaced, (given, family)
    if respaced:
        assert (given.level, family.level) == (C, C)
        assert (given.kind, family.kind) == ("typo", "typo")
        assert (given.near, family.near) == (False, False)
