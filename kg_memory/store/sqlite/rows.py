"""Rows of the embedded store to models and back: one place that knows the column layout."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from kg_memory.domain.instant import from_micros
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Channel,
    EndReason,
    Entity,
    Episode,
    Kind,
    Qualifiers,
    trusted,
)

__all__ = [
    "VERSION_COLUMNS",
    "activity_from_row",
    "block_from_row",
    "entity_from_row",
    "episode_from_row",
    "opt_time",
    "version_from_row",
]

VERSION_COLUMNS = (
    "assertion_id, revision, scope, subject, predicate, value, qualifiers, kind, writer, "
    "depends_on, confidence, valid_from, valid_to, sys_from, sys_to, reason, recorded_by, "
    "closed_by, close_reason"
)


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def _qualifiers(text: str) -> Qualifiers:
    if text == _NO_QUALIFIERS_JSON:  # most facts: no need to parse
        return _NO_QUALIFIERS
    data = json.loads(text)
    if not data.get("project") and not data.get("exceptions"):
        return _NO_QUALIFIERS
    return Qualifiers.model_construct(project=data.get("project"),
                                      exceptions=tuple(data.get("exceptions", ())))


_NO_QUALIFIERS = Qualifiers()
_NO_QUALIFIERS_JSON = _NO_QUALIFIERS.model_dump_json()


def version_from_row(row: sqlite3.Row) -> Assertion:
    """A stored revision. The row was validated on its way in (and the schema's CHECKs hold),
    so it is rebuilt without validating again: this is the as-of hot path."""
    reason = row["close_reason"]
    return trusted(Assertion, {
        "assertion_id": row["assertion_id"],
        "revision": row["revision"],
        "scope": row["scope"],
        "subject": row["subject"],
        "predicate": row["predicate"],
        "value": json.loads(row["value"]),
        "qualifiers": _qualifiers(row["qualifiers"]),
        "kind": Kind(row["kind"]),
        "writer": row["writer"],
        "depends_on": () if row["depends_on"] == "[]" else tuple(json.loads(row["depends_on"])),
        "confidence": row["confidence"],
        "valid": trusted(Interval, {"start": from_micros(row["valid_from"]),
                                    "end": opt_time(row["valid_to"])}),
        "system": trusted(Interval, {"start": from_micros(row["sys_from"]),
                                     "end": opt_time(row["sys_to"])}),
        "reason": EndReason(row["reason"]),
        "recorded_by": row["recorded_by"],
        "closed_by": row["closed_by"],
        "close_reason": None if reason is None else EndReason(reason),
    })


def episode_from_row(row: sqlite3.Row) -> Episode:
    return Episode(
        episode_id=row["episode_id"],
        operation_id=row["operation_id"],
        source=row["source"],
        channel=Channel(row["channel"]),
        content=row["content"],
        occurred_at=from_micros(row["occurred_at"]),
        recorded_at=from_micros(row["recorded_at"]),
        scope=row["scope"],
    )


def block_from_row(row: sqlite3.Row) -> Block:
    return Block(
        block_id=row["block_id"], scope=row["scope"], subject=row["subject"],
        predicates=row["predicates"], project=row["project"],
        created_at=from_micros(row["created_at"]), revoked_at=opt_time(row["revoked_at"]),
    )


def activity_from_row(row: sqlite3.Row) -> Activity:
    return Activity(
        activity_id=row["activity_id"], type=row["type"], agent=row["agent"],
        scope=row["scope"], started_at=from_micros(row["started_at"]),
        ended_at=opt_time(row["ended_at"]),
        status=row["status"], detail=row["detail"],
    )


def entity_from_row(row: sqlite3.Row) -> Entity:
    return Entity(
        entity_id=row["entity_id"], type=row["type"], name=row["name"], scope=row["scope"],
        owners=tuple(json.loads(row["owners"])),
    )
