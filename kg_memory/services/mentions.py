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

from collections import OrderedDict
from threading import Lock

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
    grown_profile_keys,
    mention_keys,
    new_entity_id,
    profile_keys,
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


class _Filed:
    """Stored profiles, parsed once per distinct body, with their blocking keys.

    A block's profiles are fetched again for every mention that shares its keys; parsing was a
    tenth of the store path and computing their keys (to index them) another twentieth. A body
    this path stores is remembered with the profile and keys it was made from, so the next
    mention to fetch it neither parses it nor computes its keys again. Safe to share between
    stores and transactions: a profile is frozen, its keys are a function of it, and a changed
    profile is another body. Bounded, oldest dropped first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._known: OrderedDict[str, tuple[EntityProfile, frozenset[str]]] = OrderedDict()
        self._lock = Lock()  # one memory may be written from several threads

    def read(self, body: str) -> tuple[EntityProfile, frozenset[str]]:
        with self._lock:
            found = self._known.get(body)
            if found is not None:
                self._known.move_to_end(body)
                return found
        profile = EntityProfile.model_validate_json(body)
        return self.keep(body, profile, profile_keys(profile))

    def keep(self, body: str, profile: EntityProfile, keys: frozenset[str]
             ) -> tuple[EntityProfile, frozenset[str]]:
        with self._lock:
            self._known[body] = (profile, keys)
            self._known.move_to_end(body)
            if len(self._known) > self._size:
                self._known.popitem(last=False)
        return profile, keys


_FILED = _Filed(8192)


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
        said = mention_keys(mention)
        known_by = {p.entity_id: (p, keys) for p, keys in (
            _FILED.read(b) for b in tx.documents_by(PROFILE, record.scope, sorted(said)))}
        filed = list(known_by.values())
        try:
            decision = resolve(mention, BlockingIndex.filed(filed, only=said), now=tx.now,
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
        current, current_keys = known_by.get(entity_id, (None, frozenset[str]()))
        above = outranked_by(tx, policy, record.source, entity_id, current)
        if above is None:
            grown = grow_profile(current, entity_id, mention, copy_of=decision.copy_of)
            # Growing only adds: the stored keys and the mention's, not all of its names again.
            keys = grown_profile_keys(current_keys, grown, mention)
            _FILED.keep(save_profile(tx, grown, keys), grown, keys)
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
