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
from typing import Annotated, Any, BinaryIO

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from kg_memory.domain.described import check_context, check_identifiers
from kg_memory.domain.errors import IngestError, InvalidArgument
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.limits import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    check_tree,
    json_hooks,
    plain_json,
    scalar_problem,
    unique_keys,
)
from kg_memory.domain.model import Channel, Kind, Qualifiers, Value
from kg_memory.domain.write_policy import ScopeLabel

__all__ = [
    "IF_MATCH_PATTERN",
    "AssertionCandidate",
    "EntityCandidate",
    "EventCandidate",
    "IngestRecord",
    "MentionCandidate",
    "RetractionCandidate",
    "check_intervals",
    "count_records",
    "ingest_schema",
    "parse_line",
    "parse_mention",
    "parse_record",
    "read_numbered",
    "read_records",
]


#: ``ASSERTION_ID#REVISION`` or ``absent`` (see :attr:`AssertionCandidate.if_match`).
IF_MATCH_PATTERN = r"^(absent|[^#\s]+#[1-9][0-9]{0,17})$"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _storable(value: Value) -> Value:
    problem = scalar_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


#: A candidate's value, with the limits of the ingest format also on the Python API.
CandidateValue = Annotated[Value, AfterValidator(_storable)]

#: An entity id or ``fact:`` reference named by a candidate: never empty, since an empty one
#: would bind to no entity (a dependency nothing can end, an owner no event can come from).
Reference = Annotated[str, Field(min_length=1)]


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
    value: CandidateValue
    kind: Kind
    qualifiers: Qualifiers = Qualifiers()
    depends_on: tuple[Reference, ...] = ()
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    valid_from: UtcDatetime | None = None
    valid_to: UtcDatetime | None = None
    #: how long the statement is meant to hold, as extraction labelled it (see
    #: :class:`~kg_memory.domain.write_policy.ScopeLabel`); a write policy keeps one-offs out
    scope_label: ScopeLabel = ScopeLabel.DURABLE
    #: an explicit update or a correction ("I switched to ebooks"): reconcile lets it replace
    explicit: bool = False
    if_match: str | None = Field(default=None, pattern=IF_MATCH_PATTERN)
    """A precondition, like HTTP If-Match: write only if the slot's current revision is still
    this tag (``ASSERTION_ID#REVISION``, as ``asof`` prints and :meth:`Memory.etag` returns),
    or ``"absent"`` if the writer found the slot empty. Checked inside the write against the
    slot as it was before this episode; a stale tag fails the whole episode with
    :class:`~kg_memory.domain.errors.ConcurrencyError` and writes nothing. Not part of the payload
    fingerprint: a redelivered operation is a duplicate whatever tag it carries."""

    _valid_to_after_start = field_validator("valid_to")(_after_start)


#: Fields added after episodes were first stored: left out of the payload hash while they hold
#: their defaults, so a stored episode's redelivery is still recognised as a duplicate.
_LATER_FIELDS = {"scope_label": ScopeLabel.DURABLE, "explicit": False}
_LATER_ENTITY_FIELDS = {"identifiers", "context"}  # likewise, for a declaration (when empty)
#: What :meth:`IngestRecord.payload_hash` leaves out of the record's JSON (see there).
_HASHED_OUT = {"assertions": {"__all__": {"if_match", *_LATER_FIELDS}},
               "entities": {"__all__": _LATER_ENTITY_FIELDS}}


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
    """An entity the episode declares by id. Its name, type, ``identifiers`` and ``context``
    (the keys a :class:`MentionCandidate` takes) make it a candidate the resolver matches later
    mentions against, as if it had been resolved (docs/resolution.md)."""

    entity_id: str = Field(min_length=1)
    type: str = "thing"
    name: str | None = None
    owners: tuple[Reference, ...] = ()
    identifiers: dict[str, str] = Field(default_factory=dict)
    context: dict[str, str] = Field(default_factory=dict)

    _known_identifiers = field_validator("identifiers")(check_identifiers)
    _known_context = field_validator("context")(check_context)


