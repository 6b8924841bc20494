"""The Neo4j store's audits: the integrity snapshot ``kg-memory check`` judges and the scrub
that verifies a forget run erased what it said (mixed into
:class:`~kg_memory.store.neo4j.store.Neo4jStore`)."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager, suppress
from typing import Any

from neo4j import Session
from neo4j import Transaction as DriverTransaction
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.integrity import EpisodeMark, Snapshot
from kg_memory.store.neo4j.recall import index_report
from kg_memory.store.neo4j.rows import (
    edge_from_row,
    opt_time,
    revision_hash,
    version_from_props,
)
from kg_memory.store.neo4j.scrub import erasure_report
from kg_memory.store.neo4j.tx import QueryTarget, run_query

__all__ = ["Audits"]


class Audits:
    """Reads over the whole graph, each in one read-only transaction of its own."""

    _lock: threading.RLock
    _active: DriverTransaction | None
    _uri: str
    _erased: set[str]
    _erased_entities: set[tuple[str, str]]
    _redacted: set[str]

    def _target(self) -> QueryTarget:
        raise NotImplementedError

    def _reading(self) -> AbstractContextManager[QueryTarget]:
        raise NotImplementedError

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    @property
    def secret(self) -> bytes:
        raise NotImplementedError

    def integrity_snapshot(self, *, mirror: bool = False) -> Snapshot:
        """What the integrity rules judge, read in one read-only transaction (a consistent
        view; it never takes the system-time lock, so writers carry on). A Neo4j store has no
        outbox (it may be a mirror; the embedded file checks the cursor), so ``mirror`` is
        accepted and has nothing to add."""
        with self._reading() as session:
            if not isinstance(session, Session):
                raise RuntimeError("check the store outside its write transaction")
            try:
                unit = session.begin_transaction()
            except (DriverError, Neo4jError) as exc:
                raise StoreUnavailable(f"cannot read Neo4j at {self._uri}: {exc}") from exc
            try:
                versions = run_query(unit, "check_versions", {}, where=self._uri, reads=True)
                edges = run_query(unit, "check_edges", {}, where=self._uri, reads=True)
                [nodes] = run_query(unit, "check_nodes", {}, where=self._uri, reads=True)
            finally:
                with suppress(DriverError, Neo4jError):
                    unit.rollback()  # nothing was written; rolling back ends the view
        high = nodes["system_time"]
        revisions = [(version_from_props(r["version"]), r["version"].get("content_hash"))
                     for r in versions]
        return Snapshot(
            location=self._uri,
            versions=tuple(v for v, _ in revisions),
            modified=tuple(f"{v.assertion_id}#{v.revision}" for v, digest in revisions
                           if digest != revision_hash(v)),
            edges=tuple(e for e in map(edge_from_row, edges) if e is not None),
            episodes=tuple(EpisodeMark(episode_id=e, operation_id=o, redacted=bool(r), scope=s)
                           for e, o, r, s in nodes["episodes"]),
            activities=frozenset(nodes["activities"]),
            tombstones=frozenset(nodes["tombstones"]),
            dependencies=frozenset((d, f) for d, f in nodes["dependencies"]),
            system_time=opt_time(high),
        )

    def scrub(self) -> list[dict[str, Any]]:
        return [self._verify_erasure(), index_report(self._read, self._uri)]

    def _verify_erasure(self) -> dict[str, Any]:
        """Verify by query that erasure left nothing reachable (see :mod:`.neo4j_scrub`)."""
        with self._lock:
            erased, redacted = sorted(self._erased), sorted(self._redacted)
            entities = sorted(self._erased_entities)
            try:
                [left] = self._read("scrub_check", erased=erased, redacted=redacted,
                                    entities=[list(e) for e in entities])
                [tombs] = self._read("node_tombstones")
                keys = set(tombs["keys"])
                stored = ([(r["scope"], r["id"]) for r in self._read("stored_ids")]
                          if keys else [])
                secret = self.secret
            except StoreUnavailable as exc:
                return {"destination": "neo4j", "location": self._uri,
                        "status": "incomplete", "reason": str(exc)}
            # Checked now; an entity erased here may legitimately be named again later.
            self._erased.difference_update(erased)
            self._erased_entities.difference_update(entities)
            self._redacted.difference_update(redacted)
        return erasure_report(self._uri, left, keys, stored, secret,
                              len(erased) + len(entities) + len(redacted))
