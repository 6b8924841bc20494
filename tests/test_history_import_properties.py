"""Property tests of importing history: random mixes of imports (in order, out of order, with
ties, into the future) and live writes, every outcome and as-of answer checked against a small
independent reference model.

The reference knows nothing of batches, units or stores. Its rule is the one documented: an
imported record is known from its ``occurred_at``; an import stops at the first record that is
in the future, earlier than the record before it, or (its first) earlier than the latest
system time; a record is given ``max(instant, latest + 1 µs)``, a live write the same with the
clock's reading. Valid time is a row of integer cells, and "as known at K" is the cells after
applying, in system-time order, every record given a system time at or before K.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import ImportOrderError
from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

CELLS = 12  # valid-time days 0..11; each record holds from its day on
NOW = EPOCH + timedelta(days=20)  # the wall clock while importing
FUTURE = 30  # a day after NOW
MICRO = timedelta(microseconds=1)


@dataclass(frozen=True)
class Import:
    days: tuple[int, ...]


@dataclass(frozen=True)
class Live:
    day: int  # the clock's reading when the live write arrives (and its occurred_at)


operations = st.lists(
    st.one_of(
        st.builds(Import, st.lists(st.sampled_from([*range(CELLS), FUTURE]), min_size=1,
                                   max_size=5).map(tuple)),
        st.builds(Live, st.integers(0, CELLS - 1)),
    ),
    min_size=1,
    max_size=6,
)


def _day(n: int) -> datetime:
    return EPOCH + timedelta(days=n)


@dataclass
class Reference:
    latest: datetime | None = None
    #: (system time, day, value) of every accepted record, in the order accepted
    known: list[tuple[datetime, int, str]] = field(default_factory=list)

    def _give(self, instant: datetime, day: int, value: str) -> None:
        given = instant if self.latest is None or instant > self.latest else self.latest + MICRO
        self.latest = given
        self.known.append((given, day, value))

    def live(self, day: int, value: str) -> None:
        self._give(_day(day), day, value)

    def import_(self, days: tuple[int, ...], values: list[str]) -> bool:
        """Apply an import; whether it was refused part way."""
        for index, (day, value) in enumerate(zip(days, values, strict=True)):
            if _day(day) > NOW or (index > 0 and day < days[index - 1]):
                return True
            if index == 0 and self.latest is not None and _day(day) < self.latest:
                return True
            self._give(_day(day), day, value)
        return False

    def cells(self, known_at: datetime) -> list[str | None]:
        row: list[str | None] = [None] * CELLS
        for stamp, day, value in sorted(self.known):
            if stamp <= known_at:
                for cell in range(day, CELLS):
                    row[cell] = value
        return row


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_imports_and_live_writes_match_the_reference(
    make_memory: MemoryFactory, ops: list[Import | Live]
) -> None:
    reference = Reference()
    clock = ManualClock(NOW)
    serial = 0
    with make_memory(clock) as mem:
        for op in ops:
            if isinstance(op, Live):
                value = f"v{serial}"
                clock.now = _day(op.day)
                mem.ingest(episode(f"op-{serial}", "user", _day(op.day),
                                   assertions=[fact("x", "p", value)]))
                serial += 1
                reference.live(op.day, value)
                clock.now = NOW
                continue
            values = [f"v{serial + i}" for i in range(len(op.days))]
            records = [episode(f"op-{serial + i}", "user", _day(d),
                               assertions=[fact("x", "p", v)])
                       for i, (d, v) in enumerate(zip(op.days, values, strict=True))]
            serial += len(records)
            refused = reference.import_(op.days, values)
            if refused:
                with pytest.raises(ImportOrderError) as caught:
                    mem.import_history(records, by="ops")
                assert caught.value.field == "occurred_at"
            else:
                mem.import_history(records, by="ops")

        stored = sorted(e.recorded_at for e in mem.store.scope_episodes("u1"))
        assert stored == [stamp for stamp, _, _ in reference.known], "system times"
        assert len(set(stored)) == len(stored), "system time strictly increases"
        for known_at in [*stored, *(t - MICRO for t in stored)]:
            expected = reference.cells(known_at)
            for cell in range(CELLS):
                answer = mem.asof(_day(cell) + timedelta(hours=12), known_at, subject="x")
                assert answer.values() == ([] if expected[cell] is None else [expected[cell]]), (
                    known_at, cell)
