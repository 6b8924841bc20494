"""The integrity check (``kg-memory check``): a store's invariants, on any backend.

The adapter reads one consistent :class:`~kg_memory.domain.integrity.Snapshot` without taking
the write lock, and the pure rules of :mod:`kg_memory.domain.integrity` judge it, so the same
check runs on the embedded file and on Neo4j, beside a running writer. The crash harness runs
it after every kill; users run it after a restore, a disk scare or a hand edit.
"""

from __future__ import annotations

from kg_memory.domain.integrity import IntegrityReport, report
from kg_memory.store.protocol import Store

__all__ = ["check"]


def check(store: Store, *, mirror: bool = False) -> IntegrityReport:
    """Check every invariant of ``store``; with ``mirror``, its Neo4j mirror's cursor too."""
    snap = store.integrity_snapshot(mirror=mirror)
    notes = []
    if snap.outbox is not None and snap.outbox.mirror_note:
        notes.append(snap.outbox.mirror_note)
    # The key is only needed to recognise tombstoned ids, and reading it may create it (a
    # write): a store without tombstones is checked without it, on a read-only path.
    secret = store.secret if snap.tombstones else b""
    return report(snap, secret, notes)
