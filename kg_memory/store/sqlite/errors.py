"""SQLite's errors as kg-memory's, for every module of the embedded store (a module of its own
so that the index modules, which the schema module imports, can use it too).

The one place a driver error becomes a typed one. It reads the error's SQLite result code
(``sqlite_errorcode`` of the standard module; ``extendedresult`` or ``result`` of a bundled
driver), falling back to SQLite's own messages, so swapping the driver keeps the mapping.
"""

from __future__ import annotations

import os
from pathlib import Path

from kg_memory.domain.errors import StoreBusy, StoreFull, StoreReadOnly, StoreUnavailable

__all__ = ["store_error"]

# SQLite's primary result codes (https://sqlite.org/rescode.html), stable across versions.
_BUSY, _LOCKED, _READONLY, _IOERR, _FULL = 5, 6, 8, 10, 13
# SQLITE_IOERR_SHMSIZE: the WAL index (``-shm``) could not be grown, which on a full disk is
# how opening a store fails before any write is tried.
_SHMSIZE = 10 | (19 << 8)


def _code(exc: BaseException) -> int | None:
    for name in ("sqlite_errorcode", "extendedresult", "result"):
        code = getattr(exc, name, None)
        if isinstance(code, int):
            return code
    return None


def _no_space(where: Path | None) -> bool:
    if where is None:
        return False
    try:
        return os.statvfs(where).f_bavail == 0
    except OSError:
        return False


def store_error(exc: BaseException, what: str, where: Path | None = None) -> StoreUnavailable:
    """SQLite's error as kg-memory's: a held lock is :class:`StoreBusy` (retry later), a store
    that cannot be written :class:`StoreReadOnly`, a full disk :class:`StoreFull`; any other
    :class:`StoreUnavailable`.

    ``where``, the store's directory, tells a full disk from another I/O error when SQLite
    reports only "disk I/O error" (a driver without extended result codes, opening a store
    whose WAL index cannot grow)."""
    code = _code(exc)
    primary = None if code is None else code & 0xFF
    text = str(exc)
    if primary in (_BUSY, _LOCKED) or "database is locked" in text:
        return StoreBusy(f"{what}: another writer holds the store's lock ({text})")
    if primary == _READONLY or "readonly database" in text:
        return StoreReadOnly(f"{what}: the store is read-only ({text}); reads still work, "
                             "writes need write access to the file and its directory")
    full = primary == _FULL or code == _SHMSIZE or "disk is full" in text
    if full or (primary == _IOERR and _no_space(where)):
        return StoreFull(f"{what}: no space left for the store ({text}); nothing of this "
                         "write was stored, free space and run it again")
    return StoreUnavailable(f"{what}: {text}")
