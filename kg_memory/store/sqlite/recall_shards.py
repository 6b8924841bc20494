"""The embedded recall index's shards: FTS5 tables per group of tenants, and their triggers.

Every table has FTS5's ``secure-delete`` option on (schema 9; SQLite 3.42 or later, which
:mod:`.driver` brings): a deleted row's entries are removed from the index segments that hold
them, so no erased term outlives its row in an older segment. Before it (schema 8), a forget
had to merge a deleted term's segments, which rewrites a whole table: the reason for
:data:`SHARDS` tables, one shard per group of tenants, which still keeps a tenant's searches
to its shard. The shard of a scope is computed from its last three characters and its length,
by SQL built-ins alone, so the triggers that erase from the right shard need no application
function and fire on any connection.

The tables and triggers are written out in ``recall.sql`` beside ``schema.sql`` (reviewable
SQL, loaded like the schema); :func:`ddl` generates that file
(``python -m kg_memory.store.sqlite.recall_shards > kg_memory/store/sqlite/recall.sql``) and a
test checks the two agree, and that :func:`shard` agrees with :func:`shard_expression`.

>>> [shard(s) for s in ("u1", "acme", "user-000042")]
[8, 9, 1]
"""

from __future__ import annotations

__all__ = [
    "FTS_OPTIONS", "SHARDS", "VECTOR_DDL", "ddl", "episodes_table", "facts_table", "shard",
    "shard_expression",
]

SHARDS = 16
#: Every shard table's FTS5 options. ``columnsize=0`` (schema 14): FTS5 keeps no per-row token
#: counts (its ``_docsize`` table, one more B-tree page in every commit that indexes a row),
#: since recall never asks FTS5 to rank (no ``bm25``, no ``rank``): its BM25 reads the lengths
#: of ``recall_fact_docs`` / ``recall_episode_docs`` and the counters of ``recall_stats``.
FTS_OPTIONS = "tokenize = 'unicode61 remove_diacritics 0', columnsize = 0"


def shard_expression(column: str) -> str:
    """The SQL expression of the shard of the scope in ``column`` (what :func:`shard` computes)."""
    return _sql(column)


def _sql(column: str) -> str:
    chars = " + ".join(f"coalesce(unicode(substr({column}, -{i}, 1)), 0)" for i in (1, 2, 3))
    return f"(({chars} + length({column})) % {SHARDS})"


def shard(scope: str) -> int:
    """The shard of ``scope``: the same number as the triggers' SQL expression."""
    return (sum(ord(scope[-i]) for i in (1, 2, 3) if len(scope) >= i) + len(scope)) % SHARDS


def facts_table(k: int) -> str:
    return f"recall_facts_{int(k)}"


def episodes_table(k: int) -> str:
    return f"recall_episodes_{int(k)}"


