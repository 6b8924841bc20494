"""What a forget run does to the embedded store inside its transaction: erase assertions,
entities and episodes with their edges, redact an episode it must keep, mark the outbox rows
that name an erased id, and write the run's tombstones.

Mixed into :class:`~kg_memory.store.sqlite.tx.SqliteTransaction`, bound to one scope like every
statement there: the ids erased are the senders' own and collide across tenants.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.instant import from_micros, to_micros
from kg_memory.domain.model import EdgeType, Tombstone
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.invalidations import retombstoned
from kg_memory.store.sqlite.recall import reindex_entity
from kg_memory.store.sqlite.rows import REDACTED_FINGERPRINT

__all__ = ["Erasure"]


class Erasure:
    """The forget run's writes of :class:`~kg_memory.store.sqlite.tx.SqliteTransaction`."""

    _conn: driver.Connection
    _scope: str
    _now: int

    def delete_assertion(self, assertion_id: str) -> None:
        """Erase every revision of an assertion and every edge touching it."""
        self._conn.execute("DELETE FROM versions WHERE assertion_id = ? AND +scope = ?",
                           (assertion_id, self._scope))
        self._conn.execute("DELETE FROM dependencies WHERE assertion_id = ? AND +scope = ?",
                           (assertion_id, self._scope))
        self._delete_edges(assertion_id)

    def delete_assertions(self, assertion_ids: list[str]) -> None:
        """Set-based :meth:`delete_assertion`: one statement per table for the whole list, the
        ids passed as one JSON array (no temporary table, which could spill them to disk)."""
        if not assertion_ids:
            return
        ids = json.dumps(assertion_ids)
        for table in ("versions", "dependencies"):
            self._conn.execute(
                f"DELETE FROM {table} WHERE assertion_id IN (SELECT value FROM json_each(?)) "
                "AND +scope = ?", (ids, self._scope))
        for column in ("src", "dst"):
            # "+scope": the ids pick the index (edges_src, edges_dst); a scope filter SQLite
            # could use would have it scan the scope's edges instead.
            self._conn.execute(
                f"DELETE FROM edges WHERE {column} IN (SELECT value FROM json_each(?)) "
                "AND +scope = ?", (ids, self._scope))

    def delete_entity(self, entity_id: str) -> None:
        self._conn.execute("DELETE FROM entities WHERE scope = ? AND entity_id = ?",
                           (self._scope, entity_id))
        self._delete_edges(entity_id)

    def _delete_edges(self, node_id: str) -> None:
        self._conn.execute("DELETE FROM edges WHERE scope = ? AND src = ?", (self._scope, node_id))
        self._conn.execute("DELETE FROM edges WHERE scope = ? AND dst = ?", (self._scope, node_id))

    def rename_entity(self, entity_id: str, name: str | None,
                      type_: str | None = None) -> None:
        """Give an entity of this scope a new display name (and type, when ``type_`` is
        given); the recall index follows."""
        renamed = self._conn.execute(
            "UPDATE entities SET name = ?, type = coalesce(?, type) "
            "WHERE entity_id = ? AND scope = ?",
            (name, type_, entity_id, self._scope)).rowcount
        if renamed:
            reindex_entity(self._conn, self._scope, entity_id)

    def erase_episode(self, episode_id: str) -> None:
        """Erase an episode, its edges and what the gate refused from it."""
        found = self._conn.execute("DELETE FROM episodes WHERE episode_id = ? AND scope = ?",
                                   (episode_id, self._scope)).rowcount
        if found:
            self._conn.execute("DELETE FROM refusals WHERE episode_id = ?", (episode_id,))
        self._delete_edges(episode_id)

    def redact_episode(self, episode_id: str, supports_to_drop: list[str]) -> None:
        """Keep the episode node for the facts it still supports; drop its content."""
        self._conn.execute(
            "UPDATE episodes SET content = '', payload_hash = '', fingerprint = ? "
            "WHERE episode_id = ? AND scope = ?",
            (REDACTED_FINGERPRINT, episode_id, self._scope),
        )
        self._conn.execute("DELETE FROM refusals WHERE episode_id IN (SELECT episode_id FROM "
                           "episodes WHERE episode_id = ? AND scope = ?)",
                           (episode_id, self._scope))
        self._conn.executemany(
            "DELETE FROM edges WHERE scope = ? AND src = ? AND dst = ?",
            [(self._scope, episode_id, dst) for dst in supports_to_drop],
        )

    def replace_content(self, episode_id: str, content: str) -> None:
        self._conn.execute("UPDATE episodes SET content = ?, fingerprint = ? WHERE episode_id = ?",
                           (content, fingerprint(content), episode_id))

    def rewrite_refusal(self, episode_id: str, what: str, new_what: str) -> None:
        self._conn.execute("UPDATE refusals SET what = ? WHERE episode_id = ? AND what = ?",
                           (new_what, episode_id, what))

    def forget_keys(self, keys: list[str]) -> None:
        """Mark the outbox rows whose key names an erased id of this unit's scope: an entity's
        own rows (``scope␟id``) and edges from or to it (``scope␟src␟type␟dst``, exactly three
        parts). One statement over the scope's key range, matched by SQLite against the ids
        passed as one JSON array (no temporary table, which could spill them to a temp file;
        no row brought into Python), reading only the scope's range of ``outbox_named``."""
        if not keys:
            return
        prefix = self._scope + chr(31)
        self._conn.execute(
            "INSERT OR IGNORE INTO outbox_erased (seq) SELECT seq FROM ("
            " SELECT seq, tbl, rest, substr(rest, instr(rest, char(31)) + 1) AS tail FROM ("
            "  SELECT seq, tbl, substr(key, ?) AS rest FROM outbox"
            "  WHERE tbl IN ('entities', 'edges') AND key >= ? AND key < ?))"
            " WHERE (tbl = 'entities' AND (CASE instr(rest, char(31)) WHEN 0 THEN rest"
            "  ELSE substr(rest, 1, instr(rest, char(31)) - 1) END)"
            "  IN (SELECT value FROM json_each(?)))"
            " OR (tbl = 'edges' AND length(rest) - length(replace(rest, char(31), '')) = 2"
            "  AND (substr(rest, 1, instr(rest, char(31)) - 1) IN (SELECT value FROM json_each(?))"
            "   OR substr(tail, instr(tail, char(31)) + 1) IN (SELECT value FROM json_each(?))))",
            (len(prefix) + 1, prefix, self._scope + chr(32), *[json.dumps(keys)] * 3))

    def next_generation(self) -> int:
        """Counted per scope: one tenant's forget runs are none of another's business."""
        key = f"removal_generation/{self._scope}"
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        generation = 1 if row is None else int(row[0]) + 1
        self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, str(generation)))
        return generation

    def add_tombstone(self, tombstone: Tombstone) -> None:
        self.add_tombstones([(tombstone.kind, tombstone.key)], tombstone.generation,
                            tombstone.activity_id, tombstone.created_at)

    def add_tombstones(self, keys: Sequence[tuple[str, str]], generation: int,
                       activity_id: str, created_at: datetime) -> None:
        # The INVALIDATED_BY edge each implies is derived from its row on read
        # (store/sqlite/invalidations.py); only a key an earlier run tombstoned stores it.
        again = retombstoned(self._conn, [key for _, key in keys], activity_id)
        at = to_micros(created_at)
        self._conn.executemany(
            "INSERT OR IGNORE INTO tombstones (key, scope, kind, generation, activity_id, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            # In key order: the keys are random, and sorted inserts touch each page of the
            # table and of tombstones_activity once (about a fifth less CPU for 3,000 rows).
            [(key, self._scope, kind, generation, activity_id, at)
             for key, kind in sorted((key, kind) for kind, key in keys)],
        )
        self._conn.executemany(
            "INSERT OR IGNORE INTO edges (scope, src, type, dst, since) VALUES (?, ?, ?, ?, ?)",
            [(self._scope, node, EdgeType.INVALIDATED_BY.value, activity, self._now)
             for node, activity in again])

    def tombstones(self, keys: list[str]) -> dict[str, datetime]:
        """Which of ``keys`` are tombstoned, and since when (checked inside the write)."""
        if not keys:
            return {}
        marks = ", ".join("?" for _ in keys)
        rows = self._conn.execute(
            f"SELECT key, created_at FROM tombstones WHERE key IN ({marks})", keys).fetchall()
        return {r["key"]: from_micros(r["created_at"]) for r in rows}
