"""The embedded default store: one SQLite file, no server.

Durability: WAL journal with ``synchronous=FULL``, so a transaction that returned has reached the
disk and survives a crash or power loss. Revisions are insert-only; a trigger refuses any update
other than closing an open system interval once, so "what did the store know at T" can't drift.

As-of lookups go through the B-tree index ``(subject, predicate, sys_from)``: O(log n) to reach a
slot, then a scan of that slot's few revisions. Nothing is loaded into memory at open.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from kg_memory.change import Closure, Draft, PlannedEdge
from kg_memory.clock import Clock, from_micros, system_clock, to_micros
from kg_memory.errors import StoreUnavailable
from kg_memory.interval import Interval
from kg_memory.model import (
    Assertion,
    Channel,
    Edge,
    EdgeType,
    EndReason,
    Entity,
    Episode,
    Kind,
    Qualifiers,
    Refusal,
    Support,
)
from kg_memory.store.protocol import AsOfQuery, Slot

__all__ = ["SqliteStore", "default_path"]

SCHEMA_VERSION = "1"
_SCHEMA = Path(__file__).with_name("schema.sql")
_VERSION_COLUMNS = (
    "assertion_id, revision, scope, subject, predicate, value, qualifiers, kind, writer, "
    "depends_on, confidence, valid_from, valid_to, sys_from, sys_to, reason, recorded_by, "
    "closed_by, close_reason"
)


def default_path() -> Path:
    """``$KG_MEMORY_STORE``, else ``$XDG_DATA_HOME/kg-memory/memory.db`` (``~/.local/share``)."""
    explicit = os.environ.get("KG_MEMORY_STORE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kg-memory" / "memory.db"


def _opt(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def _version(row: sqlite3.Row) -> Assertion:
    return Assertion(
        assertion_id=row["assertion_id"],
        revision=row["revision"],
        scope=row["scope"],
        subject=row["subject"],
        predicate=row["predicate"],
        value=json.loads(row["value"]),
        qualifiers=Qualifiers.model_validate_json(row["qualifiers"]),
        kind=Kind(row["kind"]),
        writer=row["writer"],
        depends_on=tuple(json.loads(row["depends_on"])),
        confidence=row["confidence"],
        valid=Interval(start=from_micros(row["valid_from"]), end=_opt(row["valid_to"])),
        system=Interval(start=from_micros(row["sys_from"]), end=_opt(row["sys_to"])),
        reason=EndReason(row["reason"]),
        recorded_by=row["recorded_by"],
        closed_by=row["closed_by"],
        close_reason=None if row["close_reason"] is None else EndReason(row["close_reason"]),
    )


def _episode(row: sqlite3.Row) -> Episode:
    return Episode(
        episode_id=row["episode_id"],
        operation_id=row["operation_id"],
        source=row["source"],
        channel=Channel(row["channel"]),
        content=row["content"],
        occurred_at=from_micros(row["occurred_at"]),
        recorded_at=from_micros(row["recorded_at"]),
        scope=row["scope"],
    )


class _SqliteTransaction:
    def __init__(self, conn: sqlite3.Connection, now: int) -> None:
        self._conn = conn
        self._now = now
        self.now_dt = from_micros(now)

    @property
    def now(self) -> datetime:
        return self.now_dt

    def episode_by_operation(self, operation_id: str) -> tuple[Episode, str] | None:
        row = self._conn.execute(
            "SELECT * FROM episodes WHERE operation_id = ?", (operation_id,)
        ).fetchone()
        return None if row is None else (_episode(row), row["payload_hash"])

    def add_episode(self, episode: Episode, payload_hash: str) -> None:
        self._conn.execute(
            "INSERT INTO episodes (episode_id, operation_id, payload_hash, source, channel, "
            "content, occurred_at, recorded_at, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                episode.episode_id,
                episode.operation_id,
                payload_hash,
                episode.source,
                episode.channel.value,
                episode.content,
                to_micros(episode.occurred_at),
                to_micros(episode.recorded_at),
                episode.scope,
            ),
        )

    def entity(self, entity_id: str) -> Entity | None:
        row = self._conn.execute(
            "SELECT * FROM entities WHERE entity_id = ?", (entity_id,)
        ).fetchone()
        if row is None:
            return None
        return Entity(
            entity_id=row["entity_id"],
            type=row["type"],
            name=row["name"],
            scope=row["scope"],
            owners=tuple(json.loads(row["owners"])),
        )

    def put_entity(self, entity: Entity) -> None:
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
                "UPDATE entities SET owners = ?, name = coalesce(name, ?) WHERE entity_id = ?",
                (json.dumps(list(owners)), entity.name, entity.entity_id),
            )

    def live_versions(self, slot: Slot) -> list[Assertion]:
        rows = self._conn.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE scope = ? AND subject = ? "
            "AND predicate = ? AND project = ? AND sys_to IS NULL ORDER BY valid_from",
            (slot.scope, slot.subject, slot.predicate, slot.project or ""),
        ).fetchall()
        return [_version(r) for r in rows]

    def live_dependents(self, key: str) -> list[Assertion]:
        rows = self._conn.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE sys_to IS NULL AND assertion_id IN "
            "(SELECT assertion_id FROM dependencies WHERE dep = ?) ORDER BY valid_from",
            (key,),
        ).fetchall()
        return [_version(r) for r in rows]

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
            return
        self._conn.execute(
            "UPDATE versions SET sys_to = ?, closed_by = ?, close_reason = ? WHERE vid = ?",
            (self._now, closure.closed_by, closure.reason.value, row["vid"]),
        )

    def insert_version(self, draft: Draft) -> Assertion:
        revision = self._conn.execute(
            "SELECT coalesce(max(revision), 0) + 1 FROM versions WHERE assertion_id = ?",
            (draft.assertion_id,),
        ).fetchone()[0]
        self._conn.execute(
            f"INSERT INTO versions ({_VERSION_COLUMNS}, project) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, NULL, NULL, ?)",
            (
                draft.assertion_id,
                revision,
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
        )
        self._conn.executemany(
            "INSERT OR IGNORE INTO dependencies (dep, assertion_id) VALUES (?, ?)",
            [(dep, draft.assertion_id) for dep in draft.depends_on],
        )
        return Assertion(
            **draft.model_dump(exclude={"valid"}),
            valid=draft.valid,
            revision=revision,
            system=Interval(start=self.now_dt),
        )

    def add_edge(self, edge: PlannedEdge) -> None:
        self._conn.execute(
            "INSERT OR IGNORE INTO edges (src, type, dst, since) VALUES (?, ?, ?, ?)",
            (edge.src, edge.type.value, edge.dst, self._now),
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
    def transaction(self) -> Iterator[_SqliteTransaction]:
        if self._in_batch:
            self._conn.execute("SAVEPOINT episode")
            try:
                tx = _SqliteTransaction(self._conn, self._next_system_time())
                yield tx
            except BaseException:
                self._conn.execute("ROLLBACK TO episode")
                self._conn.execute("RELEASE episode")
                raise
            self._conn.execute("RELEASE episode")
            return
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            tx = _SqliteTransaction(self._conn, self._next_system_time())
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
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE {' AND '.join(where)} "
            "ORDER BY scope, subject, predicate, project, valid_from",
            params,
        )
        return [_version(r) for r in rows]

    def history(
        self, subject: str, predicate: str | None = None, scope: str | None = None
    ) -> list[Assertion]:
        sql = f"SELECT {_VERSION_COLUMNS} FROM versions WHERE subject = ?"
        params: list[Any] = [subject]
        if predicate is not None:
            sql += " AND predicate = ?"
            params.append(predicate)
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        rows = self._rows(sql + " ORDER BY predicate, sys_from, valid_from", params)
        return [_version(r) for r in rows]

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
        return [_episode(r) for r in rows]

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
