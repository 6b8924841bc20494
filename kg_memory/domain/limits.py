"""The limits of what kg-memory accepts, and the checks that enforce them without crashing.

Every limit is far above what an episode needs and low enough that hostile input costs bounded
time and memory and fits both backends' types:

* a line of ingest input: at most :data:`MAX_LINE_BYTES` bytes of UTF-8;
* JSON nesting: at most :data:`MAX_DEPTH` levels of objects and arrays;
* a string: at most :data:`MAX_STRING_CHARS` characters (an episode's ``content`` is bounded by
  the line instead), valid Unicode (no lone surrogate, which UTF-8 cannot encode);
* an integer: signed 64-bit (:data:`INT_RANGE`), SQLite's INTEGER and Neo4j's;
* a float: finite (JSON has no NaN or Infinity, and ``1e999`` overflows to one);
* an instant: see :data:`kg_memory.domain.instant.INSTANT_RANGE`;
* a JSON object: each key once (a second ``scope`` must not silently file a line under
  another tenant, as "last one wins" would).

The checks return a reason (or raise a :class:`~kg_memory.domain.errors.KgMemoryError`), never let a
``RecursionError``, ``OverflowError`` or ``UnicodeEncodeError`` out.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import Field

from kg_memory.domain.errors import InvalidArgument

__all__ = [
    "INT_RANGE",
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_STRING_CHARS",
    "DuplicateKey",
    "WindowDays",
    "check_text",
    "check_tree",
    "json_hooks",
    "plain_json",
    "scalar_problem",
    "unique_keys",
]

MAX_LINE_BYTES = 1 << 20  # one line of the file, in bytes (UTF-8), newline excluded
MAX_DEPTH = 32  # JSON nesting: objects and arrays inside each other
MAX_STRING_CHARS = 1 << 16  # any one string except ``content`` (bounded by the line)

#: A window of days before an instant (a write policy's reconcile window, a promotion window):
#: finite, and at most a century, since the window's start is a datetime that an infinite or
#: longer one would carry past the calendar (an OverflowError, not an answer).
WindowDays = Annotated[float, Field(gt=0, le=36_525, allow_inf_nan=False)]
INT_RANGE = (-(1 << 63), (1 << 63) - 1)  # signed 64-bit: SQLite's INTEGER and Neo4j's


class _Refused:
    """A JSON token the decoder saw but kg-memory refuses (NaN, an integer of 5,000 digits):
    kept as a marker so the check below can name the field it sits in."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class DuplicateKey(ValueError):
    """A JSON object with a key twice: raised by :func:`unique_keys` while decoding."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r} in one JSON object")
        self.key = key


class _Duplicated(dict[str, Any]):
    """A decoded object in which ``key`` appeared twice: kept, marked, so that
    :func:`check_tree` can name the field it sits in."""

    key = ""


def _twice(pairs: list[tuple[str, Any]]) -> str | None:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads` that refuses a key given twice
    (:class:`DuplicateKey`), where the default keeps the last one silently."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise DuplicateKey(_twice(pairs) or "")
    return data


def _marked(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        marked = _Duplicated(data)
        marked.key = _twice(pairs) or ""
        return marked
    return data


def _parse_int(text: str) -> int | _Refused:
    # Decide by length first: int() of a 5,000-digit string is itself refused by Python.
    if len(text.lstrip("-")) > 19:
        return _Refused("integer out of range (signed 64-bit)")
    value = int(text)
    return value if INT_RANGE[0] <= value <= INT_RANGE[1] else _Refused(
        "integer out of range (signed 64-bit)")


def _parse_float(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused("number out of range (not finite)")


def _parse_constant(text: str) -> _Refused:
    return _Refused(f"{text} is not a number JSON allows")


def scalar_problem(value: object, *, content: bool = False) -> str | None:
    """Why a decoded scalar cannot be stored, or ``None``."""
    if isinstance(value, _Refused):
        return value.reason
    if isinstance(value, str):
        if not content and len(value) > MAX_STRING_CHARS:
            return f"string longer than {MAX_STRING_CHARS} characters"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "not valid Unicode (a lone surrogate)"
    elif isinstance(value, bool):
        return None
    elif isinstance(value, int):
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            return "integer out of range (signed 64-bit)"
    elif isinstance(value, float) and not math.isfinite(value):
        return "number out of range (not finite)"
    return None


def check_tree(data: object) -> tuple[str, str] | None:
    """The first ``(field, reason)`` in a decoded line that breaks a limit, or ``None``.

    Iterative, so a hostile nesting depth costs a loop, not the interpreter's stack.
    """
    stack: list[tuple[object, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return ".".join(path[:MAX_DEPTH]), f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, _Duplicated):
            return ".".join((*path, value.key)), f"key {value.key!r} given twice"
        if isinstance(value, dict):
            for key, item in value.items():
                problem = scalar_problem(key)
                if problem is not None:
                    return ".".join(path) or "(key)", f"key: {problem}"
                stack.append((item, (*path, str(key))))
        elif isinstance(value, list | tuple):
            stack.extend((item, (*path, str(i))) for i, item in enumerate(value))
        else:
            problem = scalar_problem(value, content=path == ("content",))
            if problem is not None:
                return ".".join(path), problem
    return None


def json_hooks() -> dict[str, Any]:
    """Keyword arguments for :func:`json.loads` that turn refused numbers and objects with a
    key twice into markers, so :func:`check_tree` can name the field instead of the decoder
    raising without one."""
    return {"parse_int": _parse_int, "parse_float": _parse_float,
            "parse_constant": _parse_constant, "object_pairs_hook": _marked}


def check_text(**arguments: str | None) -> None:
    """Refuse an argument that is not storable text (``history SUBJECT`` given bytes that are
    not UTF-8 arrives as a lone surrogate), naming the argument."""
    for name, value in arguments.items():
        if value is None or (type(value) is str and value.isascii()
                             and len(value) <= MAX_STRING_CHARS):
            continue  # the usual argument: ASCII text (no surrogate), short enough
        if not isinstance(value, str):
            raise InvalidArgument(f"{name} must be text, got {type(value).__name__}")
        problem = scalar_problem(value)
        if problem is not None:
            raise InvalidArgument(f"{name}: {problem}")


# In raw JSON text, the one broken limit that nothing after the decoder would catch with a
# field name: an escaped lone surrogate (decoded UTF-8 itself cannot hold one).
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def plain_json(text: str) -> bool:
    """Whether the decoded ``text`` can be validated by the model alone: no string can be
    too long, no nesting too deep, no surrogate escaped. NaN, infinities and integers out of
    range need no walk either: the model refuses them where they are (a candidate's value, a
    confidence) and every other field refuses numbers. A line that is not plain is decoded
    with :func:`json_hooks` and walked by :func:`check_tree`, which names the field."""
    return (len(text) <= MAX_STRING_CHARS
            and text.count("[") + text.count("{") <= MAX_DEPTH
            and ("\\u" not in text or _SURROGATE.search(text) is None))
