"""The embedded store's reads (and erasures) for forget: many nodes, one statement each.

A forget plan walks a neighbourhood: the edges of every node on each level of the lineage walk,
the assertions about every candidate orphan entity, the live dependents of every fact it erases.
One statement per node made a source with 1,000 derivatives cost about 3,000 round trips, each
with its own row models. Here each read takes the whole list at once, passed as one JSON array
(``json_each``: no limit on bound parameters and no temporary table, which could spill the ids
into a temp file), and answers per id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from kg_memory.domain.instant import from_micros
from kg_memory.domain.model import Assertion, Edge, EdgeType, trusted
from kg_memory.store.link_reads import Link, Revision
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.invalidations import invalidations
from kg_memory.store.sqlite.rows import (
    VERSION_COLUMNS,
    VERSION_COLUMNS_OF_V,
    json_value,
    qualifiers,
    version_from_row,
)

__all__ = ["BulkReads", "BulkTxReads"]

_EDGE_TYPES = {t.value: t for t in EdgeType}
_T = TypeVar("_T")


def _edge_rows(conn: driver.Connection, node_ids: list[str], scope: str | None
               ) -> list[tuple[str, str, str, int]]:
    ids = json.dumps(node_ids)
    derived, extra = invalidations(node_ids, scope)
    # "+scope": the ids pick the index (the primary key's src prefix is not usable without a
    # scope, edges_dst is), never a scan of the scope's edges.
    rows: list[tuple[str, str, str, int]] = conn.execute(
        "SELECT src, type, dst, since FROM edges WHERE src IN (SELECT value FROM json_each(?)) "
        "AND (? IS NULL OR +scope = ?) UNION "
        "SELECT src, type, dst, since FROM edges WHERE dst IN (SELECT value FROM json_each(?)) "
        "AND (? IS NULL OR +scope = ?)" + derived + " ORDER BY 4",
        (ids, scope, scope, ids, scope, scope, *extra)).fetchall()
    return rows


def _by_node(conn: driver.Connection, node_ids: Sequence[str], scope: str | None,
             make: Callable[[str, EdgeType, str, int], _T]) -> dict[str, list[_T]]:
    """Each of ``node_ids`` with what ``make`` builds of every edge touching it (a loop counted
    once), in the statement's order."""
    found: dict[str, list[_T]] = {i: [] for i in node_ids}
    if not found:
        return found
    for src, kind, dst, since in _edge_rows(conn, list(found), scope):
        item = make(src, _EDGE_TYPES[kind], dst, since)
        if src in found:
            found[src].append(item)
        if dst in found and dst != src:
            found[dst].append(item)
    return found


def _edge(src: str, kind: EdgeType, dst: str, since: int) -> Edge:
    # Stored edges were validated on their way in: rebuilt without validating again.
    return trusted(Edge, {"src": src, "type": kind, "dst": dst, "since": from_micros(since)})


def _edges(conn: driver.Connection, node_ids: Sequence[str], scope: str | None
           ) -> dict[str, list[Edge]]:
    return _by_node(conn, node_ids, scope, _edge)


def _links(conn: driver.Connection, node_ids: Sequence[str], scope: str | None
           ) -> dict[str, list[Link]]:
    return _by_node(conn, node_ids, scope, lambda src, kind, dst, _: (src, kind, dst))


