"""A mention: one reference to a person (or other entity) inside one episode, with whatever the
extractor could tell about it, waiting to be resolved to an entity.

A mention carries the name as written, optional strong identifiers, its context attributes as
of the moment it was made (``at``), the entities mentioned alongside it, and where it came from
(``episode_id``, ``scope``). It never carries a guess at which entity it is: that is the
resolver's job, and a label smuggled in here would let the resolver cheat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.resolution.field import Field as CompareField

__all__ = [
    "CONTEXT_KEYS",
    "CUSTOM_PREFIX",
    "Context",
    "Identifier",
    "IdentifierKind",
    "Mention",
    "birth_date_digits",
    "normalize_identifier",
    "unknown_context_key",
]


class IdentifierKind(StrEnum):
    """Strong identifiers: values that belong to one person (though a person may have several)."""

    USER_ID = "user_id"  # an account id in the user's own systems: exactly one per person
    NATIONAL_ID = "national_id"  # a social-security-like number: one per person, often mistyped
    EMAIL = "email"
    PHONE = "phone"
    HANDLE = "handle"  # a chat or social handle

    @property
    def field(self) -> CompareField:
        return _KIND_FIELDS[self]


_KIND_FIELDS: dict[IdentifierKind, CompareField] = {
    k: CompareField(k.value) for k in IdentifierKind}
_ATTRIBUTE_NAMES: dict[CompareField, str] = {f: f.value for f in CompareField}
_NON_DIGITS = re.compile(r"\D+")


def normalize_identifier(kind: IdentifierKind, value: str) -> str:
    """The comparable form of an identifier: emails and handles fold case, phones keep digits.

    >>> normalize_identifier(IdentifierKind.PHONE, "+44 20 7946-0018")
    '442079460018'
    >>> normalize_identifier(IdentifierKind.HANDLE, "@Jo_P")
    'jo_p'
    """
    text = value.strip()
    if kind in (IdentifierKind.PHONE, IdentifierKind.NATIONAL_ID):
        return _NON_DIGITS.sub("", text)
    if kind is IdentifierKind.HANDLE:
        return text.lstrip("@").casefold()
    return text.casefold()


class Identifier(BaseModel):
    """One strong identifier, kept as written; :attr:`key` is what comparisons use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: IdentifierKind
    value: str = Field(min_length=1)

    @property
    def key(self) -> str:
        return normalize_identifier(self.kind, self.value)


_BIRTH_DATE = re.compile(r"^(\d{4})(?:-?(\d{2})-?(\d{2}))?$")


@lru_cache(maxsize=16384)
def birth_date_digits(text: str) -> str | None:
    """``YYYYMMDD`` (or ``YYYY`` for a year-only date) from ``YYYY-MM-DD``, ``YYYYMMDD`` or
    ``YYYY``; ``None`` for anything else. The calendar is not checked on purpose: a mistyped
    "1981-02-30" is still evidence about the person, and the comparator reads its digits.

    >>> birth_date_digits("1981-02-03"), birth_date_digits("1981"), birth_date_digits("3/2/81")
    ('19810203', '1981', None)
    """
    found = _BIRTH_DATE.match(text.strip())
    return None if found is None else "".join(g for g in found.groups() if g)


class Context(BaseModel):
    """What the mention says about the person at the time it was made ("Jo, the PM on Cedar"),
    and the fields of a person record: date of birth, address, postcode, state.

    ``custom`` holds attributes a deployment declares itself (``ResolverConfig.custom``), each
    with a type and a comparator; a key the config does not declare is an error when the
    mention is resolved, on the Python API and the ingest path alike.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    employer: str | None = None
    role: str | None = None
    city: str | None = None
    relation: str | None = None  # to the user: "colleague", "sister", "customer"
    project: str | None = None
    birth_date: str | None = None  # YYYY-MM-DD, YYYYMMDD, or YYYY when only the year is known
    street_number: str | None = None
    street: str | None = None
    locality: str | None = None  # suburb, village or district below the city
    postcode: str | None = None
    state: str | None = None  # state, region, county
    custom: tuple[tuple[str, str], ...] = ()

    @field_validator(
        "employer", "role", "city", "relation", "project", "birth_date", "street_number",
        "street", "locality", "postcode", "state", mode="after",
    )
    @classmethod
    def _blank_is_unknown(cls, value: str | None) -> str | None:
        # "" from a spreadsheet means "not known"; stored as a value it would agree with itself.
        return value if value is None or value.strip() else None

    @field_validator("birth_date", mode="after")
    @classmethod
    def _date_shape(cls, value: str | None) -> str | None:
        if value is not None and birth_date_digits(value) is None:
            raise ValueError(f"birth_date {value!r} is not YYYY-MM-DD, YYYYMMDD or YYYY")
        return value

    @field_validator("custom", mode="before")
    @classmethod
    def _pairs(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return tuple(sorted((str(k), str(v)) for k, v in value.items()))
        return value

    def get(self, attribute: CompareField) -> str | None:
        """The value for an attribute field (``Field.EMPLOYER`` ...), or ``None``."""
        # The attribute's name from a table: Enum.value is a descriptor, slow in the
        # comparator's inner loop.
        value = getattr(self, _ATTRIBUTE_NAMES[attribute], None)
        return value if isinstance(value, str) else None

    def custom_value(self, name: str) -> str | None:
        return next((v for k, v in self.custom if k == name), None)

    @classmethod
    def from_mapping(cls, data: Mapping[str, str]) -> Context:
        """A context from a flat mapping (an ingest line's ``context``): built-in keys become
        fields, ``custom.<name>`` keys custom attributes; any other key is an error."""
        for key in data:
            problem = unknown_context_key(key)
            if problem is not None:
                raise ValueError(problem)
        builtin = {k: v for k, v in data.items() if not k.startswith(CUSTOM_PREFIX)}
        custom = {k.removeprefix(CUSTOM_PREFIX): v for k, v in data.items()
                  if k.startswith(CUSTOM_PREFIX)}
        try:
            return cls(**builtin, custom=custom)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None


#: The prefix of a custom attribute's key in a flat context mapping (``custom.loyalty_tier``).
CUSTOM_PREFIX = "custom."
_CUSTOM_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

#: The built-in context keys, in the order they are documented.
CONTEXT_KEYS: tuple[str, ...] = tuple(k for k in Context.model_fields if k != "custom")


def unknown_context_key(key: str) -> str | None:
    """Why ``key`` is not a context key (``None`` when it is one). The one rule for every path:
    a built-in field, or ``custom.<name>`` for an attribute the resolver config declares (that
    the config declares it is checked when the mention is resolved, against the config used)."""
    if key in CONTEXT_KEYS:
        return None
    if key.startswith(CUSTOM_PREFIX):
        if _CUSTOM_NAME.match(key.removeprefix(CUSTOM_PREFIX)):
            return None
        return f"custom attribute name {key!r} must be custom.<lowercase_name>"
    return f"unknown context key {key!r}; one of {', '.join(CONTEXT_KEYS)} or custom.<name>"


class Mention(BaseModel):
    """One reference to be resolved. ``at`` is when the mention was made (valid time of its
    context), which is what temporal compatibility is judged against."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mention_id: str = Field(min_length=1)
    name: str
    scope: str = "default"
    entity_type: str | None = "person"
    identifiers: tuple[Identifier, ...] = ()
    context: Context = Context()
    co_mentions: tuple[str, ...] = ()
    episode_id: str = Field(min_length=1)
    at: UtcDatetime

    def identifier_keys(self, kind: IdentifierKind) -> frozenset[str]:
        return frozenset(i.key for i in self.identifiers if i.kind is kind)
