"""How tables print instants and intervals: short enough for two intervals in 80 columns.

The rules (docs/cli.md, "Reading the tables", says the same for users):

* Every instant is UTC. A table prints it to the minute, ``02-04 09:00``, or as the date alone,
  ``02-04``, when it is exactly midnight.
* The year is left out when every instant in the table falls in one year, and the table's
  caption then names it (``UTC, 2026``); otherwise every instant carries its year
  (``2025-12-31 23:00``).
* A column in which two different instants share a minute shows seconds (``09:10:28``).
  Digits are cut, never rounded, so what is shown is never later than what is stored and the
  order of rows is the order of the store. Instants less than a second apart can read the same
  in a table; ``--wide`` prints every instant with all its digits, ``--json`` in ISO 8601.
* An interval is one token, ``start→end``, half-open: it holds from ``start`` up to, not
  including, ``end``; ``∞`` is an open end. As in ISO 8601's abbreviated intervals, an end on
  the start's date omits the date: ``02-04 09:00→17:30``.

>>> from datetime import UTC, datetime
>>> jan5, feb4 = datetime(2026, 1, 5, 9, tzinfo=UTC), datetime(2026, 2, 4, tzinfo=UTC)
>>> in_2026 = TimeFormat(year=2026)
>>> in_2026.interval(Interval(start=jan5, end=feb4)), in_2026.interval(Interval(start=feb4))
('01-05 09:00→02-04', '02-04→∞')
>>> TimeFormat().interval(Interval(start=jan5, end=jan5.replace(hour=17, minute=30)))
'2026-01-05 09:00→17:30'
>>> late = jan5.replace(second=30, microsecond=250_000)
>>> Precision.of([jan5, late]).name, Precision.of([late, late.replace(microsecond=0)]).name
('SECOND', 'SECOND')
>>> TimeFormat(precision=Precision.EXACT).instant(late)
'2026-01-05 09:00:30.250'
>>> in_2026.interval(Interval(start=late, end=late.replace(microsecond=412_000)))
'01-05 09:00→09:00:30'
>>> TimeFormat(2026, Precision.SECOND).interval(
...     Interval(start=late, end=late.replace(microsecond=412_500)))
'01-05 09:00:30→09:00:30.412'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import IntEnum

from kg_memory import Interval

__all__ = ["ARROW", "OPEN", "Precision", "TimeFormat", "exact", "single_year"]

ARROW = "→"
OPEN = "∞"


class Precision(IntEnum):
    """The finest unit a column shows; ``EXACT`` shows each instant with all its digits."""

    MINUTE = 0
    SECOND = 1
    EXACT = 2

    def cut(self, value: datetime) -> datetime:
        """``value`` without the digits this precision does not show (cut, not rounded)."""
        if self is Precision.MINUTE:
            return value.replace(second=0, microsecond=0)
        if self is Precision.SECOND:
            return value.replace(microsecond=0)
        return value

    @classmethod
    def of(cls, instants: Iterable[datetime]) -> Precision:
        """Minutes, or seconds when two of the distinct ``instants`` share a minute."""
        distinct = set(instants)
        minutes = {cls.MINUTE.cut(i) for i in distinct}
        return cls.MINUTE if len(minutes) == len(distinct) else cls.SECOND


def single_year(instants: Iterable[datetime]) -> int | None:
    """The one year all ``instants`` fall in (UTC), or None when they span several or none."""
    years = {i.astimezone(UTC).year for i in instants}
    return years.pop() if len(years) == 1 else None


@dataclass(frozen=True)
class TimeFormat:
    """Prints the instants of one column; ``year`` is the year left out (the caption names it)."""

    year: int | None = None
    precision: Precision = Precision.MINUTE

    def _date(self, value: datetime) -> str:
        return value.strftime("%m-%d" if value.year == self.year else "%Y-%m-%d")

    def _clock(self, value: datetime) -> str:
        shown = self.precision.cut(value)
        clock = shown.strftime("%H:%M")
        if self.precision is Precision.SECOND or (shown.second or shown.microsecond):
            clock += shown.strftime(":%S")
        if shown.microsecond:
            digits = f"{shown.microsecond:06d}"
            clock += "." + (digits[:3] if digits.endswith("000") else digits)
        return clock

    def instant(self, value: datetime | None) -> str:
        if value is None:
            return OPEN
        value = value.astimezone(UTC)
        if value == value.replace(hour=0, minute=0, second=0, microsecond=0):
            return self._date(value)
        return f"{self._date(value)} {self._clock(value)}"

    def _later(self, start: datetime, end: datetime) -> tuple[TimeFormat, datetime]:
        shown = self.precision.cut(start)
        for precision in Precision:
            if precision < self.precision:
                continue
            cut = precision.cut(end)
            if precision is Precision.EXACT and self.precision is not Precision.EXACT:
                millis = end.replace(microsecond=end.microsecond // 1000 * 1000)
                cut = millis if millis > shown else end
            if cut > shown:
                return TimeFormat(self.year, precision), cut
        return self, end  # an empty interval, which reads as one

    def interval(self, value: Interval) -> str:
        start, end = value.start.astimezone(UTC), value.end
        if end is None:
            return f"{self.instant(start)}{ARROW}{OPEN}"
        end = end.astimezone(UTC)
        # Cut to the column's precision, a short interval would read as empty (09:00→09:00):
        # its end gets the digits, down to microseconds, that show it is later.
        fine, end = self._later(start, end)
        if end.date() == start.date():
            return f"{self.instant(start)}{ARROW}{fine._clock(end)}"
        return f"{self.instant(start)}{ARROW}{fine.instant(end)}"


def exact(value: datetime | None) -> str:
    """An instant with its year and every digit it has (titles have the room).

    >>> exact(datetime(2026, 2, 14, 20, tzinfo=UTC))
    '2026-02-14 20:00'
    >>> exact(datetime(2026, 2, 14, 20, 0, 1, 500, tzinfo=UTC))
    '2026-02-14 20:00:01.000500'
    """
    return TimeFormat(precision=Precision.EXACT).instant(value)
