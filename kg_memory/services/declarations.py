"""Declared entities are resolver candidates, like resolved mentions.

An episode's ``entities`` list declares an entity by id, with a name, a type and optionally
identifiers and context. Once the writer gate has admitted a declaration of a person, or of
anything with identifiers or context (:func:`is_identity`; see
:func:`~kg_memory.services.admission.admit_entities`: a refused one is never a candidate), it
grows the entity's profile exactly as a mention resolved to that entity would
(:func:`~kg_memory.domain.resolution.grow_profile`), so a later ``resolve`` mention of the same
person meets it among its candidates and the resolver's usual rules decide: MERGE on evidence,
REVIEW (a provisional entity linked ``POSSIBLE_SAME_AS``) on a name alone, never a same-name
merge without evidence. Before this, the later mention made a second entity with no link.

A declaration records no decision: it resolves nothing (its id says which entity it is). The
profile keeps it as a :class:`~kg_memory.domain.resolution.Declaration` instead, which is the
lineage forgetting needs and the source the authority tiers compare (:func:`outranked_by`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from kg_memory.domain.authority import rank
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Episode
from kg_memory.domain.record import EntityCandidate, IngestRecord
from kg_memory.domain.resolution import (
    Context,
    Declaration,
    EntityProfile,
    Identifier,
    IdentifierKind,
    Mention,
    grow_profile,
    mention_keys,
)
from kg_memory.services.identity import DECISION, PROFILE, entity_key, save_profile
from kg_memory.store.protocol import Transaction

__all__ = ["Attribution", "attribution", "declare", "is_identity", "outranked_by"]


def _mention(declared: EntityCandidate, name: str, record: IngestRecord,
             episode: Episode) -> Mention:
    """The declaration as the mention the resolver would have seen, had it been resolved."""
    others = [*record.mentions, *(e.entity_id for e in record.entities)]
    return Mention(
        mention_id=f"{episode.episode_id}/entity:{declared.entity_id}", name=name,
        scope=record.scope, entity_type=declared.type,
        identifiers=tuple(Identifier(kind=IdentifierKind(kind), value=value)
                          for kind, value in sorted(declared.identifiers.items())),
        context=Context.from_mapping(declared.context),
        co_mentions=tuple(dict.fromkeys(o for o in others if o != declared.entity_id)),
        episode_id=episode.episode_id, at=record.occurred_at)


def declare(tx: Transaction, record: IngestRecord, episode: Episode, declared: EntityCandidate,
            policy: WriterPolicy) -> str | None:
    """Grow the profile of an admitted declaration's entity; the reason it may not (a higher
    tier described the entity), or ``None``. A declaration without a name, of an entity that
    has none either, gives the resolver nothing to match on and makes no profile; nor does one
    that is no identity (:func:`is_identity`)."""
    if not is_identity(declared):
        return None
    known = tx.entity(declared.entity_id)
    name = declared.name or (known.name if known is not None else None)
    if not name:
        return None
    mention = _mention(declared, name, record, episode)
    lookup = sorted({entity_key(declared.entity_id), *mention_keys(mention)})
    current = next((p for p in (EntityProfile.model_validate_json(b) for b in tx.documents_by(
        PROFILE, record.scope, lookup)) if p.entity_id == declared.entity_id), None)
    above = outranked_by(tx, policy, record.source, declared.entity_id, current)
    if above is not None:
        return (f"{record.source} may not add to {declared.entity_id}'s profile: {above} "
                "described it with more authority")
    grown = grow_profile(current, declared.entity_id, mention)
    save_profile(tx, grown.model_copy(update={"declared": (*grown.declared, Declaration(
        episode_id=episode.episode_id, source=record.source, name=name,
        identifiers=mention.identifiers))}))
    return None


def is_identity(declared: EntityCandidate) -> bool:
    """Whether a declaration describes an identity the resolver resolves: a person (what a
    mention is unless it says otherwise), or anything declared with identifiers or context.

    A named booking or venue is not: a mention of a person never merges with it (a type
    mismatch is a veto), and its profile would cost every such episode the identity
    documents' unplanned writes (a batch of the bench workload's bookings went from under 20
    Neo4j queries to 157) for no decision it could change."""
    return declared.type.casefold() == "person" or bool(declared.identifiers or declared.context)


def outranked_by(tx: Transaction, policy: WriterPolicy, source: str, entity_id: str,
                 profile: EntityProfile | None) -> str | None:
    """A source of higher authority than ``source`` whose mentions or declarations built
    ``entity_id``'s profile, or ``None``. Tiers hold for descriptions as for values: a lower
    tier may still name the entity (its facts are attributed and arbitrated), but what it says
    about the entity never becomes evidence the resolver matches the user's later mentions on."""
    if profile is None:
        return None
    mine = rank(policy.authority, source)
    if mine == 0:
        return None  # the highest tier: no one outranks it, and nothing need be read
    for said in profile.declared:
        if rank(policy.authority, said.source) < mine:
            return said.source
    for body in tx.documents_by(DECISION, tx.scope, [entity_id]):
        # Only who decided, for which entity: the whole decision (every candidate's evidence)
        # was most of what this cost when it was parsed as a Resolved.
        found = attribution(body)
        if (found.entity_id == entity_id and found.source is not None
                and rank(policy.authority, found.source) < mine):
            return found.source
    return None


class Attribution(BaseModel):
    """The part of a stored :class:`~kg_memory.services.identity.Resolved` the tiers read."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    entity_id: str
    source: str | None = None


#: The top-level key a stored decision's attribution starts at (see :func:`attribution`).
_ENTITY_KEY = '"entity_id":'


def attribution(body: str) -> Attribution:
    """Who made a stored decision, for which entity, read from the end of its body.

    A :class:`~kg_memory.services.identity.Resolved` is written field by field in order: the
    decision (every candidate's evidence, 3.7 kB on average of the bodies the tiers read on
    FEBRL 4, some 200 kB), then ``entity_id`` and ``source``. So the last ``,"entity_id":``
    of the body is the top-level key, and ``{`` in place of its comma makes the attribution's
    own JSON object. A comma then an unescaped quote starts a string outside any string (one
    followed by a colon is a key), and the text parses only when that key is a member of the
    top-level object: one nested deeper leaves its containers' closing brackets unmatched.
    Anything else (a body written in another order or spacing) is parsed whole, as before:
    the same answer either way.
    """
    at = body.rfind(_ENTITY_KEY)
    if at > 0 and body[at - 1] == ",":
        try:
            return Attribution.model_validate_json("{" + body[at:])
        except ValidationError:
            pass  # not the top-level key: read the whole body
    return Attribution.model_validate_json(body)
