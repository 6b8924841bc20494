"""The outbox's sequence numbers without ``AUTOINCREMENT`` (schema 14), and the one rule that
keeps them safe: the highest row is never deleted.

A mirror reads the outbox by increasing ``seq`` from its cursor, so a number must never be
issued twice nor go backwards, even after rows are deleted (a mirror's applied rows, a forget's
erased keys). ``AUTOINCREMENT`` guaranteed that with a ``sqlite_sequence`` row, which every
transaction that wrote an outbox row updated: one more B-tree page in each commit's WAL frames
(16 pages per plain chat turn before schema 14, 15 after). A plain ``INTEGER PRIMARY KEY``
issues ``max(seq) + 1``, which is as safe as long as the highest row stays: the trigger
``outbox_keep_last`` (schema.sql) refuses its deletion, and :func:`drop_rows` blanks that one
row (``tbl`` and ``key`` emptied: no reader resolves it, no erased key stays in it) instead of
deleting it.
"""

from __future__ import annotations

from typing import Any

from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.rebuild import triggers_set_aside

__all__ = ["drop_rows", "upgrade"]


def drop_rows(conn: driver.Connection, where: str, params: Any = ()) -> int:
    """Delete the outbox rows matching ``where`` (an SQL condition over ``seq``, ``tbl``,
    ``key``; values as ``params``), except the highest, which is blanked if it matches; the
    number of rows dropped or blanked. Inside the caller's transaction."""
    # ``where`` is each caller's fixed SQL text; the values travel as parameters.
    blanked = conn.execute(
        "UPDATE outbox SET tbl = '', key = '' WHERE seq = (SELECT max(seq) FROM outbox) "
        "AND tbl <> '' AND (" + where + ")", params).rowcount
    deleted = conn.execute(
        "DELETE FROM outbox WHERE seq < (SELECT max(seq) FROM outbox) AND (" + where + ")",
        params).rowcount
    return int(blanked) + int(deleted)


def upgrade(conn: driver.Connection) -> None:
    """Rebuild a pre-schema-14 outbox without ``AUTOINCREMENT``, inside the caller's
    transaction: every row kept with its ``seq``, and the last number ever issued kept as a
    blank row when the rows holding it were deleted, so the next number is still above every
    number a mirror may have applied."""
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").fetchone()
    if row is None or "AUTOINCREMENT" not in str(row[0]).upper():
        return
    # The triggers that write the outbox name it (and a rename checks their references).
    with triggers_set_aside(conn, ["outbox"]):
        conn.execute("CREATE TABLE outbox_v14 (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, "
                     "key TEXT NOT NULL)")
        conn.execute("INSERT INTO outbox_v14 (seq, tbl, key) SELECT seq, tbl, key FROM outbox")
        conn.execute(
            "INSERT INTO outbox_v14 (seq, tbl, key) SELECT seq, '', '' FROM sqlite_sequence "
            "WHERE name = 'outbox' AND seq > (SELECT coalesce(max(seq), 0) FROM outbox_v14)")
        conn.execute("DROP TABLE outbox")  # its index and its sqlite_sequence row go with it
        conn.execute("ALTER TABLE outbox_v14 RENAME TO outbox")
        conn.execute("CREATE INDEX outbox_named ON outbox (key) "
                     "WHERE tbl IN ('entities', 'edges')")
