"""The memory graph's nodes and edges, as frozen pydantic models.

Three kinds of node carry the memory:

* :class:`Entity`: a thing memories are about (a person, a project, a booking).
* :class:`Episode`: one input exactly as received: who sent it, through which channel, when.
* :class:`Assertion`: one *version* of a reusable fact. An assertion keeps its id across
  revisions; each revision has its own valid interval (when it holds in the world) and system
  interval (when the store believed it). A stored revision is never edited: the store only ever
  ends its system interval, once.

Edges (:class:`Edge`) are first-class and point at assertions by id, which is why assertions are
nodes rather than relationships.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.interval import Interval

__all__ = [
    "Activity",
    "Assertion",
    "Block",
    "Channel",
    "Edge",
    "EdgeType",
    "EndReason",
    "Entity",
    "Envelope",
    "Episode",
    "Kind",
    "Qualifiers",
    "Refusal",
    "Support",
    "Tombstone",
    "Value",
    "every_field",
    "trusted",
]

_M = TypeVar("_M", bound=BaseModel)


def trusted(cls: type[_M], values: dict[str, Any], fields: set[str] | None = None) -> _M:
    """Build a model from values that were validated when they were stored.

    What ``model_construct`` does, minus its per-field default handling: the read path builds
    a few models per fact per query, and there the difference is most of the query's cost.
    ``values`` must name every field. ``fields``, when given, is :func:`every_field` of ``cls``
    (``values`` names exactly those): the models share that one set instead of each building
    its own.
    """
    obj = _new(cls)
    _set_dict(obj, values)
    _set_fields_set(obj, set(values) if fields is None else fields)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def every_field(cls: type[BaseModel]) -> set[str]:
    """The names of every field of ``cls``: the ``fields`` a hot path passes to :func:`trusted`.

    Sharing one set between models is safe because nothing changes it in place: a frozen model
    refuses assignment (the one place pydantic adds to it, and a name already in a set of every
    field would add nothing), and ``model_copy`` copies it before adding the fields it updates.
    """
    return set(cls.model_fields)


# Bound once: a lookup builds four or five models. ``object.__setattr__`` looked the slot up on
# the class each time; each slot's own setter (the descriptors BaseModel's ``__slots__`` made)
# skips that, about a sixth of :func:`trusted`'s cost. BaseModel does not override ``__new__``.
_new = object.__new__
_set_dict, _set_fields_set, _set_extra, _set_private = (
    BaseModel.__dict__[slot].__set__ for slot in (
        "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))


#: What an assertion can hold. Richer values belong in entities and further assertions.
Value = str | int | float | bool


class Kind(StrEnum):
    """Who may vouch for an assertion, and so how it may be served (seed 000)."""

    STATED = "stated"  # the user said it: served as the user's statement
    WORLD = "world"  # another system owns it (a booking): ends on its owner's events
    CLAIM = "claim"  # someone else's words about the user: never served as the user's own
    DERIVED = "derived"  # computed from other memories by an activity (a profile, a summary)


class Channel(StrEnum):
    CHAT = "chat"
    WEBHOOK = "webhook"
    TIMER = "timer"
    TOOL = "tool"
    DOCUMENT = "document"
    API = "api"


class EdgeType(StrEnum):
    SUPPORTS = "SUPPORTS"  # episode -> assertion: the episode is evidence for it
    MENTIONS = "MENTIONS"  # episode -> entity or assertion: named, not evidence
    INVALIDATES = "INVALIDATES"  # episode -> assertion: the episode ended (part of) it
    SUPERSEDES = "SUPERSEDES"  # assertion -> assertion it replaced for some valid time
    DEPENDS_ON = "DEPENDS_ON"  # assertion -> entity or assertion it relies on
    ABOUT = "ABOUT"  # assertion -> its subject entity
    POSSIBLE_SAME_AS = "POSSIBLE_SAME_AS"  # provisional entity -> candidate under review
    SAME_AS = "SAME_AS"  # a person's same_as assertion -> the entity its subject is the same as
    RESOLVED_TO = "RESOLVED_TO"  # episode -> entity a mention in it was resolved to
    # W3C PROV relations that the store records explicitly (the rest are derived on export).
    DERIVED_FROM = "DERIVED_FROM"  # derived record -> source assertion (prov:wasDerivedFrom)
    GENERATED_BY = "GENERATED_BY"  # derived record -> activity (prov:wasGeneratedBy)
    USED = "USED"  # activity -> assertion it read (prov:used)
    REVISION_OF = "REVISION_OF"  # derived record -> its previous revision (prov:wasRevisionOf)
    INVALIDATED_BY = "INVALIDATED_BY"  # tombstone -> forget activity (prov:wasInvalidatedBy)
    IMPORTED_BY = "IMPORTED_BY"  # episode -> the import activity that brought it in


class EndReason(StrEnum):
    """Why a revision exists, or why the store stopped believing one."""

    ASSERTED = "asserted"  # written by an episode
    SUPERSEDED = "superseded"  # cut back by a newer value for part of its valid time
    RETRACTED = "retracted"  # a portion of valid time was withdrawn
    RETIRED = "retired"  # its dependency ended (an owner's event or an upstream change)


class Qualifiers(BaseModel):
    """What narrows an assertion: the project it is scoped to and its stated exceptions.

    Two assertions with different projects never supersede each other ("concise for Cedar" and
    "detailed for Birch" both hold). Exceptions are part of the value's meaning ("concise except
    audits") and so part of its identity.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    project: str | None = None
    exceptions: tuple[str, ...] = ()


