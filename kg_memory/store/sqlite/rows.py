"""Rows of the embedded store to models and back: one place that knows the column layout."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.instant import from_micros, to_micros
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Channel,
    EndReason,
    Entity,
    Envelope,
    Episode,
    Kind,
    Qualifiers,
    Value,
    trusted,
)
from kg_memory.store.sqlite import driver

__all__ = [
    "EPISODE_INSERT",
    "NO_QUALIFIERS",
    "NO_QUALIFIERS_JSON",
    "REDACTED_FINGERPRINT",
    "VERSION_COLUMNS",
    "VERSION_COLUMNS_OF_V",
    "activity_from_row",
    "block_from_row",
    "entity_from_row",
    "episode_from_row",
    "episode_params",
    "json_value",
    "opt_time",
    "qualifiers",
    "version_from_row",
]

VERSION_COLUMNS = (
    "assertion_id, revision, scope, subject, predicate, value, qualifiers, kind, writer, "
    "depends_on, confidence, valid_from, valid_to, sys_from, sys_to, reason, recorded_by, "
    "closed_by, close_reason"
)
#: The same columns of a version aliased ``v`` in a join.
VERSION_COLUMNS_OF_V = ", ".join(f"v.{c.strip()}" for c in VERSION_COLUMNS.split(","))


#: An episode row with every column, in the order of :func:`episode_params`.
EPISODE_INSERT = (
    "INSERT INTO episodes (episode_id, operation_id, payload_hash, source, channel, content, "
    "fingerprint, occurred_at, recorded_at, scope, envelope, sent_by, sent_over) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
#: The fingerprint of a redacted episode's (empty) content.
REDACTED_FINGERPRINT = fingerprint("")


def episode_params(episode: Episode, payload_hash: str) -> tuple[Any, ...]:
    """:data:`EPISODE_INSERT`'s parameters. The content's fingerprint (schema 7) is computed
    once here, on the way in, instead of on every read of the episode's supports."""
    return (episode.episode_id, episode.operation_id, payload_hash, episode.source,
            episode.channel.value, episode.content, fingerprint(episode.content),
            to_micros(episode.occurred_at), to_micros(episode.recorded_at), episode.scope,
            episode.envelope.value, episode.sent_by,
            None if episode.sent_over is None else episode.sent_over.value)


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def qualifiers(text: str) -> Qualifiers:
    """Stored qualifiers; the common empty ones without parsing."""
    if text == NO_QUALIFIERS_JSON:  # most facts: no need to parse
        return NO_QUALIFIERS
    data = json.loads(text)
    if not data.get("project") and not data.get("exceptions"):
        return NO_QUALIFIERS
    return Qualifiers.model_construct(project=data.get("project"),
                                      exceptions=tuple(data.get("exceptions", ())))


#: Most revisions have no qualifiers: they share this one, stored as this text.
NO_QUALIFIERS = Qualifiers()
NO_QUALIFIERS_JSON = NO_QUALIFIERS.model_dump_json()


_KINDS = {k.value: k for k in Kind}
_REASONS: dict[str | None, EndReason | None] = {r.value: r for r in EndReason}
_REASONS[None] = None


def json_value(text: str) -> Value:
    """A stored JSON value. Most are plain strings: ``json.dumps`` escapes every quote,
    backslash and non-ASCII character, so a string without a backslash is its own text
    between the quotes, and needs no decoder."""
    if text[:1] == '"' and "\\" not in text:
        return text[1:-1]
    value: Value = json.loads(text)
    return value


def version_from_row(row: driver.Row | Mapping[str, Any]) -> Assertion:
    """A stored revision. The row was validated on its way in (and the schema's CHECKs hold),
    so it is rebuilt without validating again: this is the as-of hot path (enums by table
    lookup, the common string value and empty lists without a JSON decoder)."""
    depends = row["depends_on"]
    return trusted(Assertion, {
        "assertion_id": row["assertion_id"],
        "revision": row["revision"],
        "scope": row["scope"],
        "subject": row["subject"],
        "predicate": row["predicate"],
        "value": json_value(row["value"]),
        "qualifiers": qualifiers(row["qualifiers"]),
        "kind": _KINDS[row["kind"]],
        "writer": row["writer"],
        "depends_on": () if depends == "[]" else tuple(json.loads(depends)),
        "confidence": row["confidence"],
        "valid": trusted(Interval, {"start": from_micros(row["valid_from"]),
                                    "end": opt_time(row["valid_to"])}),
        "system": trusted(Interval, {"start": from_micros(row["sys_from"]),
                                     "end": opt_time(row["sys_to"])}),
        "reason": _REASONS[row["reason"]],
        "recorded_by": row["recorded_by"],
        "closed_by": row["closed_by"],
        "close_reason": _REASONS[row["close_reason"]],
    })


# By value, without the enum call's machinery: recall reads hundreds of episodes per query.
# A value outside these still goes through the enum, which refuses it as before.
_CHANNELS = {c.value: c for c in Channel}
_ENVELOPES = {e.value: e for e in Envelope}


def _channel(value: str) -> Channel:
    return _CHANNELS.get(value) or Channel(value)


def episode_from_row(row: driver.Row) -> Episode:
    # Validated on its way in: rebuilt without validating again (a forget's residue search
    # reads a whole scope's episodes).
    return trusted(Episode, {
        "episode_id": row["episode_id"],
        "operation_id": row["operation_id"],
        "source": row["source"],
        "channel": _channel(row["channel"]),
        "content": row["content"],
        "occurred_at": from_micros(row["occurred_at"]),
        "recorded_at": from_micros(row["recorded_at"]),
        "scope": row["scope"],
        "envelope": _ENVELOPES.get(row["envelope"]) or Envelope(row["envelope"]),
        "sent_by": row["sent_by"],
        "sent_over": None if row["sent_over"] is None else _channel(row["sent_over"]),
    })


def block_from_row(row: driver.Row) -> Block:
    return Block(
        block_id=row["block_id"], scope=row["scope"], subject=row["subject"],
        predicates=row["predicates"], project=row["project"],
        created_at=from_micros(row["created_at"]), revoked_at=opt_time(row["revoked_at"]),
    )


def activity_from_row(row: driver.Row) -> Activity:
    return Activity(
        activity_id=row["activity_id"], type=row["type"], agent=row["agent"],
        scope=row["scope"], started_at=from_micros(row["started_at"]),
        ended_at=opt_time(row["ended_at"]),
        status=row["status"], detail=row["detail"],
    )


def entity_from_row(row: driver.Row) -> Entity:
    # Validated on its way in: rebuilt without validating again (a forget plan reads a
    # scope's every entity).
    return trusted(Entity, {
        "entity_id": row["entity_id"], "type": row["type"], "name": row["name"],
        "scope": row["scope"], "owners": tuple(json.loads(row["owners"])),
    })
