"""The embedded recall index's shards: FTS5 tables per group of tenants, and their triggers.

A forget run must merge the FTS5 segments it deleted from (FTS5 keeps a deleted term in older
segments until they merge), and a merge rewrites its whole table. With one table that is the
whole store's index on every forget; with :data:`SHARDS` tables, one shard's. A tenant's
searches read its shard only. The shard of a scope is computed from its last three characters
and its length, by SQL built-ins alone, so the triggers that erase from the right shard need no
application function and fire on any connection.

The tables and triggers are written out in ``recall.sql`` beside ``schema.sql`` (reviewable
SQL, loaded like the schema); :func:`ddl` generates that file
(``python -m kg_memory.store.sqlite.recall_shards > kg_memory/store/sqlite/recall.sql``) and a
test checks the two agree, and that :func:`shard` agrees with :func:`shard_expression`.

>>> [shard(s) for s in ("u1", "acme", "user-000042")]
[8, 9, 1]
"""

from __future__ import annotations

__all__ = [
    "SHARDS", "VECTOR_DDL", "ddl", "episodes_table", "facts_table", "shard", "shard_expression",
]

SHARDS = 16


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
    erased = f"INSERT OR REPLACE INTO meta (key, value) VALUES ('recall_erased_{k}', '1');"
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
    scope, text, tokenize = 'unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS {episodes} USING fts5(
    scope, text, tokenize = 'unicode61 remove_diacritics 0');
CREATE TRIGGER IF NOT EXISTS recall_versions_del_{k} AFTER DELETE ON versions
WHEN {old} = {k}
BEGIN
    {fact_stats}
    DELETE FROM {facts} WHERE rowid = OLD.vid;
    DELETE FROM recall_fact_docs WHERE vid = OLD.vid;
    {erased}
END;
CREATE TRIGGER IF NOT EXISTS recall_episodes_redact_{k} AFTER UPDATE OF content ON episodes
WHEN NEW.content IS NOT OLD.content AND {old} = {k}
BEGIN
    {episode_stats}
    {drop_episode}
    {erased}
END;
CREATE TRIGGER IF NOT EXISTS recall_episodes_del_{k} AFTER DELETE ON episodes
WHEN {old} = {k}
BEGIN
    {episode_stats}
    {drop_episode}
    {erased}
END;
"""


def ddl() -> str:
    """Every shard's tables and erasure triggers, and the live counters' closing trigger
    (``IF NOT EXISTS`` throughout: running it again changes nothing)."""
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
    return "".join(_shard_ddl(k) for k in range(SHARDS)) + close + VECTOR_DDL


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


if __name__ == "__main__":
    print("-- Generated by `python -m kg_memory.store.sqlite.recall_shards`: do not edit.")
    print("-- Recall's FTS5 shards and their erasure triggers (see recall_shards.py).", end="")
    print(ddl())
