"""The embedded store's file: recognising, creating and migrating its schema, and its locks.

Opening a store must never write to it (a reader would then wait for a writer's lock), so the
file is recognised by reading ``sqlite_master`` and ``meta`` only. A new, empty file gets the
schema (``schema.sql``, every statement idempotent), its version row and its tombstone key in
one transaction; an existing one is only changed by :func:`migrate`, on purpose.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.errors import StoreReadOnly, StoreUnavailable
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.outbox_sequence import drop_rows
from kg_memory.store.sqlite.outbox_sequence import upgrade as upgrade_outbox
from kg_memory.store.sqlite.rebuild import drop_column_sizes
from kg_memory.store.sqlite.recall import index_missing, merge_segments
from kg_memory.store.sqlite.recall_terms import reindex_terms
from kg_memory.store.sqlite.recall_vectors import upgrade as upgrade_vectors

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "REFUSED",
    "SCHEMA_VERSION",
    "busy_timeout_seconds",
    "connect",
    "migrate",
    "reconnect",
    "schema_version",
    "store_error",
]

#: 2: tenancy (scoped keys). 3: recall's index (the FTS5 shards of
#: kg_memory.store.sqlite.recall_shards, token counts, live counters); ``kg-memory migrate``
#: creates it on a version 2 file and indexes every revision and message it holds.
#: 4: recall's vector index (recall_vectors, its lists and backlog; see
#: kg_memory.store.sqlite.recall_vectors), added empty by ``kg-memory migrate``.
#: 5: the vector index's sign sketches (recall_sketches) replace its lists; ``kg-memory
#: migrate`` drops the lists and sketches every vector already stored.
#: 6: the outbox index a forget's key marking reads (``outbox_named``), added by ``kg-memory
#: migrate``, so forgetting in one scope no longer reads every scope's outbox rows.
#: 7: each episode's content fingerprint stored with it (``episodes.fingerprint``), so a lookup
#: no longer hashes every supporting episode's text; ``kg-memory migrate`` adds the column and
#: fills it from every episode's content.
#: 8: a tombstone's INVALIDATED_BY edge is read from its row (``tombstones.activity_id``,
#: indexed by ``tombstones_activity``) instead of stored per tombstone; ``kg-memory migrate``
#: adds the index, and an older file's stored edges are the rows derived (read once).
#: 9: recall's FTS5 tables erase with FTS5's ``secure-delete`` (SQLite 3.42+, the engine of
#: kg_memory.store.sqlite.driver): a deleted row's terms leave its segments at once, so a
#: forget no longer marks its shard for a merge (a rewrite of the whole shard) and the erasure
#: triggers no longer write the mark; ``kg-memory migrate`` sets the option on every table,
#: replaces the triggers and merges the shards a schema 8 erasure left marked. The option
#: changes a table's FTS5 format at its first secure deletion: from then on a SQLite before 3.42
#: can neither read nor write it.
#: 10: the gate's decision on each episode's envelope stored with it (``episodes.envelope``,
#: ``sent_by``, ``sent_over``); ``kg-memory migrate`` adds the columns and marks refused every
#: episode whose envelope the audit (``refusals``) says the gate refused.
#: 11: no tombstone is made from a value: ``content`` tombstones (an HMAC over the forgotten
#: value under the secret this file holds, so a guess was confirmable from the file) give way
#: to ``evidence`` ones (slot and instant); ``kg-memory migrate`` drops the old ones, their
#: edges and outbox rows, and checkpoints the WAL (see docs/security.md).
#: 12: recall's terms are Snowball-stemmed (kg_memory.domain.recall_text.TERMS, recorded in
#: ``meta.recall_terms``); ``kg-memory migrate`` indexes every revision and message again with
#: them and recounts ``recall_stats`` (kg_memory.store.sqlite.recall_terms).
#: 13: episodes' vectors (recall_episode_vectors, their sketches and backlog; see
#: kg_memory.store.sqlite.recall_episode_vectors); ``kg-memory migrate`` adds them empty and
#: puts every enrolled scope's episodes in the backlog.
#: 14: two pages fewer in a commit (kg_memory.store.sqlite.rebuild): the outbox without
#: ``AUTOINCREMENT`` (kg_memory.store.sqlite.outbox_sequence) and recall's FTS5 tables without
#: column sizes (``columnsize=0``); ``kg-memory migrate`` rebuilds both, keeping every outbox
#: seq and the last one issued, and every indexed row under its rowid.
SCHEMA_VERSION = "14"
#: Schema versions this one cannot be reached from, and why. Schema 1 keyed entities, operation
#: ids, edges and documents globally, so one tenant's rows could be another's; its rows cannot
#: be given scopes after the fact without guessing.
REFUSED = {"1": "keys entities, operation ids and edges across scopes (before tenancy); "
                "re-ingest its JSONL into a new store"}
DEFAULT_BUSY_TIMEOUT = 10.0
_SCHEMA = Path(__file__).with_name("schema.sql")
#: Recall's FTS5 shards and triggers, generated by kg_memory.store.sqlite.recall_shards.
_RECALL = Path(__file__).with_name("recall.sql")


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


def schema_version(conn: driver.Connection, target: Path) -> str | None:
    """The kg-memory schema version of the file, ``None`` for an empty file; refuses others.

    Reads only: the tables another application keeps in its file are never touched.
    """
    try:
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except driver.DatabaseError as exc:
        if isinstance(exc, driver.OperationalError):
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


def _add_fingerprints(conn: driver.Connection) -> None:
    """Add ``episodes.fingerprint`` to a file from before schema 7 and fill it from each
    episode's content, inside the caller's transaction."""
    if any(r[1] == "fingerprint" for r in conn.execute("PRAGMA table_info(episodes)")):
        return
    conn.execute("ALTER TABLE episodes ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''")
    # The mirror carries no fingerprint, so the fill must not queue every episode in the
    # outbox: its update trigger is set aside for this one statement and put back from its
    # own text before the transaction commits (as rewrite.py does with the revision guard).
    [trigger] = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = "
                             "'outbox_episodes_upd'").fetchone()
    conn.execute("DROP TRIGGER outbox_episodes_upd")
    last = 0
    # In slices of rowids, so a large store's contents are never all in memory at once.
    while rows := conn.execute("SELECT rowid, content FROM episodes WHERE rowid > ? "
                               "ORDER BY rowid LIMIT 10000", [last]).fetchall():
        conn.executemany("UPDATE episodes SET fingerprint = ? WHERE rowid = ?",
                         [(fingerprint(content), rowid) for rowid, content in rows])
        last = rows[-1][0]
    conn.execute(trigger)


def _add_envelopes(conn: driver.Connection) -> None:
    """Add the envelope columns to a file from before schema 10, inside the caller's
    transaction, and derive each episode's decision from the audit: the gate refused exactly
    the envelopes it wrote an ``envelope ...`` refusal for (kg_memory.services.admission). Who
    really sent those was not recorded then, so ``sent_by`` stays unknown (NULL); the update
    goes through the outbox, so a Neo4j mirror learns the decisions too."""
    if any(r[1] == "envelope" for r in conn.execute("PRAGMA table_info(episodes)")):
        return
    conn.execute("ALTER TABLE episodes ADD COLUMN envelope TEXT NOT NULL DEFAULT 'admitted' "
                 "CHECK (envelope IN ('admitted', 'refused'))")
    conn.execute("ALTER TABLE episodes ADD COLUMN sent_by TEXT")
    conn.execute("ALTER TABLE episodes ADD COLUMN sent_over TEXT")
    conn.execute("UPDATE episodes SET envelope = 'refused' WHERE episode_id IN "
                 "(SELECT episode_id FROM refusals WHERE what LIKE 'envelope %')")


def _drop_value_tombstones(conn: driver.Connection) -> None:
    """Drop the value-derived ``content`` tombstones of a file from before schema 11, with every
    copy of their keys: the INVALIDATED_BY edges stored from their nodes (``tomb_`` + the
    key's first 20 characters, enough to confirm a guess) and their outbox rows. Run with
    ``secure_delete`` on, so the freed cells are zeroed, not left for a reader of the file."""
    gone = [r[0] for r in conn.execute("SELECT key FROM tombstones WHERE kind = 'content'")]
    if not gone:
        return
    nodes = json.dumps(["tomb_" + key[:20] for key in gone])
    # The mirror learns of nothing here (its next connect drops them the same way), so the
    # edges' delete trigger must not queue the node ids it is erasing.
    [trigger] = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = "
                             "'outbox_edges_del'").fetchone()
    conn.execute("DROP TRIGGER outbox_edges_del")
    conn.execute("DELETE FROM edges WHERE src IN (SELECT value FROM json_each(?))", [nodes])
    conn.execute(trigger)
    drop_rows(conn, "tbl = 'edges' AND EXISTS (SELECT 1 FROM json_each(?) "
              "j WHERE instr(outbox.key, j.value) > 0)", [nodes])
    drop_rows(conn, "tbl = 'tombstones' AND key IN (SELECT value FROM json_each(?))",
              [json.dumps(gone)])
    conn.execute("DELETE FROM tombstones WHERE kind = 'content'")


def _initialise(conn: driver.Connection) -> None:
    """Create (or complete) the schema, the version row and the tombstone key, atomically."""
    conn.execute("PRAGMA journal_mode = WAL")
    # executescript takes no parameters, so the script opens the transaction and the rows
    # that carry values are written with parameters inside it before the COMMIT.
    conn.executescript("BEGIN IMMEDIATE;\n" + _SCHEMA.read_text(encoding="utf-8")
                       + _RECALL.read_text(encoding="utf-8"))
    try:
        drop_column_sizes(conn)  # shard tables that keep FTS5 column sizes (before 14)
        # A file from before recall: index what it holds, in the same transaction.
        index_missing(conn)
        upgrade_vectors(conn)  # a file from before the sketches (schema 4)
        _add_fingerprints(conn)  # a file from before the stored fingerprints (schema 7)
        _add_envelopes(conn)  # a file from before the stored envelope decisions (schema 10)
        upgrade_outbox(conn)  # an outbox with AUTOINCREMENT (before schema 14)
        _drop_value_tombstones(conn)  # a file from before evidence tombstones (schema 11)
        reindex_terms(conn)  # an index of older terms (schema 12): written again, once
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [SCHEMA_VERSION])
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('tombstone_secret', ?)",
                     [secrets.token_hex(32)])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _configure(conn: driver.Connection, *, durable: bool) -> None:
    """Connection settings only: none of these writes to the file."""
    conn.row_factory = driver.Row
    # The busy timeout is connect()'s `timeout` (SQLite's busy handler).
    # Not durable: a private scratch file (":memory:"), gone when the store closes.
    if durable:
        conn.execute("PRAGMA synchronous = FULL")
    else:
        conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("PRAGMA foreign_keys = ON")
    # Ids are hashes, so each write lands on random pages of six B-trees: SQLite's default
    # 2 MiB page cache misses on most of them once the file outgrows it. A bound, not an
    # allocation: the cache grows only as pages are read.
    conn.execute("PRAGMA cache_size = -65536")  # KiB: 64 MiB


def _open(target: Path, mode: str | None, timeout: float) -> driver.Connection:
    """``target`` opened (``mode``: a read-only URI parameter, or ``None`` to write)."""
    # check_same_thread off: each thread uses its own connection, but the store closes them
    # all, from whichever thread closes it (kg_memory.store.sqlite.connections).
    if mode is None:
        return driver.connect(target, isolation_level=None, check_same_thread=False,
                              timeout=timeout)
    return driver.connect(f"{target.resolve().as_uri()}?{mode}", uri=True,
                          isolation_level=None, check_same_thread=False, timeout=timeout)


def reconnect(target: Path, *, busy_timeout: float | None, durable: bool = True
              ) -> driver.Connection:
    """Another connection to a store :func:`connect` already recognised (a thread's own),
    opened the same way: for reading only when the store cannot be written."""
    return connect(target, create=False, busy_timeout=busy_timeout, durable=durable)


def connect(target: Path, *, create: bool, busy_timeout: float | None, durable: bool = True
            ) -> driver.Connection:
    """A connection to the kg-memory store at ``target`` (created when ``create`` and absent
    or empty); writes nothing to an existing file. Refuses files of other applications.

    A store that cannot be opened for writing is opened for reading (see :func:`_read_only`):
    reads work on a read-only file, directory or mount, and a write then raises
    :class:`~kg_memory.domain.errors.StoreReadOnly`."""
    timeout = busy_timeout_seconds(busy_timeout)
    if not create and not target.exists():
        raise StoreUnavailable(f"no kg-memory store at {target}")
    if target.is_dir():
        raise StoreUnavailable(f"{target} is a directory, not a kg-memory store")
    if create:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot open kg-memory store at {target}: {exc}") from exc
    what = f"cannot open kg-memory store at {target}"
    try:
        return _opened(target, None, create=create, timeout=timeout, durable=durable)
    except driver.Error as exc:
        if not (target.exists() and _unopenable(exc)):
            raise _open_error(exc, target, what) from exc
        refused = exc
    return _read_only(target, refused, what, timeout)


def _unopenable(exc: driver.Error) -> bool:
    """Whether SQLite could not open the file for writing (as opposed to a broken file)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (code is not None and code & 0xFF in (8, 14)) or "unable to open" in str(exc)


def _open_error(exc: driver.Error, target: Path, what: str) -> StoreUnavailable:
    """Why ``target`` could not be opened: :class:`StoreReadOnly` when it could not be written
    because its directory cannot be (SQLite only says "unable to open database file")."""
    if _unopenable(exc) and not os.access(target.parent, os.W_OK):
        return StoreReadOnly(f"{what}: its directory {target.parent} is read-only ({exc})")
    return store_error(exc, what, target.parent)


def _read_only(target: Path, refused: driver.Error, what: str, timeout: float
               ) -> driver.Connection:
    """``target`` opened for reading only, when it could not be opened for writing.

    ``mode=ro`` still uses the WAL index beside the file, so it reads what a writer has in the
    WAL and sees its later commits; it needs that index (``-shm``) to exist or be creatable.
    On a read-only mount it cannot always be, and then ``immutable=1`` reads the file alone:
    safe there, since nothing can write to a read-only mount, but only if no WAL holds commits
    the file lacks (a writer that crashed before its checkpoint): such a store is refused
    rather than read without its last commits.
    """
    try:
        return _opened(target, "mode=ro", create=False, timeout=timeout)
    except driver.Error as exc:
        if not _unopenable(exc) or not _on_read_only_mount(target):
            raise _open_error(refused, target, what) from exc
    wal = Path(f"{target}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreReadOnly(
            f"{what}: it is on a read-only mount and its journal ({wal.name}) holds commits "
            "not yet in the file; open it once with write access (any command) to fold them "
            "in, then it can be read from a read-only mount")
    try:
        return _opened(target, "immutable=1", create=False, timeout=timeout)
    except driver.Error as exc:
        raise _open_error(exc, target, what) from exc


def _on_read_only_mount(target: Path) -> bool:
    try:
        return bool(os.statvfs(target.parent).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _opened(target: Path, mode: str | None, *, create: bool, timeout: float,
            durable: bool = True) -> driver.Connection:
    """A connection to ``target`` (``mode``: a read-only URI parameter, or ``None``), its
    settings made and its schema recognised (or created)."""
    try:
        conn = _open(target, mode, timeout)
    except OSError as exc:
        raise StoreUnavailable(f"cannot open kg-memory store at {target}: {exc}") from exc
    try:
        _configure(conn, durable=durable)
        version = schema_version(conn, target)
        if version is None:
            if not create:
                raise StoreUnavailable(f"{target} is empty, not a kg-memory store")
            _initialise(conn)
            version = SCHEMA_VERSION
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
    conn = driver.connect(target, isolation_level=None, timeout=timeout)
    try:
        # What a step deletes (schema 9's value-derived tombstones) must not stay readable in
        # the freed pages.
        conn.execute("PRAGMA secure_delete = ON")
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
        # A schema 8 forget whose scrub did not finish left its shard marked: its erased terms
        # are still in older segments, which secure-delete does not reach after the fact.
        merge_segments(conn)
        # Nor in the WAL's older frames: copied into the file (with the zeroed cells) and cut.
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return before, SCHEMA_VERSION
    except driver.Error as exc:
        raise _open_error(exc, target, f"cannot migrate {target}") from exc
    finally:
        conn.close()
