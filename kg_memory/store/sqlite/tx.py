"""The embedded store's write side: one SQLite transaction (or savepoint) per episode.

A transaction is bound to one scope; every statement that names an operation id, an entity, an
edge, a dependency, a block or a document filters on it, because those names are the senders'
own and collide across tenants.
"""

from __future__ import annotations

import json

from kg_memory.domain.change import Closure, Draft, PlannedEdge
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import from_micros, to_micros
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Entity,
    Episode,
    Refusal,
)
from kg_memory.store.protocol import Slot
from kg_memory.store.scoping import ScopeBound
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.bulk_reads import BulkTxReads
from kg_memory.store.sqlite.erasure import Erasure
from kg_memory.store.sqlite.recall import index_episode, index_fact
from kg_memory.store.sqlite.rewrite import DependencyRewrite
from kg_memory.store.sqlite.rows import (
    EPISODE_INSERT,
    VERSION_COLUMNS,
    block_from_row,
    entity_from_row,
    episode_from_row,
    episode_params,
    version_from_row,
)

__all__ = ["SqliteTransaction"]


class SqliteTransaction(BulkTxReads, Erasure, DependencyRewrite, ScopeBound):
    def __init__(self, conn: driver.Connection, now: int, scope: str) -> None:
        super().__init__(from_micros(now), scope)
        self._conn = conn
        #: :attr:`now` as the store's column value (microseconds since the epoch).
        self._now = now

    def episode_by_operation(self, operation_id: str) -> tuple[Episode, str] | None:
        row = self._conn.execute(
            "SELECT * FROM episodes WHERE scope = ? AND operation_id = ?",
            (self._scope, operation_id)
        ).fetchone()
        return None if row is None else (episode_from_row(row), row["payload_hash"])

    def add_episode(self, episode: Episode, payload_hash: str) -> None:
        self._in_scope(episode.scope)
        self._conn.execute(EPISODE_INSERT, episode_params(episode, payload_hash))
        index_episode(self._conn, episode)

    def entity(self, entity_id: str) -> Entity | None:
        row = self._conn.execute(
            "SELECT * FROM entities WHERE scope = ? AND entity_id = ?", (self._scope, entity_id)
        ).fetchone()
        return None if row is None else entity_from_row(row)

    def put_entity(self, entity: Entity) -> None:
        self._in_scope(entity.scope)
        known = self.entity(entity.entity_id)
        if known is None:
            self._conn.execute(
                "INSERT INTO entities (entity_id, type, name, scope, owners, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    entity.entity_id,
                    entity.type,
                    entity.name,
                    entity.scope,
                    json.dumps(list(entity.owners)),
                    self._now,
                ),
            )
            return
        owners = tuple(dict.fromkeys((*known.owners, *entity.owners)))
        if owners != known.owners or (entity.name and not known.name):
            self._conn.execute(
                "UPDATE entities SET owners = ?, name = coalesce(name, ?) "
                "WHERE scope = ? AND entity_id = ?",
                (json.dumps(list(owners)), entity.name, self._scope, entity.entity_id),
            )

    def live_versions(self, slot: Slot) -> list[Assertion]:
        self._in_scope(slot.scope)
        rows = self._conn.execute(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE scope = ? AND subject = ? "
            "AND predicate = ? AND project = ? AND sys_to IS NULL ORDER BY valid_from",
            (slot.scope, slot.subject, slot.predicate, slot.project or ""),
        ).fetchall()
        return [version_from_row(r) for r in rows]

    def live_versions_of(self, assertion_id: str) -> list[Assertion]:
        rows = self._conn.execute(
            # "+scope": the scope only confirms what the id finds; it must not pick the index.
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE assertion_id = ? AND +scope = ? "
            "AND sys_to IS NULL ORDER BY valid_from",
            (assertion_id, self._scope),
        ).fetchall()
        return [version_from_row(r) for r in rows]

    def live_dependents(self, key: str) -> list[Assertion]:
        rows = self._conn.execute(
            # The dependency rows are the scope's; the assertion ids they name are unique
            # across scopes, so the versions are found by id (a scope filter here would make
            # SQLite scan the scope's versions instead).
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE sys_to IS NULL AND assertion_id IN "
            "(SELECT assertion_id FROM dependencies WHERE scope = ? AND dep = ?) "
            "ORDER BY valid_from",
            (self._scope, key),
        ).fetchall()
        return [version_from_row(r) for r in rows]

    def close_version(self, closure: Closure) -> None:
        row = self._conn.execute(
            "SELECT vid, sys_from FROM versions WHERE assertion_id = ? AND revision = ? "
            "AND sys_to IS NULL",
            (closure.assertion_id, closure.revision),
        ).fetchone()
        if row is None:
            raise StoreUnavailable(
                f"revision {closure.assertion_id}#{closure.revision} is not live; "
                "the store changed under this transaction"
            )
        if row["sys_from"] == self._now:
            # Written and replaced inside one transaction: it was never visible to anyone, so
            # there is no history to keep, and an empty system interval would be a lie.
            self._conn.execute("DELETE FROM versions WHERE vid = ?", (row["vid"],))
            self._vanished.add(closure.assertion_id)
            return
        self._conn.execute(
            "UPDATE versions SET sys_to = ?, closed_by = ?, close_reason = ? WHERE vid = ?",
            (self._now, closure.closed_by, closure.reason.value, row["vid"]),
        )

    def finish(self) -> None:
        """Before commit: an assertion all of whose revisions this unit wrote and replaced was
        never visible, so the edges and dependency rows naming it go too (else they would
        dangle: a SUPPORTS or SUPERSEDES edge to a fact no one can ever read)."""
        for assertion_id in sorted(self._vanished):
            if self._conn.execute("SELECT 1 FROM versions WHERE assertion_id = ? LIMIT 1",
                                  (assertion_id,)).fetchone() is None:
                # This unit's scope only: another tenant's edge to a node that happens to
                # bear the same id is that tenant's, and no write of this one may touch it.
                self._delete_edges(assertion_id)
                self._conn.execute("DELETE FROM dependencies WHERE assertion_id = ? AND "
                                   "+scope = ?", (assertion_id, self._scope))
        self._vanished.clear()

    def insert_version(self, draft: Draft) -> Assertion:
        self._in_scope(draft.scope)
        # One statement: the revision number is computed and returned by the insert itself.
        revision, vid = self._conn.execute(
            f"INSERT INTO versions ({VERSION_COLUMNS}, project) SELECT ?, "
            "coalesce((SELECT max(revision) FROM versions WHERE assertion_id = ?), 0) + 1, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, NULL, NULL, ? RETURNING revision, vid",
            (
                draft.assertion_id,
                draft.assertion_id,
                draft.scope,
                draft.subject,
                draft.predicate,
                json.dumps(draft.value),
                draft.qualifiers.model_dump_json(),
                draft.kind.value,
                draft.writer,
                json.dumps(list(draft.depends_on)),
                draft.confidence,
                to_micros(draft.valid.start),
                None if draft.valid.end is None else to_micros(draft.valid.end),
                self._now,
                draft.reason.value,
                draft.recorded_by,
                draft.qualifiers.project or "",
            ),
        ).fetchone()
        if draft.depends_on:
            self._conn.executemany(
                "INSERT OR IGNORE INTO dependencies (scope, dep, assertion_id) VALUES (?, ?, ?)",
                [(self._scope, dep, draft.assertion_id) for dep in draft.depends_on],
            )
        written = self._believed(draft, revision)
        index_fact(self._conn, vid, written)
        return written

    def add_edge(self, edge: PlannedEdge) -> None:
        self._conn.execute(
            "INSERT OR IGNORE INTO edges (scope, src, type, dst, since) VALUES (?, ?, ?, ?, ?)",
            (self._scope, edge.src, edge.type.value, edge.dst, self._now),
        )

    def add_edges(self, edges: list[PlannedEdge]) -> None:
        self._conn.executemany(
            "INSERT OR IGNORE INTO edges (scope, src, type, dst, since) VALUES (?, ?, ?, ?, ?)",
            [(self._scope, e.src, e.type.value, e.dst, self._now) for e in edges],
        )

    def add_refusal(self, refusal: Refusal) -> None:
        self._conn.execute(
            "INSERT INTO refusals (episode_id, source, what, reason, at) VALUES (?, ?, ?, ?, ?)",
            (
                refusal.episode_id,
                refusal.source,
                refusal.what,
                refusal.reason,
                to_micros(refusal.at),
            ),
        )

    def add_activity(self, activity: Activity) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO activities (activity_id, scope, type, agent, started_at, "
            "ended_at, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (activity.activity_id, self._in_scope(activity.scope), activity.type,
             activity.agent,
             to_micros(activity.started_at),
             None if activity.ended_at is None else to_micros(activity.ended_at),
             activity.status, activity.detail),
        )

    def add_block(self, block: Block) -> None:
        self._in_scope(block.scope)
        self._conn.execute(
            "INSERT OR IGNORE INTO blocks (block_id, scope, subject, predicates, project, "
            "created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)",
            (block.block_id, block.scope, block.subject, block.predicates, block.project,
             to_micros(block.created_at)),
        )

    def revoke_block(self, block_id: str) -> bool:
        cursor = self._conn.execute(
            "UPDATE blocks SET revoked_at = ? WHERE block_id = ? AND scope = ? "
            "AND revoked_at IS NULL", (self._now, block_id, self._scope))
        return cursor.rowcount > 0

    def active_blocks(self, scope: str) -> list[Block]:
        self._in_scope(scope)
        rows = self._conn.execute(
            "SELECT * FROM blocks WHERE scope = ? AND revoked_at IS NULL", (scope,)).fetchall()
        return [block_from_row(r) for r in rows]

    # -- identity documents ----------------------------------------------------------------

    def put_document(self, kind: str, key: str, scope: str, body: str,
                     lookup: list[str] | None = None) -> None:
        """Insert or replace a JSON document; ``lookup`` keys find it by :meth:`documents_by`."""
        self._in_scope(scope)
        self._conn.execute(
            "INSERT OR REPLACE INTO documents (kind, key, scope, body, recorded_at) "
            "VALUES (?, ?, ?, ?, ?)", (kind, key, scope, body, self._now))
        if lookup:
            self._conn.executemany(
                "INSERT OR IGNORE INTO document_keys (kind, scope, key, doc) VALUES (?, ?, ?, ?)",
                [(kind, scope, k, key) for k in lookup])

    def documents_by(self, kind: str, scope: str, lookup: list[str]) -> list[str]:
        """Bodies of the ``kind`` documents in ``scope`` reachable from any ``lookup`` key."""
        self._in_scope(scope)
        if not lookup:
            return []
        marks = ", ".join("?" for _ in lookup)
        rows = self._conn.execute(
            "SELECT d.body FROM documents d WHERE d.kind = ? AND d.scope = ? AND d.key IN "
            f"(SELECT doc FROM document_keys WHERE kind = ? AND scope = ? AND key IN ({marks})) "
            "ORDER BY d.key",
            (kind, scope, kind, scope, *lookup)).fetchall()
        return [r["body"] for r in rows]

    def delete_document(self, kind: str, key: str) -> None:
        self._conn.execute("DELETE FROM documents WHERE kind = ? AND scope = ? AND key = ?",
                           (kind, self._scope, key))
        self._conn.execute("DELETE FROM document_keys WHERE kind = ? AND scope = ? AND doc = ?",
                           (kind, self._scope, key))
