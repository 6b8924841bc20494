"""Property tests: random operation logs replayed through the store, every as-of answer checked
against a small independent reference model.

The reference knows nothing of intervals, revisions or SQL: valid time is a row of integer
cells, and "as known after transaction k" is simply the cells after replaying the first k
transactions. If the store ever mutated history, answers for earlier k would drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

CELLS = 12  # valid-time points 0..11; an open end covers all of them
VALUES = ("a", "b", "c")


@dataclass(frozen=True)
class Put:
    value: str
    start: int
    end: int | None


@dataclass(frozen=True)
class Retract:
    start: int
    end: int | None


def _span(draw: st.DrawFn) -> tuple[int, int | None]:
    start = draw(st.integers(0, CELLS - 1))
    end = draw(st.one_of(st.none(), st.integers(start + 1, CELLS)))
    return start, end


@st.composite
def operations(draw: st.DrawFn) -> Put | Retract:
    start, end = _span(draw)
    if draw(st.integers(0, 3)) == 0:
        return Retract(start, end)
    return Put(draw(st.sampled_from(VALUES)), start, end)


transactions = st.lists(
    st.tuples(st.lists(operations(), min_size=1, max_size=3), st.booleans()),
    min_size=1,
    max_size=8,
)


class Reference:
    """Cells of valid time; a transaction applies its retractions, then its puts (the store's
    documented order within one episode)."""

    def __init__(self) -> None:
        self.cells: list[str | None] = [None] * CELLS
        self.snapshots: list[list[str | None]] = [list(self.cells)]

    def apply(self, ops: list[Put | Retract]) -> None:
        ordered = [o for o in ops if isinstance(o, Retract)] + [
            o for o in ops if isinstance(o, Put)
        ]
        for op in ordered:
            stop = CELLS if op.end is None else op.end
            for v in range(op.start, stop):
                self.cells[v] = op.value if isinstance(op, Put) else None
        self.snapshots.append(list(self.cells))


def _at(n: int) -> str:
    return (EPOCH + timedelta(days=n)).isoformat()


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(txs=transactions)
def test_every_asof_answer_matches_the_reference(
    make_memory: MemoryFactory,
    txs: list[tuple[list[Put | Retract], bool]],
) -> None:
    reference = Reference()
    clock = ManualClock(EPOCH + timedelta(days=100))
    system_times = []
    with make_memory(clock) as mem:
        for index, (ops, tick) in enumerate(txs):
            if tick:  # otherwise several transactions share one clock reading
                clock.now += timedelta(seconds=1)
            puts = [
                fact(
                    "x",
                    "p",
                    o.value,
                    valid_from=EPOCH + timedelta(days=o.start),
                    valid_to=None if o.end is None else EPOCH + timedelta(days=o.end),
                )
                for o in ops
                if isinstance(o, Put)
            ]
            retractions = [
                {
                    "subject": "x",
                    "predicate": "p",
                    "valid_from": _at(o.start),
                    "valid_to": None if o.end is None else _at(o.end),
                }
                for o in ops
                if isinstance(o, Retract)
            ]
            report = mem.ingest(
                episode(f"op-{index}", "user", EPOCH, assertions=puts, retractions=retractions)
            )
            assert report.system_time is not None
            system_times.append(report.system_time)
            reference.apply(ops)

        assert system_times == sorted(set(system_times)), "system time must strictly increase"
        for k, known in enumerate(system_times, start=1):
            for v in range(CELLS):
                answer = mem.asof(EPOCH + timedelta(days=v, hours=12), known, subject="x")
                expected = reference.snapshots[k][v]
                assert answer.values() == ([] if expected is None else [expected]), (k, v)
        before_any = system_times[0] - timedelta(microseconds=1)
        assert mem.asof(EPOCH + timedelta(days=1), before_any, subject="x").facts == ()
        # The live revisions of the slot never overlap in valid time.
        live = list(mem.asof(EPOCH, system_times[-1], subject="x").facts)
        assert len(live) <= 1
