"""Store protocol and adapters: the embedded SQLite file (default) and Neo4j."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.instant import Clock
from kg_memory.store.clock import system_clock
from kg_memory.store.protocol import AsOfQuery, Slot, Store, Transaction
from kg_memory.store.sqlite import SqliteStore, default_path

__all__ = [
    "AsOfQuery",
    "Slot",
    "SqliteStore",
    "Store",
    "Transaction",
    "default_path",
    "is_neo4j_uri",
    "open_store",
    "scrub",
]

_NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def is_neo4j_uri(location: str | Path | None) -> bool:
    return location is not None and str(location).startswith(_NEO4J_SCHEMES)


def scrub(store: Store) -> list[dict[str, Any]]:
    """Make erasures physical everywhere ``store`` owns a copy, one report per destination: the
    Neo4j mirror an embedded store was synced to gets the deletions first, then the store itself
    is scrubbed."""
    reports: list[dict[str, Any]] = []
    if isinstance(store, SqliteStore):
        if (uri := store.mirror()) is not None:
            from kg_memory.store.neo4j.mirror import propagate

            reports.append(propagate(store, uri))
        if all(r["status"] == "complete" for r in reports):
            # The mirror has the deletions: the outbox rows naming erased ids can go. The
            # erasure is committed by now, so a store that cannot take this write (a full disk)
            # leaves it unfinished, said so, for the same command to finish later.
            try:
                store.drop_erased_keys()
            except StoreUnavailable as exc:
                reports.append({"destination": "outbox", "location": store.location,
                                "status": "incomplete", "reason": str(exc)})
    reports.extend(store.scrub())
    return reports


def open_store(
    location: str | Path | None = None,
    *,
    clock: Clock = system_clock,
    create: bool = True,
    busy_timeout: float | None = None,
) -> Store:
    """The store at ``location``: a Bolt URI opens Neo4j (credentials from ``NEO4J_USER`` and
    ``NEO4J_PASSWORD``), anything else is an embedded store file (default
    :func:`default_path`). ``busy_timeout`` (seconds) bounds how long an embedded store's
    writer waits for another writer's lock (default ``$KG_MEMORY_BUSY_TIMEOUT``, else 10)."""
    if is_neo4j_uri(location):
        from kg_memory.store.neo4j import Neo4jStore

        return Neo4jStore.connect(str(location), clock=clock)
    return SqliteStore.open(location, clock=clock, create=create, busy_timeout=busy_timeout)
