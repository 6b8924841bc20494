"""``decision_id`` writes its instant by hand: the same text ``strftime`` wrote before.

Every stored decision is keyed by its id, so the hand-written stamp must equal the one
``strftime("%Y-%m-%dT%H:%M:%S.%fZ")`` made, microseconds and all; the year before 1000 is
written unpadded, as glibc's ``%Y`` (the platform the ids were minted on) writes it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from kg_memory.domain.resolution.decision import decision_id


def _by_strftime(mention_id: str, decided_by: str, at: datetime) -> str:
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return f"{mention_id}@{decided_by}@{stamp}"


_OFFSETS = st.sampled_from([UTC, timezone(timedelta(hours=2)),
                            timezone(timedelta(hours=-9, minutes=-30)),
                            timezone(timedelta(hours=14))])


@given(at=st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30),
                       timezones=_OFFSETS),
       mention_id=st.text(min_size=1, max_size=8))
def test_decision_id_is_strftimes_text(at: datetime, mention_id: str) -> None:
    assert decision_id(mention_id, "resolver", at) == _by_strftime(mention_id, "resolver", at)


def test_decision_id_on_edge_instants() -> None:
    cases = [
        (datetime(2026, 1, 5, 9, tzinfo=UTC), "2026-01-05T09:00:00.000000Z"),
        (datetime(2026, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
         "2026-12-31T23:59:59.999999Z"),
        (datetime(2026, 3, 1, 0, 0, 0, 1, tzinfo=UTC), "2026-03-01T00:00:00.000001Z"),
        (datetime(2026, 1, 1, 1, 30, tzinfo=timezone(timedelta(hours=2))),
         "2025-12-31T23:30:00.000000Z"),
        (datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
         "9999-12-31T23:59:59.999999Z"),
        (datetime(1000, 1, 1, tzinfo=UTC), "1000-01-01T00:00:00.000000Z"),
    ]
    for at, stamp in cases:
        assert decision_id("m1", "ann", at) == f"m1@ann@{stamp}"
        assert decision_id("m1", "ann", at) == _by_strftime("m1", "ann", at)


def test_decision_id_before_year_1000_is_unpadded() -> None:
    # glibc's %Y (where every stored id was minted): the year as a plain number.
    assert decision_id("m", "r", datetime(999, 5, 6, 7, 8, 9, 10, tzinfo=UTC)) == (
        "m@r@999-05-06T07:08:09.000010Z")
    assert decision_id("m", "r", datetime(1, 1, 1, tzinfo=UTC)) == (
        "m@r@1-01-01T00:00:00.000000Z")
    if datetime(999, 1, 1, tzinfo=UTC).strftime("%Y") == "999":  # glibc
        at = datetime(42, 2, 3, 4, 5, 6, tzinfo=UTC)
        assert decision_id("m", "r", at) == _by_strftime("m", "r", at)
