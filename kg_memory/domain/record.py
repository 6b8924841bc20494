"""The ingest format: JSONL, one episode per line, with the candidates extracted from it.

A line is the envelope the ingest channel established (``operation_id``, ``source``, ``channel``,
``occurred_at``, ``scope``), the ``content`` exactly as received, and candidate memories:

* ``assertions``: facts the extractor proposes; the writer gate decides whether they are stored.
* ``retractions``: withdraw a slot's value for a portion of valid time.
* ``events``: an owner's lifecycle event on an entity (``R1.cancelled``); it retires what
  depends on that entity.
* ``entities`` and ``mentions``: things the episode introduces or names.

A candidate has no ``writer`` field on purpose: the writer is the envelope's ``source``, so text
inside a restaurant's webhook cannot declare itself the user's statement. Unknown fields are
errors, not silently dropped data. ``kg-memory schema`` prints the JSON Schema of a line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from kg_memory.domain.errors import IngestError
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Channel, Kind, Qualifiers, Value

__all__ = [
    "IF_MATCH_PATTERN",
    "AssertionCandidate",
    "EntityCandidate",
    "EventCandidate",
    "IngestRecord",
    "MentionCandidate",
    "RetractionCandidate",
    "ingest_schema",
    "parse_record",
    "read_records",
]


#: ``ASSERTION_ID#REVISION`` or ``absent`` (see :attr:`AssertionCandidate.if_match`).
IF_MATCH_PATTERN = r"^(absent|[^#\s]+#[1-9][0-9]{0,17})$"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _after_start(end: datetime | None, info: ValidationInfo) -> datetime | None:
    start = info.data.get("valid_from")
    if end is not None and start is not None and end <= start:
        raise ValueError("valid_to must be after valid_from")
    return end


class AssertionCandidate(_Strict):
    """A fact proposed by extraction. Valid time defaults to ``[occurred_at, open)``.

    ``depends_on`` names entity ids (``"R1"``) or current facts (``"fact:team/lead"``).
    """

    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    value: Value
    kind: Kind
    qualifiers: Qualifiers = Qualifiers()
    depends_on: tuple[str, ...] = ()
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    valid_from: UtcDatetime | None = None
    valid_to: UtcDatetime | None = None
    if_match: str | None = Field(default=None, pattern=IF_MATCH_PATTERN)
    """A precondition, like HTTP If-Match: write only if the slot's current revision is still
    this tag (``ASSERTION_ID#REVISION``, as ``asof`` prints and :meth:`Memory.etag` returns),
    or ``"absent"`` if the writer found the slot empty. Checked inside the write against the
    slot as it was before this episode; a stale tag fails the whole episode with
    :class:`~kg_memory.domain.errors.ConcurrencyError` and writes nothing. Not part of the payload
    fingerprint: a redelivered operation is a duplicate whatever tag it carries."""

    _valid_to_after_start = field_validator("valid_to")(_after_start)


class RetractionCandidate(_Strict):
    """Withdraw ``subject.predicate`` (within ``project``) over ``[valid_from, valid_to)``."""

    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    project: str | None = None
    valid_from: UtcDatetime | None = None
    valid_to: UtcDatetime | None = None

    _valid_to_after_start = field_validator("valid_to")(_after_start)


class EventCandidate(_Strict):
    """``target.name`` (``R1.cancelled``) at ``at`` (default: the episode's ``occurred_at``)."""

    target: str = Field(min_length=1)
    name: str = Field(min_length=1)
    at: UtcDatetime | None = None


class EntityCandidate(_Strict):
    entity_id: str = Field(min_length=1)
    type: str = "thing"
    name: str | None = None
    owners: tuple[str, ...] = ()


class MentionCandidate(_Strict):
    """A name in the episode to resolve to an entity (``"Jo"``, maybe with a user id).

    Candidate facts refer to it as ``"@key"`` in ``subject``; the resolver decides which entity
    that is (see :mod:`kg_memory.domain.resolution`). ``identifiers`` maps a kind (``user_id``,
    ``email``, ``phone``, ``handle``) to a value; ``context`` holds ``employer``, ``role``,
    ``city``, ``relation`` (to the user) and ``project``.
    """

    key: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    name: str = Field(min_length=1)
    type: str = "person"
    identifiers: dict[str, str] = Field(default_factory=dict)
    context: dict[str, str] = Field(default_factory=dict)


class IngestRecord(_Strict):
    """One line of ingest input: one episode and its candidates, written in one transaction."""

    operation_id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    channel: Channel
    occurred_at: UtcDatetime
    scope: str = Field(default="default", min_length=1)
    content: str = ""
    entities: tuple[EntityCandidate, ...] = ()
    mentions: tuple[str, ...] = ()
    resolve: tuple[MentionCandidate, ...] = ()
    assertions: tuple[AssertionCandidate, ...] = ()
    retractions: tuple[RetractionCandidate, ...] = ()
    events: tuple[EventCandidate, ...] = ()

    def payload_hash(self) -> str:
        """A fingerprint of everything in the record, for idempotency checks."""
        # Field order is fixed by the model, so pydantic's own JSON is canonical (and fast).
        # Preconditions are about the request, not its content (and leaving them out keeps the
        # fingerprints of records written before they existed).
        payload = self.model_dump_json(exclude={"assertions": {"__all__": {"if_match"}}})
        return hashlib.sha256(payload.encode()).hexdigest()


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc)


def parse_record(data: Any, *, line: int | None = None) -> IngestRecord:
    """Validate one decoded JSON object, raising :class:`IngestError` naming line and field."""
    if not isinstance(data, dict):
        raise IngestError("each line must be a JSON object", line=line)
    try:
        return IngestRecord.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(tuple(first["loc"]))
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown field"
        raise IngestError(message, line=line, field=field or None) from None


def read_records(path: Path) -> Iterator[IngestRecord]:
    """Yield the records of a JSONL file lazily, so that lines before a bad one still count.

    Blank lines and lines starting with ``#`` are skipped.
    """
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise IngestError(
                    f"malformed JSON: {exc.msg} at column {exc.colno}", line=number
                ) from None
            yield parse_record(data, line=number)


def ingest_schema() -> dict[str, Any]:
    """The JSON Schema of one ingest line."""
    schema = IngestRecord.model_json_schema()
    schema["title"] = "kg-memory ingest line"
    schema["description"] = (
        "One episode per JSONL line. The writer of every candidate is the envelope's source."
    )
    return schema
