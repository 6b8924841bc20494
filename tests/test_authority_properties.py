"""Property test: writers of different authority never supersede each other.

Random histories of writes and retractions into one slot by the user and the agent over chat
(statements, the user's tier), the agent over its tool channel (world facts, the user's tier)
and a tool (world facts, a third party) are replayed through the store, and every as-of answer
is checked against a small independent reference: one row of valid-time cells per timeline,
each changed only by its own writers. The answer serves the first timeline that holds a value
(statements, then the user's tier's world facts, then the third party's) and lists the others'
different values as conflicts. A retraction clears the timelines of the writer's tier whose
kind it may write over its channel, and never another tier's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

CELLS = 8
VALUES = ("a", "b")
#: who -> (source, kind it writes, channel, timeline it writes, timelines it may retract)
WRITERS = {
    "user": ("user", "stated", "chat", 0, (0,)),
    "agent": ("agent", "stated", "chat", 0, (0, 1)),
    "agent-tool": ("agent", "world", "tool", 1, (1,)),
    "tool": ("tool", "world", "tool", 2, (2,)),
}
TIMELINES = 3


@dataclass(frozen=True)
class Op:
    writer: str
    value: str | None  # None: a retraction
    start: int
    end: int | None


@st.composite
def ops(draw: st.DrawFn) -> Op:
    start = draw(st.integers(0, CELLS - 1))
    end = draw(st.one_of(st.none(), st.integers(start + 1, CELLS)))
    value = None if draw(st.integers(0, 3)) == 0 else draw(st.sampled_from(VALUES))
    return Op(draw(st.sampled_from(sorted(WRITERS))), value, start, end)


class Reference:
    def __init__(self) -> None:
        self.rows: list[list[str | None]] = [[None] * CELLS for _ in range(TIMELINES)]
        self.snapshots: list[list[list[str | None]]] = []

    def apply(self, op: Op) -> None:
        _, _, _, timeline, retracts = WRITERS[op.writer]
        for cell in range(op.start, CELLS if op.end is None else op.end):
            for row in (retracts if op.value is None else (timeline,)):
                self.rows[row][cell] = op.value
        self.snapshots.append([list(row) for row in self.rows])

    @staticmethod
    def answer(snapshot: list[list[str | None]], cell: int) -> tuple[list[str], list[str]]:
        values = [value for row in snapshot if (value := row[cell]) is not None]
        if not values:
            return [], []
        served = values[0]
        return [served], sorted(v for v in values[1:] if v != served)


def _iso(n: int | None) -> str | None:
    return None if n is None else (EPOCH + timedelta(days=n)).isoformat()


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(history=st.lists(ops(), min_size=1, max_size=8))
def test_tiers_are_independent_timelines_and_the_highest_is_served(
    make_memory: MemoryFactory, history: list[Op]
) -> None:
    reference = Reference()
    clock = ManualClock(EPOCH + timedelta(days=100))
    known: list[datetime] = []
    with make_memory(clock) as mem:
        for index, op in enumerate(history):
            clock.now += timedelta(seconds=1)
            source, kind, channel, _, _ = WRITERS[op.writer]
            span = {"valid_from": _iso(op.start), "valid_to": _iso(op.end)}
            if op.value is None:
                body = {"retractions": [{"subject": "x", "predicate": "p", **span}]}
            else:
                body = {"assertions": [fact("x", "p", op.value, kind, **span)]}
            mem.ingest(episode(f"op-{index}", source, EPOCH, channel=channel, **body))
            reference.apply(op)
            known.append(clock.now)

        for k, at in enumerate(known):
            for cell in range(CELLS):
                answer = mem.asof(EPOCH + timedelta(days=cell, hours=12), at, subject="x")
                served, conflicts = reference.answer(reference.snapshots[k], cell)
                assert answer.values() == served, (k, cell)
                assert sorted(str(c.fact.value) for c in answer.conflicts) == conflicts, (k, cell)
