"""A batch of episodes planned in memory and written to Neo4j with a handful of UNWIND queries.

Inside :meth:`~kg_memory.store.neo4j.store.Neo4jStore.batch`, each episode's unit of work is a
:class:`~kg_memory.store.neo4j.buffered.BufferedUnit`: it runs the same write path (the pure
rules of ``kg_memory.domain`` over the store protocol) against a :class:`BatchPlan`, which
answers reads from what the server held when the batch began (prefetched in a few set-based
queries, or fetched once on a miss) with the batch's own earlier writes laid over it, so a later
episode sees the earlier ones' effects. Writes become rows of the plan. Nothing reaches the
server before the batch ends, so an episode that fails (validation, the gate, a stale
precondition) is dropped whole by forgetting its rows: Neo4j has no savepoints, the plan does.

At the end, :meth:`BatchPlan.flush` writes every row kind with one query (``cypher/batch_*``;
edges one query per type) in the batch's one transaction, which holds the system-time lock from
its first query to its commit, so nothing changed the server under the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.model import Assertion, Block, Entity, Episode
from kg_memory.domain.record import IngestRecord
from kg_memory.store.journal_view import Key, SlotKey
from kg_memory.store.neo4j.rows import (
    block_from_props,
    edge_params,
    entity_from_props,
    episode_from_props,
    iso,
    opt_iso,
    qualifier_props,
    revision_hash,
    time_from_text,
    time_of,
    version_from_props,
)
from kg_memory.store.protocol import Slot
from kg_memory.store.touched import touched

__all__ = ["BatchPlan", "Journal", "Run", "prefetch_records", "slot_key"]

Run = Callable[..., list[dict[str, Any]]]
#: Levels of the dependency walk a batch prefetches (facts -> what depends on them -> ...).
_DEPENDENCY_LEVELS = 3


def slot_key(slot: Slot) -> SlotKey:
    return (slot.scope, slot.subject, slot.predicate, slot.project or "")


def _slot_of(v: Assertion) -> SlotKey:
    return (v.scope, v.subject, v.predicate, v.qualifiers.project or "")


@dataclass
class Journal:
    """What planned episodes wrote: one per unit, merged into the batch's when it succeeds."""

    episodes: list[dict[str, Any]] = field(default_factory=list)
    operations: dict[tuple[str, str], tuple[Episode, str]] = field(default_factory=dict)
    entities: dict[tuple[str, str], tuple[Entity, datetime]] = field(default_factory=dict)
    inserted: dict[Key, tuple[Assertion, list[str]]] = field(default_factory=dict)
    closed: dict[Key, dict[str, Any]] = field(default_factory=dict)
    edges: dict[tuple[str, str, str, str], datetime] = field(default_factory=dict)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    #: ``inserted`` by slot, by assertion id and by what each revision depends on.
    by_slot: dict[SlotKey, set[Key]] = field(default_factory=dict)
    by_id: dict[str, set[Key]] = field(default_factory=dict)
    by_dependency: dict[tuple[str, str], set[Key]] = field(default_factory=dict)

    def insert(self, version: Assertion, texts: list[str]) -> None:
        key = (version.assertion_id, version.revision)
        self.inserted[key] = (version, texts)
        self.by_slot.setdefault(_slot_of(version), set()).add(key)
        self.by_id.setdefault(version.assertion_id, set()).add(key)
        for dep in version.depends_on:
            self.by_dependency.setdefault((version.scope, dep), set()).add(key)

    def uninsert(self, key: Key) -> None:
        version, _ = self.inserted.pop(key)
        self.by_slot[_slot_of(version)].discard(key)
        self.by_id[version.assertion_id].discard(key)
        for dep in version.depends_on:
            self.by_dependency[(version.scope, dep)].discard(key)

    def merge(self, other: Journal) -> None:
        self.episodes += other.episodes
        self.operations.update(other.operations)
        self.entities.update(other.entities)
        for version, texts in other.inserted.values():
            self.insert(version, texts)
        for key, closure in other.closed.items():
            if key in self.inserted:  # written earlier in the batch: it is stored closed
                version, texts = self.inserted[key]
                system = version.system.model_copy(update={"end": closure["now"]})
                self.inserted[key] = (version.model_copy(update={
                    "system": system, "closed_by": closure["closed_by"],
                    "close_reason": closure["reason"]}), texts)
            else:
                self.closed[key] = closure
        for edge, since in other.edges.items():
            self.edges.setdefault(edge, since)
        self.refusals += other.refusals

    def copy(self) -> Journal:
        """A journal the next batch's units can write into without touching this one."""
        copied = Journal(episodes=list(self.episodes), operations=dict(self.operations),
                         entities=dict(self.entities), inserted=dict(self.inserted),
                         closed=dict(self.closed), edges=dict(self.edges),
                         refusals=list(self.refusals))
        for index in ("by_slot", "by_id", "by_dependency"):
            setattr(copied, index, {k: set(v) for k, v in getattr(self, index).items()})
        return copied

    def since(self, prior: Journal) -> Journal:
        """What this journal, begun as a :meth:`copy` of ``prior``, wrote beyond it: a
        revision of ``prior`` closed since is a closure here (it is stored by then)."""
        delta = Journal(episodes=self.episodes[len(prior.episodes):],
                        refusals=self.refusals[len(prior.refusals):])
        delta.operations = {k: v for k, v in self.operations.items()
                            if k not in prior.operations}
        delta.entities = {k: v for k, v in self.entities.items() if prior.entities.get(k) != v}
        for key, (version, texts) in self.inserted.items():
            before = prior.inserted.get(key)
            if before is None:
                delta.insert(version, texts)
            elif before[0].system.end is None and version.system.end is not None:
                delta.closed[key] = {"now": version.system.end, "closed_by": version.closed_by,
                                     "reason": version.close_reason}
        delta.closed.update((k, c) for k, c in self.closed.items() if k not in prior.closed)
        delta.edges = {k: v for k, v in self.edges.items() if k not in prior.edges}
        return delta


