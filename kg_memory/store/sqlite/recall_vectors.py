"""The embedded store's vector index: sign sketches and exact re-ranking in the store's file.

The index is plain tables (``recall.sql``), not sqlite-vec's ``vec0``, though the bundled
engine can load it: a forget must leave no byte of a vector behind, which rows deleted under
``secure_delete`` guarantee (docs/recall.md, "Indexes"). Each revision's unit vector is a
float32 BLOB in ``recall_vectors``, and its *sketch* in ``recall_sketches``: the signs of its
projections on :data:`SKETCH_BITS` fixed random directions (seeded by the dimensions: nothing
is trained or learnt from the data, so nothing in the index carries a trace of a forgotten
vector), packed into a BLOB, clustered by scope beside a copy of the revision's intervals. A
search

1. reads the sketches of the scope's revisions believed at ``known_at`` and valid at ``at``
   (one narrow table in key order: a stale vector is never a candidate);
2. scores each sketch against the query asymmetrically: the sum of the query's projections,
   signed by the sketch's bits (a table lookup per byte), which tracks cosine far better than
   the Hamming distance between two sketches because the query keeps its magnitudes;
3. re-ranks the best :data:`SHORTLIST` (at least ``4k``) by exact cosine over their stored
   vectors, and returns the top ``k``.

A scope with at most ``exact_below`` eligible vectors skips step 2 (every one is re-ranked).
Vectors live in the same file and transactions as every other row: triggers delete a vector
and its sketch with its revision or its index row (forget, re-index), ``secure_delete`` zeroes
the freed pages, and the scrub's byte scan covers these tables like the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

from kg_memory.domain.errors import EmbedderMismatch
from kg_memory.domain.instant import to_micros
from kg_memory.domain.recall_text import fact_words
from kg_memory.store.protocol import VectorCandidates, VectorDoc, VectorProbe
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite import recall_episode_vectors as episode_vectors
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.recall import entity_names
from kg_memory.store.sqlite.recall_shards import facts_table, shard
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, VERSION_COLUMNS_OF_V, version_from_row

__all__ = [
    "SHORTLIST",
    "SKETCH_BITS",
    "VectorReads",
    "backlog",
    "candidates",
    "put",
    "sketch_of",
    "space_of",
    "unit",
    "upgrade",
]

#: Sign bits per sketch (32 bytes): with the query scored asymmetrically, the exact top 10
#: of a 20,000-vector tenant is among the best 256 sketches (``kg_memory.bench.vector_index``).
SKETCH_BITS = 256
#: How many of the best sketches (at least ``4k``) are re-ranked by exact cosine.
SHORTLIST = 256
_SPACE = "recall_vector_space"
_EPISODE_SKETCHES = episode_vectors.SKETCHES
_EPISODE_ELIGIBLE = episode_vectors.ELIGIBLE

Vec = npt.NDArray[np.float32]


@cache
def _directions(dimensions: int) -> Vec:
    return np.random.default_rng(7_919 + dimensions).standard_normal(
        (SKETCH_BITS, dimensions)).astype(np.float32)


@cache
def _byte_signs() -> Vec:
    """``[b, i]``: +1 when bit ``i`` of byte value ``b`` is set, else -1 (little bit order)."""
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
    return (2 * bits - 1).astype(np.float32)


def unit(vector: Sequence[float]) -> Vec:
    """``vector`` as float32 of length 1 (a zero vector stays zero: it is similar to nothing)."""
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


def sketch_of(v: Vec) -> bytes:
    """A vector's sketch: bit ``i`` set when it lies on direction ``i``'s positive side."""
    return np.packbits((_directions(v.shape[0]) @ v) > 0, bitorder="little").tobytes()


def _sketch_scores(query: Vec, sketches: bytes, count: int) -> Vec:
    """Each sketch's asymmetric score against ``query``: ``sum_i proj_i * sign_i``.

    A per-byte table (32 bytes x 256 values) turns the sum into 32 lookups per sketch."""
    per_byte = SKETCH_BITS // 8
    table = (_directions(query.shape[0]) @ query).reshape(per_byte, 8) @ _byte_signs().T
    codes = np.frombuffer(sketches, dtype=np.uint8).reshape(count, per_byte)
    flat = codes.astype(np.intp) + (np.arange(per_byte, dtype=np.intp) * 256)
    scores: Vec = np.take(table.ravel(), flat).sum(axis=1, dtype=np.float32)
    return scores


def space_of(conn: driver.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_SPACE,)).fetchone()
    return None if row is None else str(row[0])


def _check(conn: driver.Connection, space: str) -> bool:
    """Whether the store has vectors in ``space``; another space is refused, not mixed."""
    held = space_of(conn)
    if held is not None and held != space:
        raise EmbedderMismatch(
            f"this store's vectors were made by {held}, not {space}: recall with that embedder "
            "(vectors of two models are not comparable)")
    return held is not None


def _transact(conn: driver.Connection, location: str, statements: Sequence[
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
    except driver.Error as exc:
        raise store_error(exc, f"cannot index vectors in {location}") from exc


def backlog(conn: driver.Connection, location: str, scope: str, space: str, limit: int
            ) -> list[VectorDoc]:
    """Revisions of ``scope`` waiting for a vector; the scope is enrolled on first use (its
    indexed revisions join the backlog, and triggers add every later one)."""
    try:
        _check(conn, space)
        enrolled = conn.execute("SELECT 1 FROM recall_vector_scopes WHERE scope = ?",
                                (scope,)).fetchone()
    except driver.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    if enrolled is None:
        _transact(conn, location, [
            ("INSERT OR IGNORE INTO recall_vector_scopes (scope) VALUES (?)", (scope,)),
            ("INSERT OR IGNORE INTO recall_vector_backlog (vid, scope) SELECT d.vid, v.scope "
             "FROM versions v JOIN recall_fact_docs d ON d.vid = v.vid WHERE v.scope = ? "
             "AND v.vid NOT IN (SELECT vid FROM recall_vectors)", (scope,)),
            (episode_vectors.ENROL, (scope,))])
    table = facts_table(shard(scope))
    try:
        # The revision's own words, not its index row's stems: the model reads words. Joined
        # to the index row all the same, so a revision no longer indexed is not embedded.
        rows = conn.execute(
            f"SELECT {VERSION_COLUMNS_OF_V} FROM recall_vector_backlog b "
            f"JOIN versions v ON v.vid = b.vid JOIN {table} f ON f.rowid = b.vid "
            "WHERE b.scope = ? ORDER BY b.vid LIMIT ?", (scope, limit)).fetchall()
        docs = []
        for row in rows:
            fact = version_from_row(row)
            docs.append(VectorDoc(
                assertion_id=fact.assertion_id, revision=fact.revision,
                text=fact_words(fact, fact.qualifiers.project, fact.qualifiers.exceptions,
                                entity_names(conn, fact))))
        return docs + episode_vectors.backlog(conn, scope, limit - len(docs))
    except driver.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc


def put(conn: driver.Connection, location: str, scope: str, space: str,
        vectors: Sequence[tuple[VectorDoc, Sequence[float]]]) -> None:
    """File each vector and its sketch; only revisions of ``scope`` still in its backlog are
    written (a revision forgotten meanwhile, or another tenant's, is skipped)."""
    if not vectors:
        return
    try:
        _check(conn, space)
    except driver.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc
    rows, sketches, episodes = [], [], []
    for doc, vector in vectors:
        v = unit(vector)
        if doc.episode_id is not None:
            episodes.append((v.astype("<f4").tobytes(), sketch_of(v), doc.episode_id))
            continue
        rows.append((v.astype("<f4").tobytes(), doc.assertion_id, doc.revision, scope))
        sketches.append((sketch_of(v), doc.assertion_id, doc.revision, scope))
    # The sketch first: it is filed only while its revision waits in the backlog, which the
    # vector's own statement then empties.
    _transact(conn, location, [
        ("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (_SPACE, space))], [
        ("INSERT OR REPLACE INTO recall_sketches (scope, vid, sys_from, sys_to, valid_from, "
         "valid_to, sketch) SELECT v.scope, v.vid, v.sys_from, v.sys_to, v.valid_from, "
         "v.valid_to, ? FROM versions v JOIN recall_vector_backlog b ON b.vid = v.vid "
         "WHERE v.assertion_id = ? AND v.revision = ? AND v.scope = ?", sketches),
        ("INSERT OR REPLACE INTO recall_vectors (vid, scope, vector) "
         "SELECT v.vid, v.scope, ? FROM versions v JOIN recall_vector_backlog b "
         "ON b.vid = v.vid WHERE v.assertion_id = ? AND v.revision = ? AND v.scope = ?", rows),
        ("DELETE FROM recall_vector_backlog WHERE vid = (SELECT vid FROM versions WHERE "
         "assertion_id = ? AND revision = ? AND scope = ?)",
         [r[1:] for r in rows]), *episode_vectors.put_statements(scope, episodes)])


_IN_TIME = ("sys_from <= ? AND (sys_to IS NULL OR sys_to > ?) "
            "AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)")
#: The exact search (and the re-ranking's check): the revision's own intervals, not the copy.
#: Driven by the scope's sketches (their primary key starts with the scope; every vector has
#: one, written in the same statement pair): recall_vectors has no scope index, so
#: ``r.scope = ?`` scanned every tenant's vectors on the under-fill fallback.
_ELIGIBLE = (
    "SELECT r.vid, r.vector FROM recall_sketches s JOIN recall_vectors r ON r.vid = s.vid "
    "JOIN versions v ON v.vid = r.vid WHERE s.scope = ? "
    "AND v.sys_from <= ? AND (v.sys_to IS NULL OR v.sys_to > ?) "
    "AND v.valid_from <= ? AND (v.valid_to IS NULL OR v.valid_to > ?)"
)
#: One row for the whole scan: a Python tuple per sketch would cost more than scoring it.
#: ``group_concat`` keeps a BLOB's bytes (this UTF-8 file never converts them), and both
#: lists are built in the same pass, so the n-th vid owns the n-th sketch.
_SKETCHES = ("SELECT count(*), group_concat(vid), CAST(group_concat(sketch, '') AS BLOB) "
             "FROM recall_sketches WHERE scope = ? AND " + _IN_TIME)


def _shortlist(conn: driver.Connection, probe: VectorProbe, query: Vec, sql: str,
               params: list[object]) -> tuple[list[int] | None, bool]:
    """The ids to re-rank (``None``: all, by the exact query) and whether they are every
    eligible-by-interval vector of the scope."""
    if probe.exact or not probe.k:
        return None, True
    count, listed, sketches = conn.execute(sql, params).fetchone()
    if not count:
        return [], True
    vids = np.fromstring(listed, dtype=np.int64, sep=",")
    if len(vids) != count or len(sketches) != count * SKETCH_BITS // 8:
        raise driver.DatabaseError("recall_sketches: a sketch of the wrong size")
    wanted = max(SHORTLIST, 4 * probe.k)
    if count <= max(probe.exact_below, wanted):
        return [int(v) for v in vids], True
    scores = _sketch_scores(query, sketches, count)
    best = np.argpartition(-scores, wanted - 1)[:wanted]
    return [int(v) for v in vids[best]], False


def candidates(conn: driver.Connection, location: str, probe: VectorProbe
               ) -> VectorCandidates:
    """The probe's nearest eligible-by-interval revisions or episodes; see the module
    docstring."""
    try:
        if not _check(conn, probe.space):
            return VectorCandidates()
        query = unit(probe.vector)
        known, at = to_micros(probe.known_at), to_micros(probe.at)
        facts = probe.corpus == "facts"
        interval: list[object] = [probe.scope, known, known, at, at] if facts else [
            probe.scope, known, at]
        # Each corpus's statements are constants of the source, chosen here, never composed.
        if facts:
            sketches = _SKETCHES
            sql = _ELIGIBLE
            column = "vid"
        else:
            sketches = _EPISODE_SKETCHES
            sql = _EPISODE_ELIGIBLE
            column = "rid"
        shortlist, covered = _shortlist(conn, probe, query, sketches, interval)
        method = "exact" if covered else "sketch"  # covered: every one scored exactly
        params = list(interval)
        if shortlist is not None:
            if not shortlist:
                return VectorCandidates(method=method, complete=True)
            marks = ", ".join("?" for _ in shortlist)
            sql += f" AND r.{column} IN ({marks})"
            params += shortlist
        rows = conn.execute(sql, params).fetchall()
        if not rows:
            return VectorCandidates(method=method, complete=covered)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(
            len(rows), query.shape[0])
        sims = matrix @ query
        order = np.lexsort((ids, -sims))  # most similar first, ties by id
        if probe.k:
            order = order[:probe.k]
        chosen = [int(ids[i]) for i in order]
        similarities = tuple(float(sims[i]) for i in order)
        complete = covered and len(chosen) == len(rows)
        if not facts:
            found = episode_vectors.episodes(conn, chosen)
            return VectorCandidates(episodes=tuple(found[i] for i in chosen),
                                    similarities=similarities, method=method,
                                    complete=complete)
        marks = ", ".join("?" for _ in chosen)
        versions = {r["vid"]: version_from_row(r) for r in conn.execute(
            f"SELECT vid, {VERSION_COLUMNS} FROM versions WHERE vid IN ({marks})", chosen)}
    except driver.Error as exc:
        raise store_error(exc, f"cannot search {location}") from exc
    return VectorCandidates(facts=tuple(versions[v] for v in chosen),
                            similarities=similarities, method=method, complete=complete)


def upgrade(conn: driver.Connection) -> int:
    """Bring a schema 4 vector index to schema 5 inside the caller's transaction (idempotent;
    run by ``kg-memory migrate``): the lists go, every stored vector gets its sketch and its
    revision's intervals; and to schema 13: the episodes of every enrolled scope wait for
    their vectors. How many sketches were written."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(recall_vectors)")}
    if "list" in columns:
        conn.execute("DROP INDEX IF EXISTS recall_vectors_list")
        conn.execute("ALTER TABLE recall_vectors DROP COLUMN list")
    missing = [r[0] for r in conn.execute(
        "SELECT r.vid FROM recall_vectors r WHERE NOT EXISTS (SELECT 1 FROM recall_sketches s "
        "WHERE s.scope = r.scope AND s.vid = r.vid)")]
    for start in range(0, len(missing), 512):
        chunk = missing[start:start + 512]
        marks = ", ".join("?" for _ in chunk)
        rows = [(sketch_of(np.frombuffer(blob, dtype="<f4")), vid) for vid, blob in conn.execute(
            f"SELECT vid, vector FROM recall_vectors WHERE vid IN ({marks})", chunk)]
        conn.executemany(
            "INSERT INTO recall_sketches (scope, vid, sys_from, sys_to, valid_from, valid_to, "
            "sketch) SELECT scope, vid, sys_from, sys_to, valid_from, valid_to, ? "
            "FROM versions WHERE vid = ?", rows)
    # Schema 13: an enrolled scope's episodes join the backlog its next hybrid recall drains.
    conn.execute(
        "INSERT OR IGNORE INTO recall_episode_vector_backlog (rid, scope) SELECT d.rid, e.scope "
        "FROM episodes e JOIN recall_episode_docs d ON d.episode_id = e.episode_id "
        "JOIN recall_vector_scopes s ON s.scope = e.scope "
        "WHERE d.rid NOT IN (SELECT rid FROM recall_episode_vectors)")
    return len(missing)


class VectorReads:
    """The store protocol's vector methods, for
    :class:`~kg_memory.store.sqlite.store.SqliteStore`."""

    @property
    def _conn(self) -> driver.Connection:
        raise NotImplementedError  # the store's: this thread's connection

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
