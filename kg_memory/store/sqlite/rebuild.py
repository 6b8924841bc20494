"""Schema 14's two table rebuilds, each inside ``kg-memory migrate``'s one transaction: a table
replaced by a copy created with other options (which SQLite cannot alter in place) while the
triggers that name it are set aside and put back from their own stored text.

* the outbox without ``AUTOINCREMENT`` (kg_memory.store.sqlite.outbox_sequence);
* recall's FTS5 shard tables without per-row column sizes (``columnsize=0``,
  kg_memory.store.sqlite.recall_shards.FTS_OPTIONS): their ``_docsize`` rows were one more
  B-tree page in every commit that indexed a row, and nothing read them.

A rename checks every trigger's references, and the shard tables' erasure triggers (and the
outbox's writers) name the table being replaced, so they are dropped first; SQLite's DDL is
transactional, so no other connection ever sees the schema without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall_shards import (
    FTS_OPTIONS,
    SHARDS,
    episodes_table,
    facts_table,
)

__all__ = ["drop_column_sizes", "triggers_set_aside"]


@contextmanager
def triggers_set_aside(conn: driver.Connection, names: list[str]) -> Iterator[None]:
    """Drop every trigger whose text mentions one of ``names``, and create them again from
    their stored text when the block ends without an error (the caller rolls back otherwise)."""
    triggers = [(n, sql) for n, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'") if any(
            name in sql for name in names)]
    for name, _ in triggers:  # a name the schema holds, not data
        conn.execute('DROP TRIGGER "' + name + '"')
    yield
    for _, sql in triggers:
        conn.execute(sql)


def drop_column_sizes(conn: driver.Connection) -> int:
    """Rebuild every shard table that still keeps FTS5 column sizes (made before schema 14)
    with :data:`FTS_OPTIONS`: every row copied under its rowid, the ``secure-delete`` option set
    again. Returns how many tables it rebuilt."""
    old = [table for k in range(SHARDS) for table in (facts_table(k), episodes_table(k))
           if _keeps_sizes(conn, table)]
    if not old:
        return 0
    with triggers_set_aside(conn, old):
        for table in old:  # names of recall_shards, options a constant: no data in the text
            conn.execute(f"CREATE VIRTUAL TABLE {table}_v14 USING fts5(scope, text, "
                         + FTS_OPTIONS + ")")
            conn.execute(f"INSERT INTO {table}_v14 ({table}_v14, rank) "
                         "VALUES ('secure-delete', 1)")
            conn.execute(f"INSERT INTO {table}_v14 (rowid, scope, text) "
                         f"SELECT rowid, scope, text FROM {table}")
            conn.execute(f"DROP TABLE {table}")
            conn.execute(f"ALTER TABLE {table}_v14 RENAME TO {table}")
    return len(old)


def _keeps_sizes(conn: driver.Connection, table: str) -> bool:
    """Whether ``table`` exists and was created without ``columnsize=0``."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (table,)).fetchone()
    return row is not None and "columnsize" not in str(row[0])
