"""The end of a planned batch: its journal written to the file, each table once, with
``executemany``, inside the batch's transaction (see :mod:`kg_memory.store.sqlite.plan`).

The rows and their order per table are those the direct path's statements would have made, so
the triggers (the outbox's, the recall counters', the vector backlog's) fire as they would
have. Order across tables is chosen for them: a revision before its recall row (the vector
backlog's trigger reads it), the recall counters before the closures (closing a revision
decrements its scope's counter, which must exist by then).
"""

from __future__ import annotations

import json
from collections import defaultdict

from kg_memory.domain.instant import to_micros
from kg_memory.domain.model import Assertion, Qualifiers
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.plan import BatchPlan
from kg_memory.store.sqlite.recall import scope_token
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard
from kg_memory.store.sqlite.rows import EPISODE_INSERT, VERSION_COLUMNS, episode_params

__all__ = ["flush"]

_INSERT_VERSION = (f"INSERT INTO versions (vid, {VERSION_COLUMNS}, project) VALUES "
                   f"({', '.join('?' for _ in range(21))})")
_COUNT = ("INSERT INTO recall_stats (scope, corpus, documents, tokens) VALUES (?, ?, ?, ?) "
          "ON CONFLICT (scope, corpus) DO UPDATE SET documents = documents + "
          "excluded.documents, tokens = tokens + excluded.tokens")


_NO_QUALIFIERS = Qualifiers()
_NO_QUALIFIERS_JSON = _NO_QUALIFIERS.model_dump_json()


def _qualifiers(v: Assertion) -> str:
    """Most facts have none: their JSON is the same string every time."""
    return _NO_QUALIFIERS_JSON if v.qualifiers == _NO_QUALIFIERS else v.qualifiers.model_dump_json()


def _length(text: str) -> int:
    return text.count(" ") + 1


def flush(conn: driver.Connection, plan: BatchPlan) -> None:
    """Write ``plan``'s journal (nothing is committed here: the batch commits)."""
    j = plan.journal
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    fts: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    if j.episodes:
        conn.executemany(EPISODE_INSERT, [episode_params(e, payload_hash)
                                           for e, payload_hash, _ in j.episodes])
        docs = []
        for e, _, text in j.episodes:
            if text:
                rid = plan.next_rid()
                docs.append((rid, e.episode_id, _length(text)))
                fts[episodes_table(shard(e.scope))].append((rid, scope_token(e.scope), text))
                count = counts[(e.scope, "episode")]
                count[0] += 1
                count[1] += _length(text)
        if docs:
            conn.executemany("INSERT INTO recall_episode_docs (rid, episode_id, length) "
                             "VALUES (?, ?, ?)", docs)
    if j.entity_inserts:
        conn.executemany("INSERT INTO entities (entity_id, type, name, scope, owners, "
                         "recorded_at) VALUES (?, ?, ?, ?, ?, ?)", j.entity_inserts)
    if j.entity_updates:
        conn.executemany("UPDATE entities SET owners = ?, name = coalesce(name, ?) "
                         "WHERE scope = ? AND entity_id = ?", j.entity_updates)
    if j.inserted:
        written = sorted(j.inserted.values(), key=lambda w: w.vid)
        conn.executemany(_INSERT_VERSION, [
            (w.vid, v.assertion_id, v.revision, v.scope, v.subject, v.predicate,
             json.dumps(v.value), _qualifiers(v), v.kind.value, v.writer,
             json.dumps(list(v.depends_on)), v.confidence, to_micros(v.valid.start),
             None if v.valid.end is None else to_micros(v.valid.end),
             to_micros(v.system.start), None, v.reason.value, v.recorded_by, None, None,
             v.qualifiers.project or "")
            for w in written for v in (w.version,)])
        fact_docs = []
        for w in written:
            if w.text:
                fact_docs.append((w.vid, _length(w.text)))
                scope = w.version.scope
                fts[facts_table(shard(scope))].append((w.vid, scope_token(scope), w.text))
                count = counts[(scope, "fact")]
                count[0] += 1
                count[1] += _length(w.text)
        if fact_docs:
            conn.executemany("INSERT INTO recall_fact_docs (vid, length) VALUES (?, ?)",
                             fact_docs)
    if j.dependencies:
        conn.executemany("INSERT OR IGNORE INTO dependencies (scope, dep, assertion_id) "
                         "VALUES (?, ?, ?)", list(j.dependencies))
    for table, rows in sorted(fts.items()):
        conn.executemany(f"INSERT INTO {table} (rowid, scope, text) VALUES (?, ?, ?)", rows)
    for scope in j.counted:
        counts[(scope, "fact")]  # a counter row at zero, as the direct path leaves
    if counts:
        conn.executemany(_COUNT, [(s, c, n, t) for (s, c), (n, t) in sorted(counts.items())])
    if j.closed:
        conn.executemany(
            "UPDATE versions SET sys_to = ?, closed_by = ?, close_reason = ? WHERE vid = ?",
            [(now, closed_by, reason, vid) for vid, now, closed_by, reason in j.closed.values()])
    if j.edges:
        conn.executemany(
            "INSERT OR IGNORE INTO edges (scope, src, type, dst, since) VALUES (?, ?, ?, ?, ?)",
            [(*edge, since) for edge, since in j.edges.items()])
    if j.refusals:
        conn.executemany("INSERT INTO refusals (episode_id, source, what, reason, at) "
                         "VALUES (?, ?, ?, ?, ?)", j.refusals)
    if j.outbox:
        conn.executemany("INSERT INTO outbox (tbl, key) VALUES (?, ?)", j.outbox)
    # No trigger reads these two tables: only each document's last body counts, a lookup key
    # read as stored already is not written again, and the rows go in key order (fewer B-tree
    # pages touched than the order they were written in).
    if j.documents:
        conn.executemany(
            "INSERT OR REPLACE INTO documents (kind, key, scope, body, recorded_at) "
            "VALUES (?, ?, ?, ?, ?)", [(kind, key, scope, body, at) for (kind, scope, key), (
                body, at) in sorted(j.documents.items())])
    if j.document_keys:
        conn.executemany(
            "INSERT OR IGNORE INTO document_keys (kind, scope, key, doc) VALUES (?, ?, ?, ?)",
            sorted((*lookup, doc) for lookup, docs in j.document_keys.items() for doc in docs
                   if not plan.documents.known_filed(lookup, doc)))
