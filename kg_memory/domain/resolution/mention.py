"""A mention: one reference to a person (or other entity) inside one episode, with whatever the
extractor could tell about it, waiting to be resolved to an entity.

A mention carries the name as written, optional strong identifiers, its context attributes as
of the moment it was made (``at``), the entities mentioned alongside it, and where it came from
(``episode_id``, ``scope``). It never carries a guess at which entity it is: that is the
resolver's job, and a label smuggled in here would let the resolver cheat.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.resolution.field import Field as CompareField

__all__ = ["Context", "Identifier", "IdentifierKind", "Mention", "normalize_identifier"]


class IdentifierKind(StrEnum):
    """Strong identifiers: values that belong to one person (though a person may have several)."""

    USER_ID = "user_id"  # an account id in the user's own systems: exactly one per person
    EMAIL = "email"
    PHONE = "phone"
    HANDLE = "handle"  # a chat or social handle

    @property
    def field(self) -> CompareField:
        return CompareField(self.value)


_NON_DIGITS = re.compile(r"\D+")


def normalize_identifier(kind: IdentifierKind, value: str) -> str:
    """The comparable form of an identifier: emails and handles fold case, phones keep digits.

    >>> normalize_identifier(IdentifierKind.PHONE, "+44 20 7946-0018")
    '442079460018'
    >>> normalize_identifier(IdentifierKind.HANDLE, "@Jo_P")
    'jo_p'
    """
    text = value.strip()
    if kind is IdentifierKind.PHONE:
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


class Context(BaseModel):
    """What the mention says about the person at the time it was made ("Jo, the PM on Cedar")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    employer: str | None = None
    role: str | None = None
    city: str | None = None
    relation: str | None = None  # to the user: "colleague", "sister", "customer"
    project: str | None = None

    def get(self, attribute: CompareField) -> str | None:
        """The value for an attribute field (``Field.EMPLOYER`` ...), or ``None``."""
        value = getattr(self, attribute.value, None)
        return value if isinstance(value, str) else None


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
