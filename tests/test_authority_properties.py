"""Property test: writers of different authority never supersede each other.

Random histories of writes and retractions into one slot by the user, the agent (the user's
tier) and a tool (a third party) are replayed through the store and every as-of answer is
checked against a small independent reference: one row of valid-time cells per authority tier,
each updated only by its own tier's writers; the answer serves the highest tier that holds a
value and lists the other tier's different value as a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

CELLS = 8
VALUES = ("a", "b")
#: writer -> (tier, kind it writes, channel it arrives over)
WRITERS = {"user": (0, "stated", "chat"), "agent": (0, "stated", "chat"),
           "tool": (1, "world", "tool")}


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
        self.tiers: list[list[str | None]] = [[None] * CELLS, [None] * CELLS]
        self.snapshots: list[list[list[str | None]]] = []

    def apply(self, op: Op) -> None:
        tier = WRITERS[op.writer][0]
        for cell in range(op.start, CELLS if op.end is None else op.end):
            self.tiers[tier][cell] = op.value
        self.snapshots.append([list(row) for row in self.tiers])

    @staticmethod
    def answer(snapshot: list[list[str | None]], cell: int) -> tuple[list[str], list[str]]:
        top, low = snapshot[0][cell], snapshot[1][cell]
        if top is None:
            return ([] if low is None else [low]), []
        return [top], ([] if low is None or low == top else [low])


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
            _, kind, channel = WRITERS[op.writer]
            span = {"valid_from": _iso(op.start), "valid_to": _iso(op.end)}
            if op.value is None:
                body = {"retractions": [{"subject": "x", "predicate": "p", **span}]}
            else:
                body = {"assertions": [fact("x", "p", op.value, kind, **span)]}
            mem.ingest(episode(f"op-{index}", op.writer, EPOCH, channel=channel, **body))
            reference.apply(op)
            known.append(clock.now)

        for k, at in enumerate(known):
            for cell in range(CELLS):
                answer = mem.asof(EPOCH + timedelta(days=cell, hours=12), at, subject="x")
                served, conflicts = reference.answer(reference.snapshots[k], cell)
                assert answer.values() == served, (k, cell)
                assert [c.fact.value for c in answer.conflicts] == conflicts, (k, cell)
                if conflicts:
                    assert answer.facts[0].writer in ("user", "agent")
                    assert answer.conflicts[0].fact.writer == "tool"
