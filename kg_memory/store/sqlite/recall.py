"""The embedded store's recall index: SQLite FTS5, written in the episode's transaction.

Facts are indexed per revision and stay indexed when closed (the index is bitemporal),
episodes while they have content, each in the FTS5 tables of its tenant's shard
(:mod:`.recall_shards`), holding the tokens of :mod:`kg_memory.domain.recall_text` and one
token naming the tenant, so a search intersects the tenant's doclist inside FTS5. Erasure
needs no code here: triggers on ``versions`` and ``episodes`` delete index rows with the rows
they index, inside the forget run's transaction, and FTS5's ``secure-delete`` (schema 9)
removes a deleted row's entries from the segments that hold them. :func:`merge_segments`
(called by the scrub and by ``kg-memory migrate``) merges the shards a schema 8 store marked
before it was migrated, where FTS5 kept a deleted term in older segments until a merge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from kg_memory.domain.instant import to_micros
from kg_memory.domain.model import Assertion, Episode
from kg_memory.domain.ranking import CorpusStats
from kg_memory.domain.recall_text import episode_document, fact_document
from kg_memory.store.protocol import ConversationQuery, RecallCandidates, RecallProbe
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.errors import store_error
from kg_memory.store.sqlite.recall_shards import SHARDS, episodes_table, facts_table, shard
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, episode_from_row, version_from_row

__all__ = [
    "RecallReads",
    "conversation",
    "entity_names",
    "index_episode",
    "index_fact",
    "index_missing",
    "match_expression",
    "merge_segments",
    "neighbours",
    "recall_candidates",
    "reindex_entity",
    "scope_token",
    "search",
]

#: Lucene's default cap on OR clauses; a longer question is cut to its first terms.
MAX_TERMS = 64


@lru_cache(maxsize=1024)
def scope_token(scope: str) -> str:
    """The one index token that names ``scope`` (letters and digits, whatever the scope is);
    cached: every recall document written and every search names its scope's."""
    return "s" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:24]


def _count(conn: driver.Connection, scope: str, corpus: str, length: int) -> None:
    conn.execute(
        "INSERT INTO recall_stats (scope, corpus, documents, tokens) VALUES (?, ?, 1, ?) "
        "ON CONFLICT (scope, corpus) DO UPDATE SET documents = documents + 1, "
        "tokens = tokens + excluded.tokens", (scope, corpus, length))


def entity_names(conn: driver.Connection, fact: Assertion) -> tuple[str, ...]:
    """Names of the fact's subject and project entities, as the store knows them now, in the
    fact's own scope only (an entity id another tenant also uses must not lend its name)."""
    ids = [fact.subject, *([fact.qualifiers.project] if fact.qualifiers.project else [])]
    marks = ", ".join("?" for _ in ids)
    rows = conn.execute(
        f"SELECT name FROM entities WHERE entity_id IN ({marks}) "
        "AND scope = ? AND name IS NOT NULL ORDER BY entity_id", (*ids, fact.scope)).fetchall()
    return tuple(r[0] for r in rows)


def index_fact(conn: driver.Connection, vid: int, fact: Assertion) -> None:
    """Index a just-inserted (open) revision, with its entities' names as known now."""
    text = fact_document(fact, fact.qualifiers.project, fact.qualifiers.exceptions,
                         entity_names(conn, fact))
    if not text:
        return
    length = text.count(" ") + 1
    table = facts_table(shard(fact.scope))
    conn.execute(f"INSERT INTO {table} (rowid, scope, text) VALUES (?, ?, ?)",
                 (vid, scope_token(fact.scope), text))
    conn.execute("INSERT INTO recall_fact_docs (vid, length) VALUES (?, ?)", (vid, length))
    _count(conn, fact.scope, "fact", length)


