"""One session day of the dinner study: what memory answered, read by read, and how it was asked.

Seed 000's ``day POLICY N`` command: each read's answer with its verdict and, for the runs on the
real memory graph, the as-of query that produced it, also as the ``kg-memory asof`` command line
that asks a store the same question.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.model import Value
from kg_memory.sim.baseline import Settings
from kg_memory.sim.dinner import Run, Served, Verdict
from kg_memory.store.protocol import AsOfQuery

__all__ = ["Session", "SessionRead", "asof_command", "session"]


class SessionRead(BaseModel):
    """One read of the session; ``query`` and ``command`` are None for the baselines."""

    model_config = ConfigDict(frozen=True)

    key: str
    served: tuple[Served, ...]
    truth: Value | None
    verdict: Verdict
    query: AsOfQuery | None
    command: str | None


class Session(BaseModel):
    """What memory answered on one session day under one policy; field order is JSON order."""

    model_config = ConfigDict(frozen=True)

    policy: str
    title: str
    day: int
    ttl: int
    unused_days: int
    reads: tuple[SessionRead, ...]


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
    if query.scope is None:
        parts.append("--all-scopes")  # the command line reads every tenant only when told
    return " ".join(parts)


def session(run: Run, day: int, settings: Settings | None = None) -> Session:
    """What memory answered on session ``day`` of ``run``, its reads in the scenario's order.

    Raises ``ValueError`` naming the session days when nothing was read on ``day``.
    """
    reads = [r for r in run.reads if r.day == day]
    if not reads:
        days = sorted({r.day for r in run.reads})
        raise ValueError(
            f"day {day} is not a session day; sessions are days {days[0]}, {days[1]}, ..., "
            f"{days[-1]} (every {days[1] - days[0]} days)"
        )
    s = settings or Settings()
    return Session(
        policy=run.slug,
        title=run.title,
        day=day,
        ttl=s.ttl,
        unused_days=s.unused_days,
        reads=tuple(
            SessionRead(
                key=r.key,
                served=r.served,
                truth=r.truth,
                verdict=r.verdict,
                query=r.query,
                command=asof_command(r.query) if r.query else None,
            )
            for r in reads
        ),
    )
