"""The SQLite engine the embedded store runs on: the one module that names it.

The interpreter's ``sqlite3`` is whatever SQLite Python was built with (3.40 on Debian 12,
older elsewhere): no FTS5 ``secure-delete`` (3.42), and often no extension loading. The store
runs instead on the SQLite that the ``sqlean.py`` wheel ships (a drop-in ``sqlite3`` built
against its own SQLite, the same version on every platform), measured against APSW on this
workload in docs/benchmarks.md ("The engine"). Every module of the embedded store, the bench's
references and the tests that open a store file import the engine from here, never
``sqlite3``: the two libraries' exception classes are distinct (``sqlean.Error`` is not a
``sqlite3.Error``), and two SQLite libraries in one process must not open the same file (each
keeps its own POSIX locks, so closing a file in one drops the other's locks).

For type checking the names are the standard library's, whose API ``sqlean`` copies.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlite3 import (
        SQLITE_BUSY,
        SQLITE_LOCKED,
        Connection,
        Cursor,
        DatabaseError,
        Error,
        IntegrityError,
        OperationalError,
        Row,
        sqlite_version,
    )
    from sqlite3 import connect as _connect
else:
    from sqlean import (
        SQLITE_BUSY,
        SQLITE_LOCKED,
        Connection,
        Cursor,
        DatabaseError,
        Error,
        IntegrityError,
        OperationalError,
        Row,
        sqlite_version,
    )
    from sqlean import connect as _connect

__all__ = [
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "Connection",
    "Cursor",
    "DatabaseError",
    "Error",
    "IntegrityError",
    "OperationalError",
    "Row",
    "connect",
    "load_extension",
    "sqlite_version",
]


def connect(database: str | Path, **options: Any) -> Connection:
    """A connection (``sqlite3.connect``'s options) that zeroes what it frees.

    The interpreter's SQLite is built with ``SQLITE_SECURE_DELETE`` on most systems (Debian's
    is), the wheel's is not: erasure relies on freed cells and pages being overwritten on every
    connection that writes to a store (its own, ``kg-memory migrate``'s, a test's), so the
    setting is the driver's, not each caller's.
    """
    conn: Connection = _connect(database, **options)
    try:
        conn.execute("PRAGMA secure_delete = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def load_extension(conn: Connection, path: str | Path) -> None:
    """Load the SQLite extension at ``path`` into ``conn`` (sqlite-vec, for one).

    Loading stays switched off between calls, so no SQL statement (``load_extension()``) can
    load a library from a path a caller chose.
    """
    conn.enable_load_extension(True)
    try:
        conn.load_extension(str(path))
    finally:
        conn.enable_load_extension(False)
