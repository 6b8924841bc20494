"""Half-open intervals against a reference model: an interval is the set of instants it holds.

The reference knows nothing of the implementation. Instants are whole hours on a small grid,
so every boundary case (touching ends, equal starts, an open end) comes up often, and the set of
hours ``[start, end)`` is computed by counting. An open end stands for "past the grid".
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory import Interval

BASE = datetime(2026, 1, 1, tzinfo=UTC)
GRID = 12  # hours 0..11; an open end reaches past the grid, to OPEN_END
OPEN_END = GRID + 4


def at(hour: int) -> datetime:
    return BASE + timedelta(hours=hour)


@st.composite
def intervals(draw: st.DrawFn) -> tuple[Interval, frozenset[int]]:
    """An interval and the reference's set of the hours it holds."""
    start = draw(st.integers(0, GRID - 1))
    end = draw(st.none() | st.integers(start + 1, GRID))
    hours = frozenset(range(start, OPEN_END if end is None else end))
    return Interval(start=at(start), end=None if end is None else at(end)), hours


def hours_of(parts: list[Interval]) -> frozenset[int]:
    held: set[int] = set()
    for part in parts:
        stop = OPEN_END if part.end is None else int((part.end - BASE) / timedelta(hours=1))
        held |= set(range(int((part.start - BASE) / timedelta(hours=1)), stop))
    return frozenset(held)


@given(intervals(), st.integers(0, OPEN_END - 1))
def test_contains_is_membership(pair: tuple[Interval, frozenset[int]], hour: int) -> None:
    interval, hours = pair
    assert interval.contains(at(hour)) == (hour in hours)


@given(intervals(), intervals())
def test_overlaps_is_a_shared_instant(
    a: tuple[Interval, frozenset[int]], b: tuple[Interval, frozenset[int]]
) -> None:
    assert a[0].overlaps(b[0]) == bool(a[1] & b[1])
    assert a[0].overlaps(b[0]) == b[0].overlaps(a[0])


@given(intervals(), intervals())
def test_covers_is_inclusion(
    a: tuple[Interval, frozenset[int]], b: tuple[Interval, frozenset[int]]
) -> None:
    assert a[0].covers(b[0]) == (b[1] <= a[1])


@given(intervals(), intervals())
def test_minus_is_set_difference_in_order_without_touching_parts(
    a: tuple[Interval, frozenset[int]], b: tuple[Interval, frozenset[int]]
) -> None:
    parts = a[0].minus(b[0])
    assert hours_of(parts) == a[1] - b[1]
    assert len(parts) <= 2
    for left, right in itertools.pairwise(parts):
        assert left.end is not None
        assert left.end < right.start
    if not a[1] & b[1]:
        assert parts == [a[0]]  # untouched when disjoint: the same interval, not a copy of it


@given(intervals())
def test_is_open_means_no_end(pair: tuple[Interval, frozenset[int]]) -> None:
    interval, hours = pair
    assert interval.is_open == (OPEN_END - 1 in hours)


@pytest.mark.parametrize("end", [0, -1])
def test_an_end_at_or_before_the_start_is_refused(end: int) -> None:
    with pytest.raises(ValueError, match="must be after its start"):
        Interval(start=at(3), end=at(3 + end))


def test_an_interval_is_frozen_and_prints_half_open() -> None:
    interval = Interval(start=at(0), end=at(1))
    with pytest.raises(ValueError, match="frozen"):
        interval.start = at(2)  # type: ignore[misc]
    assert str(interval) == "[2026-01-01T00:00:00+00:00, 2026-01-01T01:00:00+00:00)"
    assert str(Interval(start=at(0))) == "[2026-01-01T00:00:00+00:00, ∞)"
