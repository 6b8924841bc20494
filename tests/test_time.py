from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from kg_memory import Interval, IntervalError, NaiveDatetimeError, TimeError, parse_instant
from kg_memory.domain.instant import ensure_utc, from_micros, to_micros


def test_naive_datetimes_are_refused_with_a_clear_error() -> None:
    with pytest.raises(NaiveDatetimeError, match="no timezone"):
        ensure_utc(datetime(2026, 1, 1, 12))
    with pytest.raises(NaiveDatetimeError):
        parse_instant("2026-01-01T12:00:00")


def test_offsets_are_normalised_to_utc() -> None:
    paris = timezone(timedelta(hours=1))
    assert ensure_utc(datetime(2026, 1, 1, 13, tzinfo=paris)) == datetime(
        2026, 1, 1, 12, tzinfo=UTC
    )
    assert parse_instant("2026-01-01T13:00:00+01:00").tzinfo == UTC


def test_garbage_is_a_time_error() -> None:
    with pytest.raises(TimeError, match="not an ISO 8601"):
        parse_instant("next tuesday")


def test_microsecond_round_trip_is_exact() -> None:
    t = datetime(2026, 3, 1, 1, 2, 3, 456789, tzinfo=UTC)
    assert from_micros(to_micros(t)) == t


def test_interval_must_end_after_it_starts() -> None:
    # Model construction reports through pydantic, with the field and our message.
    t = datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(ValidationError, match="must be after its start"):
        Interval(start=t, end=t)
    with pytest.raises(ValidationError, match="no timezone"):
        Interval(start=datetime(2026, 1, 1))
    assert issubclass(IntervalError, ValueError)


def _iv(a: int, b: int | None) -> Interval:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    return Interval(
        start=base + timedelta(days=a), end=None if b is None else base + timedelta(days=b)
    )


def test_half_open_semantics() -> None:
    assert _iv(0, 10).contains(_iv(0, 1).start)
    assert not _iv(0, 10).contains(_iv(10, 11).start)
    assert not _iv(0, 10).overlaps(_iv(10, None))
    assert _iv(0, None).overlaps(_iv(100, 101))
    assert _iv(0, None).covers(_iv(3, None))
    assert not _iv(0, 10).covers(_iv(3, None))


def test_minus_splits_and_trims() -> None:
    assert _iv(0, 10).minus(_iv(3, 5)) == [_iv(0, 3), _iv(5, 10)]
    assert _iv(0, None).minus(_iv(3, None)) == [_iv(0, 3)]
    assert _iv(0, None).minus(_iv(3, 5)) == [_iv(0, 3), _iv(5, None)]
    assert _iv(3, 5).minus(_iv(0, None)) == []
    assert _iv(0, 3).minus(_iv(3, 5)) == [_iv(0, 3)]
