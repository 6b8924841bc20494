"""The embedded store's vector index: random-hyperplane lists in the store's own SQLite file.

This Python's SQLite (3.40, no ``load_extension``) cannot load sqlite-vec, so the index is
plain tables (``recall.sql``): each revision's unit vector as a float32 BLOB in
``recall_vectors``, filed under one of :data:`LISTS` lists by the signs of its projections on
:data:`BITS` fixed random hyperplanes (seeded by the dimensions: no training, nothing learnt
from the data, so a list carries no trace of a forgotten vector). A search

1. scores every vector of the scope exactly when it holds at most ``exact_below`` of them;
2. otherwise visits the scope's lists cheapest first (query-directed multi-probe: a list costs
   the sum of ``|projection|`` over the bits it differs from the query's code) until it has
   collected enough vectors, and scores those with numpy;

restricted in SQL to revisions believed at ``known_at`` and valid at ``at``, so a stale vector
is never ranked. Vectors live in the same file and transactions as every other row: triggers
delete a vector with its revision or its index row (forget, re-index), ``secure_delete`` zeroes
the freed pages, and the scrub's byte scan covers these tables like the rest.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

from kg_memory.domain.errors import RecallError
from kg_memory.domain.instant import to_micros
from kg_memory.store.protocol import VectorCandidates, VectorDoc, VectorProbe
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.recall_shards import facts_table, shard
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, version_from_row

__all__ = [
    "BITS",
    "LISTS",
    "VectorReads",
    "backlog",
    "candidates",
    "list_of",
    "probe_order",
    "put",
    "space_of",
    "unit",
]

BITS = 8
LISTS = 1 << BITS
#: How many vectors a probe collects (at least, and at least 4k) before it stops visiting lists.
PROBE_TARGET = 2048
_SPACE = "recall_vector_space"

Vec = npt.NDArray[np.float32]


@cache
def _planes(dimensions: int) -> Vec:
    return np.random.default_rng(7_919 + dimensions).standard_normal(
        (BITS, dimensions)).astype(np.float32)


@cache
def _codes() -> npt.NDArray[np.bool_]:
    return ((np.arange(LISTS)[:, None] >> np.arange(BITS)) & 1).astype(bool)


def unit(vector: Sequence[float]) -> Vec:
    """``vector`` as float32 of length 1 (a zero vector stays zero: it is similar to nothing)."""
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


def list_of(v: Vec) -> int:
    """The list of a unit vector: bit ``i`` set when it lies on hyperplane ``i``'s positive side."""
    bits = (_planes(v.shape[0]) @ v) > 0
    return int(np.sum(bits.astype(np.int64) << np.arange(BITS)))


def probe_order(v: Vec) -> list[int]:
    """Every list, the likeliest to hold ``v``'s neighbours first."""
    projection = _planes(v.shape[0]) @ v
    differs = _codes() != (projection > 0)
    cost = differs @ np.abs(projection)
    return [int(i) for i in np.argsort(cost, kind="stable")]


def space_of(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_SPACE,)).fetchone()
    return None if row is None else str(row[0])


def _check(conn: sqlite3.Connection, space: str) -> bool:
    """Whether the store has vectors in ``space``; another space is refused, not mixed."""
    held = space_of(conn)
    if held is not None and held != space:
        raise RecallError(
            f"this store's vectors were made by {held}, not {space}: recall with that embedder "
            "(vectors of two models are not comparable)")
    return held is not None


def _transact(conn: sqlite3.Connection, location: str, statements: Sequence[
        tuple[str, Sequence[object]]], many: Sequence[tuple[str, Sequence[Sequence[object]]]] = ()
           ) -> None:
    """Run ``statements`` in one write transaction (a savepoint inside an open one); a held
    lock is :class:`~kg_memory.domain.errors.StoreBusy`."""
    nested = conn.in_transaction
    begin, commit = ("SAVEPOINT recall_vectors", "RELEASE recall_vectors") if nested else (
        "BEGIN IMMEDIATE", "COMMIT")
    try:
        conn.execute(begin)
        try:
            for sql, params in statements:
                conn.execute(sql, params)
            for sql, rows in many:
                conn.executemany(sql, rows)
        except BaseException:
            if nested:
                conn.execute("ROLLBACK TO recall_vectors")
                conn.execute("RELEASE recall_vectors")
            else:
                conn.execute("ROLLBACK")
            raise
        conn.execute(commit)
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot index vectors in {location}") from exc


def backlog(conn: sqlite3.Connection, location: str, scope: str, space: str, limit: int
            ) -> list[VectorDoc]:
    """Revisions of ``scope`` waiting for a vector; the scope is enrolled on first use (its
    indexed revisions join the backlog, and triggers add every later one)."""
    try:
        _check(conn, space)
        enrolled = conn.execute("SELECT 1 FROM recall_vector_scopes WHERE scope = ?",
                                (scope,)).fetchone()
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    if enrolled is None:
        _transact(conn, location, [
            ("INSERT OR IGNORE INTO recall_vector_scopes (scope) VALUES (?)", (scope,)),
            ("INSERT OR IGNORE INTO recall_vector_backlog (vid, scope) SELECT d.vid, v.scope "
             "FROM versions v JOIN recall_fact_docs d ON d.vid = v.vid WHERE v.scope = ? "
             "AND v.vid NOT IN (SELECT vid FROM recall_vectors)", (scope,))])
    table = facts_table(shard(scope))
    try:
        rows = conn.execute(
            f"SELECT v.assertion_id, v.revision, f.text FROM recall_vector_backlog b "
            f"JOIN versions v ON v.vid = b.vid JOIN {table} f ON f.rowid = b.vid "
            "WHERE b.scope = ? ORDER BY b.vid LIMIT ?", (scope, limit)).fetchall()
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    return [VectorDoc(assertion_id=r[0], revision=r[1], text=r[2]) for r in rows]


