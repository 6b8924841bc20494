"""One episode's unit of work inside a Neo4j batch: the store protocol over a
:class:`~kg_memory.store.neo4j.plan.BatchPlan`, writing rows instead of running queries.

Reads see the server as it was when the batch began, then the batch's earlier episodes, then
this one's own writes, exactly the state a unit of work would see had each episode committed
on its own. The unit's rows go into its own :class:`~kg_memory.store.neo4j.plan.Journal`, which
the store merges into the batch's only when the episode succeeded.

The write path of an ingest is planned here; anything else (forgetting, blocks, activities,
identity documents) raises :class:`Unbatched` before it changes anything, and the store then
gives that episode a transaction of its own (see ``Neo4jStore.transaction``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from kg_memory.domain.change import Closure, Draft, PlannedEdge
from kg_memory.domain.errors import StoreUnavailable, Unplanned
from kg_memory.domain.model import (
    Assertion,
    Block,
    Entity,
    Episode,
    Refusal,
)
from kg_memory.domain.recall_text import episode_document, fact_document
from kg_memory.store.journal_view import JournalView
from kg_memory.store.neo4j.plan import BatchPlan, Journal, slot_key
from kg_memory.store.neo4j.rows import envelope_props, iso
from kg_memory.store.neo4j.unit import ScopedUnit
from kg_memory.store.protocol import Slot
from kg_memory.store.unplanned import UnplannedWrites

__all__ = ["BufferedUnit", "Unbatched"]


class Unbatched(Unplanned):
    """An operation the batch planner does not plan. Nothing of the unit was written; the
    store commits the batch so far and runs the unit again on its own (so it is retryable)."""


def _by_valid(v: Assertion) -> tuple[datetime, str, int]:
    return (v.valid.start, v.assertion_id, v.revision)


class BufferedUnit(UnplannedWrites, JournalView[BatchPlan, Journal], ScopedUnit):
    """One episode's unit of work at system time :attr:`now`, planned into a journal. What
    forget runs erase is never planned here (see :class:`Unbatched`), so its erased lists stay
    empty."""

    refusal = Unbatched

    def __init__(self, plan: BatchPlan, now: datetime, scope: str) -> None:
        super().__init__(plan, plan.journal, Journal(), now, scope)
        self._refusal_seq: dict[str, int] = {}

    # -- the live view: stored, minus what the batch closed, plus what it wrote -----------------

    def _written(self, index: str, key: Any) -> list[Assertion]:
        """The revisions this batch wrote under ``key`` of one of the journals' indexes, still
        believed."""
        return [v for v in (journal.inserted[k][0] for journal, k in self._unclosed(index, key))
                if v.system.end is None]

    def _live(self, stored: list[Assertion], written: list[Assertion]) -> list[Assertion]:
        # A batch planned while the prior one commits may read the prior's revisions from the
        # server as well as from its journal: the journal's (closed since, or not) is the one.
        found = [v for v in stored if not self._closed(key := (v.assertion_id, v.revision))
                 and key not in self._batch.inserted and key not in self.journal.inserted]
        return sorted([*found, *written], key=_by_valid)

    def live_versions(self, slot: Slot) -> list[Assertion]:
        self._in_scope(slot.scope)
        key = slot_key(slot)
        return self._live(self._plan.stored_slot(key), self._written("by_slot", key))

    def live_versions_of(self, assertion_id: str) -> list[Assertion]:
        stored = ([] if self._new_here(assertion_id)
                  else self._plan.stored_live_of(self._scope, assertion_id))
        written = [v for v in self._written("by_id", assertion_id) if v.scope == self._scope]
        return sorted(self._live(stored, written), key=lambda v: (v.valid.start, v.revision))

    def _new_here(self, assertion_id: str) -> bool:
        """An assertion this batch created: nothing stored names it yet."""
        return assertion_id not in self._plan.highest and any(
            j.by_id.get(assertion_id) for j in (self._batch, self.journal))

    def live_dependents(self, key: str) -> list[Assertion]:
        stored = [] if self._new_here(key) else self._plan.stored_dependents(self._scope, key)
        return self._live(stored, self._written("by_dependency", (self._scope, key)))

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """:meth:`live_dependents` of each key, the stored ones prefetched together: one
        ``batch_live_dependents`` query per level of the walk for all the keys, not one
        prefetch per key (the loop the protocol allows ran a query or more for each)."""
        self._plan.prefetch(dependents=[(self._scope, key) for key in dict.fromkeys(keys)
                                        if not self._new_here(key)])
        return {key: self.live_dependents(key) for key in keys}

    # -- episodes and entities -------------------------------------------------------------------

    def add_episode(self, episode: Episode, payload_hash: str) -> None:
        self._in_scope(episode.scope)
        text = episode_document(episode.content)
        self.journal.operations[(episode.scope, episode.operation_id)] = (episode, payload_hash)
        self.journal.episodes.append({
            "scope": episode.scope, "episode_id": episode.episode_id,
            "occurred_at": iso(episode.occurred_at), "recorded_at": iso(episode.recorded_at),
            "props": {
            "episode_id": episode.episode_id, "operation_id": episode.operation_id,
            "payload_hash": payload_hash, "source": episode.source,
            "channel": episode.channel.value, "content": episode.content,
            "scope": episode.scope, **envelope_props(episode), "recall_text": text or None,
            "recall_length": text.count(" ") + 1 if text else None}})

    def entity(self, entity_id: str) -> Entity | None:
        key = (self._scope, entity_id)
        for journal in (self.journal, self._batch):
            if key in journal.entities:
                return journal.entities[key][0]
        return self._plan.stored_entity(*key)

    def put_entity(self, entity: Entity) -> None:
        """put_entity.cypher's rules, applied in memory: owners grow, a name is filled in."""
        self._in_scope(entity.scope)
        key = (entity.scope, entity.entity_id)
        known = self.entity(entity.entity_id)
        at = next((j.entities[key][1] for j in (self.journal, self._batch)
                   if key in j.entities), self.now)
        if known is not None:
            owners = tuple(dict.fromkeys((*known.owners, *entity.owners)))
            entity = known.model_copy(update={"name": known.name or entity.name,
                                              "owners": owners})
        self.journal.entities[key] = (entity, at)

    # -- revisions and edges ---------------------------------------------------------------------

    def close_version(self, closure: Closure) -> None:
        key = (closure.assertion_id, closure.revision)
        if key in self.journal.inserted:
            # Written by this same unit: never visible to anyone, so it is not stored at all.
            self.journal.uninsert(key)
            self._vanished.add(closure.assertion_id)
            return
        written = self._batch.inserted.get(key)
        live = (written[0].system.end is None) if written else key in self._plan.stored_live
        if self._closed(key) or (not live and not any(
                (v.assertion_id, v.revision) == key
                for v in self.live_versions_of(closure.assertion_id))):
            raise StoreUnavailable(
                f"revision {closure.assertion_id}#{closure.revision} is not live; "
                "the store changed under this transaction")
        self.journal.closed[key] = {"now": self.now, "closed_by": closure.closed_by,
                                    "reason": closure.reason}

    def insert_version(self, draft: Draft) -> Assertion:
        self._in_scope(draft.scope)
        numbers = [r for j in (self._batch, self.journal)
                   for _, r in j.by_id.get(draft.assertion_id, ())]
        revision = max([self._plan.highest.get(draft.assertion_id, 0), *numbers]) + 1
        version = self._believed(draft, revision)
        ids = [version.subject,
               *([version.qualifiers.project] if version.qualifiers.project else [])]
        names = tuple(sorted((e.entity_id, e.name) for e in map(self.entity, ids)
                              if e is not None and e.name and e.scope == version.scope))
        text = fact_document(version, version.qualifiers.project, version.qualifiers.exceptions,
                             tuple(name for _, name in names))
        self.journal.insert(version, [text])
        return version

    def add_edge(self, edge: PlannedEdge) -> None:
        self.journal.edges.setdefault((self._scope, edge.src, edge.type.value, edge.dst),
                                      self.now)

    def add_refusal(self, refusal: Refusal) -> None:
        seq = self._refusal_seq.get(refusal.episode_id, 0)
        self._refusal_seq[refusal.episode_id] = seq + 1
        self.journal.refusals.append({
            "episode_id": refusal.episode_id, "source": refusal.source, "what": refusal.what,
            "reason": refusal.reason, "at": iso(refusal.at), "seq": seq})

    def finish(self) -> None:
        """The hub of a fact all of whose revisions this unit wrote and replaced is never
        written, and neither is any edge naming it (sweep_vanished's rule)."""
        for assertion_id in self._vanished:
            if assertion_id in self._plan.highest or any(
                    j.by_id.get(assertion_id) for j in (self._batch, self.journal)):
                continue
            self.journal.edges = {k: v for k, v in self.journal.edges.items()
                                  if assertion_id not in (k[1], k[3])}

    # -- reads a write path makes --------------------------------------------------------------

    def tombstones(self, keys: list[str]) -> dict[str, datetime]:
        return self._plan.stored_tombstones(list(keys)) if keys else {}

    def active_blocks(self, scope: str) -> list[Block]:
        self._in_scope(scope)
        return list(self._plan.stored_blocks(scope))

    # -- not planned (the rest: kg_memory.store.unplanned): the unit runs on its own instead --

    def run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        self._unplanned(f"query {name}")
