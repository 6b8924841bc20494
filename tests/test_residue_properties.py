"""The residue matcher against a small reference: normalise by ``casefold`` and ``split``, then
plain substring search. Both of its paths (one search per needle, and the gram index for many
needles) must agree with it, and a redacted text must hold no needle any more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.domain.residue import MARK, Matcher, needles, redact


def reference(text: str) -> str:
    return " ".join(text.casefold().split())


# A small alphabet makes overlaps and repeats likely; MARK's letters are outside it, so a
# redaction can never spell a needle by itself.
alphabet = st.sampled_from("abAB \t\n")
texts = st.text(alphabet, max_size=60)
needle_lists = st.lists(st.text(alphabet, min_size=8, max_size=14).filter(
    lambda n: len(reference(n)) >= 6), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(text=texts, search=needle_lists)
def test_a_span_is_found_exactly_when_the_reference_finds_a_needle(
    text: str, search: list[str],
) -> None:
    spans = Matcher(search).spans(text)
    assert bool(spans) == any(reference(n) in reference(text) for n in search)
    for start, end in spans:
        assert any(reference(n) in reference(text[start:end]) for n in search)


@settings(max_examples=300, deadline=None)
@given(text=texts, search=needle_lists)
def test_the_index_and_the_per_needle_search_agree(text: str, search: list[str]) -> None:
    many = Matcher(search).spans(text)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(s for n in search for s in Matcher([n]).spans(text)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    assert many == merged


@settings(max_examples=300, deadline=None)
@given(text=texts, search=needle_lists)
def test_a_redacted_text_holds_no_needle(text: str, search: list[str]) -> None:
    match = Matcher(search)
    cut = redact(text, match.spans(text))
    assert not any(reference(n) in reference(cut) for n in search)
    assert cut.count(MARK) == len(match.spans(text))


def test_short_values_and_sentences_are_not_needles() -> None:
    assert needles(["veg", "yes", 42, "vegetarian"], ["Hi. Thanks!"]) == ("vegetarian",)
    assert needles([], ["Short one. This sentence is long enough."]) == (
        "This sentence is long enough.",)
    assert needles(["stream.example/aurora"], [], ["Ana is vegetarian. Drain: "
                                                     "stream.example/aurora."]) == (
        "Drain: stream.example/aurora.", "stream.example/aurora")
