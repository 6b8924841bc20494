"""The embedded store's file: recognising, creating and migrating its schema, and its locks.

Opening a store must never write to it (a reader would then wait for a writer's lock), so the
file is recognised by reading ``sqlite_master`` and ``meta`` only. A new, empty file gets the
schema (``schema.sql``, every statement idempotent), its version row and its tombstone key in
one transaction; an existing one is only changed by :func:`migrate`, on purpose.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path

from kg_memory.domain.errors import StoreBusy, StoreUnavailable

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "REFUSED",
    "SCHEMA_VERSION",
    "busy_timeout_seconds",
    "connect",
    "migrate",
    "schema_version",
    "store_error",
]

SCHEMA_VERSION = "2"
#: Schema versions this one cannot be reached from, and why. Schema 1 keyed entities, operation
#: ids, edges and documents globally, so one tenant's rows could be another's; its rows cannot
#: be given scopes after the fact without guessing.
REFUSED = {"1": "keys entities, operation ids and edges across scopes (before tenancy); "
                "re-ingest its JSONL into a new store"}
DEFAULT_BUSY_TIMEOUT = 10.0
_SCHEMA = Path(__file__).with_name("schema.sql")


def busy_timeout_seconds(explicit: float | None = None) -> float:
    """The busy timeout: ``explicit``, else ``$KG_MEMORY_BUSY_TIMEOUT`` (seconds), else 10."""
    if explicit is None:
        raw = os.environ.get("KG_MEMORY_BUSY_TIMEOUT", "").strip()
        if not raw:
            return DEFAULT_BUSY_TIMEOUT
        try:
            explicit = float(raw)
        except ValueError:
            raise StoreUnavailable(
                f"KG_MEMORY_BUSY_TIMEOUT must be a number of seconds, not {raw!r}") from None
    if not 0 <= explicit <= 86_400 or explicit != explicit:  # NaN fails both comparisons
        raise StoreUnavailable(f"the busy timeout must be 0 to 86400 seconds, not {explicit}")
    return explicit


def store_error(exc: sqlite3.Error, what: str) -> StoreUnavailable:
    """SQLite's error as kg-memory's: a held lock is :class:`StoreBusy` (retry later)."""
    code = getattr(exc, "sqlite_errorcode", None)
    busy = code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    if busy or "database is locked" in str(exc):
        return StoreBusy(f"{what}: another writer holds the store's lock ({exc})")
    return StoreUnavailable(f"{what}: {exc}")


def schema_version(conn: sqlite3.Connection, target: Path) -> str | None:
    """The kg-memory schema version of the file, ``None`` for an empty file; refuses others.

    Reads only: the tables another application keeps in its file are never touched.
    """
    try:
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError):
            raise
        raise StoreUnavailable(f"{target} is not a kg-memory store: {exc}") from exc
    if not tables:
        return None
    row = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if "meta" in tables \
        else None
    if row is None or not {"episodes", "versions"} <= tables:
        raise StoreUnavailable(f"{target} is not a kg-memory store: it belongs to another "
                               "application (its tables are not ours); not modified")
    return str(row[0])


def _initialise(conn: sqlite3.Connection) -> None:
    """Create (or complete) the schema, the version row and the tombstone key, atomically."""
    conn.execute("PRAGMA journal_mode = WAL")
    # executescript takes no parameters, so the script opens the transaction and the rows
    # that carry values are written with parameters inside it before the COMMIT.
    conn.executescript("BEGIN IMMEDIATE;\n" + _SCHEMA.read_text(encoding="utf-8"))
    try:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [SCHEMA_VERSION])
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('tombstone_secret', ?)",
                     [secrets.token_hex(32)])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def connect(target: Path, *, create: bool, busy_timeout: float | None) -> sqlite3.Connection:
    """A connection to the kg-memory store at ``target`` (created when ``create`` and absent
    or empty); writes nothing to an existing file. Refuses files of other applications."""
    timeout = busy_timeout_seconds(busy_timeout)
    if not create and not target.exists():
        raise StoreUnavailable(f"no kg-memory store at {target}")
    if target.is_dir():
        raise StoreUnavailable(f"{target} is a directory, not a kg-memory store")
    try:
        if create:
            target.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            target, isolation_level=None, check_same_thread=False, timeout=timeout
        )
    except (sqlite3.Error, OSError) as exc:
        raise StoreUnavailable(f"cannot open kg-memory store at {target}: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        # Connection settings only: none of these writes to the file.
        # The busy timeout is connect()'s `timeout` (SQLite's busy handler).
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        version = schema_version(conn, target)
        if version is None:
            if not create:
                raise StoreUnavailable(f"{target} is empty, not a kg-memory store")
            _initialise(conn)
            version = SCHEMA_VERSION
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(exc, f"cannot open kg-memory store at {target}") from exc
    except BaseException:
        conn.close()
        raise
    if version in REFUSED:
        conn.close()
        raise StoreUnavailable(
            f"{target} has kg-memory schema {version}, this version needs {SCHEMA_VERSION}: "
            f"schema {version} {REFUSED[version]}")
    if version != SCHEMA_VERSION:
        conn.close()
        raise StoreUnavailable(
            f"{target} has schema {version}, this kg-memory uses {SCHEMA_VERSION}; "
            "run `kg-memory migrate` to upgrade it"
        )
    return conn


def migrate(target: Path, *, busy_timeout: float | None = None) -> tuple[str, str]:
    """Bring an existing store's schema up to this version; ``(from, to)``.

    The one operation besides creation that runs the schema script: every statement in it is
    idempotent (``IF NOT EXISTS``), so re-running it adds what a newer version defines and
    keeps every row. It takes the write lock, so it waits for (or, past the busy timeout,
    fails on) a running writer instead of racing it.
    """
    if not target.exists():
        raise StoreUnavailable(f"no kg-memory store at {target}")
    timeout = busy_timeout_seconds(busy_timeout)
    conn = sqlite3.connect(target, isolation_level=None, timeout=timeout)
    try:
        before = schema_version(conn, target)
        if before is None:
            raise StoreUnavailable(f"{target} is empty, not a kg-memory store")
        if before in REFUSED:
            raise StoreUnavailable(
                f"{target} has kg-memory schema {before}, which cannot be migrated: "
                f"schema {before} {REFUSED[before]}")
        if not before.isdigit() or int(before) > int(SCHEMA_VERSION):
            raise StoreUnavailable(
                f"{target} has schema {before}, newer than this kg-memory's {SCHEMA_VERSION}")
        _initialise(conn)
        return before, SCHEMA_VERSION
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot migrate {target}") from exc
    finally:
        conn.close()
