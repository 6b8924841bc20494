"""The embedded default store: one SQLite file, no server.

Durability: WAL journal with ``synchronous=FULL``, so a transaction that returned has reached the
disk and survives a crash or power loss. Revisions are insert-only; a trigger refuses any update
other than closing an open system interval once, so "what did the store know at T" can't drift.

As-of lookups go through the B-tree index ``(subject, predicate, sys_from)``: O(log n) to reach a
slot, then a scan of that slot's few revisions. Nothing is loaded into memory at open.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from kg_memory.clock import Clock, from_micros, system_clock, to_micros
from kg_memory.errors import StoreUnavailable
from kg_memory.model import Assertion, Edge, EdgeType, Episode, Refusal, Support
from kg_memory.store.protocol import AsOfQuery
from kg_memory.store.sqlite_rows import VERSION_COLUMNS, episode_from_row, version_from_row
from kg_memory.store.sqlite_tx import SqliteTransaction

__all__ = ["SqliteStore", "default_path"]

SCHEMA_VERSION = "1"
_SCHEMA = Path(__file__).with_name("schema.sql")


def default_path() -> Path:
    """``$KG_MEMORY_STORE``, else ``$XDG_DATA_HOME/kg-memory/memory.db`` (``~/.local/share``)."""
    explicit = os.environ.get("KG_MEMORY_STORE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kg-memory" / "memory.db"


class SqliteStore:
    """The embedded store. Open with :meth:`open`; use as a context manager to close it."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Clock) -> None:
        self._conn = conn
        self.path = path
        self._clock = clock
        self._in_batch = False

    @classmethod
    def open(
        cls, path: Path | str | None = None, *, clock: Clock = system_clock, create: bool = True
    ) -> SqliteStore:
        """Open (and with ``create``, initialise) the store file at ``path``.

        Raises :class:`StoreUnavailable` when the file is missing and ``create`` is false, or
        when it is not a kg-memory store.
        """
        target = Path(path) if path is not None else default_path()
        if not create and not target.exists():
            raise StoreUnavailable(f"no kg-memory store at {target}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA secure_delete = ON")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 10000")
            conn.executescript(_SCHEMA.read_text(encoding="utf-8"))
            conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                (SCHEMA_VERSION,),
            )
            version = conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'"
            ).fetchone()[0]
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(f"cannot open kg-memory store at {target}: {exc}") from exc
        if version != SCHEMA_VERSION:
            conn.close()
            raise StoreUnavailable(f"{target} has schema {version}, expected {SCHEMA_VERSION}")
        return cls(conn, target, clock)

    @property
    def location(self) -> str:
        return str(self.path)

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def _next_system_time(self) -> int:
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'system_time'").fetchone()
        last = -1 if row is None else int(row[0])
        now = max(to_micros(self._clock()), last + 1)
        self._conn.execute(
            "INSERT INTO meta (key, value) VALUES ('system_time', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(now),),
        )
        return now

    @contextmanager
    def batch(self) -> Iterator[None]:
        if self._in_batch:
            yield
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._in_batch = True
        try:
            yield
        finally:
            # Commit even when leaving with an error: each episode inside was its own savepoint,
            # so what was accepted before the failure stays accepted.
            self._in_batch = False
            self._conn.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[SqliteTransaction]:
        if self._in_batch:
            self._conn.execute("SAVEPOINT episode")
            try:
                tx = SqliteTransaction(self._conn, self._next_system_time())
                yield tx
            except BaseException:
                self._conn.execute("ROLLBACK TO episode")
                self._conn.execute("RELEASE episode")
                raise
            self._conn.execute("RELEASE episode")
            return
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            tx = SqliteTransaction(self._conn, self._next_system_time())
            yield tx
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # -- reads -----------------------------------------------------------------------------

    def _rows(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot read {self.path}: {exc}") from exc

    def asof(self, query: AsOfQuery) -> list[Assertion]:
        known, valid = to_micros(query.known_at), to_micros(query.valid_at)
        where = [
            "sys_from <= ?",
            "(sys_to IS NULL OR sys_to > ?)",
            "valid_from <= ?",
            "(valid_to IS NULL OR valid_to > ?)",
        ]
        params: list[Any] = [known, known, valid, valid]
        for column, value in (
            ("subject", query.subject),
            ("predicate", query.predicate),
            ("scope", query.scope),
        ):
            if value is not None:
                where.insert(0, f"{column} = ?")
                params.insert(0, value)
        rows = self._rows(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE {' AND '.join(where)} "
            "ORDER BY scope, subject, predicate, project, valid_from",
            params,
        )
        return [version_from_row(r) for r in rows]

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
            "SELECT g.dst, e.episode_id, e.source, e.occurred_at FROM edges g "
            "JOIN episodes e ON e.episode_id = g.src "
            f"WHERE g.dst IN ({marks}) AND g.type = 'SUPPORTS' AND (? IS NULL OR g.since <= ?) "
            "ORDER BY e.occurred_at, e.episode_id",
            [*ids, known, known],
        )
        found: dict[str, list[Support]] = {i: [] for i in ids}
        for row in rows:
            found[row["dst"]].append(
                Support(
                    episode_id=row["episode_id"],
                    source=row["source"],
                    occurred_at=from_micros(row["occurred_at"]),
                )
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

    def edges(self, node_id: str) -> list[Edge]:
        rows = self._rows(
            "SELECT src, type, dst, since FROM edges WHERE src = ? "
            "UNION SELECT src, type, dst, since FROM edges WHERE dst = ? ORDER BY since",
            [node_id, node_id],
        )
        return [
            Edge(
                src=r["src"], type=EdgeType(r["type"]), dst=r["dst"], since=from_micros(r["since"])
            )
            for r in rows
        ]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        rows = self._rows(
            "SELECT r.* FROM refusals r JOIN episodes e USING (episode_id) "
            "WHERE (? IS NULL OR e.scope = ?) ORDER BY r.at, r.id",
            [scope, scope],
        )
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
