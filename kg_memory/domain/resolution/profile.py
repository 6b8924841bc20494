"""An entity profile: what the memory already knows about one candidate entity, in the shape the
resolver compares a mention against.

The store builds profiles from its entities and assertions (names and aliases, identifiers,
attributes with their valid time, entities often mentioned alongside, and the episodes all of
that came from). The resolver only reads them: it never writes a profile back.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kg_memory.domain.interval import Interval
from kg_memory.domain.resolution.field import CONTEXT_FIELDS
from kg_memory.domain.resolution.field import Field as CompareField
from kg_memory.domain.resolution.mention import Identifier, IdentifierKind, Mention

__all__ = ["AttributeValue", "Declaration", "EntityProfile", "grow_profile"]


class AttributeValue(BaseModel):
    """One value of a context attribute, with the valid time it held (``None``: unknown, which
    is treated as "always" for agreement but never as a contradiction)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attribute: CompareField
    value: str = Field(min_length=1)
    valid: Interval | None = None
    episode_id: str | None = None

    @field_validator("attribute")
    @classmethod
    def _is_attribute(cls, value: CompareField) -> CompareField:
        if value not in CONTEXT_FIELDS:
            allowed = ", ".join(f.value for f in CONTEXT_FIELDS)
            raise ValueError(f"{value.value!r} is not a context attribute ({allowed})")
        return value

    def holds_at(self, instant: datetime) -> bool:
        """True when the value is known to hold at ``instant``."""
        return self.valid is not None and self.valid.contains(instant)


class Declaration(BaseModel):
    """An ``entities`` declaration a profile was grown from: which episode and source said
    which name and identifiers. A profile keeps no other per-name lineage, so forgetting the
    episode can take what only it said, and a lower tier's mention never grows what a higher
    tier declared (as for a resolved mention's decision, which records its source)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    name: str = Field(min_length=1)
    identifiers: tuple[Identifier, ...] = ()


class EntityProfile(BaseModel):
    """A candidate entity. ``names[0]`` is its display name; the rest are aliases."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str = Field(min_length=1)
    scope: str = "default"
    type: str = "person"
    names: tuple[str, ...] = Field(min_length=1)
    identifiers: tuple[Identifier, ...] = ()
    attributes: tuple[AttributeValue, ...] = ()
    #: Values of declared custom attributes: ``(name, value)`` pairs, as the mentions said them.
    custom: tuple[tuple[str, str], ...] = ()
    co_mentions: tuple[str, ...] = ()
    #: Lineage: the episodes this profile was built from. Unmerging relies on it.
    episode_ids: tuple[str, ...] = ()
    #: A provisional entity's family: the entity it is a provisional copy of (a REVIEW whose
    #: every candidate was that entity or one of its copies). ``None`` for any other entity,
    #: and for a provisional entity a REVIEW left between two different entities.
    copy_of: str | None = None
    #: The declarations it was grown from (none for an entity only mentions built).
    declared: tuple[Declaration, ...] = ()

    @property
    def family(self) -> str:
        """The entity this one is a provisional copy of, or itself: copies of one entity and
        the entity are one family, and never rivals of each other."""
        return self.copy_of or self.entity_id

    def identifier_keys(self, kind: IdentifierKind) -> frozenset[str]:
        return frozenset(i.key for i in self.identifiers if i.kind is kind)

    def values(self, attribute: CompareField) -> tuple[AttributeValue, ...]:
        return tuple(a for a in self.attributes if a.attribute is attribute)

    def custom_values(self, name: str) -> tuple[str, ...]:
        return tuple(v for k, v in self.custom if k == name)


def grow_profile(
    profile: EntityProfile | None,
    entity_id: str,
    mention: Mention,
    *,
    copy_of: str | None = None,
) -> EntityProfile:
    """``profile`` with what ``mention`` adds (a new profile for ``entity_id`` if ``None``): its
    name as an alias, its identifiers, its context values valid from the mention's time, its
    custom attributes, co-mentions and episode (lineage). ``copy_of`` (a REVIEW decision's
    :attr:`~kg_memory.domain.resolution.decision.ResolutionDecision.copy_of`) marks a new
    provisional entity as a copy of that entity; an existing profile keeps its own.

    What the store does after a decision, and what a caller using the resolver on its own does:
    grow the profile the mention was attached to, then update the index with it.
    """
    valid = Interval(start=mention.at)
    attributes = tuple(
        AttributeValue(attribute=field, value=value, valid=valid, episode_id=mention.episode_id)
        for field in CONTEXT_FIELDS
        if (value := mention.context.get(field))
    )
    if profile is None:
        return EntityProfile(
            entity_id=entity_id,
            scope=mention.scope,
            type=mention.entity_type or "person",
            names=(mention.name,),
            identifiers=mention.identifiers,
            attributes=attributes,
            custom=mention.context.custom,
            co_mentions=mention.co_mentions,
            episode_ids=(mention.episode_id,),
            copy_of=copy_of if copy_of != entity_id else None,
        )
    return profile.model_copy(
        update={
            "names": tuple(dict.fromkeys((*profile.names, mention.name))),
            "identifiers": tuple(dict.fromkeys((*profile.identifiers, *mention.identifiers))),
            "attributes": (*profile.attributes, *attributes),
            "custom": tuple(dict.fromkeys((*profile.custom, *mention.context.custom))),
            "co_mentions": tuple(dict.fromkeys((*profile.co_mentions, *mention.co_mentions))),
            "episode_ids": tuple(dict.fromkeys((*profile.episode_ids, mention.episode_id))),
        }
    )
