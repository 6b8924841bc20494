"""Episodes in the embedded store's vector index (schema 13): the statements that enrol,
file and search them, beside the revisions' in :mod:`kg_memory.store.sqlite.recall_vectors`.

An episode's vector is made from its content as received (not its stemmed index terms: a
model reads sentences), keyed by its recall row (``recall_episode_docs.rid``), and filed only
while that row waits in the backlog, so a vector made from text a forget redacted meanwhile
is never stored. Its sketch carries a copy of its two instants (``recorded_at``: believed from;
``occurred_at``: valid from), which never change, so eligibility by both time axes is part of
the scan. Triggers (``recall_shards.EPISODE_VECTOR_DDL``) delete vector and sketch with the
episode's recall row: a forget, a redaction or a re-index erases them in its own transaction,
and ``secure_delete`` zeroes the pages they leave.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_memory.domain.model import Episode
from kg_memory.store.protocol import VectorDoc
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.rows import episode_from_row

__all__ = ["ELIGIBLE", "ENROL", "SKETCHES", "backlog", "episodes", "put_statements"]

#: The scope's episodes with recall text and no vector join its backlog when it is enrolled.
ENROL = (
    "INSERT OR IGNORE INTO recall_episode_vector_backlog (rid, scope) SELECT d.rid, e.scope "
    "FROM episodes e JOIN recall_episode_docs d ON d.episode_id = e.episode_id "
    "WHERE e.scope = ? AND d.rid NOT IN (SELECT rid FROM recall_episode_vectors)")
_IN_TIME = "s.recorded_at <= ? AND s.occurred_at <= ?"
#: One row for the whole scan, as for revisions (see recall_vectors._SKETCHES).
SKETCHES = ("SELECT count(*), group_concat(s.rid), CAST(group_concat(s.sketch, '') AS BLOB) "
            "FROM recall_episode_sketches s WHERE s.scope = ? AND " + _IN_TIME)
#: The exact search (and the re-ranking's rows), driven by the scope's sketches.
ELIGIBLE = ("SELECT r.rid, r.vector FROM recall_episode_sketches s "
            "JOIN recall_episode_vectors r ON r.rid = s.rid WHERE s.scope = ? AND " + _IN_TIME)


def backlog(conn: driver.Connection, scope: str, limit: int) -> list[VectorDoc]:
    """Up to ``limit`` episodes of ``scope`` waiting for a vector, oldest index row first."""
    if limit <= 0:
        return []
    rows = conn.execute(
        "SELECT e.episode_id, e.content FROM recall_episode_vector_backlog b "
        "JOIN recall_episode_docs d ON d.rid = b.rid "
        "JOIN episodes e ON e.episode_id = d.episode_id "
        "WHERE b.scope = ? ORDER BY b.rid LIMIT ?", (scope, limit)).fetchall()
    return [VectorDoc(episode_id=r[0], text=r[1]) for r in rows]


def put_statements(scope: str, rows: Sequence[tuple[bytes, bytes, str]]
                   ) -> list[tuple[str, Sequence[Sequence[object]]]]:
    """The statements filing ``(vector, sketch, episode_id)`` rows of ``scope``: the sketch
    first, each only while the episode waits in the backlog, which the last one empties."""
    waiting = ("FROM episodes e JOIN recall_episode_docs d ON d.episode_id = e.episode_id "
               "JOIN recall_episode_vector_backlog b ON b.rid = d.rid "
               "WHERE e.episode_id = ? AND e.scope = ?")
    return [
        ("INSERT OR REPLACE INTO recall_episode_sketches (scope, rid, recorded_at, "
         "occurred_at, sketch) SELECT e.scope, d.rid, e.recorded_at, e.occurred_at, ? "
         + waiting, [(sketch, episode_id, scope) for _, sketch, episode_id in rows]),
        ("INSERT OR REPLACE INTO recall_episode_vectors (rid, scope, vector) "
         "SELECT d.rid, e.scope, ? " + waiting,
         [(vector, episode_id, scope) for vector, _, episode_id in rows]),
        ("DELETE FROM recall_episode_vector_backlog WHERE scope = ? AND rid = "
         "(SELECT rid FROM recall_episode_docs WHERE episode_id = ?)",
         [(scope, episode_id) for _, _, episode_id in rows])]


def episodes(conn: driver.Connection, rids: Sequence[int]) -> dict[int, Episode]:
    """The episodes of these recall rows, by row."""
    marks = ", ".join("?" for _ in rids)
    return {r["rid"]: episode_from_row(r) for r in conn.execute(
        "SELECT d.rid, e.episode_id, e.operation_id, e.source, e.channel, e.content, "
        "e.occurred_at, e.recorded_at, e.scope, e.envelope, e.sent_by, e.sent_over "
        "FROM recall_episode_docs d JOIN episodes e ON e.episode_id = d.episode_id "
        f"WHERE d.rid IN ({marks})", list(rids))}
