"""The embedded store's batch planner: what a batch of episodes reads, fetched in sets, and what
it writes, kept in memory until the batch ends.

Inside a planned batch (:meth:`~kg_memory.store.sqlite.batching.Batching.prepare`), each
episode's unit of work is a :class:`~kg_memory.store.sqlite.planned.PlannedUnit`: the same
write path (the pure rules of ``kg_memory.domain`` over the store protocol) run against a
:class:`BatchPlan`. Reads are answered from the file as it was when the batch began, read in a
few set-based statements (:meth:`BatchPlan.prefetch`; a miss is read once, on its own), with the
batch's earlier episodes' writes laid over it, so a later episode sees the earlier ones' effects.
Writes go into the unit's :class:`Journal`, merged into the batch's only when the episode
succeeded: an episode that fails is dropped whole, its neighbours unaffected.
:func:`~kg_memory.store.sqlite.flush.flush` then writes each table once, with ``executemany``,
inside the batch's one transaction, which has held the write lock since it began (so nothing
changed the file under the plan), and the commit is the durability point, as before.

The planner never changes what is stored: ``tests/test_batch_equivalence.py`` holds it to the
rows (the recall index and the outbox included) that one-by-one ingest writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg_memory.domain.model import Assertion, Block, Entity, Episode
from kg_memory.domain.record import IngestRecord
from kg_memory.store.journal_view import Key, SlotKey
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.plan_documents import (
    DECISION,
    PROFILE,
    DocKey,
    StoredDocuments,
)
from kg_memory.store.sqlite.rows import (
    VERSION_COLUMNS,
    block_from_row,
    entity_from_row,
    episode_from_row,
    version_from_row,
)
from kg_memory.store.touched import touched

__all__ = ["BatchPlan", "Journal", "Written", "prefetch_records"]

#: Levels of the dependency walk a batch prefetches (facts -> what depends on them -> ...).
_DEPENDENCY_LEVELS = 3
_V = ", ".join(f"v.{c.strip()}" for c in VERSION_COLUMNS.split(","))
#: A live revision with its row id and its assertion's highest stored revision number.
_LIVE = (f"SELECT v.vid, {_V}, (SELECT max(w.revision) FROM versions w "
         "WHERE w.assertion_id = v.assertion_id) AS highest FROM versions v ")

# A batch's keys go in as one JSON list; one key (``Memory.ingest``, the agent's path) goes in
# as it is: the same rows, without JSON to encode and parse (half the statement's time).
_OPERATIONS = ("SELECT e.* FROM json_each(?) j JOIN episodes e ON e.scope = "
               "json_extract(j.value, '$[0]') AND e.operation_id = json_extract(j.value, '$[1]')")
_OPERATION = "SELECT * FROM episodes WHERE scope = ? AND operation_id = ?"
_TOMBSTONES = "SELECT key, created_at FROM tombstones WHERE key IN (SELECT value FROM json_each(?))"
_TOMBSTONE = "SELECT key, created_at FROM tombstones WHERE key = ?"
_COUNTERS = ("SELECT (SELECT value FROM meta WHERE key = 'system_time'), "
             "(SELECT coalesce(max(rid), 0) FROM recall_episode_docs)")
# A plain turn alone reads four things by key (the counters above, its operation's tombstone,
# whether its operation id is used): one statement for all four, each its own seek.
_ALONE = ("SELECT (SELECT value FROM meta WHERE key = 'system_time'), "
          "(SELECT coalesce(max(rid), 0) FROM recall_episode_docs), "
          "(SELECT created_at FROM tombstones WHERE key = ?), "
          "EXISTS (SELECT 1 FROM episodes WHERE scope = ? AND operation_id = ?)")


def slot_of(v: Assertion) -> SlotKey:
    return (v.scope, v.subject, v.predicate, v.qualifiers.project or "")


@dataclass
class Written:
    """A revision the batch inserts: its row id (assigned here; the batch holds the write lock)
    and the recall text it is indexed under ("" for none)."""

    vid: int
    version: Assertion
    text: str


@dataclass
class Journal:
    """What planned episodes wrote: one per unit, merged into the batch's when it succeeds.

    Rows are kept in the order the write path made them, and the flush replays them in that
    order per table, so every trigger (outbox, recall counters) fires as it would have.
    """

    #: (episode, payload hash, recall text)
    episodes: list[tuple[Episode, str, str]] = field(default_factory=list)
    operations: dict[tuple[str, str], tuple[Episode, str]] = field(default_factory=dict)
    #: The entity as the unit sees it now, and the statements that made it so, in order.
    entities: dict[tuple[str, str], Entity] = field(default_factory=dict)
    entity_inserts: list[tuple[str, str, str | None, str, str, int]] = field(default_factory=list)
    entity_updates: list[tuple[str, str | None, str, str]] = field(default_factory=list)
    inserted: dict[Key, Written] = field(default_factory=dict)
    #: closed revision -> (vid, system time, closed_by, reason)
    closed: dict[Key, tuple[int, int, str, str]] = field(default_factory=dict)
    dependencies: dict[tuple[str, str, str], None] = field(default_factory=dict)
    #: (scope, src, type, dst) -> since
    edges: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    refusals: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    #: Outbox rows of writes that never reach a table (a revision written and replaced inside
    #: one unit, and the edges that went with it): one-by-one ingest's triggers wrote them.
    outbox: list[tuple[str, str]] = field(default_factory=list)
    #: Recall counters a revision indexed and dropped inside one unit created (at zero).
    counted: set[str] = field(default_factory=set)
    #: Identity documents (:mod:`~kg_memory.store.sqlite.plan_documents`): each one's last
    #: (body, system time), and (kind, scope, lookup key) -> the documents newly filed there.
    documents: dict[DocKey, tuple[str, int]] = field(default_factory=dict)
    document_keys: dict[DocKey, dict[str, None]] = field(default_factory=dict)
    by_slot: dict[SlotKey, dict[Key, None]] = field(default_factory=dict)
    by_id: dict[str, dict[Key, None]] = field(default_factory=dict)
    by_dependency: dict[tuple[str, str], dict[str, None]] = field(default_factory=dict)

    def insert(self, written: Written) -> None:
        v = written.version
        key = (v.assertion_id, v.revision)
        self.inserted[key] = written
        self.by_slot.setdefault(slot_of(v), {})[key] = None
        self.by_id.setdefault(v.assertion_id, {})[key] = None

    def uninsert(self, key: Key) -> Written:
        written = self.inserted.pop(key)
        v = written.version
        del self.by_slot[slot_of(v)][key]
        del self.by_id[v.assertion_id][key]
        return written

    def depend(self, scope: str, dep: str, assertion_id: str) -> None:
        self.dependencies[(scope, dep, assertion_id)] = None
        self.by_dependency.setdefault((scope, dep), {})[assertion_id] = None

    def undepend(self, scope: str, assertion_id: str) -> None:
        for row in [r for r in self.dependencies if r[0] == scope and r[2] == assertion_id]:
            del self.dependencies[row]
            self.by_dependency[(row[0], row[1])].pop(assertion_id, None)

    def merge(self, other: Journal) -> None:
        self.episodes += other.episodes
        self.operations.update(other.operations)
        self.entities.update(other.entities)
        self.entity_inserts += other.entity_inserts
        self.entity_updates += other.entity_updates
        for written in other.inserted.values():
            self.insert(written)
        self.closed.update(other.closed)
        for scope, dep, assertion_id in other.dependencies:
            self.depend(scope, dep, assertion_id)
        for edge, since in other.edges.items():
            self.edges.setdefault(edge, since)
        self.refusals += other.refusals
        self.outbox += other.outbox
        self.counted |= other.counted
        self.documents.update(other.documents)
        for lookup, docs in other.document_keys.items():
            self.document_keys.setdefault(lookup, {}).update(docs)


def _pairs(keys: Iterable[tuple[str, ...]]) -> str:
    return json.dumps([list(k) for k in keys])


class BatchPlan:
    """The file's state when the batch began (read in sets, cached) plus the batch's journal.

    Every cache holds the state before the batch: nothing is written to the file until the
    flush, so a cached answer never goes stale while the plan lives.
    """

    def __init__(self, conn: driver.Connection) -> None:
        self._conn = conn
        self.journal = Journal()
        self._operations: dict[tuple[str, str], tuple[Episode, str] | None] = {}
        self._entities: dict[tuple[str, str], Entity | None] = {}
        self._slots: dict[SlotKey, list[tuple[int, Assertion]]] = {}
        self._dependents: dict[tuple[str, str], list[str]] = {}
        self._live_of: dict[str, list[tuple[int, Assertion]]] = {}
        self._tombstones: dict[str, int | None] = {}
        self.operation_keys: dict[tuple[bytes, str, str], str] = {}  # Touched.operation_keys
        self._blocks: dict[str, list[Block]] = {}
        #: The highest stored revision number of each assertion read (0: none stored).
        self._highest: dict[str, int] = {}
        #: Row ids of the stored believed revisions read, for closing them.
        self.stored_live: dict[Key, int] = {}
        self._vid: int | None = None
        self._rid: int | None = None
        self._time: int | None = None
        self.documents = StoredDocuments(conn)

    def next_vid(self) -> int:
        """The next revision's row id (what SQLite would pick: one past the largest)."""
        if self._vid is None:
            self._vid = int(self._conn.execute(
                "SELECT coalesce(max(vid), 0) FROM versions").fetchone()[0])
        self._vid += 1
        return self._vid

    def stored_time(self) -> int:
        """The last system time stored (-1: none; written only when the batch ends), read once
        with the largest recall row id the flush will need: one statement for both."""
        if self._time is None:
            row = self._conn.execute(_COUNTERS).fetchone()
            self._time = -1 if row[0] is None else int(row[0])
            if self._rid is None:
                self._rid = int(row[1])
        return self._time

    def read_alone(self, scope: str, operation_id: str, operation: str) -> None:
        """What a plain turn written alone reads, in one statement: the counters
        (:meth:`stored_time`), the tombstone of its ``operation`` key and whether its operation
        id is stored (a used one, the rare duplicate, is read in full when asked)."""
        row = self._conn.execute(_ALONE, (operation, scope, operation_id)).fetchone()
        if self._time is None:
            self._time = -1 if row[0] is None else int(row[0])
        if self._rid is None:
            self._rid = int(row[1])
        self._tombstones.setdefault(operation, None if row[2] is None else int(row[2]))
        if not row[3]:
            self._operations.setdefault((scope, operation_id), None)

    def next_rid(self) -> int:
        if self._rid is None:
            self._rid = int(self._conn.execute(
                "SELECT coalesce(max(rid), 0) FROM recall_episode_docs").fetchone()[0])
        self._rid += 1
        return self._rid

    # -- the file as it was: prefetched in sets, else read once ------------------------------

    def _live_rows(self, rows: list[driver.Row]) -> list[tuple[int, Assertion]]:
        found = []
        for row in rows:
            version = version_from_row(row)
            self._highest[version.assertion_id] = int(row["highest"])
            self.stored_live[(version.assertion_id, version.revision)] = int(row["vid"])
            found.append((int(row["vid"]), version))
        return found

    def prefetch(self, *, operations: Iterable[tuple[str, str]] = (),
                 entities: Iterable[tuple[str, str]] = (), slots: Iterable[SlotKey] = (),
                 dependents: Iterable[tuple[str, str]] = (), tombstones: Iterable[str] = (),
                 scopes: Iterable[str] = (), minted: Iterable[str] = ()) -> None:
        """Read what the batch will ask about: one statement per kind, each key once."""
        conn = self._conn
        self._read_operations(operations)
        wanted = [k for k in dict.fromkeys(slots) if k not in self._slots]
        if wanted:
            for k in wanted:
                self._slots[k] = []
            rows = conn.execute(
                _LIVE + "JOIN json_each(?) j ON v.scope = json_extract(j.value, '$[0]') AND "
                "v.subject = json_extract(j.value, '$[1]') AND v.predicate = "
                "json_extract(j.value, '$[2]') AND v.project = json_extract(j.value, '$[3]') "
                "WHERE v.sys_to IS NULL ORDER BY v.valid_from, v.vid", (_pairs(wanted),)
            ).fetchall()
            live_of: dict[str, list[tuple[int, Assertion]]] = {}
            for vid, version in self._live_rows(rows):
                self._slots[slot_of(version)].append((vid, version))
                live_of.setdefault(version.assertion_id, []).append((vid, version))
            # An assertion's revisions all share its slot: its believed ones are all here.
            for assertion_id, found in live_of.items():
                self._live_of.setdefault(assertion_id, found)
            # A believed value may be superseded, and what rests on it retired.
            dependents = [*dependents, *((v.scope, v.assertion_id)
                                          for k in wanted for _, v in self._slots[k])]
        retired: list[tuple[str, str]] = []
        for _ in range(_DEPENDENCY_LEVELS):
            dependents = self._prefetch_dependents(dependents)
            if not dependents:
                break
            retired += dependents
        # A retired dependent is written again (cut short), indexed with its entities' names.
        entities = [*entities, *((v.scope, e) for _, a in retired for _, v in self._live_of[a]
                                 for e in (v.subject, v.qualifiers.project) if e)]
        ents = [k for k in dict.fromkeys(entities) if k not in self._entities]
        if ents:
            self._entities.update(dict.fromkeys(ents))
            for row in conn.execute(
                    "SELECT e.* FROM json_each(?) j JOIN entities e ON e.scope = "
                    "json_extract(j.value, '$[0]') AND e.entity_id = "
                    "json_extract(j.value, '$[1]')", (_pairs(ents),)):
                self._entities[(row["scope"], row["entity_id"])] = entity_from_row(row)
        self._read_tombstones(tombstones)
        fresh = [s for s in dict.fromkeys(scopes) if s not in self._blocks]
        if fresh:
            for s in fresh:
                self._blocks[s] = []
            for row in conn.execute("SELECT * FROM blocks WHERE scope IN (SELECT value FROM "
                                    "json_each(?)) AND revoked_at IS NULL", (json.dumps(fresh),)):
                self._blocks[row["scope"]].append(block_from_row(row))
        ids = [a for a in dict.fromkeys(minted) if a not in self._highest]
        if ids:
            self._highest.update(dict.fromkeys(ids, 0))
            for row in conn.execute("SELECT assertion_id, max(revision) FROM versions WHERE "
                                    "assertion_id IN (SELECT value FROM json_each(?)) "
                                    "GROUP BY assertion_id", (json.dumps(ids),)):
                self._highest[row[0]] = int(row[1])

    def _read_operations(self, operations: Iterable[tuple[str, str]]) -> None:
        ops = [k for k in dict.fromkeys(operations) if k not in self._operations]
        if ops:
            self._operations.update(dict.fromkeys(ops))
            for row in (self._conn.execute(_OPERATION, ops[0]) if len(ops) == 1 else
                        self._conn.execute(_OPERATIONS, (_pairs(ops),))):
                self._operations[(row["scope"], row["operation_id"])] = (
                    episode_from_row(row), row["payload_hash"])

    def _read_tombstones(self, tombstones: Iterable[str]) -> None:
        keys = [t for t in dict.fromkeys(tombstones) if t not in self._tombstones]
        if keys:
            self._tombstones.update(dict.fromkeys(keys))
            for row in (self._conn.execute(_TOMBSTONE, keys) if len(keys) == 1 else
                        self._conn.execute(_TOMBSTONES, (json.dumps(keys),))):
                self._tombstones[row["key"]] = int(row["created_at"])

    def _prefetch_dependents(self, keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """One level of the dependency walk: the assertions whose dependency rows name each
        key, and their live revisions; returns the next level's keys."""
        deps = [k for k in dict.fromkeys(keys) if k not in self._dependents]
        if not deps:
            return []
        for k in deps:
            self._dependents[k] = []
        found: dict[str, str] = {}
        for scope, dep, assertion_id in self._conn.execute(
                "SELECT d.scope, d.dep, d.assertion_id FROM json_each(?) j JOIN dependencies d "
                "ON d.scope = json_extract(j.value, '$[0]') AND d.dep = "
                "json_extract(j.value, '$[1]')", (_pairs(deps),)):
            self._dependents[(scope, dep)].append(assertion_id)
            found[assertion_id] = scope
        self._fetch_live_of([a for a in found if a not in self._live_of])
        return [(found[a], a) for a in found]

    def _fetch_live_of(self, ids: list[str]) -> None:
        if not ids:
            return
        for a in ids:
            self._live_of[a] = []
        rows = self._conn.execute(
            _LIVE + "WHERE v.assertion_id IN (SELECT value FROM json_each(?)) "
            "AND v.sys_to IS NULL ORDER BY v.valid_from, v.vid", (json.dumps(ids),)).fetchall()
        for vid, version in self._live_rows(rows):
            self._live_of[version.assertion_id].append((vid, version))

    # The accessors answer from the caches first: they run several times per episode.
    def stored_operation(self, scope: str, operation_id: str) -> tuple[Episode, str] | None:
        key = (scope, operation_id)
        if key not in self._operations:
            self._read_operations([key])
        return self._operations[key]

    def stored_entity(self, scope: str, entity_id: str) -> Entity | None:
        key = (scope, entity_id)
        if key not in self._entities:
            self.prefetch(entities=[key])
        return self._entities[key]

    def stored_slot(self, key: SlotKey) -> list[tuple[int, Assertion]]:
        if key not in self._slots:
            self.prefetch(slots=[key])
        return self._slots[key]

    def stored_dependents(self, scope: str, key: str) -> list[str]:
        """Assertion ids whose stored dependency rows name ``key`` in ``scope``."""
        if (scope, key) not in self._dependents:
            self._prefetch_dependents([(scope, key)])
        return self._dependents[(scope, key)]

    def stored_live_of(self, assertion_id: str) -> list[tuple[int, Assertion]]:
        if assertion_id not in self._live_of:
            self._fetch_live_of([assertion_id])
        return self._live_of[assertion_id]

    def highest(self, assertion_id: str) -> int:
        """The highest revision number stored for the assertion (0: none)."""
        if assertion_id not in self._highest:
            row = self._conn.execute("SELECT coalesce(max(revision), 0) FROM versions "
                                     "WHERE assertion_id = ?", (assertion_id,)).fetchone()
            self._highest[assertion_id] = int(row[0])
        return self._highest[assertion_id]

    def known_absent(self, assertion_id: str) -> bool:
        """Known to have no stored revision at all (an id the batch mints)."""
        return self._highest.get(assertion_id) == 0

    def stored_tombstones(self, keys: list[str]) -> dict[str, int]:
        if any(k not in self._tombstones for k in keys):
            self._read_tombstones(keys)
        return {k: t for k in keys if (t := self._tombstones[k]) is not None}

    def stored_blocks(self, scope: str) -> list[Block]:
        if scope not in self._blocks:
            self.prefetch(scopes=[scope])
        return self._blocks[scope]

    def stored_revision_vid(self, key: Key) -> int | None:
        """The row id of a stored revision still believed (read once when not prefetched)."""
        if key not in self.stored_live:
            row = self._conn.execute("SELECT vid FROM versions WHERE assertion_id = ? AND "
                                     "revision = ? AND sys_to IS NULL", key).fetchone()
            if row is None:
                return None
            self.stored_live[key] = int(row[0])
        return self.stored_live[key]


def prefetch_records(plan: BatchPlan, records: Iterable[IngestRecord], secret: bytes) -> None:
    """Prefetch what ``records`` will read (:func:`~kg_memory.store.touched.touched`: operation
    ids, tombstone keys, entities, slots and what depends on them, scopes' blocks, the ids the
    episodes mint), one statement per kind."""
    t = touched(records, secret)
    plan.operation_keys.update(t.operation_keys)
    # The profiles in the resolve mentions' blocks, the decisions about their entities (the
    # authority tiers read who made them), and those entities and the ones a mention would
    # found: each mention then reads nothing on its own.
    found = plan.documents.prefetch(PROFILE, t.blocks)
    plan.documents.prefetch(DECISION, [*found, *t.founded])
    plan.prefetch(operations=t.operations, entities=[*t.entities, *found, *t.founded],
                  slots=t.slots, dependents=t.dependents, tombstones=t.tombstones,
                  scopes=t.scopes, minted=t.minted)

