"""The embedded store's outbox: what changed since a cursor, and the rows behind the keys.

Triggers (schema.sql) append ``(tbl, key)`` in the transaction of each change; this reader
turns a slice of the outbox into the current rows a mirror must upsert, and the keys whose rows
are gone (erased), which the mirror must delete. It reads keys, never stored history, so a
forgotten payload cannot come back through it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.outbox_sequence import drop_rows
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard

__all__ = ["Changes", "Outbox"]

_SEP = "\x1f"
#: Key pairs per query: two parameters each, well inside SQLite's limit of 32,766.
_PAIRS_PER_QUERY = 4000


class Changes(BaseModel):
    """One slice of the outbox, resolved to current rows (upserts) and missing keys (deletes)."""

    model_config = ConfigDict(frozen=True)

    first: int
    last: int
    rows: int  # outbox rows in this slice
    versions: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []  # assertion_id and the revisions it still has
    deleted_facts: list[str] = []
    episodes: list[dict[str, Any]] = []
    deleted_episodes: list[str] = []
    entities: list[dict[str, Any]] = []
    deleted_entities: list[dict[str, str]] = []
    edges: list[dict[str, Any]] = []
    deleted_edges: list[dict[str, Any]] = []
    activities: list[dict[str, Any]] = []
    tombstones: list[dict[str, Any]] = []

    @property
    def count(self) -> int:
        return (len(self.versions) + len(self.deleted_facts) + len(self.episodes)
                + len(self.deleted_episodes) + len(self.entities) + len(self.deleted_entities)
                + len(self.edges) + len(self.deleted_edges) + len(self.activities)
                + len(self.tombstones))


def _marks(values: list[str]) -> str:
    return ", ".join("?" for _ in values)


class Outbox:
    def __init__(self, conn: driver.Connection) -> None:
        self._conn = conn

    def last(self) -> int:
        row = self._conn.execute("SELECT coalesce(max(seq), 0) FROM outbox").fetchone()
        return int(row[0])

    def pending(self, after: int) -> int:
        return int(self._conn.execute(
            "SELECT count(*) FROM outbox WHERE seq > ?", (after,)).fetchone()[0])

    def prune(self, upto: int) -> None:
        """Forget the keys a mirror has applied (they are content-free, but unbounded); the
        highest row stays, blanked, as the sequence's high-water mark (outbox_sequence)."""
        drop_rows(self._conn, "seq <= ?", (upto,))

    def changes(self, after: int, limit: int) -> Changes | None:
        rows = self._conn.execute(
            "SELECT seq, tbl, key FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, limit)).fetchall()
        if not rows:
            return None
        # Each table's keys once, in first-seen order: a dict as an ordered set (a list's `in`
        # made a slice of n rows cost n^2 / 2 comparisons: 7 s of a 1e5 sync's client time).
        seen: dict[str, dict[str, None]] = {}
        for row in rows:
            seen.setdefault(row["tbl"], {})[row["key"]] = None
        keys = {tbl: list(found) for tbl, found in seen.items()}
        out: dict[str, Any] = {"first": rows[0]["seq"], "last": rows[-1]["seq"], "rows": len(rows)}
        self._versions(keys.get("versions", []), out)
        self._simple("episodes", "episode_id", keys.get("episodes", []), out)
        self._episode_texts(out["episodes"])
        self._entities(keys.get("entities", []), out)
        self._edges(keys.get("edges", []), out)
        ids = keys.get("activities", [])
        out["activities"] = [dict(r) for r in self._conn.execute(
            f"SELECT * FROM activities WHERE activity_id IN ({_marks(ids)})", ids)] if ids else []
        ids = keys.get("tombstones", [])
        out["tombstones"] = [dict(r) for r in self._conn.execute(
            f"SELECT * FROM tombstones WHERE key IN ({_marks(ids)})", ids)] if ids else []
        # Built here from the store's own rows: validating every row dict again was a tenth of
        # a sync's client time.
        return Changes.model_construct(**out)

    def _versions(self, ids: list[str], out: dict[str, Any]) -> None:
        rows = [dict(r) for r in self._conn.execute(
            f"SELECT * FROM versions WHERE assertion_id IN ({_marks(ids)})", ids)] if ids else []
        present: dict[str, list[int]] = {}
        out["versions"] = []
        texts = self._fact_texts(rows)
        for row in rows:
            # The recall text travels with its revision, so a synced Neo4j answers recall the
            # same (its full-text index follows the property); None where nothing was indexed.
            row["recall_text"], row["recall_length"] = texts.get(row.pop("vid"), (None, None))
            present.setdefault(row["assertion_id"], []).append(row["revision"])
            deps = [] if row["depends_on"] == "[]" else json.loads(row["depends_on"])
            row["depends_on"] = deps
            out["versions"].append({
                "assertion_id": row["assertion_id"], "revision": row["revision"],
                "label": str(row["kind"]).capitalize(), "current": row["sys_to"] is None,
                "deps": deps, "props": row,
            })
        out["facts"] = [{"assertion_id": k, "revisions": v} for k, v in present.items()]
        out["deleted_facts"] = [i for i in ids if i not in present]

    def _fact_texts(self, rows: list[dict[str, Any]]) -> dict[int, tuple[str, int]]:
        """Each revision's indexed recall text and length, by vid, from its scope's shard."""
        by_table: dict[str, list[int]] = {}
        for row in rows:
            by_table.setdefault(facts_table(shard(row["scope"])), []).append(row["vid"])
        found: dict[int, tuple[str, int]] = {}
        for table, vids in by_table.items():
            marks = _marks([str(v) for v in vids])
            for r in self._conn.execute(
                    f"SELECT f.rowid, f.text, d.length FROM {table} f JOIN recall_fact_docs d "
                    f"ON d.vid = f.rowid WHERE f.rowid IN ({marks})", vids):
                found[r[0]] = (r[1], r[2])
        return found

    def _episode_texts(self, rows: list[dict[str, Any]]) -> None:
        by_table: dict[str, list[str]] = {}
        for row in rows:
            row["recall_text"] = row["recall_length"] = None
            # The embedded store's own read cache (schema 7): a Neo4j episode, mirrored or
            # written directly, has its content and derives the digest from it.
            row.pop("fingerprint", None)
            by_table.setdefault(episodes_table(shard(row["scope"])), []).append(
                row["episode_id"])
        found: dict[str, tuple[str, int]] = {}
        for table, ids in by_table.items():
            marks = _marks(ids)
            for r in self._conn.execute(
                    f"SELECT d.episode_id, f.text, d.length FROM recall_episode_docs d JOIN "
                    f"{table} f ON f.rowid = d.rid WHERE d.episode_id IN ({marks})", ids):
                found[r[0]] = (r[1], r[2])
        for row in rows:
            row["recall_text"], row["recall_length"] = found.get(row["episode_id"], (None, None))

    def _simple(self, table: str, column: str, ids: list[str], out: dict[str, Any]) -> None:
        rows = [dict(r) for r in self._conn.execute(
            f"SELECT * FROM {table} WHERE {column} IN ({_marks(ids)})", ids)] if ids else []
        found = {r[column] for r in rows}
        out[table] = rows
        out[f"deleted_{table}"] = [i for i in ids if i not in found]

    def _pairs(self, select: str, join: str, pairs: list[tuple[str, str]]) -> list[driver.Row]:
        """Rows of ``WITH w(a, b) AS (VALUES (?, ?), ...) SELECT <select> FROM w JOIN <join>``
        for every pair, in chunks that stay inside SQLite's parameter limit: one query per
        slice, not one per key. The pairs are the outer loop of a join, so each is one seek on
        the table's key. Not ``(x, y) IN (VALUES ...)``: SQLite 3.40 plans that as a scan of
        the whole table per chunk, so a sync read its store once per slice and slowed as the
        store grew (1e5: 7,154 records/s against 12,574 at 1e4). Only placeholders and the
        callers' fixed fragments are joined in; the pairs travel as parameters."""
        found: list[driver.Row] = []
        for start in range(0, len(pairs), _PAIRS_PER_QUERY):
            chunk = pairs[start:start + _PAIRS_PER_QUERY]
            marks = ", ".join("(?, ?)" for _ in chunk)
            found += self._conn.execute(
                f"WITH w(a, b) AS (VALUES {marks}) SELECT " + select + " FROM w JOIN " + join,
                [v for pair in chunk for v in pair]).fetchall()
        return found

    def _entities(self, keys: list[str], out: dict[str, Any]) -> None:
        """Entities are keyed ``scope<US>entity_id``: an id alone names one per scope."""
        wanted = list(dict.fromkeys(tuple(k.split(_SEP, 1)) for k in keys))
        rows = self._pairs("t.*", "entities t ON t.scope = w.a AND t.entity_id = w.b",
                           [(s, e) for s, e in wanted]) if wanted else []
        by_key = {(r["scope"], r["entity_id"]): r for r in rows}
        out["entities"] = []
        for scope, entity_id in wanted:
            row = by_key.get((scope, entity_id))
            if row is not None:
                entity = dict(row)
                entity["owners"] = json.loads(entity["owners"])
                out["entities"].append(entity)
        out["deleted_entities"] = [{"scope": s, "entity_id": e}
                                   for s, e in wanted if (s, e) not in by_key]

    def _edges(self, keys: list[str], out: dict[str, Any]) -> None:
        wanted = [tuple(k.split(_SEP)) for k in keys]
        sources = sorted({(w[0], w[1]) for w in wanted})
        present = {(r["scope"], r["src"], r["type"], r["dst"]): r["since"] for r in self._pairs(
            "t.scope, t.src, t.type, t.dst, t.since", "edges t ON t.scope = w.a AND t.src = w.b",
            sources)} if sources else {}
        out["edges"] = [{"scope": c, "src": s, "type": t, "dst": d,
                         "since": present[(c, s, t, d)]}
                        for c, s, t, d in wanted if (c, s, t, d) in present]
        out["deleted_edges"] = [{"scope": c, "src": s, "type": t, "dst": d}
                                for c, s, t, d in wanted if (c, s, t, d) not in present]
