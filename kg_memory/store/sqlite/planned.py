"""One episode's unit of work inside a planned batch: the store protocol over a
:class:`~kg_memory.store.sqlite.plan.BatchPlan`, writing journal rows instead of statements.

Reads see the file as it was when the batch began, then the batch's earlier episodes, then this
unit's own writes: exactly what :class:`~kg_memory.store.sqlite.tx.SqliteTransaction` would
see had each episode been written on its own. Each rule of that class is kept here in memory:
a revision written and replaced inside one unit was never visible and is not written (though
the outbox rows its insert and delete would have left are), entities' owners only grow and a
name is only filled in, an edge is recorded once.

The write path of an ingest is planned, entity resolution's profiles and decisions included
(:mod:`~kg_memory.store.sqlite.plan_documents`); anything else (other documents, forgetting,
blocks, activities) raises :class:`~kg_memory.domain.errors.Unplanned` before it changes
anything, and the store then writes the batch so far and runs that unit on its own.
"""

from __future__ import annotations

import json
from datetime import datetime

from kg_memory.domain.change import Closure, Draft, PlannedEdge
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import from_micros, to_micros
from kg_memory.domain.model import (
    Assertion,
    Block,
    Entity,
    Episode,
    Refusal,
)
from kg_memory.domain.recall_text import episode_document, fact_document
from kg_memory.store.journal_view import JournalView
from kg_memory.store.protocol import Slot
from kg_memory.store.sqlite.plan import BatchPlan, Journal, Written
from kg_memory.store.sqlite.plan_documents import PLANNED_KINDS
from kg_memory.store.unplanned import UnplannedWrites

__all__ = ["PlannedUnit"]


def _order(found: list[tuple[int, Assertion]]) -> list[Assertion]:
    """By valid start, then row id: the order of the direct path's ``ORDER BY valid_from``
    over its index (row ids grow with insertion, and the batch's come after the file's)."""
    return [v for _, v in sorted(found, key=lambda p: (p[1].valid.start, p[0]))]


