"""The yardsticks the store is measured against, built from the very rows it wrote.

* :class:`MemoryIndex` — a minimal in-memory bitemporal index: a dict from
  ``(subject, predicate)`` to that slot's revisions sorted by system start, searched with
  :func:`bisect.bisect_right`. Nothing can answer a point lookup much faster in Python, so
  it is the floor for a lookup.
* :class:`RawSqliteTable` — the same rows in one plain SQLite table with the composite index
  an as-of lookup needs, queried with one hand-written statement and no decoding: the floor for
  an embedded SQL engine. Loading it with ``executemany`` at the store's durability settings is
  the floor for ingest. It runs on the store's own engine
  (:mod:`kg_memory.store.sqlite.driver`), so a ratio compares code, not SQLite builds.

The rows come from the store's own file (:func:`read_versions`), so all three answer over
exactly the same data and their answers can be compared one for one.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kg_memory.store.sqlite import driver

__all__ = ["COLUMNS", "MemoryIndex", "RawSqliteTable", "Row", "read_versions"]

#: The columns of a version row, as the store's ``versions`` table names them.
COLUMNS: tuple[str, ...] = (
    "assertion_id",
    "revision",
    "scope",
    "subject",
    "predicate",
    "project",
    "value",
    "qualifiers",
    "kind",
    "writer",
    "depends_on",
    "confidence",
    "valid_from",
    "valid_to",
    "sys_from",
    "sys_to",
    "reason",
    "recorded_by",
    "closed_by",
    "close_reason",
)
Row = tuple[Any, ...]

_SUBJECT, _PREDICATE = COLUMNS.index("subject"), COLUMNS.index("predicate")
_VALID_FROM, _VALID_TO = COLUMNS.index("valid_from"), COLUMNS.index("valid_to")
_SYS_FROM, _SYS_TO = COLUMNS.index("sys_from"), COLUMNS.index("sys_to")


def read_versions(store_file: Path, *, chunk: int = 10_000) -> Iterator[list[Row]]:
    """The store's version rows in insertion order, ``chunk`` at a time, opened read-only."""
    conn = driver.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        cursor = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM versions ORDER BY vid")
        while rows := cursor.fetchmany(chunk):
            yield rows
    finally:
        conn.close()


class MemoryIndex:
    """``(subject, predicate)`` -> revisions sorted by ``sys_from``; lookups by bisection."""

    def __init__(self) -> None:
        self._slots: dict[tuple[str, str], tuple[list[int], list[Row]]] = {}

    def add(self, rows: Iterable[Row]) -> None:
        for row in rows:
            froms, revisions = self._slots.setdefault((row[_SUBJECT], row[_PREDICATE]), ([], []))
            froms.append(row[_SYS_FROM])
            revisions.append(row)

    def freeze(self) -> None:
        """Sort every slot by system start (rows usually arrive sorted; this makes it certain)."""
        for key, (_, revisions) in self._slots.items():
            revisions.sort(key=lambda r: r[_SYS_FROM])
            self._slots[key] = ([r[_SYS_FROM] for r in revisions], revisions)

    def asof(self, subject: str, predicate: str, valid: int, known: int) -> list[Row]:
        """Revisions of the slot live at system time ``known`` whose valid time holds ``valid``."""
        slot = self._slots.get((subject, predicate))
        if slot is None:
            return []
        froms, revisions = slot
        found = []
        # Only revisions that started by ``known`` can be visible; the rest are the future.
        for i in range(bisect_right(froms, known)):
            row = revisions[i]
            sys_to, valid_to = row[_SYS_TO], row[_VALID_TO]
            if (
                (sys_to is None or sys_to > known)
                and row[_VALID_FROM] <= valid
                and (valid_to is None or valid_to > valid)
            ):
                found.append(row)
        return found


_CREATE = f"""
CREATE TABLE versions_raw ({", ".join(COLUMNS)});
CREATE INDEX raw_asof ON versions_raw (subject, predicate, sys_from);
CREATE INDEX raw_scope ON versions_raw (scope, sys_from);
"""
_WHERE = (
    "sys_from <= ? AND (sys_to IS NULL OR sys_to > ?) "
    "AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
)


class RawSqliteTable:
    """One plain table in its own file, with the store's durability settings (WAL, FULL)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = driver.connect(path, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = FULL")
        # What the store sets, and what the interpreter's SQLite had compiled in when this
        # reference ran on it: the ratio must not change with the engine's defaults.
        self._conn.execute("PRAGMA secure_delete = ON")
        self._conn.executescript(_CREATE)
        marks = ", ".join("?" for _ in COLUMNS)
        self._insert = f"INSERT INTO versions_raw ({', '.join(COLUMNS)}) VALUES ({marks})"
        self._lookup = (
            f"SELECT {', '.join(COLUMNS)} FROM versions_raw "
            f"WHERE subject = ? AND predicate = ? AND {_WHERE}"
        )
        self._snapshot = (
            f"SELECT {', '.join(COLUMNS)} FROM versions_raw WHERE scope = ? AND {_WHERE}"
        )

    def load(self, rows: list[Row]) -> int:
        """Insert ``rows`` with ``executemany`` in one durable commit; return nanoseconds taken."""
        start = time.perf_counter_ns()
        self._conn.execute("BEGIN IMMEDIATE")
        self._conn.executemany(self._insert, rows)
        self._conn.execute("COMMIT")
        return time.perf_counter_ns() - start

    def asof(self, subject: str, predicate: str, valid: int, known: int) -> list[Row]:
        return self._conn.execute(
            self._lookup, (subject, predicate, known, known, valid, valid)
        ).fetchall()

    def snapshot(self, scope: str, valid: int, known: int) -> list[Row]:
        return self._conn.execute(self._snapshot, (scope, known, known, valid, valid)).fetchall()

    def file_bytes(self) -> int:
        """Size on disk after a checkpoint, so WAL contents are counted in the main file."""
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return self.path.stat().st_size

    def close(self) -> None:
        self._conn.close()
