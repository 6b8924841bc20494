"""The residue rules at their boundaries: which values and sentences are searched for, and how a
found copy is cut out. ``tests/test_residue_properties.py`` checks the matcher against a
reference on generated text; here each documented threshold and edge is stated by name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kg_memory.domain.residue import (
    MARK,
    MIN_SPAN_CHARS,
    MIN_VALUE_CHARS,
    Matcher,
    Residue,
    find_spans,
    needles,
    redact,
)


def test_a_value_counts_from_eight_characters_after_trimming() -> None:
    assert MIN_VALUE_CHARS == 8
    assert needles(["abcdefgh"], []) == ("abcdefgh",)
    assert needles(["abcdefg", "  abcdefg  ", 12345678, True], []) == ()
    assert needles(["  vegetarian "], []) == ("vegetarian",)


def test_a_sentence_of_content_counts_from_sixteen_characters() -> None:
    assert MIN_SPAN_CHARS == 16
    sixteen, fifteen = "a" * 15 + ".", "b" * 14 + "."
    assert needles([], [f"{sixteen} {fifteen}"]) == (sixteen,)


def test_sentences_end_at_a_stop_mark_before_whitespace_or_at_a_line_break() -> None:
    content = "The drain is at aurora! Is it at borealis? yes\nthe third line is long"
    assert set(needles([], [content])) == {"The drain is at aurora!", "Is it at borealis?",
                                           "the third line is long"}
    assert needles([], ["version 1.2.3 of the tool is pinned"]) == (
        "version 1.2.3 of the tool is pinned",)  # a stop inside a word ends nothing


def test_needles_come_longest_first_then_in_order() -> None:
    assert needles(["bbbbbbbb", "aaaaaaaa", "cccccccccc"], []) == (
        "cccccccccc", "aaaaaaaa", "bbbbbbbb")


def test_a_partly_kept_episode_gives_only_its_sentences_that_quote_an_erased_value() -> None:
    kept = "Ana is vegetarian and tall. The drain is stream.example/aurora now."
    found = needles(["stream.example/aurora"], [], [kept])
    assert found == ("The drain is stream.example/aurora now.", "stream.example/aurora")
    assert needles([], [], [kept]) == ()  # no erased value: nothing of it is searched


def test_spans_are_found_across_case_and_whitespace_and_point_into_the_original() -> None:
    text = "x  STREAM.Example/aurora\t and stream.example/AURORA."
    spans = find_spans(text, ["stream.example/aurora"])
    assert [text[a:b] for a, b in spans] == ["STREAM.Example/aurora", "stream.example/AURORA"]
    spaced = "the log\n\n drain  endpoint"
    assert [spaced[a:b] for a, b in find_spans(spaced, ["log drain endpoint"])] == [
        "log\n\n drain  endpoint"]


def test_a_span_maps_back_through_characters_that_casefold_longer() -> None:
    text = "Die Straße heißt Aurorastraße."
    [(start, end)] = find_spans(text, ["strasse heisst aurorastrasse"])
    assert text[start:end] == "Straße heißt Aurorastraße"


def test_touching_and_overlapping_copies_become_one_span() -> None:
    text = "aaaaaaaabbbbbbbb cccccccc"
    assert find_spans(text, ["aaaaaaaa", "bbbbbbbb"]) == [(0, 16)]
    assert find_spans(text, ["aaaaaaaabbbb", "bbbbbbbb"]) == [(0, 16)]
    assert find_spans(text, ["aaaaaaaa", "cccccccc"]) == [(0, 8), (17, 25)]


def test_every_copy_is_found_with_few_needles_and_with_the_index() -> None:
    text = "one copy: aurora-borealis, and again aurora-borealis."
    few = ["aurora-borealis"]
    many = few + [f"filler needle {i:02d}" for i in range(20)]  # over 16: the gram index
    assert Matcher(few).spans(text) == Matcher(many).spans(text) == [(10, 25), (37, 52)]
    assert Matcher([]).spans(text) == []
    assert Matcher(["   "]).spans(text) == []


# Many needles, none of which the texts below hold: past 16 needles the gram index answers.
FILLERS = [f"filler needle {i:02d}" for i in range(20)]


def test_overlapping_copies_of_one_needle_are_cut_whole_on_both_paths() -> None:
    """Rule: every copy is cut, also one that overlaps the copy before it ("aaaaaaaaaa" holds
    "aaaaaaaa" three times); cutting only the first would leave the rest of the others."""
    text = "xx aaaaaaaaaa yy"
    assert Matcher(["aaaaaaaa"]).spans(text) == [(3, 13)]
    assert Matcher(["aaaaaaaa", *FILLERS]).spans(text) == [(3, 13)]
    assert redact("aaaaaaaaa", find_spans("aaaaaaaaa", ["aaaaaaaa"])) == MARK


def test_a_value_that_normalises_shorter_than_the_index_is_still_found_among_many() -> None:
    """Rule: a value of eight characters or more is a needle even when its whitespace collapses
    to fewer characters than the gram index is wide ("ab      cd" is "ab cd"); with many needles
    it is still found, among long needles and among short ones alone."""
    [value] = needles(["ab      cd"], [])
    text = "note: AB  CD, see"
    assert Matcher([value, *FILLERS]).spans(text) == [(6, 12)]
    shorts = [f"{c}      {c}{c}" for c in "pqrstuvwxyz"] + [f"{d}      {d}" for d in "123456"]
    assert all(len(n.strip()) >= 8 for n in shorts)  # each one a needle by needles()' rule
    assert Matcher([value, *shorts]).spans(text) == [(6, 12)]


def test_a_copy_that_ends_the_text_is_found_by_the_index() -> None:
    """Rule: a copy is found wherever it lies, the last characters of a text included, also when
    it is exactly as wide as the index's grams."""
    text = "the end is ab   def"
    assert Matcher(["ab   def", *FILLERS]).spans(text) == [(11, 19)]
    assert Matcher(["ab   def"]).spans(text) == [(11, 19)]


def test_redaction_replaces_each_span_and_keeps_the_rest() -> None:
    text = "keep A secret1 keep B secret2 keep"
    assert redact(text, [(7, 14), (22, 29)]) == f"keep A {MARK} keep B {MARK} keep"
    assert redact(text, []) == text
    assert redact("secret", [(0, 6)]) == MARK


def test_a_residue_report_cannot_be_altered_after_the_search() -> None:
    found = Residue(where="episode", node="ep_1", spans=2)
    with pytest.raises(ValidationError, match="frozen"):
        found.spans = 0  # type: ignore[misc]