def put(conn: sqlite3.Connection, location: str, scope: str, space: str,
        vectors: Sequence[tuple[VectorDoc, Sequence[float]]]) -> None:
    """File each vector under its list; only revisions of ``scope`` still in its backlog are
    written (a revision forgotten meanwhile, or another tenant's, is skipped)."""
    if not vectors:
        return
    try:
        _check(conn, space)
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    rows = []
    for doc, vector in vectors:
        v = unit(vector)
        rows.append((list_of(v), v.astype("<f4").tobytes(), doc.assertion_id, doc.revision,
                     scope))
    _transact(conn, location, [
        ("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (_SPACE, space))], [
        ("INSERT OR REPLACE INTO recall_vectors (vid, scope, list, vector) "
         "SELECT v.vid, v.scope, ?, ? FROM versions v JOIN recall_vector_backlog b "
         "ON b.vid = v.vid WHERE v.assertion_id = ? AND v.revision = ? AND v.scope = ?", rows),
        ("DELETE FROM recall_vector_backlog WHERE vid = (SELECT vid FROM versions WHERE "
         "assertion_id = ? AND revision = ? AND scope = ?)",
         [r[2:] for r in rows])])


_ELIGIBLE = (
    "SELECT r.vid, r.vector FROM recall_vectors r JOIN versions v ON v.vid = r.vid "
    "WHERE r.scope = ? AND v.sys_from <= ? AND (v.sys_to IS NULL OR v.sys_to > ?) "
    "AND v.valid_from <= ? AND (v.valid_to IS NULL OR v.valid_to > ?)"
)


def _lists(conn: sqlite3.Connection, probe: VectorProbe, query: Vec) -> list[int] | None:
    """The lists to score, or ``None`` for all of them (an exact search)."""
    sizes = dict(conn.execute("SELECT list, count(*) FROM recall_vectors WHERE scope = ? "
                              "GROUP BY list", (probe.scope,)).fetchall())
    if probe.exact or sum(sizes.values()) <= probe.exact_below:
        return None
    target, chosen, total = max(PROBE_TARGET, 4 * probe.k), [], 0
    for i in probe_order(query):
        if i in sizes:
            chosen.append(i)
            total += sizes[i]
            if total >= target:
                break
    return None if len(chosen) == len(sizes) else chosen


def candidates(conn: sqlite3.Connection, location: str, probe: VectorProbe
               ) -> VectorCandidates:
    """The probe's nearest eligible-by-interval revisions; see the module docstring."""
    try:
        if not _check(conn, probe.space):
            return VectorCandidates()
        query = unit(probe.vector)
        lists = _lists(conn, probe, query)
        known, at = to_micros(probe.known_at), to_micros(probe.at)
        sql, params = _ELIGIBLE, [probe.scope, known, known, at, at]
        if lists is not None:
            marks = ", ".join("?" for _ in lists)
            sql += f" AND r.list IN ({marks})"
            params += lists
        rows = conn.execute(sql, params).fetchall()
        if not rows:
            return VectorCandidates(method="exact" if lists is None else "lsh",
                                    complete=lists is None)
        vids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(
            len(rows), query.shape[0])
        sims = matrix @ query
        order = np.lexsort((vids, -sims))  # most similar first, ties by vid
        if probe.k:
            order = order[:probe.k]
        chosen = [int(vids[i]) for i in order]
        marks = ", ".join("?" for _ in chosen)
        facts = {r["vid"]: version_from_row(r) for r in conn.execute(
            f"SELECT vid, {VERSION_COLUMNS} FROM versions WHERE vid IN ({marks})", chosen)}
    except sqlite3.Error as exc:
        raise store_error(exc, f"cannot search {location}") from exc
    return VectorCandidates(
        facts=tuple(facts[v] for v in chosen),
        similarities=tuple(float(sims[i]) for i in order),
        method="exact" if lists is None else "lsh",
        complete=lists is None and len(chosen) == len(rows))


class VectorReads:
    """The store protocol's vector methods, for
    :class:`~kg_memory.store.sqlite.store.SqliteStore`."""

    _conn: sqlite3.Connection

    @property
    def location(self) -> str:
        raise NotImplementedError

    def vector_backlog(self, scope: str, space: str, limit: int) -> list[VectorDoc]:
        return backlog(self._conn, self.location, scope, space, limit)

    def put_vectors(self, scope: str, space: str,
                    vectors: Sequence[tuple[VectorDoc, Sequence[float]]]) -> None:
        put(self._conn, self.location, scope, space, vectors)

    def vector_candidates(self, probe: VectorProbe) -> VectorCandidates:
        return candidates(self._conn, self.location, probe)
