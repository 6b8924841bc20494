"""What the writer gate refuses at an episode's door, each refusal audited.

Two checks come before any candidate is looked at, because every later check trusts what they
let through:

* the envelope: the channel policy (:mod:`kg_memory.domain.channel`) says which sources the
  episode's channel can vouch for, and kg-memory's own worker identities are never a source;
* ownership: an entity's owners may end the facts that depend on it, so declaring or widening
  owners is a write the gate decides (:func:`kg_memory.domain.gate.may_assign`).

A refusal is an audit row (``kg-memory refusals``) and a ``refused`` effect in the ingest
report; the two always agree.
"""

from __future__ import annotations

from kg_memory.domain.change import Effect, PlannedEdge
from kg_memory.domain.channel import ChannelPolicy, Sender, bind, envelope_of
from kg_memory.domain.gate import WriterPolicy, may_assign, may_describe, owners_of
from kg_memory.domain.instant import ensure_utc
from kg_memory.domain.model import (
    EdgeType,
    Entity,
    Episode,
    Refusal,
    Value,
    every_field,
    trusted,
)
from kg_memory.domain.record import IngestRecord
from kg_memory.services.declarations import declare
from kg_memory.store.protocol import Transaction

__all__ = ["admit_entities", "receive", "refuse"]

_EPISODE_FIELDS = every_field(Episode)


def refuse(
    tx: Transaction, episode: Episode, key: str, reason: str, value: Value | None = None
) -> Effect:
    """Record the audit row for a refused candidate and return its write-log effect."""
    what = key if value is None else f"{key} = {value}"
    tx.add_refusal(
        Refusal(
            episode_id=episode.episode_id,
            source=episode.source,
            what=what,
            reason=reason,
            at=tx.now,
        )
    )
    return Effect(action="refused", key=key, value=value, detail=reason)


def receive(
    tx: Transaction, record: IngestRecord, episode_id: str, payload_hash: str,
    channels: ChannelPolicy, sender: Sender | None = None,
) -> tuple[Episode, Effect | None]:
    """Store the episode as received, with the gate's decision on its envelope, and return it
    with the refusal of an envelope its channel cannot vouch for (``None`` when it may pass).

    The decision is stored with the episode, not only in the audit, so that every read (recall,
    MCP, LangGraph, lineage, PROV) knows a refused envelope's content is nobody's statement and
    who really sent it (``sender``: the inlet it came through, when there is one)."""
    binding = bind(channels, source=record.source, channel=record.channel)
    envelope, sent_by, sent_over = envelope_of(
        binding, source=record.source, channel=record.channel, sender=sender)
    # Every field is already validated (the record's, the gate's decision, the unit's time):
    # built without validating it again, once per episode on the agent's path.
    episode = trusted(Episode, {
        "episode_id": episode_id, "operation_id": record.operation_id, "source": record.source,
        "channel": record.channel, "content": record.content,
        "occurred_at": record.occurred_at, "recorded_at": ensure_utc(tx.now), "scope": record.scope,
        "envelope": envelope, "sent_by": sent_by, "sent_over": sent_over}, _EPISODE_FIELDS)
    tx.add_episode(episode, payload_hash)
    if binding.admitted:
        return episode, None
    return episode, refuse(
        tx, episode, f"envelope {episode.source} over {episode.channel.value}", binding.reason)


def admit_entities(
    tx: Transaction, record: IngestRecord, episode: Episode, policy: WriterPolicy
) -> list[Effect]:
    """Introduce the episode's entities and its mentions of known ones.

    Owners a declaration adds are an ownership write (a refused one still records the entity,
    without them). The declaration itself (a name, a type) and a mention are writes about the
    entity (:func:`~kg_memory.domain.gate.may_describe`): a source that may write nothing about
    an entity neither creates nor names it, nor links its episode to it, nor makes it a
    candidate the resolver matches later mentions against (an admitted declaration does:
    :func:`~kg_memory.services.declarations.declare`).
    """
    effects: list[Effect] = []
    for entity in record.entities:
        known = tx.entity(entity.entity_id)
        current = owners_of(policy, entity.entity_id, known.owners if known else ())
        decision = may_assign(
            policy,
            source=record.source,
            entity_id=entity.entity_id,
            current=current,
            declared=entity.owners,
        )
        owners = entity.owners
        if not decision.admitted:
            added = ", ".join(o for o in entity.owners if o not in current)
            effects.append(
                refuse(tx, episode, f"{entity.entity_id}.owners", decision.reason, added)
            )
            owners = ()
        gate = may_describe(policy, source=record.source, entity_id=entity.entity_id,
                            owners=(*current, *owners), channel=record.channel)
        if not gate.admitted:
            effects.append(refuse(tx, episode, entity.entity_id, gate.reason))
            continue
        tx.put_entity(Entity(scope=record.scope, entity_id=entity.entity_id, type=entity.type,
                             name=entity.name, owners=owners))
        tx.add_edge(
            PlannedEdge(src=episode.episode_id, type=EdgeType.MENTIONS, dst=entity.entity_id)
        )
        outranked = declare(tx, record, episode, entity, policy)  # a resolver candidate now
        if outranked is not None:
            effects.append(refuse(tx, episode, f"{entity.entity_id}.profile", outranked))
    for mention in record.mentions:
        known = tx.entity(mention)
        gate = may_describe(policy, source=record.source, entity_id=mention,
                            owners=owners_of(policy, mention, known.owners if known else ()),
                            channel=record.channel)
        if not gate.admitted:
            effects.append(refuse(tx, episode, f"mention {mention}", gate.reason))
            continue
        tx.add_edge(PlannedEdge(src=episode.episode_id, type=EdgeType.MENTIONS, dst=mention))
    return effects
