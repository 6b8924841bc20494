"""The tokeniser's ASCII fast path gives exactly the tokens of the general Unicode path.

The write path tokenises every episode and fact for the recall index, so plain ASCII text skips
NFKD normalisation and accent stripping (no-ops for it). A difference would make the index and
the queries disagree, so the fast path is checked against the general rule on any text.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from kg_memory.domain.recall_text import stem, terms, tokens

_WORD = re.compile(r"[^\W_]+")


def general(text: str) -> list[str]:
    """The Unicode rule, with no fast path: casefold, NFKD, drop combining marks, split."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    return _WORD.findall("".join(ch for ch in folded if not unicodedata.combining(ch)))


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_tokenises_as_the_general_rule(text: str) -> None:
    assert tokens(text) == general(text)


@given(st.text())
def test_any_text_tokenises_as_the_general_rule(text: str) -> None:
    assert tokens(text) == general(text)


@given(st.lists(st.text(alphabet="abcdeinrsy", min_size=1), min_size=1))
def test_cached_stems_are_the_stems(words: list[str]) -> None:
    text = " ".join(words)
    assert terms(text) == [stem.__wrapped__(t) for t in general(text)]
