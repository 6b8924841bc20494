"""Blocking: candidates come from keys within the mention's scope, never from a scan."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.resolution.blocking import BlockingIndex, mention_keys, profile_keys
from kg_memory.domain.resolution.mention import Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.profile import EntityProfile

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)


def _profile(entity_id: str, *names: str, scope: str = "s", **extra: object) -> EntityProfile:
    return EntityProfile.model_validate(
        {"entity_id": entity_id, "names": names, "scope": scope, **extra}
    )


def _mention(name: str, scope: str = "s", **extra: object) -> Mention:
    return Mention.model_validate(
        {"mention_id": "m", "name": name, "scope": scope, "episode_id": "e", "at": AT, **extra}
    )


def _found(index: BlockingIndex, mention: Mention) -> list[str]:
    return [c.profile.entity_id for c in index.candidates(mention)]


INDEX = BlockingIndex(
    [
        _profile("robert", "Robert Tables"),
        _profile("joanna", "Joanna Park"),
        _profile("joseph", "Joseph Park"),
        _profile("jo-only", "Jo"),
        _profile("lindqvist", "Ingrid Lindqvist"),
        _profile("okafor", "Emeka Okafor"),
        _profile("mailer", "Priya Raman", identifiers=[{"kind": "email", "value": "p@x.io"}]),
        _profile("other-scope", "Robert Tables", scope="t"),
    ]
)


def test_full_name_and_nickname_keys() -> None:
    assert _found(INDEX, _mention("Robert Tables")) == ["robert"]
    assert _found(INDEX, _mention("Bob Tables")) == ["robert"]
    assert _found(INDEX, _mention("Bobby Tables")) == ["robert"]


def test_an_ambiguous_nickname_finds_every_reading() -> None:
    assert _found(INDEX, _mention("Jo Park")) == ["jo-only", "joanna", "joseph"]
    assert _found(INDEX, _mention("Jo")) == ["jo-only", "joanna", "joseph"]


def test_typos_and_initials_are_found() -> None:
    assert _found(INDEX, _mention("Ingird Lindqvist")) == ["lindqvist"]  # given-name typo
    assert _found(INDEX, _mention("Ingrid Lindqvsit")) == ["lindqvist"]  # family-name typo
    assert _found(INDEX, _mention("I. Lindqvist")) == ["lindqvist"]  # initial
    assert _found(INDEX, _mention("Dr Okafor")) == ["okafor"]  # family name only


def test_phonetic_key_catches_sound_alike_spellings_of_both_parts() -> None:
    index = BlockingIndex([_profile("smith", "Jon Smith")])
    assert "phonetic:J500|S530" in profile_keys(index.profiles()[0])
    assert _found(index, _mention("John Smyth")) == ["smith"]


def test_identifiers_block_whatever_the_name() -> None:
    mention = _mention("P. R.", identifiers=[Identifier(kind=IdentifierKind.EMAIL, value="P@X.io")])
    assert "email:p@x.io" in mention_keys(mention)
    assert _found(INDEX, mention) == ["mailer"]


def test_unrelated_names_are_not_candidates() -> None:
    assert _found(INDEX, _mention("Kwame Mensah")) == []


def test_blocking_never_crosses_scopes() -> None:
    assert _found(INDEX, _mention("Robert Tables", scope="t")) == ["other-scope"]
    assert _found(INDEX, _mention("Robert Tables", scope="u")) == []


def test_exclude_drops_a_provisional_entity() -> None:
    found = INDEX.candidates(_mention("Jo Park"), exclude=["jo-only"])
    assert [c.profile.entity_id for c in found] == ["joanna", "joseph"]


def test_candidates_report_the_keys_that_found_them() -> None:
    (candidate,) = INDEX.candidates(_mention("Bob Tables"))
    assert candidate.keys == ("given+family-initial:robert|t", "given+family:robert|tables")


def test_duplicate_ids_in_one_scope_are_refused() -> None:
    with pytest.raises(ResolutionError):
        BlockingIndex([_profile("p", "A B"), _profile("p", "C D")])
    BlockingIndex([_profile("p", "A B"), _profile("p", "A B", scope="t")])  # fine: two scopes


def test_with_profiles_returns_a_new_index() -> None:
    bigger = INDEX.with_profiles([_profile("kwame", "Kwame Mensah")])
    assert _found(bigger, _mention("Kwame Mensah")) == ["kwame"]
    assert _found(INDEX, _mention("Kwame Mensah")) == []
    assert len(bigger) == len(INDEX) + 1
    replaced = INDEX.with_profiles([_profile("robert", "Robert Droptables")])
    assert len(replaced) == len(INDEX)
    assert _found(replaced, _mention("Robert Tables")) == []
