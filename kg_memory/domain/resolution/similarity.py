"""String and value similarity for the comparators: Jaro-Winkler, and the small edit rules that
decide when two values are "close" rather than different.

Jaro and Jaro-Winkler are ours, in Python, because a decision records its weights and so
depends on the exact float: RapidFuzz's Jaro halves the transpositions in integers (ours, the
textbook's, in floats), so it differs whenever their count is odd. It is never lower than ours,
though, and equal otherwise, which makes it an exact filter for the only question the comparator
asks, "at least this alike?" (:func:`jaro_winkler_at_least`); the pairs it cannot rule out are
measured here. The edit distance is RapidFuzz's optimal string alignment, the same integer
(``tests/test_resolution_string_measures.py``).

>>> round(jaro_winkler("martha", "marhta"), 4)
0.9611
>>> jaro_winkler("", "abc"), jaro_winkler("abc", "abc")
(0.0, 1.0)
>>> near_miss("6988048", "6988084"), near_miss("6988048", "1234567")
(True, False)
"""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz.distance import Jaro

from kg_memory.domain.resolution.names import edit_distance

__all__ = ["MAX_FUZZY_LENGTH", "jaro", "jaro_winkler", "jaro_winkler_at_least", "near_miss"]

#: Longer values are compared exactly only: both fuzzy measures are quadratic in the length,
#: and no name, street, postcode or identifier is this long unless someone wants the resolver
#: to spend minutes on one mention.
MAX_FUZZY_LENGTH = 128


def jaro(a: str, b: str) -> float:
    """The Jaro similarity of two strings, from 0 (nothing in common) to 1 (equal)."""
    if a == b:
        return 1.0 if a else 0.0
    if not a or not b or max(len(a), len(b)) > MAX_FUZZY_LENGTH:
        return 0.0
    window = max(0, max(len(a), len(b)) // 2 - 1)
    taken = [False] * len(b)
    matched_a: list[str] = []
    for i, ch in enumerate(a):
        lo, hi = max(0, i - window), min(len(b), i + window + 1)
        # The first free position holding ``ch`` in the window (str.find, not a loop in Python).
        j = b.find(ch, lo, hi)
        while j != -1 and taken[j]:
            j = b.find(ch, j + 1, hi)
        if j != -1:
            taken[j] = True
            matched_a.append(ch)
    if not matched_a:
        return 0.0
    matched_b = [b[j] for j in range(len(b)) if taken[j]]
    transpositions = sum(x != y for x, y in zip(matched_a, matched_b, strict=True)) / 2
    m = len(matched_a)
    return (m / len(a) + m / len(b) + (m - transpositions) / m) / 3


@lru_cache(maxsize=65536)
def jaro_winkler(a: str, b: str, prefix_scale: float = 0.1) -> float:
    """Jaro similarity boosted for a shared prefix of up to four characters (typos tend to
    come late in a word, so a shared start is telling)."""
    return _boosted(a, b, jaro(a, b), prefix_scale)


def _boosted(a: str, b: str, sim: float, prefix_scale: float) -> float:
    if sim == 0.0:
        return 0.0  # nothing in common (or too long to compare): a shared prefix adds nothing
    prefix = 0
    for x, y in zip(a[:4], b[:4], strict=False):
        if x != y:
            break
        prefix += 1
    return sim + prefix * prefix_scale * (1.0 - sim)


def jaro_winkler_at_least(a: str, b: str, threshold: float) -> bool:
    """``jaro_winkler(a, b) >= threshold``, the same answer for every pair, mostly from the
    compiled Jaro: it is ours exactly when the two strings' matched letters are out of order an
    even number of times, and higher than ours when odd (by at least a sixth of one over the
    matches, far above rounding), so below the threshold it rules ours out too. Only a pair it
    puts at or above the threshold is measured in Python (a near street, not every street)."""
    if a == b or not a or not b or max(len(a), len(b)) > MAX_FUZZY_LENGTH:
        return jaro_winkler(a, b) >= threshold  # the edge cases, where the two part ways
    # Below by more than rounding: the compiled Jaro computes an equal value in another order
    # of float operations, so one ulp under ours must not rule out a pair ours puts at the
    # threshold.
    if _boosted(a, b, Jaro.similarity(a, b), 0.1) < threshold - 1e-12:
        return False
    return jaro_winkler(a, b) >= threshold


def near_miss(a: str, b: str, *, edits: int = 1, min_length: int = 4) -> bool:
    """True when ``a`` and ``b`` differ by at most ``edits`` single-character edits (an adjacent
    transposition counts as one), and both are long enough that such an edit is more likely a
    typo than a different value: ``12`` and ``13`` are two house numbers, ``6988048`` and
    ``6988084`` one number typed twice."""
    if a == b or min(len(a), len(b)) < min_length or max(len(a), len(b)) > MAX_FUZZY_LENGTH:
        return False
    if abs(len(a) - len(b)) > edits:
        return False
    return edit_distance(a, b) <= edits
