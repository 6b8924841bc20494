"""Comparators for the fields of a person record (date of birth, address, postcode, state) and
for the custom attributes a deployment declares.

Each returns a :class:`~kg_memory.domain.resolution.field.Level` and a short detail in words.
The levels are deliberately few (EXACT, CLOSE, DIFFERENT) so that their weights can be learned
from unlabelled pairs (:mod:`kg_memory.bench.resolution.training`); *which kind* of closeness was
seen is kept in the detail for the audit trail ("transposed day/month", "year only").

>>> compare_birth_date("1981-02-03", "19810302")
(<Level.CLOSE: 'close'>, 'transposed day/month')
>>> compare_birth_date("1981", "1981-02-03")
(<Level.CLOSE: 'close'>, 'year only')
>>> compare_postcode("4011", "4017"), compare_postcode("4011", "2600")
(<Level.CLOSE: 'close'>, <Level.DIFFERENT: 'different'>)
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.mention import birth_date_digits
from kg_memory.domain.resolution.names import edit_distance, normalize_text
from kg_memory.domain.resolution.similarity import jaro_winkler_at_least, near_miss

__all__ = [
    "Comparator",
    "compare_birth_date",
    "compare_custom",
    "compare_exact",
    "compare_postcode",
    "compare_text_jw",
    "generation_apart",
]

#: Birth years at least this far apart are a generation apart: a father and the son named after
#: him, not a typo (a mistyped year digit is one edit, and CLOSE).
GENERATION_YEARS = 15

#: Jaro-Winkler at or above this is CLOSE for free text (streets, localities): high enough that
#: "tullaroop street" ~ "tullarop street" is close and "giblin" ~ "gibson" is not.
JW_CLOSE = 0.92


class Comparator(StrEnum):
    """How a custom attribute is compared (declared in ``ResolverConfig.custom``)."""

    EXACT = "exact"  # equal after case folding, else different
    JARO_WINKLER = "jaro_winkler"  # equal; close at or above the threshold; else different
    NUMERIC = "numeric"  # |a - b| == 0 exact; <= tolerance close; else different
    DATE = "date"  # ISO dates: same day exact; within tolerance days close; else different


def compare_exact(a: str, b: str) -> Level:
    return Level.EXACT if normalize_text(a) == normalize_text(b) else Level.DIFFERENT


def compare_text_jw(a: str, b: str, close: float = JW_CLOSE) -> Level:
    na, nb = normalize_text(a), normalize_text(b)
    if na == nb:
        return Level.EXACT
    return Level.CLOSE if jaro_winkler_at_least(na, nb, close) else Level.DIFFERENT


def compare_postcode(a: str, b: str) -> Level:
    """Postcodes: equal; one character off (a typo, or the next district) is close."""
    na, nb = (normalize_text(x).replace(" ", "") for x in (a, b))
    if na == nb:
        return Level.EXACT
    return Level.CLOSE if near_miss(na, nb, min_length=1) else Level.DIFFERENT


def compare_birth_date(a: str, b: str) -> tuple[Level, str]:
    """Dates of birth: exact; close when day and month are transposed (US vs European order),
    when one side knows only the year and it agrees, or when one digit differs (a typo) or the
    dates are within a month; otherwise different."""
    da, db = birth_date_digits(a), birth_date_digits(b)
    if da is None or db is None:
        return Level.DIFFERENT, f"{a!r} vs {b!r}: not a date"
    if da == db:
        return Level.EXACT, da
    if len(da) == 4 or len(db) == 4:
        if da[:4] == db[:4]:
            return Level.CLOSE, "year only"
        return Level.DIFFERENT, f"year {da[:4]} vs {db[:4]}"
    if da[:4] == db[:4] and da[4:6] == db[6:8] and da[6:8] == db[4:6]:
        return Level.CLOSE, "transposed day/month"
    if edit_distance(da, db) <= 1:
        return Level.CLOSE, "one digit differs"
    days = _days_apart(da, db)
    if days is not None and days <= 31:
        return Level.CLOSE, f"{days} days apart"
    return Level.DIFFERENT, f"{da} vs {db}"


def generation_apart(said: str, known: list[str]) -> bool:
    """Whether the birth date ``said`` is a generation from every one of ``known``: the
    household namesake's pattern (John Smith and John Smith junior), as opposed to a date typed
    wrong, which is rarely fifteen years off."""
    mine = birth_date_digits(said)
    years = [d[:4] for d in map(birth_date_digits, known) if d is not None]
    if mine is None or not years:
        return False
    return all(abs(int(mine[:4]) - int(y)) >= GENERATION_YEARS for y in years)


def _days_apart(a: str, b: str) -> int | None:
    try:
        first = date(int(a[:4]), int(a[4:6]), int(a[6:8]))
        second = date(int(b[:4]), int(b[4:6]), int(b[6:8]))
    except ValueError:
        return None
    return abs((first - second).days)


def compare_custom(comparator: Comparator, a: str, b: str, close: float) -> Level:
    """Compare two values of a custom attribute. Values that do not parse as their type were
    refused when the mention was resolved, so a parse failure here means a stored profile
    value, which counts as a disagreement rather than an error."""
    if comparator is Comparator.EXACT:
        return compare_exact(a, b)
    if comparator is Comparator.JARO_WINKLER:
        return compare_text_jw(a, b, close)
    try:
        if comparator is Comparator.NUMERIC:
            distance = abs(float(a) - float(b))
        else:
            distance = abs((date.fromisoformat(a) - date.fromisoformat(b)).days)
    except ValueError:
        return Level.DIFFERENT
    if distance == 0:
        return Level.EXACT
    return Level.CLOSE if distance <= close else Level.DIFFERENT


def parses_as(comparator: Comparator, value: str) -> bool:
    """Whether ``value`` is of the type ``comparator`` compares."""
    try:
        if comparator is Comparator.NUMERIC:
            float(value)
        elif comparator is Comparator.DATE:
            date.fromisoformat(value)
    except ValueError:
        return False
    return True
