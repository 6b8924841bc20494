"""The embedded default store: one SQLite file, no server.

Durability: WAL journal with ``synchronous=FULL``, so a transaction that returned has reached the
disk and survives a crash or power loss. Revisions are insert-only; a trigger refuses any update
other than closing an open system interval once, so "what did the store know at T" can't drift.

As-of lookups go through the B-tree index ``(subject, predicate, sys_from)``: O(log n) to reach a
slot, then a scan of that slot's few revisions. Nothing is loaded into memory at open.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from kg_memory.domain.instant import Clock, from_micros, to_micros
from kg_memory.domain.integrity import Snapshot
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Edge,
    EdgeType,
    Entity,
    Episode,
    Refusal,
    Support,
    trusted,
)
from kg_memory.store.clock import system_clock
from kg_memory.store.protocol import AsOfQuery, AsOfRows
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.asof import asof_rows, asof_versions
from kg_memory.store.sqlite.batching import Batching
from kg_memory.store.sqlite.bulk_reads import BulkReads
from kg_memory.store.sqlite.connections import Connections
from kg_memory.store.sqlite.integrity import snapshot
from kg_memory.store.sqlite.invalidations import invalidations
from kg_memory.store.sqlite.outbox import Outbox
from kg_memory.store.sqlite.outbox_sequence import drop_rows
from kg_memory.store.sqlite.recall import RecallReads
from kg_memory.store.sqlite.recall_vectors import VectorReads
from kg_memory.store.sqlite.rows import (
    VERSION_COLUMNS,
    activity_from_row,
    block_from_row,
    entity_from_row,
    episode_from_row,
    version_from_row,
)
from kg_memory.store.sqlite.schema import (
    SCHEMA_VERSION,
    busy_timeout_seconds,
    connect,
    reconnect,
    store_error,
)
from kg_memory.store.sqlite.scrub import scrub_file

__all__ = ["SCHEMA_VERSION", "SqliteStore", "default_path"]


def default_path() -> Path:
    """``$KG_MEMORY_STORE``, else ``$XDG_DATA_HOME/kg-memory/memory.db`` (``~/.local/share``)."""
    explicit = os.environ.get("KG_MEMORY_STORE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kg-memory" / "memory.db"


class SqliteStore(Batching, RecallReads, VectorReads, BulkReads):
    """The embedded store. Open with :meth:`open`; use as a context manager to close it."""

    def __init__(self, connections: Connections, path: Path, clock: Clock,
                 scratch: Path | None = None) -> None:
        self._connections = connections
        self.path = path
        self._clock = clock
        #: The private directory of a ":memory:" store, removed when it closes.
        self._scratch = scratch

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        clock: Clock = system_clock,
        create: bool = True,
        busy_timeout: float | None = None,
    ) -> SqliteStore:
        """Open the store file at ``path``; with ``create``, make a new one if there is none.

        Opening an existing store never writes to it (no schema script, no ``meta`` row, no
        journal-mode switch), so a reader opens and answers beside a writer holding a long
        transaction: the file is in WAL mode, where readers take no lock a writer holds. Only
        a new, empty file is initialised; a store of an older schema is refused until
        ``kg-memory migrate`` (:func:`kg_memory.store.sqlite.schema.migrate`) upgrades it.

        ``busy_timeout`` (seconds; default ``$KG_MEMORY_BUSY_TIMEOUT``, else 10) is how long a
        write waits for another writer's lock before :class:`StoreBusy`.

        The store may be shared by threads: each gets its own connection on first use (see
        :mod:`kg_memory.store.sqlite.connections`). ``":memory:"`` is a private scratch file in
        a temporary directory, not SQLite's in-memory database (which a second connection
        could not see), without disk syncs, and deleted when the store closes.

        Raises :class:`StoreUnavailable` when the file is missing and ``create`` is false, or
        when it is not a kg-memory store (which is then left exactly as it was).
        """
        target = Path(path) if path is not None else default_path()
        scratch = None
        if str(target) == ":memory:":
            scratch = Path(tempfile.mkdtemp(prefix="kg-memory-"))
            target, create = scratch / "memory.db", True
        durable = scratch is None
        try:
            first = connect(target, create=create, busy_timeout=busy_timeout, durable=durable)
        except BaseException:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            raise
        connections = Connections(
            first, partial(reconnect, target, busy_timeout=busy_timeout, durable=durable),
            target, busy_timeout_seconds(busy_timeout))
        return cls(connections, target, clock, scratch)

    @property
    def outbox(self) -> Outbox:
        """Keys of changes, for a mirror to apply (see :mod:`kg_memory.store.neo4j.mirror`)."""
        return Outbox(self._conn)

    def set_mirror(self, uri: str) -> None:
        """Remember the mirror, so a forget run propagates there before it reports."""
        self._conn.execute("INSERT INTO meta (key, value) VALUES ('mirror_uri', ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (uri,))

    def mirror(self) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'mirror_uri'").fetchone()
        return None if row is None else str(row[0])

    @property
    def location(self) -> str:
        return str(self.path)

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._connections.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    # -- reads -----------------------------------------------------------------------------

    def _rows(self, sql: str, params: Sequence[Any]) -> list[driver.Row]:
        try:
            rows: list[driver.Row] = self._conn.execute(sql, params).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return rows

    def asof(self, query: AsOfQuery) -> list[Assertion]:
        try:
            return [version_from_row(r) for r in asof_versions(self._conn, query)]
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    def asof_rows(self, query: AsOfQuery, merge_predicate: str | None = None) -> AsOfRows:
        """One statement: see :mod:`kg_memory.store.sqlite.asof`."""
        try:
            return asof_rows(self._conn, query, merge_predicate)
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    def history(
        self, subject: str, predicate: str | None = None, scope: str | None = None
    ) -> list[Assertion]:
        sql = f"SELECT {VERSION_COLUMNS} FROM versions WHERE subject = ?"
        params: list[Any] = [subject]
        if predicate is not None:
            sql += " AND predicate = ?"
            params.append(predicate)
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        rows = self._rows(sql + " ORDER BY predicate, sys_from, valid_from", params)
        return [version_from_row(r) for r in rows]

    def supports(
        self, assertion_ids: Iterable[str], known_at: datetime | None = None
    ) -> dict[str, tuple[Support, ...]]:
        ids = list(dict.fromkeys(assertion_ids))
        if not ids:
            return {}
        known = None if known_at is None else to_micros(known_at)
        marks = ", ".join("?" for _ in ids)
        rows = self._rows(
            "SELECT g.dst, e.episode_id, e.source, e.occurred_at, e.fingerprint FROM edges g "
            "JOIN episodes e ON e.episode_id = g.src AND e.scope = g.scope "
            f"WHERE g.dst IN ({marks}) AND g.type = 'SUPPORTS' AND (? IS NULL OR g.since <= ?) "
            "ORDER BY e.occurred_at, e.episode_id",
            [*ids, known, known],
        )
        found: dict[str, list[Support]] = {i: [] for i in ids}
        for row in rows:
            found[row["dst"]].append(
                trusted(Support, {  # stored rows were validated on the way in
                    "episode_id": row["episode_id"],
                    "source": row["source"],
                    "occurred_at": from_micros(row["occurred_at"]),
                    "fingerprint": row["fingerprint"],  # stored with the content (schema 7)
                })
            )
        return {k: tuple(v) for k, v in found.items()}

    def episodes(self, episode_ids: Sequence[str]) -> list[Episode]:
        if not episode_ids:
            return []
        marks = ", ".join("?" for _ in episode_ids)
        rows = self._rows(
            f"SELECT * FROM episodes WHERE episode_id IN ({marks}) ORDER BY recorded_at",
            list(episode_ids),
        )
        return [episode_from_row(r) for r in rows]

    def edges(self, node_id: str, scope: str | None = None) -> list[Edge]:
        derived, extra = invalidations([node_id], scope)
        if scope is None:
            rows = self._rows(
                "SELECT src, type, dst, since FROM edges WHERE src = ? "
                "UNION SELECT src, type, dst, since FROM edges WHERE dst = ?" + derived
                + " ORDER BY 4",
                [node_id, node_id, *extra],
            )
        else:
            rows = self._rows(
                "SELECT src, type, dst, since FROM edges WHERE scope = ? AND src = ? UNION "
                "SELECT src, type, dst, since FROM edges WHERE scope = ? AND dst = ?" + derived
                + " ORDER BY 4",
                [scope, node_id, scope, node_id, *extra],
            )
        # Stored edges were validated on their way in: rebuilt without validating again (a
        # forget plan reads thousands).
        return [trusted(Edge, {"src": r[0], "type": EdgeType(r[1]), "dst": r[2],
                               "since": from_micros(r[3])}) for r in rows]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        # Only the filter given ("? IS NULL OR" defeats every index): a scope's refusals are
        # found through its episodes (episodes_conversation leads with the scope), so a forget's
        # residue search reads one tenant's refusals, not every refusal in the file.
        rows = self._rows(
            "SELECT r.* FROM episodes e CROSS JOIN refusals r ON r.episode_id = e.episode_id "
            "WHERE e.scope = ? ORDER BY r.at, r.id", [scope],
        ) if scope is not None else self._rows(
            "SELECT r.* FROM refusals r JOIN episodes e USING (episode_id) "
            "ORDER BY r.at, r.id", [])
        return [
            Refusal(
                episode_id=r["episode_id"],
                source=r["source"],
                what=r["what"],
                reason=r["reason"],
                at=from_micros(r["at"]),
            )
            for r in rows
        ]

    # -- lineage and forgetting ------------------------------------------------------------

    def versions(self, assertion_ids: Sequence[str]) -> list[Assertion]:
        """Every revision of each assertion, in system-time order."""
        if not assertion_ids:
            return []
        marks = ", ".join("?" for _ in assertion_ids)
        rows = self._rows(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE assertion_id IN ({marks}) "
            "ORDER BY sys_from, valid_from",
            list(assertion_ids),
        )
        return [version_from_row(r) for r in rows]

    def find_episodes(self, source: str, scope: str | None = None) -> list[str]:
        rows = self._rows(
            "SELECT episode_id FROM episodes WHERE source = ? AND (? IS NULL OR scope = ?) "
            "ORDER BY recorded_at",
            [source, scope, scope],
        )
        return [r["episode_id"] for r in rows]

    def scope_episodes(self, scope: str) -> list[Episode]:
        rows = self._rows("SELECT * FROM episodes WHERE scope = ? ORDER BY recorded_at", [scope])
        return [episode_from_row(r) for r in rows]

    @property
    def secret(self) -> bytes:
        """The key of this store's tombstone hashes, created with the store and kept in the file.

        A store made by an older kg-memory may lack it; it is then created on first use (a
        write, so callers read it before they need it, never on a read-only path).
        """
        found = self._rows("SELECT value FROM meta WHERE key = 'tombstone_secret'", ())
        row = found[0] if found else None
        if row is None:
            self._conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                               ("tombstone_secret", secrets.token_hex(32)))
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = 'tombstone_secret'").fetchone()
        return bytes.fromhex(row[0])

    def blocks(self, scope: str | None = None) -> list[Block]:
        rows = self._rows(
            "SELECT * FROM blocks WHERE (? IS NULL OR scope = ?) ORDER BY created_at",
            [scope, scope],
        )
        return [block_from_row(r) for r in rows]

    def activities(self, type_: str | None = None, scope: str | None = None,
                   activity_id: str | None = None) -> list[Activity]:
        where, params = ["1"], []
        for column, value in (("type", type_), ("scope", scope), ("activity_id", activity_id)):
            # Only the filters given, so activities_type (or the primary key) can serve them.
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = self._rows(f"SELECT * FROM activities WHERE {' AND '.join(where)} "
                          "ORDER BY started_at", params)
        return [activity_from_row(r) for r in rows]

    def drop_erased_keys(self) -> int:
        """Delete the outbox rows a forget marked (:meth:`SqliteTransaction.forget_keys`).

        Call it once the mirror, if any, has applied them: a fresh mirror never needs them (what
        they name is gone), and an up-to-date one already deleted it. Returns how many went.
        """
        with self.batch():
            dropped = drop_rows(self._conn, "seq IN (SELECT seq FROM outbox_erased)")
            self._conn.execute("DELETE FROM outbox_erased")
        return int(dropped)

    def scrub(self) -> list[dict[str, Any]]:
        """Make erasure physical in the file (its mirror is :func:`kg_memory.store.scrub`'s
        business: this adapter knows no other backend)."""
        return [scrub_file(self._conn, self.path, self.location)]

    def documents(self, kind: str, scope: str | None = None, key: str | None = None
                  ) -> list[str]:
        """JSON bodies of stored documents of ``kind`` (profiles, decisions), oldest first."""
        where, params = ["kind = ?"], [kind]
        for column, value in (("scope", scope), ("key", key)):
            if value is not None:  # only the filters given: "? IS NULL OR" defeats the index
                where.append(f"{column} = ?")
                params.append(value)
        rows = self._rows(f"SELECT body FROM documents WHERE {' AND '.join(where)} "
                          "ORDER BY recorded_at, key", params)
        return [r["body"] for r in rows]

    def entities(self, scope: str | None = None) -> list[Entity]:
        # Only the filter given: the primary key (scope, entity_id) serves a scope's entities in
        # order (a forget's orphan search asks for its scope's; it used to read every scope's).
        rows = self._rows(
            "SELECT * FROM entities WHERE scope = ? ORDER BY entity_id", [scope],
        ) if scope is not None else self._rows("SELECT * FROM entities ORDER BY entity_id", [])
        return [entity_from_row(r) for r in rows]

    # -- integrity -------------------------------------------------------------------------

    def integrity_snapshot(self, *, mirror: bool = False) -> Snapshot:
        """See :func:`kg_memory.store.sqlite.integrity.snapshot` (read-only, no write lock)."""
        return snapshot(self._conn, self.location, mirror=mirror)
