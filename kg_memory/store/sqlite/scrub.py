"""Erasure made physical in the embedded store's files.

``secure_delete`` zeroes freed cells and pages in the database file as they are freed, but the
WAL keeps earlier page images until a checkpoint; TRUNCATE folds it back and empties it. No
VACUUM: its cost grows with the store, and it is not needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import merge_segments

__all__ = ["scrub_file"]


def scrub_file(conn: driver.Connection, path: Path, location: str) -> dict[str, Any]:
    """No page of the file or its journal keeps erased bytes; one destination report."""
    try:
        # First recall's FTS5 shards that a schema 8 erasure marked (a deleted term stayed in
        # older segments until they merged; the merge's freed pages must reach the checkpoint).
        merge_segments(conn)
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except driver.Error as exc:
        return {"destination": "embedded", "location": location,
                "status": "incomplete", "reason": str(exc)}
    wal = Path(f"{path}-wal")
    wal_bytes = wal.stat().st_size if wal.exists() else 0
    complete = not busy and wal_bytes == 0
    return {"destination": "embedded", "location": location,
            "status": "complete" if complete else "incomplete",
            "reason": "" if complete else "another connection holds the journal open",
            "journal_bytes": wal_bytes}