def reindex_entity(conn: driver.Connection, scope: str, entity_id: str) -> None:
    """Index again every revision whose text carries ``entity_id``'s name (its subject or
    project entity), after the name changed. A forget renames an entity whose only name came
    from forgotten input: no index row, closed revision or not, may keep the old one."""
    rows = conn.execute(
        "SELECT v.*, d.length AS doc_length FROM versions v JOIN recall_fact_docs d "
        "ON d.vid = v.vid WHERE v.scope = ? AND (v.subject = ? OR v.project = ?)",
        (scope, entity_id, entity_id)).fetchall()
    if not rows:
        return
    k = shard(scope)
    table = facts_table(k)
    for row in rows:
        fact = version_from_row(row)
        live = row["sys_to"] is None
        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (row["vid"],))
        conn.execute("DELETE FROM recall_fact_docs WHERE vid = ?", (row["vid"],))
        if live:
            conn.execute("UPDATE recall_stats SET documents = documents - 1, "
                         "tokens = tokens - ? WHERE scope = ? AND corpus = 'fact'",
                         (row["doc_length"], scope))
        text = fact_document(fact, fact.qualifiers.project, fact.qualifiers.exceptions,
                             entity_names(conn, fact))
        if not text:
            continue
        length = text.count(" ") + 1
        conn.execute(f"INSERT INTO {table} (rowid, scope, text) VALUES (?, ?, ?)",
                     (row["vid"], scope_token(scope), text))
        conn.execute("INSERT INTO recall_fact_docs (vid, length) VALUES (?, ?)",
                     (row["vid"], length))
        if live:
            _count(conn, scope, "fact", length)
    # The revisions' recall text changed without a change of their rows: tell the mirror.
    conn.executemany("INSERT INTO outbox (tbl, key) VALUES ('versions', ?)",
                     [(a,) for a in sorted({r["assertion_id"] for r in rows})])


def index_episode(conn: driver.Connection, episode: Episode) -> None:
    text = episode_document(episode.content)
    if not text:
        return
    length = text.count(" ") + 1
    rid = conn.execute(
        "INSERT INTO recall_episode_docs (episode_id, length) VALUES (?, ?) RETURNING rid",
        (episode.episode_id, length)).fetchone()[0]
    table = episodes_table(shard(episode.scope))
    conn.execute(f"INSERT INTO {table} (rowid, scope, text) VALUES (?, ?, ?)",
                 (rid, scope_token(episode.scope), text))
    _count(conn, episode.scope, "episode", length)


def index_missing(conn: driver.Connection) -> int:
    """Index what a store written before recall existed holds (idempotent; run by the schema's
    creation and ``kg-memory migrate``, inside their transaction); how many rows."""
    done = 0
    # Rows by name whatever the connection's row factory (migrate's connection has none).
    read = conn.cursor()
    read.row_factory = driver.Row
    rows = read.execute(
        f"SELECT vid, sys_to, {VERSION_COLUMNS} FROM versions WHERE vid NOT IN "
        "(SELECT vid FROM recall_fact_docs)").fetchall()
    for row in rows:
        fact = version_from_row(row)
        index_fact(conn, row["vid"], fact)
        if row["sys_to"] is not None:  # indexed as closed: not in the live statistics
            conn.execute(
                "UPDATE recall_stats SET documents = documents - 1, tokens = tokens - "
                "(SELECT length FROM recall_fact_docs WHERE vid = ?) WHERE scope = ? AND "
                "corpus = 'fact' AND EXISTS (SELECT 1 FROM recall_fact_docs WHERE vid = ?)",
                (row["vid"], fact.scope, row["vid"]))
        done += 1
    rows = read.execute(
        "SELECT * FROM episodes WHERE content <> '' AND episode_id NOT IN "
        "(SELECT episode_id FROM recall_episode_docs)").fetchall()
    for row in rows:
        index_episode(conn, episode_from_row(row))
        done += 1
    return done


def match_expression(scope: str, terms: tuple[str, ...]) -> str:
    """The FTS5 query: the tenant's token AND any of the terms.

    Terms are runs of letters and digits (recall_text.tokens) and the scope token is hex, so
    quoting is all the FTS5 query syntax they need; nothing else reaches the MATCH string.
    """
    if not terms:
        return ""
    any_term = " OR ".join(f'"{t}"' for t in terms[:MAX_TERMS])
    return f'scope : "{scope_token(scope)}" AND text : ({any_term})'



