"""The comparator's string measures, rewritten for speed, against the textbook definitions they
must equal exactly (a decision records its weights, so a different float is a different
decision)."""

from __future__ import annotations

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kg_memory.domain.resolution.names import compare_family, compare_given, edit_distance
from kg_memory.domain.resolution.similarity import (
    MAX_FUZZY_LENGTH,
    jaro,
    jaro_winkler,
    jaro_winkler_at_least,
)

_WORDS = st.text(alphabet="abcdeo", max_size=10)


def _osa(a: str, b: str) -> int:
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _jaro(a: str, b: str) -> float:
    if a == b:
        return 1.0 if a else 0.0
    if not a or not b:
        return 0.0
    window = max(0, max(len(a), len(b)) // 2 - 1)
    taken = [False] * len(b)
    matched_a: list[str] = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not taken[j] and b[j] == ch:
                taken[j] = True
                matched_a.append(ch)
                break
    if not matched_a:
        return 0.0
    matched_b = [b[j] for j in range(len(b)) if taken[j]]
    transpositions = sum(x != y for x, y in zip(matched_a, matched_b, strict=True)) / 2
    m = len(matched_a)
    return (m / len(a) + m / len(b) + (m - transpositions) / m) / 3


@settings(max_examples=400)
@given(_WORDS, _WORDS)
def test_edit_distance_and_jaro_are_the_textbook_ones(a: str, b: str) -> None:
    assert edit_distance(a, b) == _osa(a, b)
    assert jaro(a, b) == _jaro(a, b)


def test_a_length_gap_wider_than_a_typo_is_never_a_typo() -> None:
    # The length check that now skips the table must agree with the table.
    assert edit_distance("smithson", "smith") == 3
    assert compare_family("smithson", "smith").value == "different"
    assert compare_given("johnathan", "jonathan").value == "close"


# Few letters make repeats, out-of-order matches and odd transposition counts common (where the
# compiled Jaro parts from ours); the wider alphabet has spaces and letters beyond ASCII.
_PAIR_WORDS = st.one_of(st.text(alphabet="abc", max_size=12),
                        st.text(alphabet="abcdeo", max_size=20),
                        st.text(alphabet="aeinrst lé", max_size=30))


@settings(max_examples=1500, deadline=None)
@given(_PAIR_WORDS, _PAIR_WORDS)
@example("", "")
@example("abc", "bca")
@example("martha", "marhta")
def test_edit_distance_is_the_textbook_one_on_any_text(a: str, b: str) -> None:
    assert edit_distance(a, b) == _osa(a, b)


@settings(max_examples=1500, deadline=None)
@given(_PAIR_WORDS, _PAIR_WORDS, st.floats(min_value=0.0, max_value=1.0))
@example("", "", 0.0)
@example("aaaabc", "aaabca", 0.95)  # the compiled Jaro is higher; ours decides
@example("a" * (MAX_FUZZY_LENGTH + 1), "a" * MAX_FUZZY_LENGTH + "b", 0.0)
def test_jaro_winkler_at_least_answers_as_jaro_winkler_does(a: str, b: str, t: float) -> None:
    # At a drawn threshold, at the pair's own similarity and a float either side of it: the
    # compiled filter must never turn an answer of the Python measure.
    exact = jaro_winkler(a, b)
    for threshold in (t, exact, math.nextafter(exact, 2.0), math.nextafter(exact, -1.0),
                      0.85, 0.9, 0.92):
        assert jaro_winkler_at_least(a, b, threshold) is (exact >= threshold)
