"""Imported history: the system time a record of a past stream is known at, and when the
store must refuse it.

A live ingest is known when it arrives, so the store stamps it with its clock. A past stream
(last year's conversations) was known when each of its records occurred: an import asks the
store for that instant instead, the record's ``occurred_at``. ``occurred_at`` is the one time
every line already carries; it is when the conversation held the episode, so when an agent
listening then would have known it, and nothing can be known before it happened (a separate
"recorded" field could claim exactly that).

The store still assigns system time and keeps it strictly increasing, as XTDB does for
transaction time: the instant asked for is accepted only if it is not before the store's
latest system time (one equal to it takes the next microsecond), and an import goes forward
in its own order. Records sharing an instant take successive microseconds. So an import goes
into a store before the live writes that follow it, never behind them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = ["HISTORY_FIELD", "MICROSECOND", "asked_instant", "held_later", "order_problem"]

#: The field of a record whose instant an import asks the store for.
HISTORY_FIELD = "occurred_at"

MICROSECOND = timedelta(microseconds=1)


def asked_instant(occurred_at: datetime, previous: datetime | None) -> datetime:
    """The system time to ask for: the record's own instant, or the previous record's system
    time when several records share an instant (the store then gives the next microsecond)."""
    return occurred_at if previous is None or occurred_at > previous else previous


def held_later(asked: datetime, given: datetime) -> bool:
    """Whether the store gave a later system time than the one asked for because it already
    held a later one. A store gives the instant asked for, or one microsecond after its latest
    system time when that is not earlier; anything later means its latest was after ``asked``.
    """
    return given - asked > MICROSECOND


def order_problem(occurred_at: datetime, before: datetime | None, now: datetime) -> str | None:
    """Why a record cannot be imported after one that occurred at ``before``, or ``None``."""
    if occurred_at > now:
        return (f"{occurred_at.isoformat()} is in the future (now is {now.isoformat()}): "
                "nothing can have been known then")
    if before is not None and occurred_at < before:
        return (f"{occurred_at.isoformat()} is before the previous record's "
                f"{before.isoformat()}: an import goes forward in time, in the order its "
                "source knew it")
    return None
