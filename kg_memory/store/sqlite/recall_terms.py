"""Re-indexing the embedded recall index when recall's terms change (schema 12).

The FTS5 tables hold the terms of :mod:`kg_memory.domain.recall_text`, not the text, so a new
tokeniser or stemmer leaves every stored row speaking an older language: a question stemmed
the new way would miss what was indexed the old way. ``meta.recall_terms`` names the version
(:data:`~kg_memory.domain.recall_text.TERMS`) the index holds; ``kg-memory migrate`` (through
the schema's initialisation) calls :func:`reindex_terms`, which writes every indexed revision
and message again with the current terms (a revision whose text changed loses its vector,
which was embedded from that text, and waits in its scope's vector backlog for the next hybrid
recall to embed it again), inside the caller's transaction, and recounts
``recall_stats`` from the new lengths, so BM25's statistics (live and as of any instant, which
are summed from the same lengths) agree with the rows. Opening a store never does this.
"""

from __future__ import annotations

from kg_memory.domain.recall_text import TERMS, episode_document, fact_document
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import entity_names, scope_token
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard
from kg_memory.store.sqlite.rows import VERSION_COLUMNS, version_from_row

__all__ = ["indexed_terms", "reindex_terms"]

_SLICE = 10_000


def indexed_terms(conn: driver.Connection) -> str | None:
    """The terms version the store's recall index holds (``None``: before schema 12)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'recall_terms'").fetchone()
    return None if row is None else str(row[0])


def _facts(conn: driver.Connection, read: driver.Cursor) -> int:
    done, last = 0, 0
    # In slices of vids, so a large store's revisions are never all in memory at once.
    while rows := read.execute(
            f"SELECT v.vid, {VERSION_COLUMNS} FROM versions v JOIN recall_fact_docs d "
            "ON d.vid = v.vid WHERE v.vid > ? ORDER BY v.vid LIMIT ?",
            (last, _SLICE)).fetchall():
        for row in rows:
            fact = version_from_row(row)
            # The names as the store knows them now, as a rename's re-index writes them.
            text = fact_document(fact, fact.qualifiers.project, fact.qualifiers.exceptions,
                                 entity_names(conn, fact))
            table = facts_table(shard(fact.scope))
            [old] = conn.execute(f"SELECT text FROM {table} WHERE rowid = ?",
                                 (row["vid"],)).fetchone() or (None,)
            if text == old:
                continue
            # The doc row goes and comes back, so its triggers drop the revision's vector
            # (embedded from the old text) and queue it for its enrolled scope again.
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (row["vid"],))
            conn.execute("DELETE FROM recall_fact_docs WHERE vid = ?", (row["vid"],))
            if text:
                conn.execute(f"INSERT INTO {table} (rowid, scope, text) VALUES (?, ?, ?)",
                             (row["vid"], scope_token(fact.scope), text))
                conn.execute("INSERT INTO recall_fact_docs (vid, length) VALUES (?, ?)",
                             (row["vid"], text.count(" ") + 1))
            done += 1
        last = rows[-1]["vid"]
    return done


def _episodes(conn: driver.Connection, read: driver.Cursor) -> int:
    done, last = 0, 0
    while rows := read.execute(
            "SELECT d.rid, e.scope, e.content FROM recall_episode_docs d JOIN episodes e "
            "ON e.episode_id = d.episode_id WHERE d.rid > ? ORDER BY d.rid LIMIT ?",
            (last, _SLICE)).fetchall():
        for row in rows:
            text = episode_document(row["content"])
            table = episodes_table(shard(row["scope"]))
            if text:
                conn.execute(f"UPDATE {table} SET text = ? WHERE rowid = ?", (text, row["rid"]))
                conn.execute("UPDATE recall_episode_docs SET length = ? WHERE rid = ?",
                             (text.count(" ") + 1, row["rid"]))
            else:
                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (row["rid"],))
                conn.execute("DELETE FROM recall_episode_docs WHERE rid = ?", (row["rid"],))
            done += 1
        last = rows[-1]["rid"]
    return done


def reindex_terms(conn: driver.Connection) -> int:
    """Index every revision and message again with the current terms, unless the index
    already holds them; inside the caller's transaction. Returns how many rows it rewrote."""
    if indexed_terms(conn) == TERMS:
        return 0
    # Rows by name whatever the connection's row factory (migrate's connection has none).
    read = conn.cursor()
    read.row_factory = driver.Row
    done = _facts(conn, read) + _episodes(conn, read)
    # The live counters, from the new lengths: revisions still open, every indexed message.
    conn.execute("DELETE FROM recall_stats")
    conn.execute(
        "INSERT INTO recall_stats (scope, corpus, documents, tokens) "
        "SELECT v.scope, 'fact', count(*), sum(d.length) FROM versions v "
        "JOIN recall_fact_docs d ON d.vid = v.vid WHERE v.sys_to IS NULL GROUP BY v.scope")
    conn.execute(
        "INSERT INTO recall_stats (scope, corpus, documents, tokens) "
        "SELECT e.scope, 'episode', count(*), sum(d.length) FROM episodes e "
        "JOIN recall_episode_docs d ON d.episode_id = e.episode_id GROUP BY e.scope")
    conn.execute("INSERT INTO meta (key, value) VALUES ('recall_terms', ?) "
                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [TERMS])
    return done