class MentionCandidate(_Strict):
    """A name in the episode to resolve to an entity (``"Jo"``, maybe with a user id).

    Candidate facts refer to it as ``"@key"`` in ``subject``; the resolver decides which entity
    that is (see :mod:`kg_memory.domain.resolution`). ``identifiers`` maps a kind (``user_id``,
    ``national_id``, ``email``, ``phone``, ``handle``) to a value; ``context`` holds
    ``employer``, ``role``, ``city``, ``relation`` (to the user), ``project``, the person-record
    fields ``birth_date``, ``street_number``, ``street``, ``locality``, ``postcode`` and
    ``state``, and ``custom.<name>`` for attributes the resolver config declares. Any other key
    is an error, by the same rule as on the Python API
    (:func:`~kg_memory.domain.resolution.mention.unknown_context_key`).
    """

    key: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    name: str = Field(min_length=1)
    type: str = "person"
    identifiers: dict[str, str] = Field(default_factory=dict)
    context: dict[str, str] = Field(default_factory=dict)

    _known_identifiers = field_validator("identifiers")(check_identifiers)
    _known_context = field_validator("context")(check_context)


class IngestRecord(_Strict):
    """One line of ingest input: one episode and its candidates, written in one transaction."""

    operation_id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    channel: Channel
    occurred_at: UtcDatetime
    scope: str = Field(default="default", min_length=1)
    content: str = ""
    entities: tuple[EntityCandidate, ...] = ()
    mentions: tuple[Reference, ...] = ()
    resolve: tuple[MentionCandidate, ...] = ()
    assertions: tuple[AssertionCandidate, ...] = ()
    retractions: tuple[RetractionCandidate, ...] = ()
    events: tuple[EventCandidate, ...] = ()

    @field_validator("content")
    @classmethod
    def _one_line_at_most(cls, value: str) -> str:
        # A file line's cap, here where every way in (API, MCP, LangGraph) passes.
        if len(value) > MAX_LINE_BYTES // 4 and len(value.encode("utf-8", "surrogatepass")) \
                > MAX_LINE_BYTES:
            raise ValueError(f"content longer than {MAX_LINE_BYTES} bytes of UTF-8 (one line)")
        return value

    def payload_hash(self) -> str:
        """A fingerprint of everything in the record, for idempotency checks."""
        # Field order is fixed by the model, so pydantic's own JSON is canonical (and fast).
        # Preconditions are about the request, not its content, and fields added later are
        # left out while they hold their defaults: both keep the fingerprints of records
        # written before they existed.
        # (A record without candidates, a plain turn, has nothing to leave out: the same JSON.)
        text = self.model_dump_json(
            exclude=_HASHED_OUT if self.assertions or self.entities else None)
        described = [[i, e.identifiers, e.context] for i, e in enumerate(self.entities)
                     if e.identifiers or e.context]
        if described:
            text += json.dumps(["entities", described], sort_keys=True)
        later = [
            [i, *(getattr(a, f) for f in _LATER_FIELDS)]
            for i, a in enumerate(self.assertions)
            if any(getattr(a, f) != d for f, d in _LATER_FIELDS.items())
        ]
        if later:
            text += json.dumps(later)
        return hashlib.sha256(text.encode()).hexdigest()


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc)


def check_intervals(record: IngestRecord, *, line: int | None = None) -> None:
    """Refuse a valid time that ends before it starts once its start defaults.

    A candidate without ``valid_from`` starts at the episode's ``occurred_at``, which a field
    validator cannot see; checked here (by :func:`parse_record` and the write path) so the error
    names the field instead of escaping from deep in the write as a raw validation error.
    """
    groups: tuple[tuple[str, tuple[AssertionCandidate | RetractionCandidate, ...]], ...] = (
        ("assertions", record.assertions), ("retractions", record.retractions))
    for group, items in groups:
        for index, item in enumerate(items):
            start = item.valid_from or record.occurred_at
            if item.valid_to is not None and item.valid_to <= start:
                what = "valid_from" if item.valid_from else "the default valid_from (occurred_at)"
                raise IngestError(f"valid_to must be after {what} {start.isoformat()}",
                                  line=line, field=f"{group}.{index}.valid_to")


