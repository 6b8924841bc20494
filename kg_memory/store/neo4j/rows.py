"""Neo4j node properties to models and back: one place that knows the graph's property layout.

Instants are Neo4j ``DATETIME`` values in UTC (the driver maps them to and from tz-aware Python
datetimes; ``neo4j.time.DateTime`` keeps nanoseconds, so microseconds round-trip exactly), and a
missing property (Neo4j stores no null) is the open end of an interval. So a Browser user
compares them with ``datetime('2026-02-14T20:00Z')``. A revision's ``value`` is stored as its
own type (string, integer, float, boolean: every :data:`~kg_memory.domain.model.Value` is one
Neo4j holds natively); its qualifiers are properties: ``project`` ('' for none, the slot key
the indexes use) and ``exceptions`` (a list of strings). ``depends_on`` and ``owners`` are
native lists.

The batched queries (``batch_*``, ``mirror_*``) move instants as ISO-8601 text instead
(:func:`iso`, :func:`time_from_text`): the driver packs and unpacks a ``DATETIME`` in pure
Python, about 40 µs each way, which was most of a batch's client time; text costs about 1 µs.
Those queries store it with ``datetime(...)``, which takes a ``DATETIME`` as well as text, so
their examples still read ``datetime('2026-02-14T20:00Z')``; what is stored is a ``DATETIME``
either way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from neo4j.time import DateTime

from kg_memory.domain.change import Draft
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import ensure_utc
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Channel,
    Edge,
    EdgeType,
    EndReason,
    Entity,
    Envelope,
    Episode,
    Kind,
    Qualifiers,
    Refusal,
)

__all__ = [
    "EdgeRow",
    "Props",
    "activity_from_props",
    "block_from_props",
    "edge_from_row",
    "edge_params",
    "entity_from_props",
    "envelope_props",
    "episode_from_props",
    "instant",
    "iso",
    "opt_instant",
    "opt_iso",
    "opt_time",
    "props_hash",
    "qualifier_props",
    "refusal_from_props",
    "revision_hash",
    "time_from_text",
    "time_of",
    "version_from_props",
    "version_params",
]

Props = Mapping[str, Any]


def instant(value: datetime) -> datetime:
    """A query parameter for an instant: the driver sends a tz-aware datetime as ``DATETIME``."""
    return ensure_utc(value)


def opt_instant(value: datetime | None) -> datetime | None:
    return None if value is None else ensure_utc(value)


def time_of(value: Any) -> datetime:
    """A stored ``DATETIME`` as a UTC datetime.

    Anything else (the integer microseconds of a schema 2 database) is refused rather than
    guessed at: the store refuses to open such a database until ``kg-memory neo4j migrate``
    has converted it, so meeting one here means someone wrote it behind the adapter's back.
    """
    if isinstance(value, DateTime):
        return value.to_native().astimezone(UTC)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    raise StoreUnavailable(
        f"a stored instant is {type(value).__name__}, not a DATETIME: the database was "
        "written by an older kg-memory; run `kg-memory neo4j migrate`")


def opt_time(value: Any) -> datetime | None:
    return None if value is None else time_of(value)


def iso(value: datetime) -> str:
    """An instant as the ISO-8601 text a batched query stores with ``datetime()`` (UTC, µs)."""
    return value.astimezone(UTC).isoformat()


def opt_iso(value: datetime | None) -> str | None:
    return None if value is None else iso(value)


def time_from_text(value: Any) -> datetime:
    """An instant a batched query returned as ``toString(...)`` of a stored ``DATETIME``.

    Anything but text is refused, as :func:`time_of` refuses a schema 2 integer.
    """
    if not isinstance(value, str):
        raise StoreUnavailable(
            f"a batched read returned an instant as {type(value).__name__}, not text")
    return datetime.fromisoformat(value).astimezone(UTC)


When = Callable[[Any], datetime]


def _opt(when: When, value: Any) -> datetime | None:
    return None if value is None else when(value)


def qualifier_props(qualifiers: Qualifiers) -> dict[str, Any]:
    """The properties that hold a revision's qualifiers."""
    return {"project": qualifiers.project or "", "exceptions": list(qualifiers.exceptions)}


def _qualifiers(p: Props) -> Qualifiers:
    return Qualifiers(project=p.get("project") or None,
                      exceptions=tuple(p.get("exceptions") or ()))


def version_from_props(p: Props, when: When = time_of) -> Assertion:
    """A revision from its node's properties; ``when`` reads an instant (:func:`time_of` for a
    stored ``DATETIME``, :func:`time_from_text` for a batched read's text)."""
    close_reason = p.get("close_reason")
    return Assertion(
        assertion_id=p["assertion_id"],
        revision=p["revision"],
        scope=p["scope"],
        subject=p["subject"],
        predicate=p["predicate"],
        value=p["value"],
        qualifiers=_qualifiers(p),
        kind=Kind(p["kind"]),
        writer=p["writer"],
        depends_on=tuple(p.get("depends_on") or ()),
        confidence=p["confidence"],
        valid=Interval(start=when(p["valid_from"]), end=_opt(when, p.get("valid_to"))),
        system=Interval(start=when(p["sys_from"]), end=_opt(when, p.get("sys_to"))),
        reason=EndReason(p["reason"]),
        recorded_by=p["recorded_by"],
        closed_by=p.get("closed_by"),
        close_reason=None if close_reason is None else EndReason(close_reason),
    )


