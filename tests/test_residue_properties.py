"""The residue matcher against a small reference: normalise by ``casefold`` and ``split``, then
look at every stretch of the text. Both of its paths (one search per needle, and the gram index
for many needles) must cut exactly the characters the reference says a copy covers, overlapping
copies and needles that normalising shortens below the index width included, and a redacted
text must hold no needle any more."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.domain.residue import MARK, Matcher, needles, redact


def reference(text: str) -> str:
    return " ".join(text.casefold().split())


def covered(text: str, search: list[str]) -> set[int]:
    """Every index of ``text`` inside a stretch that normalises to a needle. A stretch starts
    and ends on a non-space (needles are stripped); the alphabet casefolds one to one."""
    targets = {reference(n) for n in search}
    cut: set[int] = set()
    for start in range(len(text)):
        for end in range(start + 1, len(text) + 1):
            if (not text[start].isspace() and not text[end - 1].isspace()
                    and reference(text[start:end]) in targets):
                cut.update(range(start, end))
    return cut


# A small alphabet makes overlaps and repeats likely; MARK's letters are outside it, so a
# redaction can never spell a needle by itself.
alphabet = st.sampled_from("abAB \t\n")
texts = st.text(alphabet, max_size=60)
# Any needle that is not blank: whitespace runs inside one can leave fewer normalised
# characters than the gram index is wide.
needle_lists = st.lists(st.text(alphabet, min_size=1, max_size=14).filter(reference),
                        min_size=1, max_size=40)
# Needles no text above can hold (digits and "z" are outside the alphabet), six normalised
# characters each, the index width: added to a search they make it many needles, so the gram
# index answers whenever every needle is at least that wide, and the per-needle search
# otherwise.
FILLERS = [f"zz{i:04d}" for i in range(20)]


def _paths(search: list[str]) -> dict[str, Matcher]:
    return {"few": Matcher(search[:16]), "index": Matcher([*search[:16], *FILLERS])}


@settings(max_examples=300, deadline=None)
@given(text=texts, search=needle_lists)
def test_spans_cover_exactly_the_characters_of_every_copy_on_both_paths(
    text: str, search: list[str],
) -> None:
    """Rule: every copy of a needle is cut, overlapping copies included, and nothing else; the
    gram index (many needles) finds what one search per needle finds."""
    expected = covered(text, search[:16])
    for path, match in _paths(search).items():
        spans = match.spans(text)
        assert {i for start, end in spans for i in range(start, end)} == expected, path
        # Touching or overlapping copies are one span: each starts after the last one ends.
        assert all(a[1] < b[0] for a, b in pairwise(spans)), path


@settings(max_examples=300, deadline=None)
@given(text=texts, search=needle_lists)
def test_a_redacted_text_holds_no_needle(text: str, search: list[str]) -> None:
    for match in _paths(search).values():
        cut = redact(text, match.spans(text))
        assert not any(reference(n) in reference(cut) for n in search[:16])
        assert cut.count(MARK) == len(match.spans(text))


def test_short_values_and_sentences_are_not_needles() -> None:
    assert needles(["veg", "yes", 42, "vegetarian"], ["Hi. Thanks!"]) == ("vegetarian",)
    assert needles([], ["Short one. This sentence is long enough."]) == (
        "This sentence is long enough.",)
    assert needles(["stream.example/aurora"], [], ["Ana is vegetarian. Drain: "
                                                     "stream.example/aurora."]) == (
        "Drain: stream.example/aurora.", "stream.example/aurora")