def _shard_ddl(k: int) -> str:
    facts, episodes, old = facts_table(k), episodes_table(k), _sql("OLD.scope")
    fact_stats = (
        "UPDATE recall_stats SET documents = documents - 1, tokens = tokens - "
        "(SELECT length FROM recall_fact_docs WHERE vid = OLD.vid) "
        "WHERE OLD.sys_to IS NULL AND scope = OLD.scope AND corpus = 'fact' "
        "AND EXISTS (SELECT 1 FROM recall_fact_docs WHERE vid = OLD.vid);")
    episode_stats = (
        "UPDATE recall_stats SET documents = documents - 1, tokens = tokens - "
        "(SELECT length FROM recall_episode_docs WHERE episode_id = OLD.episode_id) "
        "WHERE scope = OLD.scope AND corpus = 'episode' "
        "AND EXISTS (SELECT 1 FROM recall_episode_docs WHERE episode_id = OLD.episode_id);")
    drop_episode = (
        f"DELETE FROM {episodes} WHERE rowid = "
        "(SELECT rid FROM recall_episode_docs WHERE episode_id = OLD.episode_id); "
        "DELETE FROM recall_episode_docs WHERE episode_id = OLD.episode_id;")
    return f"""
CREATE VIRTUAL TABLE IF NOT EXISTS {facts} USING fts5(
    scope, text, {FTS_OPTIONS});
CREATE VIRTUAL TABLE IF NOT EXISTS {episodes} USING fts5(
    scope, text, {FTS_OPTIONS});
INSERT INTO {facts} ({facts}, rank) VALUES ('secure-delete', 1);
INSERT INTO {episodes} ({episodes}, rank) VALUES ('secure-delete', 1);
DROP TRIGGER IF EXISTS recall_versions_del_{k};
DROP TRIGGER IF EXISTS recall_episodes_redact_{k};
DROP TRIGGER IF EXISTS recall_episodes_del_{k};
CREATE TRIGGER IF NOT EXISTS recall_versions_del_{k} AFTER DELETE ON versions
WHEN {old} = {k}
BEGIN
    {fact_stats}
    DELETE FROM {facts} WHERE rowid = OLD.vid;
    DELETE FROM recall_fact_docs WHERE vid = OLD.vid;
END;
CREATE TRIGGER IF NOT EXISTS recall_episodes_redact_{k} AFTER UPDATE OF content ON episodes
WHEN NEW.content IS NOT OLD.content AND {old} = {k}
BEGIN
    {episode_stats}
    {drop_episode}
END;
CREATE TRIGGER IF NOT EXISTS recall_episodes_del_{k} AFTER DELETE ON episodes
WHEN {old} = {k}
BEGIN
    {episode_stats}
    {drop_episode}
END;
"""


def ddl() -> str:
    """Every shard's tables and erasure triggers, and the live counters' closing trigger.
    Running it again changes nothing: tables ``IF NOT EXISTS``, the option set again, and the
    shard triggers dropped and created again (which also replaces schema 8's, whose erasures
    marked their shard for a merge)."""
    close = """
CREATE TRIGGER IF NOT EXISTS recall_versions_close AFTER UPDATE OF sys_to ON versions
WHEN OLD.sys_to IS NULL AND NEW.sys_to IS NOT NULL
BEGIN
    UPDATE recall_stats SET documents = documents - 1,
        tokens = tokens - (SELECT length FROM recall_fact_docs WHERE vid = OLD.vid)
    WHERE scope = OLD.scope AND corpus = 'fact'
      AND EXISTS (SELECT 1 FROM recall_fact_docs WHERE vid = OLD.vid);
END;
"""
    return ("".join(_shard_ddl(k) for k in range(SHARDS)) + close + VECTOR_DDL
            + EPISODE_VECTOR_DDL)