class Entity(BaseModel):
    """A thing memories are about. ``owners`` are the sources whose events end facts about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str = Field(min_length=1)
    type: str = "thing"
    name: str | None = None
    scope: str = "default"
    owners: tuple[str, ...] = ()


class Envelope(StrEnum):
    """The gate's decision on an episode's envelope (its source over its channel; see
    :mod:`kg_memory.domain.channel`), stored with the episode for every read to carry."""

    ADMITTED = "admitted"
    REFUSED = "refused"


class Episode(BaseModel):
    """One input as received. ``source`` and ``channel`` are the envelope as the ingest channel
    gave it; ``recorded_at`` is the store's system time for the episode's transaction.

    ``envelope`` is what the gate decided about that envelope. A refused one is kept as
    received, for the audit, but its ``source`` is only what it *claimed*: ``sent_by`` and
    ``sent_over`` say who really sent it, as far as the ingest channel established (an inlet's
    own source; ``None`` when nothing but the channel vouched for the sender). Every read
    decides whose words an episode is by :attr:`speaker`, never by ``source``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    operation_id: str
    source: str
    channel: Channel
    content: str
    occurred_at: UtcDatetime
    recorded_at: UtcDatetime
    scope: str
    envelope: Envelope = Envelope.ADMITTED
    sent_by: str | None = None
    sent_over: Channel | None = None

    @property
    def refused(self) -> bool:
        return self.envelope is Envelope.REFUSED

    @property
    def speaker(self) -> str | None:
        """Whose words the content is: the source of an admitted envelope; nobody's (``None``)
        for a refused one, whatever it claimed."""
        return None if self.refused else self.source

    @property
    def sender(self) -> str:
        """Who really sent it, for a reader: ``restaurant over webhook``, or ``an unidentified
        sender over webhook`` when a refused envelope's channel established no source."""
        who = self.sent_by if self.refused else self.sent_by or self.source
        return f"{who or 'an unidentified sender'} over {(self.sent_over or self.channel).value}"

    @property
    def sender_id(self) -> str:
        """The agent the episode is attributed to (lineage, PROV): its source when admitted;
        for a refused envelope who really sent it, or ``unidentified@<channel>`` when no
        channel established that, never the source it claimed."""
        if not self.refused:
            return self.sent_by or self.source
        return self.sent_by or f"unidentified@{(self.sent_over or self.channel).value}"


class Assertion(BaseModel):
    """One revision of a fact, with both of its intervals.

    ``(assertion_id, revision)`` names the version. ``reason`` says why this revision exists and
    ``recorded_by`` which episode caused it; ``closed_by`` and ``close_reason`` say what ended its
    system interval (``None`` while the store still believes it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    assertion_id: str
    revision: int = Field(ge=1)
    scope: str
    subject: str
    predicate: str
    value: Value
    qualifiers: Qualifiers = Qualifiers()
    kind: Kind
    writer: str
    depends_on: tuple[str, ...] = ()
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    valid: Interval
    system: Interval
    reason: EndReason = EndReason.ASSERTED
    recorded_by: str
    closed_by: str | None = None
    close_reason: EndReason | None = None

    @property
    def key(self) -> str:
        """``subject.predicate``, the human handle of the slot."""
        return f"{self.subject}.{self.predicate}"

    def same_content(self, other: Assertion) -> bool:
        """Equal meaning: value, qualifiers, kind and dependencies (not writer, not time)."""
        return (
            self.value == other.value
            and self.qualifiers == other.qualifiers
            and self.kind == other.kind
            and self.depends_on == other.depends_on
        )


class Edge(BaseModel):
    """A typed relationship, recorded at system time ``since``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    src: str
    type: EdgeType
    dst: str
    since: UtcDatetime


class Refusal(BaseModel):
    """A candidate the writer gate refused: kept for audit, never served as memory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    source: str
    what: str
    reason: str
    at: UtcDatetime


class Support(BaseModel):
    """An episode that supports an assertion: the evidence behind a served fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    source: str
    occurred_at: UtcDatetime
    #: A digest of the episode's text (:func:`kg_memory.domain.corroboration.fingerprint`), so
    #: that copies of one message are recognised without carrying its payload.
    fingerprint: str = ""


class Activity(BaseModel):
    """A prov:Activity the store ran itself: a consolidation or a forget run.

    ``detail`` is content-free by construction: counts and ids, never a forgotten payload.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    activity_id: str
    type: str  # consolidation | forget | import
    agent: str
    scope: str = "default"  # the one scope it read and changed
    started_at: UtcDatetime
    ended_at: UtcDatetime | None = None
    status: str = "complete"
    detail: str = "{}"


class Tombstone(BaseModel):
    """Proof that something was forgotten, without what it was.

    ``key`` is a keyed hash (HMAC with a secret local to the store) of an operation id, a node id
    or a fact's evidence (its slot and when the evidence occurred, never its value), so a replay
    can be recognised and refused. The secret is in the store: anyone holding it can confirm a
    guess of an id or a slot and instant, so no key is ever made from a value (see
    docs/security.md). ``generation`` is the store's removal generation when it was written.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    kind: str  # operation | node | evidence
    generation: int
    activity_id: str
    created_at: UtcDatetime


class Block(BaseModel):
    """"Do not collect these facts until re-enabled": visible and revocable."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    block_id: str
    scope: str
    subject: str
    predicates: str  # a glob, e.g. "report_*"
    project: str | None = None
    created_at: UtcDatetime
    revoked_at: UtcDatetime | None = None

    def covers(self, scope: str, subject: str, predicate: str, project: str | None) -> bool:
        from fnmatch import fnmatchcase

        return (
            self.revoked_at is None
            and self.scope == scope
            and self.subject == subject
            and fnmatchcase(predicate, self.predicates)
            and (self.project is None or self.project == project)
        )