class BatchPlan:
    """The server's state when the batch began (cached reads) plus the batch's journal."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self.journal = Journal()
        self.now: datetime | None = None  # the last system time handed out
        self._operations: dict[tuple[str, str], tuple[Episode, str] | None] = {}
        self._entities: dict[tuple[str, str], Entity | None] = {}
        self._slots: dict[SlotKey, list[Assertion]] = {}
        self._dependents: dict[tuple[str, str], list[Assertion]] = {}
        self._live_of: dict[tuple[str, str], list[Assertion]] = {}
        self._tombstones: dict[str, datetime | None] = {}
        self.operation_keys: dict[tuple[bytes, str, str], str] = {}  # Touched.operation_keys
        self._blocks: dict[str, list[Block]] = {}
        #: The highest stored revision of every assertion the batch read.
        self.highest: dict[str, int] = {}
        #: Every believed revision the batch read from the server.
        self.stored_live: dict[Key, Assertion] = {}
        self._fetched: list[Assertion] = []  # read since the last prefetch of entities
        #: The journal of the batch still committing when this one began (laid under this
        #: one's, never written again by it), and the last system time it handed out: the
        #: system time this batch must find when it takes the lock. None: planned under the
        #: lock from the start.
        self.prior: Journal | None = None
        self.expected: datetime | None = None

    def after(self, prior: Journal, highest: dict[str, int], now: datetime | None) -> None:
        """Plan over a batch still committing: its journal laid over reads that may see the
        server before or after its commit (both give the same view: a stored revision the
        journal also holds counts once, one it closed is hidden, ``highest`` is the larger of
        both), ``highest`` what it knew of the stored revisions of the facts it wrote."""
        self.prior = prior
        self.journal = prior.copy()
        self.highest.update(highest)
        self.now = self.expected = now

    def delta(self) -> Journal:
        """What this batch writes: its journal, less the prior batch's."""
        return self.journal if self.prior is None else self.journal.since(self.prior)

    def carried(self, delta: Journal) -> dict[str, int]:
        """``highest`` for the next batch, of the facts ``delta`` writes: a fact stored
        before this batch (read here, or written by the prior batch, committed by the time
        the next batch plans) is not new there."""
        prior = self.prior or Journal()
        carried: dict[str, int] = {}
        for assertion_id in delta.by_id:
            numbers = [r for _, r in prior.by_id.get(assertion_id, ())]
            if assertion_id in self.highest:
                numbers.append(self.highest[assertion_id])
            if numbers:
                carried[assertion_id] = max(numbers)
        return carried

    def next_time(self, clock: datetime) -> datetime:
        """The next episode's system time: system_time.cypher's rule (the clock, or 1 µs after
        the last one when the clock stood still or stepped back), kept in memory."""
        if self.now is None or clock > self.now:
            self.now = clock
        else:
            self.now += timedelta(microseconds=1)
        return self.now

    # -- the server as it was: prefetched in sets, else fetched once ---------------------------

    def _rows(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """The rows of a batch read that returns them as one list in one record (``rows``):
        the driver's cost is per record, not per value."""
        [record] = self._run(name, **params)
        rows: list[dict[str, Any]] = record["rows"]
        return rows

    def _versions(self, rows: list[dict[str, Any]]) -> list[Assertion]:
        found = []
        for row in rows:
            version = version_from_props(row["version"], time_from_text)
            self.highest[version.assertion_id] = max(
                int(row["highest"]), self.highest.get(version.assertion_id, 0))
            self.stored_live[(version.assertion_id, version.revision)] = version
            found.append(version)
        self._fetched += found
        return found

    def prefetch(self, *, operations: Iterable[tuple[str, str]] = (),
                 entities: Iterable[tuple[str, str]] = (), slots: Iterable[SlotKey] = (),
                 dependents: Iterable[tuple[str, str]] = (), tombstones: Iterable[str] = (),
                 scopes: Iterable[str] = ()) -> None:
        """Read what the batch will ask about in one query per kind (each key once)."""
        entities = list(entities)
        ops = [k for k in dict.fromkeys(operations) if k not in self._operations]
        if ops:
            for k in ops:
                self._operations[k] = None
            for row in self._rows("batch_operations", keys=[
                    {"scope": s, "operation_id": o} for s, o in ops]):
                episode = episode_from_props(row["episode"], time_from_text)
                self._operations[(episode.scope, episode.operation_id)] = (
                    episode, row["episode"]["payload_hash"])
        wanted = [sk for sk in dict.fromkeys(slots) if sk not in self._slots]
        if wanted:
            for sk in wanted:
                self._slots[sk] = []
            rows = self._rows("batch_live_slots", slots=[
                {"scope": s, "subject": u, "predicate": p, "project": j}
                for s, u, p, j in wanted])
            for version in self._versions(rows):
                self._slots[_slot_of(version)].append(version)
            # A believed value may be superseded, and what rests on it retired.
            dependents = [*dependents, *((v.scope, v.assertion_id)
                                          for sk in wanted for v in self._slots[sk])]
        # What rests on those may be retired in turn: a few levels of the dependency walk,
        # one query each (a deeper chain is fetched on a miss).
        for _ in range(_DEPENDENCY_LEVELS):
            deps = [k for k in dict.fromkeys(dependents) if k not in self._dependents]
            if not deps:
                break
            for k in deps:
                self._dependents[k] = []
            rows = self._rows("batch_live_dependents", keys=[
                {"scope": s, "key": d} for s, d in deps])
            for row, version in zip(rows, self._versions(rows), strict=True):
                self._dependents[(row["scope"], row["key"])].append(version)
            dependents = [(v.scope, v.assertion_id) for k in deps for v in self._dependents[k]]
        # A revision read here may be replaced (superseded, retired), and the new one's recall
        # text names its subject and project: their entities come in the same query as the
        # batch's own, not one round trip each on a miss.
        for v in self._fetched:
            entities.append((v.scope, v.subject))
            if v.qualifiers.project:
                entities.append((v.scope, v.qualifiers.project))
        self._fetched.clear()
        ents = [k for k in dict.fromkeys(entities) if k not in self._entities]
        if ents:
            for k in ents:
                self._entities[k] = None
            for row in self._rows("batch_entities_of", keys=[
                    {"scope": s, "entity_id": e} for s, e in ents]):
                entity = entity_from_props(row["entity"])
                self._entities[(entity.scope, entity.entity_id)] = entity
        keys = [t for t in dict.fromkeys(tombstones) if t not in self._tombstones]
        if keys:
            for t in keys:
                self._tombstones[t] = None
            for row in self._run("tombstones", keys=keys):
                self._tombstones[row["key"]] = time_of(row["created_at"])
        fresh = [s for s in dict.fromkeys(scopes) if s not in self._blocks]
        if fresh:
            for s in fresh:
                self._blocks[s] = []
            for row in self._run("batch_blocks", scopes=fresh):
                self._blocks[row["scope"]].append(block_from_props(row["block"]))

    def stored_operation(self, scope: str, operation_id: str) -> tuple[Episode, str] | None:
        self.prefetch(operations=[(scope, operation_id)])
        return self._operations[(scope, operation_id)]

    def stored_entity(self, scope: str, entity_id: str) -> Entity | None:
        self.prefetch(entities=[(scope, entity_id)])
        return self._entities[(scope, entity_id)]

    def stored_slot(self, key: SlotKey) -> list[Assertion]:
        self.prefetch(slots=[key])
        return self._slots[key]

    def stored_dependents(self, scope: str, key: str) -> list[Assertion]:
        self.prefetch(dependents=[(scope, key)])
        return self._dependents[(scope, key)]

    def stored_live_of(self, scope: str, assertion_id: str) -> list[Assertion]:
        key = (scope, assertion_id)
        if key not in self._live_of:
            rows = self._rows("batch_live_of", ids=[{"scope": scope, "id": assertion_id}])
            self._live_of[key] = self._versions(rows)
        return self._live_of[key]

    def stored_tombstones(self, keys: list[str]) -> dict[str, datetime]:
        self.prefetch(tombstones=keys)
        return {k: t for k in keys if (t := self._tombstones[k]) is not None}

    def stored_blocks(self, scope: str) -> list[Block]:
        self.prefetch(scopes=[scope])
        return self._blocks[scope]

    # -- the end of the batch ------------------------------------------------------------------

    def flush(self, j: Journal | None = None) -> int:
        """Write the journal (``j``: :meth:`delta`, computed already): one query per row kind
        (edges: per type). Returns the queries run."""
        j = self.delta() if j is None else j
        runs = 0
        if j.episodes:
            self._run("batch_episodes", rows=j.episodes)
            runs += 1
        if j.entities:
            self._run("batch_entities", rows=[
                {"scope": e.scope, "entity_id": e.entity_id, "type": e.type, "name": e.name,
                 "owners": list(e.owners), "recorded_at": iso(at)}
                for e, at in j.entities.values()])
            runs += 1
        if j.inserted:
            self._run("batch_versions", rows=[_version_row(v, texts)
                                              for v, texts in j.inserted.values()])
            runs += 1
        if j.closed:
            rows = [{"assertion_id": a, "revision": r, "now": iso(c["now"]),
                     "closed_by": c["closed_by"], "close_reason": c["reason"].value}
                    for (a, r), c in j.closed.items()]
            [row] = self._run("batch_close_versions", rows=rows)
            if int(row["closed"]) != len(rows):
                raise StoreUnavailable(
                    "a revision the batch closed was no longer live; the store changed under "
                    "the batch")
            runs += 1
        # An edge from an episode or a fact this batch created cannot exist yet.
        fresh = {r["episode_id"] for r in j.episodes}
        fresh |= {a for a, _ in j.inserted if a not in self.highest}
        if j.edges:
            self._run("batch_edges", **edge_params(
                (scope, src, kind, dst, iso(since), src in fresh)
                for (scope, src, kind, dst), since in j.edges.items()))
            runs += 1
        if j.refusals:
            self._run("batch_refusals", rows=j.refusals)
            runs += 1
        if self.now is not None:
            self._run("batch_system_time", now=self.now)
            runs += 1
        return runs


def _version_row(v: Assertion, texts: list[str]) -> dict[str, Any]:
    text = texts[0] if texts else ""
    return {
        "scope": v.scope, "assertion_id": v.assertion_id, "label": v.kind.value.capitalize(),
        "current": v.system.end is None, "depends_on": list(v.depends_on),
        "valid_from": iso(v.valid.start), "valid_to": opt_iso(v.valid.end),
        "sys_from": iso(v.system.start), "sys_to": opt_iso(v.system.end),
        "props": {
            "assertion_id": v.assertion_id, "revision": v.revision, "scope": v.scope,
            "subject": v.subject, "predicate": v.predicate, **qualifier_props(v.qualifiers),
            "value": v.value, "kind": v.kind.value, "writer": v.writer,
            "depends_on": list(v.depends_on), "confidence": float(v.confidence),
            "reason": v.reason.value,
            "recorded_by": v.recorded_by, "closed_by": v.closed_by,
            "close_reason": None if v.close_reason is None else v.close_reason.value,
            "recall_text": text or None,
            "recall_length": text.count(" ") + 1 if text else None,
            "content_hash": revision_hash(v),
        },
    }


def prefetch_records(plan: BatchPlan, records: Iterable[IngestRecord], secret: bytes) -> None:
    """Prefetch what ``records`` will read (:func:`~kg_memory.store.touched.touched`: operation
    ids, tombstone keys, entities, slots and what depends on them, scopes' blocks), in one query
    per kind. Not the identity documents' keys: this planner does not plan them (a unit that
    reads or writes one runs on its own)."""
    t = touched(records, secret, identity=False)
    plan.operation_keys.update(t.operation_keys)
    plan.prefetch(operations=t.operations, entities=t.entities, slots=t.slots,
                  dependents=t.dependents, tombstones=t.tombstones, scopes=t.scopes)
