"""One session day of the dinner study: what memory answered, read by read, and how it was asked.

Seed 000's ``day POLICY N`` command: each read's answer with its verdict and, for the runs on the
real memory graph, the as-of query that produced it (runnable against any store with
``kg-memory asof``).
"""

from __future__ import annotations

from kg_memory.sim.dinner import Read, Run
from kg_memory.store.protocol import AsOfQuery

__all__ = ["asof_command", "session", "session_days"]


def session_days(run: Run) -> list[int]:
    """The days on which memory was read, in order."""
    return sorted({r.day for r in run.reads})


def session(run: Run, day: int) -> tuple[Read, ...]:
    """What memory answered on session ``day``: its reads, in the scenario's order.

    Raises ``ValueError`` when nothing was read that day (not a session day).
    """
    reads = tuple(r for r in run.reads if r.day == day)
    if not reads:
        days = session_days(run)
        raise ValueError(
            f"day {day} is not a session day; sessions are days {days[0]}, {days[1]}, ..., "
            f"{days[-1]} (every {days[1] - days[0]} days)"
        )
    return reads


def asof_command(query: AsOfQuery) -> str:
    """The ``kg-memory asof`` command line that asks ``query`` of a store."""
    parts = [
        "kg-memory asof",
        f"--valid-at {query.valid_at.strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"--known-at {query.known_at.strftime('%Y-%m-%dT%H:%M:%SZ')}",
    ]
    for name in ("subject", "predicate", "scope"):
        value = getattr(query, name)
        if value is not None:
            parts.append(f"--{name} {value}")
    return " ".join(parts)

