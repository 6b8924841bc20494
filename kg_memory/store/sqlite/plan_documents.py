"""Identity documents in a planned batch: the profiles and decisions entity resolution reads and
writes at ingest, read in sets before the batch's units run and written at its end.

A ``resolve`` mention looks up the profiles filed under its blocking keys, and (for a source
below the top tier) the decisions about the entity it lands on, then writes the grown profile
and its own decision, each filed under some thirty lookup keys. Run statement by statement that
was a dozen statements a mention; planned, the batch reads the documents its mentions' keys
reach (:meth:`StoredDocuments.prefetch`, with the decisions about the entities found), the units
answer ``documents_by`` from them with the batch's own writes laid over them (a profile an
earlier episode of the batch grew is the one a later episode sees), and the flush writes each
document's last body and every new lookup key in one ``executemany`` each.

Only these two kinds are planned (:data:`PLANNED_KINDS`): their readers are the ingest path's
units, which read through the plan. Other kinds (rules, pending values, admissions) are read by
code outside a unit too, and a deletion of any kind still runs on its own
(:class:`~kg_memory.domain.errors.Unplanned`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from kg_memory.store.sqlite import driver

__all__ = ["DECISION", "PLANNED_KINDS", "PROFILE", "DocKey", "StoredDocuments"]

#: The identity documents' kinds (``kg_memory.services.identity`` names them the same).
PROFILE, DECISION = "profile", "decision"
PLANNED_KINDS = frozenset({PROFILE, DECISION})

#: (kind, scope, key): a document, or (kind, scope, lookup key) in the lookup index.
DocKey = tuple[str, str, str]


def _by_scope(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for scope, key in pairs:
        found.setdefault(scope, []).append(key)
    return found


class StoredDocuments:
    """The documents and lookup keys the file held when the batch began, as far as read.

    Like every cache of the plan it never goes stale: the batch holds the write lock and
    writes nothing to the file before its flush, which ends the plan."""

    def __init__(self, conn: driver.Connection) -> None:
        self._conn = conn
        #: (kind, scope, lookup key) -> the documents filed under it
        self._filed: dict[DocKey, list[str]] = {}
        #: (kind, scope, key) -> body (``None``: no such document)
        self._bodies: dict[DocKey, str | None] = {}

    def prefetch(self, kind: str, lookups: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Read the ``kind`` documents filed under each (scope, lookup key) not read yet, and
        their bodies: two statements a scope for any number of keys. Returns (scope, key) of
        the documents the new keys reach."""
        wanted = _by_scope(p for p in dict.fromkeys(lookups) if (kind, *p) not in self._filed)
        if not wanted:
            return []  # all read already: what a mention's lookup usually finds
        reached: dict[tuple[str, str], None] = {}
        for scope, keys in wanted.items():
            for key in keys:
                self._filed[(kind, scope, key)] = []
            # ``IN (json_each)`` on the primary key's prefix: a search per key (a join on
            # json_each made SQLite scan the whole table instead).
            for key, doc in self._conn.execute(
                    "SELECT key, doc FROM document_keys WHERE kind = ? AND scope = ? AND key IN "
                    "(SELECT value FROM json_each(?))", (kind, scope, json.dumps(keys))):
                self._filed[(kind, scope, key)].append(doc)
                reached[(scope, doc)] = None
        self._fetch(kind, reached)
        return list(reached)

    def _fetch(self, kind: str, docs: Iterable[tuple[str, str]]) -> None:
        unread = _by_scope(p for p in docs if (kind, *p) not in self._bodies)
        for scope, keys in unread.items():
            for key in keys:
                self._bodies[(kind, scope, key)] = None
            for key, body in self._conn.execute(
                    "SELECT key, body FROM documents WHERE kind = ? AND scope = ? AND key IN "
                    "(SELECT value FROM json_each(?))", (kind, scope, json.dumps(keys))):
                self._bodies[(kind, scope, key)] = body

    def filed(self, kind: str, scope: str, lookup: list[str]) -> set[str]:
        """The stored ``kind`` documents of ``scope`` filed under any key of ``lookup``
        (the keys not prefetched are read now, together)."""
        filed = self._filed
        if any((kind, scope, k) not in filed for k in lookup):
            self.prefetch(kind, ((scope, k) for k in lookup))
        return {doc for k in lookup for doc in filed[(kind, scope, k)]}

    def known_filed(self, lookup: DocKey, doc: str) -> bool:
        """Whether ``doc`` was read as filed under ``lookup`` already (its ``INSERT OR IGNORE``
        would change nothing: most of a grown profile's keys are those it had)."""
        return doc in self._filed.get(lookup, ())

    def body(self, kind: str, scope: str, key: str) -> str | None:
        """The stored body of a document (``None``: none stored)."""
        if (kind, scope, key) not in self._bodies:
            self._fetch(kind, [(scope, key)])
        return self._bodies[(kind, scope, key)]