def _first_error(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    return _field_path(tuple(first["loc"])), message


def parse_mention(data: dict[str, Any]) -> MentionCandidate:
    """A mention to preview (``entities resolve``), with the same rules as in an ingest line;
    :class:`~kg_memory.domain.errors.InvalidArgument` names what is wrong."""
    problem = check_tree(data)
    if problem is not None:
        raise InvalidArgument(f"{problem[0]}: {problem[1]}" if problem[0] else problem[1])
    try:
        return MentionCandidate.model_validate(data)
    except ValidationError as exc:
        field, message = _first_error(exc)
        raise InvalidArgument(f"{field}: {message}" if field else message) from None


def parse_record(data: Any, *, line: int | None = None) -> IngestRecord:
    """Validate one decoded JSON object, raising :class:`IngestError` naming line and field.

    This is also the Python API's way in for untrusted dicts: whatever ``data`` is, the result
    is a record or an :class:`IngestError`, never another exception.
    """
    if isinstance(data, dict):
        problem = check_tree(data)
        if problem is not None:
            raise IngestError(problem[1], line=line, field=problem[0] or None)
    return _validated(data, line)


def _validated(data: Any, line: int | None) -> IngestRecord:
    if not isinstance(data, dict):
        raise IngestError("each line must be a JSON object", line=line)
    try:
        record = IngestRecord.model_validate(data)
    except ValidationError as exc:
        field, message = _first_error(exc)
        raise IngestError(message, line=line, field=field or None) from None
    check_intervals(record, line=line)
    return record


def parse_line(raw: bytes, *, line: int | None = None) -> IngestRecord | None:
    """One line of a JSONL file as bytes: a record, ``None`` for a blank or ``#`` line, or an
    :class:`IngestError` naming the line (invalid UTF-8, malformed JSON, a broken limit)."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise IngestError(f"not valid UTF-8 (byte {exc.start + 1} of the line)",
                          line=line) from None
    if not text or text.startswith("#"):
        return None
    # Most lines cannot break a limit the model does not check itself; only the others pay
    # for the decoder hooks and the walk that names the field.
    plain = plain_json(text)
    try:
        try:
            data = (json.loads(text, object_pairs_hook=unique_keys) if plain
                    else json.loads(text, **json_hooks()))
        except json.JSONDecodeError:
            raise
        except ValueError:  # a key twice, or Python's limit on integer digits: the exact way
            plain = False
            data = json.loads(text, **json_hooks())
    except json.JSONDecodeError as exc:
        raise IngestError(f"malformed JSON: {exc.msg} at column {exc.colno}", line=line) from None
    except RecursionError:
        raise IngestError(f"nested deeper than {MAX_DEPTH} levels", line=line) from None
    return _validated(data, line) if plain else parse_record(data, line=line)


def _raw_lines(handle: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Numbered lines as bytes, each read with a bound so one huge line cannot fill memory.

    Bytes, not text: each line is decoded on its own, so invalid UTF-8 on line 900 is an error
    on line 900 after the 899 before it were ingested. A UTF-8 byte order mark at the start of
    the file is accepted (editors on some systems write one).
    """
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 2)
        if not raw:
            return
        number += 1
        if number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
            raise IngestError(f"line longer than {MAX_LINE_BYTES} bytes", line=number)
        yield number, raw


def read_numbered(path: Path) -> Iterator[tuple[int, IngestRecord]]:
    """Yield ``(line, record)`` of a JSONL file lazily, so that lines before a bad one count.

    Blank lines and lines starting with ``#`` are skipped.
    """
    with path.open("rb") as handle:
        for number, raw in _raw_lines(handle):
            record = parse_line(raw, line=number)
            if record is not None:
                yield number, record


def read_records(path: Path) -> Iterator[IngestRecord]:
    """The records of a JSONL file, lazily; see :func:`read_numbered`."""
    for _, record in read_numbered(path):
        yield record


def count_records(path: Path) -> int:
    """How many lines of ``path`` hold a record (for a progress bar): no decoding, so a bad
    line is reported by the ingest itself, in order, after the lines before it."""
    count = 0
    with path.open("rb") as handle:
        try:
            for _, raw in _raw_lines(handle):
                text = raw.strip()
                count += bool(text) and not text.startswith(b"#")
        except IngestError:
            pass  # the ingest reaches the same line and reports it
    return count


def ingest_schema() -> dict[str, Any]:
    """The JSON Schema of one ingest line."""
    schema = IngestRecord.model_json_schema()
    schema["title"] = "kg-memory ingest line"
    schema["description"] = (
        "One episode per JSONL line. The writer of every candidate is the envelope's source."
    )
    return schema
