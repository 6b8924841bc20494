"""How LangGraph's items map onto kg-memory's facts, and LangGraph's filters and namespace
matching, as pure functions.

**Namespace.** The first label is the scope (the tenant); the rest, joined with ``.``, is the
subject. LangGraph forbids ``.`` inside a label, so the join is reversible; a one-label namespace
has the subject ``.``, which no label can produce:

>>> to_slot(("u1", "ana"))
('u1', 'ana')
>>> to_slot(("u1",)), to_namespace("u1", ".")
(('u1', '.'), ('u1',))
>>> to_namespace(*to_slot(("acme", "memories", "jo")))
('acme', 'memories', 'jo')

**Key and value.** The key is the predicate. A value ``{"value": x}`` with a plain scalar ``x`` is
stored as the scalar itself, so ``("u1", "ana")``, ``"diet"``, ``{"value": "vegetarian"}`` is the
very fact the user's conversation writes as ``ana.diet = vegetarian``; any other value is stored
as canonical JSON text. Decoding inverts it exactly:

>>> encode({"value": "vegetarian"}), decode("vegetarian")
('vegetarian', {'value': 'vegetarian'})
>>> encode({"diet": "fish", "since": 30})
'{"diet":"fish","since":30}'
>>> decode(encode({"value": '{"a": 1}'}))
{'value': '{"a": 1}'}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kg_memory import IngestError, QueryError

__all__ = ["ROOT_SUBJECT", "decode", "encode", "matches", "namespace_matches", "to_namespace",
           "to_slot"]

#: The subject of a namespace with only a scope label.
ROOT_SUBJECT = "."
_INT64 = 2**63
_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def to_slot(namespace: Sequence[str]) -> tuple[str, str]:
    """``(scope, subject)`` of a namespace (at least one label)."""
    return namespace[0], ".".join(namespace[1:]) or ROOT_SUBJECT


def to_namespace(scope: str, subject: str) -> tuple[str, ...]:
    return (scope,) if subject == ROOT_SUBJECT else (scope, *subject.split("."))


def _is_document(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def encode(value: Mapping[str, Any]) -> str | int | float | bool:
    """The fact value that stands for an item's value; see the module docstring."""
    if set(value) == {"value"}:
        plain = value["value"]
        if isinstance(plain, bool | float) or (isinstance(plain, int) and -_INT64 <= plain
                                                < _INT64):
            return plain
        if isinstance(plain, str) and not _is_document(plain):
            return plain
    try:
        return json.dumps(dict(value), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise IngestError(f"an item's value must be JSON: {exc}", field="value") from None


def decode(value: str | int | float | bool) -> dict[str, Any]:
    """The item value a stored fact value stands for."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {"value": value}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _apply(value: Any, operator: str, operand: Any, field: str) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    if operator not in _OPERATORS:
        raise QueryError(f"filter {field!r}: unknown operator {operator!r}; use "
                         f"{' '.join(_OPERATORS)}")
    a, b = _number(value), _number(operand)
    if a is None or b is None:
        # Ordering across types (or against a missing field) is no match, not an error:
        # a filter over heterogeneous items must not fail on the items it does not select.
        if not (isinstance(value, str) and isinstance(operand, str)):
            return False
        return {"$gt": value > operand, "$gte": value >= operand, "$lt": value < operand,
                "$lte": value <= operand}[operator]
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[operator]


def _compare(value: Any, wanted: Any, field: str) -> bool:
    if isinstance(wanted, dict):
        if any(str(k).startswith("$") for k in wanted):
            return all(_apply(value, op, operand, field) for op, operand in wanted.items())
        return isinstance(value, dict) and all(
            _compare(value.get(k), v, f"{field}.{k}") for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(wanted)
                and all(_compare(a, b, field) for a, b in zip(value, wanted, strict=True)))
    return bool(value == wanted)


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter semantics: exact matches, nested objects, and the operators ``$eq
    $ne $gt $gte $lt $lte`` (numbers compare as numbers, strings as strings).

    >>> matches({"score": 4.5, "color": "red"}, {"score": {"$gt": 4}, "color": "red"})
    True
    >>> matches({"score": 4.5}, {"score": {"$lte": 4}})
    False
    """
    return not filter or all(_compare(value.get(k), v, k) for k, v in filter.items())


def _path_matches(namespace: tuple[str, ...], path: Sequence[str], suffix: bool) -> bool:
    if len(namespace) < len(path):
        return False
    labels = namespace[len(namespace) - len(path):] if suffix else namespace[: len(path)]
    return all(p in ("*", n) for n, p in zip(labels, path, strict=True))


def namespace_matches(namespace: tuple[str, ...],
                      conditions: Sequence[tuple[str, Sequence[str]]]) -> bool:
    """Whether ``namespace`` meets every ``(match_type, path)`` condition; ``"*"`` matches any
    one label.

    >>> namespace_matches(("a", "b", "c"), [("prefix", ("a", "*")), ("suffix", ("c",))])
    True
    """
    return all(_path_matches(namespace, path, kind == "suffix") for kind, path in conditions)
