"""The embedded store's side of ``kg-memory check``: its rows as an integrity snapshot.

Read-only SQL over every table the rules of :mod:`kg_memory.domain.integrity` judge, plus the
outbox's bookkeeping (its highest row, never deleted, holds the last sequence number ever
issued, even after a mirror's applied rows were pruned).
"""

from __future__ import annotations

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.instant import from_micros
from kg_memory.domain.integrity import EpisodeMark, OutboxState, Snapshot
from kg_memory.domain.model import Edge, EdgeType, trusted
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.invalidations import ALL_INVALIDATIONS
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, version_from_row
from kg_memory.store.sqlite.schema import store_error

__all__ = ["mirror_cursor", "read_snapshot", "snapshot"]


def read_snapshot(conn: driver.Connection, location: str) -> Snapshot:
    """Read every row the integrity rules judge; the caller holds a read transaction."""
    versions = tuple(version_from_row(r) for r in conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM versions ORDER BY assertion_id, revision"))
    edges = tuple(
        trusted(Edge, {"src": r[0], "type": EdgeType(r[1]), "dst": r[2],
                       "since": from_micros(r[3])})
        for r in conn.execute("SELECT src, type, dst, since FROM edges UNION ALL "
                              + ALL_INVALIDATIONS)
        if r[1] in _EDGE_TYPES)
    episodes = tuple(
        EpisodeMark(episode_id=r[0], operation_id=r[1], redacted=r[2] == "", scope=r[3],
                    fingerprint=r[4], content_fingerprint=fingerprint(r[5]))
        for r in conn.execute("SELECT episode_id, operation_id, payload_hash, scope, "
                              "fingerprint, content FROM episodes"))
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    first, last, rows = conn.execute(
        "SELECT min(seq), max(seq), count(*) FROM outbox").fetchone()
    # The highest row is never deleted (schema 14: outbox_keep_last), so the last number ever
    # issued is the highest held; a blank row ('') is that mark kept after its key went.
    tables = tuple(sorted(r[0] for r in conn.execute("SELECT DISTINCT tbl FROM outbox")
                          if r[0] not in _OUTBOX_TABLES and r[0] != ""))
    return Snapshot(
        location=location,
        versions=versions,
        edges=edges,
        episodes=episodes,
        activities=frozenset(r[0] for r in conn.execute(
            "SELECT activity_id FROM activities")),
        tombstones=frozenset(r[0] for r in conn.execute("SELECT key FROM tombstones")),
        dependencies=frozenset((r[0], r[1]) for r in conn.execute(
            "SELECT dep, assertion_id FROM dependencies")),
        system_time=None if "system_time" not in meta else from_micros(
            int(meta["system_time"])),
        outbox=OutboxState(first=first, last=last, rows=rows,
                           issued=0 if last is None else int(last),
                           unknown_tables=tables, mirror=meta.get("mirror_uri")),
    )


_EDGE_TYPES = {t.value for t in EdgeType}
_OUTBOX_TABLES = {"versions", "episodes", "entities", "edges", "activities", "tombstones"}


def mirror_cursor(uri: str) -> tuple[int | None, str]:
    """The mirror's cursor, or why it could not be read (unreachable is a note, not a fault)."""
    from kg_memory.store.neo4j import Neo4jStore

    try:
        target = Neo4jStore.connect(uri)
    except KgMemoryError as exc:
        return None, f"mirror not checked: {exc}"
    try:
        return target.mirror_cursor(), ""
    except KgMemoryError as exc:
        return None, f"mirror not checked: {exc}"
    finally:
        target.close()


def snapshot(conn: driver.Connection, location: str, *, mirror: bool = False) -> Snapshot:
    """Everything :mod:`kg_memory.domain.integrity` judges, read in one read transaction (a
    consistent view even while a writer runs; it takes no write lock). With ``mirror``, the
    cursor of the Neo4j mirror this file propagates to is read too."""
    try:
        conn.execute("BEGIN")
        try:
            snap = read_snapshot(conn, location)
        finally:
            conn.execute("COMMIT")
    except driver.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    if mirror and snap.outbox is not None and snap.outbox.mirror is not None:
        cursor, note = mirror_cursor(snap.outbox.mirror)
        snap = snap.model_copy(update={"outbox": snap.outbox.model_copy(
            update={"mirror_cursor": cursor, "mirror_note": note})})
    return snap
