"""Resolving an episode's mentions at ingest, under the writer gate and the authority tiers.

A mention is what its source says about an entity (a name, identifiers, context). The resolver
(:mod:`kg_memory.domain.resolution`) decides which entity it is; before anything is stored, the
writer gate decides whether the source may describe that entity at all
(:func:`~kg_memory.domain.gate.may_describe`), and the tiers decide whether what it says joins
the entity's profile, the evidence later mentions are matched on
(:func:`~kg_memory.services.declarations.outranked_by`).
Outcomes are applied as :mod:`kg_memory.services.identity` stores them.
"""

from __future__ import annotations

from functools import lru_cache

from kg_memory.domain.change import Effect, PlannedEdge
from kg_memory.domain.errors import IngestError
from kg_memory.domain.gate import WriterPolicy, may_describe, owners_of
from kg_memory.domain.model import EdgeType, Entity, Episode
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    BlockingIndex,
    EntityProfile,
    Outcome,
    ResolutionError,
    ResolverConfig,
    Scorer,
    grow_profile,
    mention_keys,
    new_entity_id,
    resolve,
)
from kg_memory.services.admission import refuse
from kg_memory.services.declarations import outranked_by
from kg_memory.services.identity import (
    PROFILE,
    Resolved,
    save_decision,
    save_profile,
    to_mention,
)
from kg_memory.store.protocol import Transaction

__all__ = ["resolve_mentions"]


@lru_cache(maxsize=4096)
def _parse_profile(body: str) -> EntityProfile:
    """A stored profile, parsed once per distinct body: a block's profiles are fetched again
    for every mention that shares its keys, and parsing was a tenth of the store path. Safe to
    share: a profile is frozen, and a changed profile is another body."""
    return EntityProfile.model_validate_json(body)


def resolve_mentions(tx: Transaction, record: IngestRecord, episode: Episode,
                     policy: WriterPolicy, scorer: Scorer | None = None,
                     config: ResolverConfig = DEFAULT_CONFIG
                     ) -> tuple[dict[str, str], list[Effect]]:
    """Resolve each mention of ``record`` to an entity; returns ``{key: entity_id}`` and the
    refusals. A mention is what its source says about an entity (a name, identifiers,
    context), so it passes the writer gate as a write about the entity it would land on
    (:func:`~kg_memory.domain.gate.may_describe`): a refused one grows no profile, records no
    decision and makes no entity, and the candidates naming it are refused with it."""
    resolved: dict[str, str] = {}
    effects: list[Effect] = []
    known = [*record.mentions, *(e.entity_id for e in record.entities)]
    for position, candidate in enumerate(record.resolve):
        mention = to_mention(candidate, record, episode.episode_id, [*known, *resolved.values()])
        lookup = sorted(mention_keys(mention))
        profiles = {p.entity_id: p for p in (
            _parse_profile(b) for b in tx.documents_by(PROFILE, record.scope, lookup))}
        try:
            decision = resolve(mention, BlockingIndex(list(profiles.values())), now=tx.now,
                               scorer=scorer, config=config)
        except ResolutionError as exc:
            # The same rule as on the Python API (an undeclared or mistyped custom attribute),
            # reported as bad input naming the field, and nothing of the line is written.
            raise IngestError(str(exc), field=f"resolve.{position}.context") from None
        if decision.outcome is Outcome.MERGE and decision.entity_id is not None:
            entity_id = decision.entity_id
        else:
            entity_id = new_entity_id(mention.mention_id)
        stored = tx.entity(entity_id)
        gate = may_describe(policy, source=record.source, entity_id=entity_id,
                            owners=owners_of(policy, entity_id, stored.owners if stored else ()),
                            channel=record.channel)
        if not gate.admitted:
            effects.append(refuse(tx, episode, f"@{candidate.key}", gate.reason))
            continue
        above = outranked_by(tx, policy, record.source, entity_id, profiles.get(entity_id))
        if above is None:
            save_profile(tx, grow_profile(profiles.get(entity_id), entity_id, mention,
                                           copy_of=decision.copy_of))
        else:
            effects.append(refuse(tx, episode, f"@{candidate.key}.profile",
                                  f"{record.source} may not add to {entity_id}'s profile: "
                                  f"{above} described it with more authority"))
        tx.put_entity(Entity(entity_id=entity_id, type=candidate.type, name=candidate.name,
                             scope=record.scope))
        save_decision(tx, Resolved(decision=decision, entity_id=entity_id,
                                    source=record.source))
        tx.add_edge(PlannedEdge(src=episode.episode_id, type=EdgeType.RESOLVED_TO,
                                dst=entity_id))
        for other in decision.possible_same_as:
            tx.add_edge(PlannedEdge(src=entity_id, type=EdgeType.POSSIBLE_SAME_AS, dst=other))
        resolved[candidate.key] = entity_id
    return resolved, effects
