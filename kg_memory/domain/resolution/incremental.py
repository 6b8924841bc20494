"""Incremental resolution: add mentions one at a time, get each decision and the profile it
grew, against a blocking index that is updated in place.

This is the resolver used outside the store (a CRM import, a benchmark, a notebook) without
copying its internals. :class:`UpdatableIndex` is a :class:`BlockingIndex` whose profiles can
be upserted and removed; :class:`IncrementalResolver` applies each decision the way the store
does: MERGE grows the entity's profile, KEEP_APART and REVIEW create a new (for REVIEW,
provisional) entity, and the index is updated before the next mention.

>>> from datetime import UTC, datetime
>>> from kg_memory.domain.resolution import Context
>>> at = datetime(2026, 1, 5, 9, tzinfo=UTC)
>>> resolver = IncrementalResolver()
>>> first = resolver.add(Mention(mention_id="m1", name="Ada Lovelace", episode_id="e1", at=at,
...                              context=Context(birth_date="1815-12-10")), now=at)
>>> again = resolver.add(Mention(mention_id="m2", name="Ada Lovelace", episode_id="e2", at=at,
...                              context=Context(birth_date="1815-12-10")), now=at)
>>> first.created, again.decision.outcome, again.entity_id == first.entity_id
(True, <Outcome.MERGE: 'merge'>, True)
>>> again.profile.episode_ids
('e1', 'e2')
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.resolution.blocking import BlockingIndex, profile_keys
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import Outcome, ResolutionDecision
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.profile import EntityProfile, grow_profile
from kg_memory.domain.resolution.resolver import resolve
from kg_memory.domain.resolution.scorer import Scorer

__all__ = ["Added", "IncrementalResolver", "UpdatableIndex", "new_entity_id"]


def new_entity_id(mention_id: str) -> str:
    """The id of the entity a mention founds: deterministic, so a replay founds the same one."""
    return "ent_" + hashlib.sha256(mention_id.encode()).hexdigest()[:16]


class UpdatableIndex(BlockingIndex):
    """A blocking index that is changed in place: :meth:`upsert` a grown or new profile,
    :meth:`remove` a forgotten one. Lookups cost the size of the mention's blocks, as before."""

    __slots__ = ()

    def __init__(self, profiles: Iterable[EntityProfile] = ()) -> None:
        super().__init__()
        for profile in profiles:
            if self.profile(profile.scope, profile.entity_id) is not None:
                BlockingIndex([profile, profile])  # raises the same error as the plain index
            self.upsert(profile)

    def upsert(self, profile: EntityProfile) -> None:
        """Add ``profile``, or replace the one with its scope and id (and its keys)."""
        self.remove(profile.scope, profile.entity_id)
        self._profiles[(profile.scope, profile.entity_id)] = profile
        for key in profile_keys(profile):
            slot = (profile.scope, key)
            ids = self._by_key.get(slot, ())
            self._by_key[slot] = tuple(sorted((*ids, profile.entity_id)))

    def remove(self, scope: str, entity_id: str) -> EntityProfile | None:
        """Drop a profile and its keys; returns it, or ``None`` if it was not indexed."""
        old = self._profiles.pop((scope, entity_id), None)
        if old is None:
            return None
        for key in profile_keys(old):
            slot = (scope, key)
            kept = tuple(i for i in self._by_key.get(slot, ()) if i != entity_id)
            if kept:
                self._by_key[slot] = kept
            else:
                del self._by_key[slot]
        return old


class Added(BaseModel):
    """What adding one mention did: the decision, the entity it landed on, that entity's
    profile as grown by the mention, and whether the entity is new."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: ResolutionDecision
    entity_id: str
    profile: EntityProfile
    created: bool


class IncrementalResolver:
    """Resolve mentions one by one against what the earlier ones built.

    ``config`` and ``scorer`` are those of :func:`~kg_memory.domain.resolution.resolver.resolve`;
    ``entity_id`` names the entity a mention founds (default :func:`new_entity_id`). The
    resolver is pure apart from its own index: ``now`` is passed to :meth:`add`.
    """

    def __init__(
        self,
        profiles: Iterable[EntityProfile] = (),
        *,
        config: ResolverConfig = DEFAULT_CONFIG,
        scorer: Scorer | None = None,
        entity_id: Callable[[str], str] = new_entity_id,
    ) -> None:
        self.index = UpdatableIndex(profiles)
        self.config = config
        self.scorer = scorer
        self._entity_id = entity_id

    def decide(self, mention: Mention, *, now: datetime) -> ResolutionDecision:
        """The decision for ``mention`` now, without adding it."""
        return resolve(mention, self.index, now=now, config=self.config, scorer=self.scorer)

    def add(
        self, mention: Mention, *, now: datetime, manual: ResolutionDecision | None = None
    ) -> Added:
        """Resolve ``mention``, apply the decision to the index and return what it did.

        A ``manual`` decision (a person's) is honoured as :func:`resolve` honours it.
        """
        decision = resolve(
            mention, self.index, now=now, config=self.config, scorer=self.scorer, manual=manual
        )
        if decision.outcome is Outcome.MERGE and decision.entity_id is not None:
            entity_id = decision.entity_id
        else:
            entity_id = self._entity_id(mention.mention_id)
        before = self.index.profile(mention.scope, entity_id)
        profile = grow_profile(before, entity_id, mention, copy_of=decision.copy_of)
        self.index.upsert(profile)
        return Added(
            decision=decision, entity_id=entity_id, profile=profile, created=before is None
        )