def _stats(conn: driver.Connection, probe: RecallProbe, corpus: str, live: bool,
           snapshot_sql: str) -> CorpusStats:
    if live:
        row = conn.execute(
            "SELECT documents, tokens FROM recall_stats WHERE scope = ? AND corpus = ?",
            (probe.scope, corpus)).fetchone()
        return CorpusStats(0, 0) if row is None else CorpusStats(row[0], row[1])
    known = to_micros(probe.known_at)
    row = conn.execute(snapshot_sql, (probe.scope, known, known)).fetchone()
    return CorpusStats(row[0], row[1] or 0)


_FACT_SNAPSHOT = (
    "SELECT count(*), sum(d.length) FROM versions v JOIN recall_fact_docs d ON d.vid = v.vid "
    "WHERE v.scope = ? AND v.sys_from <= ? AND (v.sys_to IS NULL OR v.sys_to > ?)"
)
_EPISODE_SNAPSHOT = (
    "SELECT count(*), sum(d.length) FROM episodes e "
    "JOIN recall_episode_docs d ON d.episode_id = e.episode_id "
    "WHERE e.scope = ? AND e.recorded_at <= ? AND ? IS NOT NULL"
)


def recall_candidates(conn: driver.Connection, probe: RecallProbe, last_system_time: int
                      ) -> RecallCandidates:
    """Matching rows of the scope and the corpus statistics at ``probe.known_at``.

    At or after the last system time the store assigned, the live counters are exact (nothing
    open can close, and nothing newer exists); before it, the snapshot is counted.
    """
    live = to_micros(probe.known_at) >= last_system_time
    match = match_expression(probe.scope, probe.terms)
    found: dict[str, Any] = {}
    if probe.facts and match:
        table = facts_table(shard(probe.scope))
        rows = conn.execute(
            f"WITH m AS (SELECT rowid AS vid, text AS recall_text FROM {table} "
            f"WHERE {table} MATCH ?) SELECT {VERSION_COLUMNS}, m.recall_text "
            "FROM m JOIN versions USING (vid) WHERE versions.scope = ? ORDER BY vid",
            (match, probe.scope)).fetchall()
        found["facts"] = tuple(version_from_row(r) for r in rows)
        found["fact_texts"] = tuple(r["recall_text"] for r in rows)
        found["fact_corpus"] = _stats(conn, probe, "fact", live, _FACT_SNAPSHOT)
    if probe.episodes and match:
        table = episodes_table(shard(probe.scope))
        # The columns an Episode holds, not e.*: a scope's common words match hundreds of
        # turns, and the payload hash and fingerprint of each would be read for nothing.
        rows = conn.execute(
            "SELECT e.episode_id, e.operation_id, e.source, e.channel, e.content, e.occurred_at, "
            "e.recorded_at, e.scope, e.envelope, e.sent_by, e.sent_over, f.text AS recall_text "
            f"FROM {table} f "
            "JOIN recall_episode_docs d ON d.rid = f.rowid "
            "JOIN episodes e ON e.episode_id = d.episode_id "
            f"WHERE {table} MATCH ? AND e.scope = ? ORDER BY f.rowid",
            (match, probe.scope)).fetchall()
        found["episodes"] = tuple(episode_from_row(r) for r in rows)
        found["episode_texts"] = tuple(r["recall_text"] for r in rows)
        found["episode_corpus"] = _stats(conn, probe, "episode", live, _EPISODE_SNAPSHOT)
    return RecallCandidates(**found)


