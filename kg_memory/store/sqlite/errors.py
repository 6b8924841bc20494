"""SQLite's errors as kg-memory's, for every module of the embedded store (a module of its own
so that the index modules, which the schema module imports, can use it too)."""

from __future__ import annotations

from kg_memory.domain.errors import StoreBusy, StoreUnavailable
from kg_memory.store.sqlite import driver

__all__ = ["store_error"]


def store_error(exc: driver.Error, what: str) -> StoreUnavailable:
    """SQLite's error as kg-memory's: a held lock is :class:`StoreBusy` (retry later)."""
    code = getattr(exc, "sqlite_errorcode", None)
    busy = code is not None and code & 0xFF in (driver.SQLITE_BUSY, driver.SQLITE_LOCKED)
    if busy or "database is locked" in str(exc):
        return StoreBusy(f"{what}: another writer holds the store's lock ({exc})")
    return StoreUnavailable(f"{what}: {exc}")