class BulkReads:
    """Mixed into :class:`~kg_memory.store.sqlite.store.SqliteStore`."""

    @property
    def _conn(self) -> driver.Connection:
        raise NotImplementedError  # the store's: this thread's connection

    path: Path

    def edges_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Edge]]:
        """:meth:`edges` of each id at once: every edge into or out of each node drawn in
        ``scope`` (every scope when ``None``), oldest first; an id with none maps to ``[]``."""
        try:
            return _edges(self._conn, list(dict.fromkeys(node_ids)), scope)
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    def links_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Link]]:
        """:meth:`edges_of` as ``(src, type, dst)`` tuples (the same statement, no models)."""
        try:
            return _links(self._conn, list(dict.fromkeys(node_ids)), scope)
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc

    def entity_ids(self, entity_ids: Sequence[str], scope: str | None = None) -> frozenset[str]:
        """Those of ``entity_ids`` naming an entity of ``scope`` (any scope when ``None``): the
        primary key (scope, entity_id) per id, not the scope's every entity."""
        if not entity_ids:
            return frozenset()
        ids = json.dumps(list(dict.fromkeys(entity_ids)))
        try:
            rows = self._conn.execute(
                "SELECT entity_id FROM entities WHERE scope = ? AND entity_id IN "
                "(SELECT value FROM json_each(?))", (scope, ids),
            ).fetchall() if scope is not None else self._conn.execute(
                "SELECT DISTINCT entity_id FROM entities WHERE entity_id IN "
                "(SELECT value FROM json_each(?))", (ids,)).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return frozenset(r[0] for r in rows)

    def subject_assertions(self, subjects: Sequence[str], scope: str | None = None
                           ) -> dict[str, frozenset[str]]:
        """The ids of the assertions with any revision about each subject, in ``scope``
        (every scope when ``None``): what ``history`` would list, without the revisions."""
        found: dict[str, set[str]] = {s: set() for s in subjects}
        if found:
            try:
                rows = self._conn.execute(
                    # "+scope": the subjects pick versions_asof, not the scope's index.
                    "SELECT subject, assertion_id FROM versions WHERE subject IN "
                    "(SELECT value FROM json_each(?)) AND (? IS NULL OR +scope = ?)",
                    (json.dumps(list(found)), scope, scope)).fetchall()
            except driver.Error as exc:
                raise store_error(exc, f"cannot read {self.path}") from exc
            for subject, assertion_id in rows:
                found[subject].add(assertion_id)
        return {s: frozenset(ids) for s, ids in found.items()}


    def entity_names(self, entity_ids: Sequence[str], scope: str) -> dict[str, str]:
        """See :meth:`kg_memory.store.protocol.Store.entity_names` (the key serves each id)."""
        if not entity_ids:
            return {}
        try:
            rows = self._conn.execute(
                "SELECT entity_id, name FROM entities WHERE scope = ? AND entity_id IN "
                "(SELECT value FROM json_each(?)) AND name IS NOT NULL",
                (scope, json.dumps(list(dict.fromkeys(entity_ids))))).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return {r[0]: r[1] for r in rows}

    def episode_texts(self, scope: str) -> list[tuple[str, str]]:
        """See :meth:`kg_memory.store.protocol.Store.episode_texts`: tuples, no models."""
        try:
            rows = self._conn.execute(
                "SELECT episode_id, content FROM episodes WHERE scope = ? ORDER BY recorded_at",
                (scope,)).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return [(r[0], r[1]) for r in rows]

    def revisions(self, assertion_ids: Sequence[str]) -> list[Revision]:
        """See :meth:`kg_memory.store.link_reads.LinkReads.revisions`: only the columns a
        forget plan reads, as tuples (no model, no instant per revision)."""
        if not assertion_ids:
            return []
        try:
            rows = self._conn.execute(
                "SELECT assertion_id, revision, scope, subject, predicate, qualifiers, value, "
                "kind, depends_on, recorded_by, sys_to, sys_from, valid_from FROM versions "
                "WHERE assertion_id IN (SELECT value FROM json_each(?)) "
                "ORDER BY sys_from, valid_from", (json.dumps(list(assertion_ids)),)).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        # As version_from_row reads them (the common empty lists without a JSON decoder).
        return [Revision(r[0], r[1], r[2], r[3], r[4], qualifiers(r[5]).project,
                         json_value(r[6]), r[7], () if r[8] == "[]" else tuple(json.loads(r[8])),
                         r[9], r[10] is None, r[11], r[12]) for r in rows]

    def live_derived(self, scope: str) -> list[Assertion]:
        """See :meth:`kg_memory.store.protocol.Store.live_derived`: the scope's live revisions
        through their partial index (versions_live), the kind checked in SQLite, so only the
        derived rows become models."""
        try:
            rows = self._conn.execute(
                f"SELECT {VERSION_COLUMNS} FROM versions WHERE scope = ? AND sys_to IS NULL "
                "AND kind = 'derived' ORDER BY assertion_id, revision", (scope,)).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return [version_from_row(r) for r in rows]

    def find_assertions(
        self,
        scope: str | None = None,
        subject: str | None = None,
        predicates: str = "*",
        project: str | None = None,
    ) -> list[str]:
        """Assertion ids with any revision matching; ``predicates`` is a glob.

        Only the filters given are in the statement: ``(? IS NULL OR scope = ?)`` keeps SQLite
        from using any index, so a forget's residue search scanned the whole store."""
        where, params = ["predicate GLOB ?"], [predicates]
        # With a subject, its index (versions_asof) is the narrower seek: "+scope" only confirms.
        by_scope = "scope" if subject is None else "+scope"
        for column, value in ((by_scope, scope), ("subject", subject), ("project", project)):
            if value is not None:
                where.append(f"{column} = ?")  # fixed column names: no input in the SQL
                params.append(value)
        try:
            rows = self._conn.execute(
                f"SELECT DISTINCT assertion_id FROM versions WHERE {' AND '.join(where)}", params
            ).fetchall()
        except driver.Error as exc:
            raise store_error(exc, f"cannot read {self.path}") from exc
        return [r["assertion_id"] for r in rows]


class BulkTxReads:
    """Mixed into :class:`~kg_memory.store.sqlite.tx.SqliteTransaction`: the set-based reads
    and erasures of a forget run's transaction."""

    _conn: driver.Connection
    _scope: str

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """``live_dependents`` of each key at once (one statement for the whole list)."""
        found: dict[str, list[Assertion]] = {k: [] for k in keys}
        if not found:
            return found
        rows = self._conn.execute(
            # The dependency rows are the scope's; the ids they name are unique across scopes,
            # so the versions are found by id (see SqliteTransaction.live_dependents).
            f"SELECT d.dep AS dep_key, {VERSION_COLUMNS_OF_V} FROM dependencies d "
            "JOIN versions v ON v.assertion_id = d.assertion_id "
            "WHERE d.scope = ? AND d.dep IN (SELECT value FROM json_each(?)) "
            "AND v.sys_to IS NULL ORDER BY v.valid_from",
            (self._scope, json.dumps(list(found)))).fetchall()
        for row in rows:
            found[row["dep_key"]].append(version_from_row(row))
        return found

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """``delete_entity`` of each: one statement per table for the whole list."""
        if not entity_ids:
            return
        ids = json.dumps(list(dict.fromkeys(entity_ids)))
        self._conn.execute("DELETE FROM entities WHERE scope = ? AND entity_id IN "
                           "(SELECT value FROM json_each(?))", (self._scope, ids))
        self._conn.execute("DELETE FROM edges WHERE scope = ? AND src IN "
                           "(SELECT value FROM json_each(?))", (self._scope, ids))
        # "+scope": the ids pick edges_dst; a usable scope filter would scan the scope's edges.
        self._conn.execute("DELETE FROM edges WHERE dst IN (SELECT value FROM json_each(?)) "
                           "AND +scope = ?", (ids, self._scope))
