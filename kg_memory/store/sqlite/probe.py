"""Probing a file before the embedded store opens it: is it a kg-memory store at all?"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kg_memory.domain.errors import StoreUnavailable

__all__ = ["refuse_foreign"]


def refuse_foreign(target: Path, *, create: bool) -> None:
    """Refuse, without writing a byte, a file that is not a kg-memory store.

    Opening runs the schema script and switches the journal to WAL: pointed at another
    application's SQLite file by a typo in ``--store``, that would add kg-memory's tables to it
    and rewrite its header. So an existing file is first read, read-only: it must be empty (a
    new store, and only when creating) or have kg-memory's ``meta`` table with a schema version.
    """
    if str(target) == ":memory:" or not target.is_file():
        return
    if target.stat().st_size == 0:
        if create:
            return
        raise StoreUnavailable(f"cannot open kg-memory store at {target}: the file is empty")
    try:
        probe = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            ours = "meta" in tables and probe.execute(
                "SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone() is not None
        finally:
            probe.close()
    except sqlite3.Error as exc:
        raise StoreUnavailable(f"cannot open kg-memory store at {target}: {exc}") from exc
    if not ours and (tables or not create):
        raise StoreUnavailable(
            f"cannot open kg-memory store at {target}: it is a SQLite file of another "
            f"application ({len(tables)} table(s), no kg-memory schema); it was not modified")