class PlannedUnit(UnplannedWrites, JournalView[BatchPlan, Journal]):
    """One episode's unit of work at system time :attr:`now`, planned into :attr:`journal`."""

    def __init__(self, plan: BatchPlan, now: int, scope: str) -> None:
        super().__init__(plan, plan.journal, Journal(), from_micros(now), scope)
        #: :attr:`now` as the store's column value (microseconds since the epoch).
        self._now = now

    # -- the live view: stored, minus what the batch closed, plus what it wrote --------------

    def _written(self, index: str, key: object) -> list[tuple[int, Assertion]]:
        """Believed revisions the batch wrote under ``key`` of one of the journals' indexes."""
        return [(w.vid, w.version)
                for w in (journal.inserted[k] for journal, k in self._unclosed(index, key))]

    def _stored(self, found: list[tuple[int, Assertion]]) -> list[tuple[int, Assertion]]:
        return [(vid, v) for vid, v in found if not self._closed((v.assertion_id, v.revision))]

    def live_versions(self, slot: Slot) -> list[Assertion]:
        self._in_scope(slot.scope)
        key = (slot.scope, slot.subject, slot.predicate, slot.project or "")
        return _order([*self._stored(self._plan.stored_slot(key)),
                       *self._written("by_slot", key)])

    def _live_of(self, assertion_id: str) -> list[tuple[int, Assertion]]:
        stored = ([] if self._plan.known_absent(assertion_id)
                  else self._stored(self._plan.stored_live_of(assertion_id)))
        return [*stored, *self._written("by_id", assertion_id)]

    def live_versions_of(self, assertion_id: str) -> list[Assertion]:
        return _order([(vid, v) for vid, v in self._live_of(assertion_id)
                       if v.scope == self._scope])

    def live_dependents(self, key: str) -> list[Assertion]:
        ids = dict.fromkeys(self._plan.stored_dependents(self._scope, key))
        for journal in (self._batch, self.journal):
            ids.update(journal.by_dependency.get((self._scope, key), {}))
        return _order([p for assertion_id in ids for p in self._live_of(assertion_id)])

    # -- episodes and entities ---------------------------------------------------------------

    def add_episode(self, episode: Episode, payload_hash: str) -> None:
        self._in_scope(episode.scope)
        self.journal.operations[(episode.scope, episode.operation_id)] = (episode, payload_hash)
        self.journal.episodes.append((episode, payload_hash, episode_document(episode.content)))

    def entity(self, entity_id: str) -> Entity | None:
        key = (self._scope, entity_id)
        for journal in (self.journal, self._batch):
            if key in journal.entities:
                return journal.entities[key]
        return self._plan.stored_entity(*key)

    def put_entity(self, entity: Entity) -> None:
        """Insert, or widen the owners and fill in the name (the direct path's statements, kept
        as rows so the flush replays them and their triggers in order)."""
        self._in_scope(entity.scope)
        key = (entity.scope, entity.entity_id)
        known = self.entity(entity.entity_id)
        if known is None:
            self.journal.entity_inserts.append((
                entity.entity_id, entity.type, entity.name, entity.scope,
                json.dumps(list(entity.owners)), self._now))
            self.journal.entities[key] = entity
            return
        owners = tuple(dict.fromkeys((*known.owners, *entity.owners)))
        if owners != known.owners or (entity.name and not known.name):
            self.journal.entity_updates.append(
                (json.dumps(list(owners)), entity.name, self._scope, entity.entity_id))
            name = known.name if known.name is not None else entity.name  # coalesce(name, ?)
            self.journal.entities[key] = known.model_copy(update={"owners": owners,
                                                                  "name": name})

    # -- revisions and edges -----------------------------------------------------------------

    def close_version(self, closure: Closure) -> None:
        key = (closure.assertion_id, closure.revision)
        if key in self.journal.inserted:
            # Written and replaced inside one unit: never visible to anyone, so not written.
            written = self.journal.uninsert(key)
            self.journal.outbox += [("versions", closure.assertion_id)] * 2
            if written.text:
                self.journal.counted.add(written.version.scope)
            self._vanished.add(closure.assertion_id)
            return
        vid: int | None = None
        if not self._closed(key):
            batch = self._batch.inserted.get(key)
            vid = batch.vid if batch is not None else self._plan.stored_revision_vid(key)
        if vid is None:
            raise StoreUnavailable(
                f"revision {closure.assertion_id}#{closure.revision} is not live; "
                "the store changed under this transaction")
        self.journal.closed[key] = (vid, self._now, closure.closed_by, closure.reason.value)

    def insert_version(self, draft: Draft) -> Assertion:
        self._in_scope(draft.scope)
        numbers = [r for j in (self._batch, self.journal)
                   for _, r in j.by_id.get(draft.assertion_id, ())]
        revision = max([self._plan.highest(draft.assertion_id), *numbers]) + 1
        written = self._believed(draft, revision)
        for dep in draft.depends_on:
            self.journal.depend(self._scope, dep, draft.assertion_id)
        project = draft.qualifiers.project
        ids = sorted({draft.subject, *([project] if project else [])})
        names = tuple(e.name for e in map(self.entity, ids) if e is not None
                      and e.name is not None)
        text = fact_document(written, project, draft.qualifiers.exceptions, names)
        self.journal.insert(Written(self._plan.next_vid(), written, text))
        return written

    def add_edge(self, edge: PlannedEdge) -> None:
        self.journal.edges.setdefault((self._scope, edge.src, edge.type.value, edge.dst),
                                      self._now)

    def add_refusal(self, refusal: Refusal) -> None:
        self.journal.refusals.append((refusal.episode_id, refusal.source, refusal.what,
                                      refusal.reason, to_micros(refusal.at)))

    def finish(self) -> None:
        """An assertion all of whose revisions this unit wrote and replaced was never visible:
        the edges and dependency rows naming it go too (the direct path deletes them, and its
        triggers leave the edges' insert and delete in the outbox)."""
        for assertion_id in sorted(self._vanished):
            if self._plan.highest(assertion_id) or any(
                    j.by_id.get(assertion_id) for j in (self._batch, self.journal)):
                continue
            # This unit's scope only (as the direct path): another tenant's edge to a node
            # that happens to bear the same id is not this unit's to remove.
            for journal in (self._batch, self.journal):
                for edge in [e for e in journal.edges
                             if e[0] == self._scope and assertion_id in (e[1], e[3])]:
                    del journal.edges[edge]
                    self.journal.outbox += [("edges", chr(31).join(edge))] * 2
                journal.undepend(self._scope, assertion_id)
        self._vanished.clear()

    # -- reads a write path makes ------------------------------------------------------------

    def tombstones(self, keys: list[str]) -> dict[str, datetime]:
        found = self._plan.stored_tombstones(list(keys)) if keys else {}
        return {k: from_micros(t) for k, t in found.items()}

    def active_blocks(self, scope: str) -> list[Block]:
        self._in_scope(scope)
        return list(self._plan.stored_blocks(scope))

    # -- identity documents (:mod:`~kg_memory.store.sqlite.plan_documents`) ---------------------

    def put_document(self, kind: str, key: str, scope: str, body: str,
                     lookup: list[str] | None = None) -> None:
        """The direct path's ``INSERT OR REPLACE`` of the body and ``INSERT OR IGNORE`` of
        each lookup key, kept: a replaced document keeps every key it was ever filed under."""
        if kind not in PLANNED_KINDS:
            self._unplanned("put_document")
        self._in_scope(scope)
        self.journal.documents[(kind, scope, key)] = (body, self._now)
        for k in lookup or ():
            self.journal.document_keys.setdefault((kind, scope, k), {})[key] = None

    def documents_by(self, kind: str, scope: str, lookup: list[str]) -> list[str]:
        """The bodies stored or written since under any of ``lookup``, by document key (the
        direct path's ``ORDER BY d.key``: UTF-8's byte order is code point order)."""
        if kind not in PLANNED_KINDS:
            self._unplanned("documents_by")
        self._in_scope(scope)
        if not lookup:
            return []
        docs = self._plan.documents.filed(kind, scope, lookup)
        for journal in (self._batch, self.journal):
            for k in lookup:
                docs.update(journal.document_keys.get((kind, scope, k), ()))
        bodies = (self._document(kind, scope, doc) for doc in sorted(docs))
        return [body for body in bodies if body is not None]

    def _document(self, kind: str, scope: str, key: str) -> str | None:
        for journal in (self.journal, self._batch):
            if (kind, scope, key) in journal.documents:
                return journal.documents[(kind, scope, key)][0]
        return self._plan.documents.body(kind, scope, key)
