"""Neo4j node properties to models and back: one place that knows the graph's property layout.

Times are integer microseconds since the Unix epoch (UTC), as in the embedded store; a missing
property (Neo4j has no stored null) is the open end of an interval. ``value`` and
``qualifiers`` are JSON text, ``depends_on`` and ``owners`` native lists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kg_memory.domain.change import Draft
from kg_memory.domain.instant import from_micros, to_micros
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
    Refusal,
)

__all__ = [
    "Props",
    "activity_from_props",
    "block_from_props",
    "entity_from_props",
    "episode_from_props",
    "micros",
    "opt_micros",
    "opt_time",
    "refusal_from_props",
    "version_from_props",
    "version_params",
]

Props = Mapping[str, Any]


def micros(value: datetime) -> int:
    return to_micros(value)


def opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def version_from_props(p: Props) -> Assertion:
    close_reason = p.get("close_reason")
    return Assertion(
        assertion_id=p["assertion_id"],
        revision=p["revision"],
        scope=p["scope"],
        subject=p["subject"],
        predicate=p["predicate"],
        value=json.loads(p["value"]),
        qualifiers=Qualifiers.model_validate_json(p["qualifiers"]),
        kind=Kind(p["kind"]),
        writer=p["writer"],
        depends_on=tuple(p.get("depends_on") or ()),
        confidence=p["confidence"],
        valid=Interval(start=from_micros(p["valid_from"]), end=opt_time(p.get("valid_to"))),
        system=Interval(start=from_micros(p["sys_from"]), end=opt_time(p.get("sys_to"))),
        reason=EndReason(p["reason"]),
        recorded_by=p["recorded_by"],
        closed_by=p.get("closed_by"),
        close_reason=None if close_reason is None else EndReason(close_reason),
    )


def version_params(draft: Draft, now: int) -> dict[str, Any]:
    """The parameters of ``insert_version.cypher`` for ``draft`` written at system time ``now``."""
    return {
        "assertion_id": draft.assertion_id,
        "scope": draft.scope,
        "subject": draft.subject,
        "predicate": draft.predicate,
        "project": draft.qualifiers.project or "",
        "value": json.dumps(draft.value),
        "qualifiers": draft.qualifiers.model_dump_json(),
        "kind": draft.kind.value,
        "writer": draft.writer,
        "depends_on": list(draft.depends_on),
        "confidence": float(draft.confidence),
        "valid_from": to_micros(draft.valid.start),
        "valid_to": opt_micros(draft.valid.end),
        "now": now,
        "reason": draft.reason.value,
        "recorded_by": draft.recorded_by,
    }


def episode_from_props(p: Props) -> Episode:
    return Episode(
        episode_id=p["episode_id"],
        operation_id=p["operation_id"],
        source=p["source"],
        channel=Channel(p["channel"]),
        content=p["content"],
        occurred_at=from_micros(p["occurred_at"]),
        recorded_at=from_micros(p["recorded_at"]),
        scope=p["scope"],
    )


def entity_from_props(p: Props) -> Entity:
    return Entity(
        entity_id=p["entity_id"],
        type=p["type"],
        name=p.get("name"),
        scope=p["scope"],
        owners=tuple(p.get("owners") or ()),
    )


def block_from_props(p: Props) -> Block:
    return Block(
        block_id=p["block_id"],
        scope=p["scope"],
        subject=p["subject"],
        predicates=p["predicates"],
        project=p.get("project"),
        created_at=from_micros(p["created_at"]),
        revoked_at=opt_time(p.get("revoked_at")),
    )


def activity_from_props(p: Props) -> Activity:
    return Activity(
        activity_id=p["activity_id"],
        type=p["type"],
        agent=p["agent"],
        scope=p["scope"],
        started_at=from_micros(p["started_at"]),
        ended_at=opt_time(p.get("ended_at")),
        status=p["status"],
        detail=p["detail"],
    )


def refusal_from_props(p: Props) -> Refusal:
    return Refusal(
        episode_id=p["episode_id"],
        source=p["source"],
        what=p["what"],
        reason=p["reason"],
        at=from_micros(p["at"]),
    )