#: The vector index (schema 4, kg_memory.store.sqlite.recall_vectors): a scope is enrolled on
#: its first hybrid recall; from then on every revision indexed for it (written, re-indexed
#: after a rename, migrated) waits in the backlog until the next recall embeds it, and a
#: vector leaves with its index row (a forget, a re-index), in the same transaction.
#: Schema 5: each vector's sign sketch, clustered by scope beside a copy of its revision's
#: intervals (kept current by ``recall_sketches_close``), so a search reads one narrow table
#: in scope order instead of every vector joined to its revision.
VECTOR_DDL = """
CREATE TABLE IF NOT EXISTS recall_vector_scopes (scope TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recall_vector_backlog (vid INTEGER PRIMARY KEY, scope TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS recall_vector_backlog_scope ON recall_vector_backlog (scope);
CREATE TABLE IF NOT EXISTS recall_vectors (
    vid INTEGER PRIMARY KEY, scope TEXT NOT NULL, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS recall_sketches (
    scope TEXT NOT NULL, vid INTEGER NOT NULL, sys_from INTEGER NOT NULL, sys_to INTEGER,
    valid_from INTEGER NOT NULL, valid_to INTEGER, sketch BLOB NOT NULL,
    PRIMARY KEY (scope, vid)) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS recall_vectors_doc AFTER INSERT ON recall_fact_docs
BEGIN
    DELETE FROM recall_vectors WHERE vid = NEW.vid;
    INSERT OR IGNORE INTO recall_vector_backlog (vid, scope)
        SELECT NEW.vid, v.scope FROM versions v
        JOIN recall_vector_scopes s ON s.scope = v.scope WHERE v.vid = NEW.vid;
END;
CREATE TRIGGER IF NOT EXISTS recall_vectors_undoc AFTER DELETE ON recall_fact_docs
BEGIN
    DELETE FROM recall_vectors WHERE vid = OLD.vid;
    DELETE FROM recall_vector_backlog WHERE vid = OLD.vid;
END;
CREATE TRIGGER IF NOT EXISTS recall_vectors_del AFTER DELETE ON versions
BEGIN
    DELETE FROM recall_vectors WHERE vid = OLD.vid;
    DELETE FROM recall_vector_backlog WHERE vid = OLD.vid;
END;
CREATE TRIGGER IF NOT EXISTS recall_sketches_del AFTER DELETE ON recall_vectors
BEGIN
    DELETE FROM recall_sketches WHERE scope = OLD.scope AND vid = OLD.vid;
END;
CREATE TRIGGER IF NOT EXISTS recall_sketches_close AFTER UPDATE OF sys_to, valid_to ON versions
BEGIN
    UPDATE recall_sketches SET sys_to = NEW.sys_to, valid_to = NEW.valid_to
    WHERE scope = NEW.scope AND vid = NEW.vid;
END;
"""

#: Schema 13: episodes' vectors (kg_memory.store.sqlite.recall_episode_vectors), keyed by the
#: episode's recall row (``recall_episode_docs.rid``) as a revision's are by its vid, in the
#: same enrolment: from an enrolled scope's first hybrid recall, every episode indexed for it
#: waits in its backlog, and its vector and sketch leave with its index row (a forget, a
#: redaction, a re-index) in the same transaction. An episode's intervals never close (valid
#: from when it happened, believed from when it was recorded), so its sketch's copy of them
#: is written once.
EPISODE_VECTOR_DDL = """
CREATE TABLE IF NOT EXISTS recall_episode_vector_backlog (
    rid INTEGER PRIMARY KEY, scope TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS recall_episode_vector_backlog_scope
    ON recall_episode_vector_backlog (scope);
CREATE TABLE IF NOT EXISTS recall_episode_vectors (
    rid INTEGER PRIMARY KEY, scope TEXT NOT NULL, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS recall_episode_sketches (
    scope TEXT NOT NULL, rid INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
    occurred_at INTEGER NOT NULL, sketch BLOB NOT NULL,
    PRIMARY KEY (scope, rid)) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS recall_episode_vectors_doc AFTER INSERT ON recall_episode_docs
BEGIN
    DELETE FROM recall_episode_vectors WHERE rid = NEW.rid;
    INSERT OR IGNORE INTO recall_episode_vector_backlog (rid, scope)
        SELECT NEW.rid, e.scope FROM episodes e
        JOIN recall_vector_scopes s ON s.scope = e.scope WHERE e.episode_id = NEW.episode_id;
END;
CREATE TRIGGER IF NOT EXISTS recall_episode_vectors_undoc AFTER DELETE ON recall_episode_docs
BEGIN
    DELETE FROM recall_episode_vectors WHERE rid = OLD.rid;
    DELETE FROM recall_episode_vector_backlog WHERE rid = OLD.rid;
END;
CREATE TRIGGER IF NOT EXISTS recall_episode_sketches_del AFTER DELETE ON recall_episode_vectors
BEGIN
    DELETE FROM recall_episode_sketches WHERE scope = OLD.scope AND rid = OLD.rid;
END;
"""


if __name__ == "__main__":
    print("-- Generated by `python -m kg_memory.store.sqlite.recall_shards`: do not edit.")
    print("-- Recall's FTS5 shards and their erasure triggers (see recall_shards.py).", end="")
    print(ddl())