def _instant_text(value: datetime | None) -> str | None:
    return None if value is None else iso(value)


def revision_hash(v: Assertion) -> str:
    """A digest of everything a stored revision never changes (all but the closure fields, the
    recall index and the revision number, which the server assigns and the numbering rule and
    the (assertion_id, revision) constraint guard), written with the revision and re-checked by
    ``kg-memory check``: Neo4j has no immutable nodes, so a revision edited behind the adapter's
    back (in Browser, say) is found by its digest no longer matching. The value's type is part
    of it (``1`` is not ``True`` nor ``1.0``)."""
    return _digest([
        v.assertion_id, v.scope, v.subject, v.predicate,
        [type(v.value).__name__, v.value], v.qualifiers.project, list(v.qualifiers.exceptions),
        v.kind.value, v.writer, list(v.depends_on), float(v.confidence),
        _instant_text(v.valid.start), _instant_text(v.valid.end), _instant_text(v.system.start),
        v.reason.value, v.recorded_by,
    ])


def props_hash(p: Props, valid_from: str, valid_to: str | None, sys_from: str) -> str:
    """:func:`revision_hash` of a revision given as the properties it is stored with (value of
    its own type, ``project`` '' for none) and its instants as :func:`iso` text, without
    building the model: the mirror writes thousands per slice, and validating each was a third
    of its client time. The same list as :func:`revision_hash` (a property test holds them
    together)."""
    value = p["value"]
    return _digest([
        p["assertion_id"], p["scope"], p["subject"], p["predicate"],
        [type(value).__name__, value], p["project"] or None, list(p["exceptions"]),
        p["kind"], p["writer"], list(p["depends_on"]), float(p["confidence"]),
        valid_from, valid_to, sys_from, p["reason"], p["recorded_by"],
    ])


def _digest(fields: list[Any]) -> str:
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def version_params(draft: Draft, now: datetime) -> dict[str, Any]:
    """The parameters of ``insert_version.cypher`` for ``draft`` written at system time ``now``."""
    return {
        "assertion_id": draft.assertion_id,
        "scope": draft.scope,
        "subject": draft.subject,
        "predicate": draft.predicate,
        **qualifier_props(draft.qualifiers),
        "value": draft.value,
        "kind": draft.kind.value,
        "writer": draft.writer,
        "depends_on": list(draft.depends_on),
        "confidence": float(draft.confidence),
        "valid_from": instant(draft.valid.start),
        "valid_to": opt_instant(draft.valid.end),
        "now": now,
        "reason": draft.reason.value,
        "recorded_by": draft.recorded_by,
        "content_hash": revision_hash(Assertion(
            **draft.model_dump(exclude={"valid"}), valid=draft.valid, revision=1,
            system=Interval(start=now))),
    }


def episode_from_props(p: Props, when: When = time_of) -> Episode:
    return Episode(
        episode_id=p["episode_id"],
        operation_id=p["operation_id"],
        source=p["source"],
        channel=Channel(p["channel"]),
        content=p["content"],
        occurred_at=when(p["occurred_at"]),
        recorded_at=when(p["recorded_at"]),
        scope=p["scope"],
        # A node written before schema 4 has no decision; the migration derives it.
        envelope=Envelope(p.get("envelope") or Envelope.ADMITTED),
        sent_by=p.get("sent_by"),
        sent_over=Channel(p["sent_over"]) if p.get("sent_over") else None,
    )


def envelope_props(episode: Episode) -> dict[str, str | None]:
    """The gate's decision as an :Episode node's properties (add_episode, batch_episodes)."""
    return {"envelope": episode.envelope.value, "sent_by": episode.sent_by,
            "sent_over": None if episode.sent_over is None else episode.sent_over.value}


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
        created_at=time_of(p["created_at"]),
        revoked_at=opt_time(p.get("revoked_at")),
    )


def activity_from_props(p: Props) -> Activity:
    return Activity(
        activity_id=p["activity_id"],
        type=p["type"],
        agent=p["agent"],
        scope=p["scope"],
        started_at=time_of(p["started_at"]),
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
        at=time_of(p["at"]),
    )


_EDGE_TYPES = {t.value: t for t in EdgeType}


def edge_from_row(r: Props) -> Edge | None:
    """A typed edge from its ``src``, ``type``, ``dst``, ``since`` columns; ``None`` for a
    relationship someone drew in Browser with a type kg-memory does not know."""
    kind = _EDGE_TYPES.get(r["type"])
    if kind is None:
        return None
    return Edge(src=r["src"], type=kind, dst=r["dst"], since=time_of(r["since"]))


#: An edge to write: scope, source, type, target, its ``since`` as :func:`iso` text, and
#: whether its source is a node the same batch created (which has no edge to look among).
EdgeRow = tuple[str, str, str, str, str | None, bool]


def edge_params(edges: Iterable[EdgeRow]) -> dict[str, Any]:
    """``batch_edges.cypher``'s parameters: each end once in ``nodes``, rows naming them by
    position. ``edges`` must be distinct (scope, source, type, target)."""
    ends: dict[tuple[str, str], int] = {}
    rows = []
    for scope, src, kind, dst, since, fresh in edges:
        s = ends.setdefault((scope, src), len(ends))
        d = ends.setdefault((scope, dst), len(ends))
        rows.append({"type": kind, "src": s, "dst": d, "fresh": fresh, "since": since})
    return {"nodes": [list(end) for end in ends], "rows": rows}