def search(conn: driver.Connection, location: str, probe: RecallProbe,
           batch_time: int | None) -> RecallCandidates:
    """:func:`recall_candidates` with the store's last system time (``batch_time`` while a
    batch holds it in memory), a failure as kg-memory's error (a held lock, which a read in WAL
    mode should not meet, is StoreBusy like everywhere else)."""
    try:
        last = batch_time
        if last is None:
            row = conn.execute("SELECT value FROM meta WHERE key = 'system_time'").fetchone()
            last = -1 if row is None else int(row[0])
        return recall_candidates(conn, probe, last)
    except driver.Error as exc:
        raise store_error(exc, f"cannot search {location}") from exc


def neighbours(conn: driver.Connection, location: str,
               queries: Sequence[ConversationQuery]) -> list[list[Episode]]:
    """:func:`conversation` for each query, a failure as kg-memory's error."""
    try:
        return [conversation(conn, query) for query in queries]
    except driver.Error as exc:
        raise store_error(exc, f"cannot read {location}") from exc


def conversation(conn: driver.Connection, query: ConversationQuery) -> list[Episode]:
    around, known = to_micros(query.around), to_micros(query.known_at)
    # Same scope and channel (and source, unless a chat), recorded by known_at, with content.
    # "occurred_at <= around" (">=" after) is implied by the OR that follows; said alone, it
    # lets the conversation index start at the message instead of sorting the whole chat.
    params = (query.scope, query.channel, around, query.source, query.source, known,
              query.episode_id, around, around, query.episode_id, query.size)
    before = conn.execute(
        "SELECT * FROM episodes WHERE scope = ? AND channel = ? AND occurred_at <= ? "
        "AND (? IS NULL OR source = ?) "
        "AND recorded_at <= ? AND content <> '' AND episode_id <> ? AND (occurred_at < ? OR "
        "(occurred_at = ? AND episode_id < ?)) ORDER BY occurred_at DESC, episode_id DESC "
        "LIMIT ?", params).fetchall()
    after = conn.execute(
        "SELECT * FROM episodes WHERE scope = ? AND channel = ? AND occurred_at >= ? "
        "AND (? IS NULL OR source = ?) "
        "AND recorded_at <= ? AND content <> '' AND episode_id <> ? AND (occurred_at > ? OR "
        "(occurred_at = ? AND episode_id > ?)) ORDER BY occurred_at, episode_id LIMIT ?",
        params).fetchall()
    return [episode_from_row(r) for r in (*reversed(before), *after)]


def merge_segments(conn: driver.Connection) -> list[int]:
    """Merge every FTS5 segment of each shard a schema 8 erasure marked (its delete triggers
    did, before FTS5's ``secure-delete``) into one, dropping deleted entries; ``secure_delete``
    then zeroes the pages the old segments freed. A merge rewrites its whole shard, so unmarked
    shards are left alone; since schema 9 nothing marks one. Returns the shards merged."""
    # A key range, not LIKE (case-insensitive, so no index serves it): meta holds a row per
    # scope that ever forgot, and the primary key finds the marks among them.
    marked = [int(r[0].rsplit("_", 1)[1]) for r in conn.execute(
        "SELECT key FROM meta WHERE key >= 'recall_erased_' AND key < 'recall_erased`'")]
    shards = sorted(k for k in marked if 0 <= k < SHARDS)
    if not shards:
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for k in shards:
            for table in (facts_table(k), episodes_table(k)):
                conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            conn.execute("DELETE FROM meta WHERE key = ?", (f"recall_erased_{k}",))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return shards


class RecallReads:
    """The store protocol's recall reads, for :class:`~kg_memory.store.sqlite.store.SqliteStore`
    (this thread's connection; ``_batch_time`` is the last system time while this thread's
    batch holds it)."""

    @property
    def _conn(self) -> driver.Connection:
        raise NotImplementedError  # the store's: this thread's connection

    _batch_time: int | None

    @property
    def location(self) -> str:
        raise NotImplementedError

    def recall_candidates(self, probe: RecallProbe) -> RecallCandidates:
        return search(self._conn, self.location, probe, self._batch_time)

    def conversations(self, queries: Sequence[ConversationQuery]) -> list[list[Episode]]:
        return neighbours(self._conn, self.location, queries)
