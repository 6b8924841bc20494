"""The embedded store's own SQLite (issue 28): the engine comes from a wheel, not from the
interpreter, and the store uses what it brings.

Rules protected: the store runs on the bundled SQLite (3.42 or later on every platform), not
the interpreter's; every recall FTS5 table erases with ``secure-delete``, so a forget leaves no
erased term in any byte of the files without merging (rewriting) its shard; extensions load
through the driver (sqlite-vec answers a KNN query) and only through it (SQL cannot load one);
a store written by schema 8's code on the interpreter's SQLite 3.40 is refused until
``kg-memory migrate``, which keeps every answer and erases what its unfinished scrub left.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_vec

from kg_memory import Memory, StoreUnavailable
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall_shards import SHARDS, episodes_table, facts_table, shard
from kg_memory.store.sqlite.schema import SCHEMA_VERSION
from tests.conftest import ManualClock, day, episode, fact
from tests.fixtures.store_schema8 import ERASED, HERE, KEPT
from tests.procs import ROOT

CANARY = "zqxsecuredeletecanary5e"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _secure_delete(conn: driver.Connection, table: str) -> int | None:
    row = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'secure-delete'").fetchone()
    return None if row is None else int(row[0])


def _segments(conn: driver.Connection, table: str) -> set[int]:
    """The ids of the FTS5 table's segments: a ``_data`` rowid above 10 (the averages and the
    structure record) holds its segment id in the bits above 37."""
    return {r[0] >> 37 for r in conn.execute(f"SELECT id FROM {table}_data WHERE id > 10")}


def _files_with(directory: Path, needle: str) -> list[str]:
    # Also without its first letters: FTS5 prefix-compresses a term against the one before it.
    needles = (needle.encode(), needle[3:].encode())
    return [p.name for p in directory.iterdir() if any(n in p.read_bytes() for n in needles)]


def test_the_store_runs_on_the_bundled_sqlite_not_the_interpreters(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as memory:
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        [(version,)] = conn.execute("SELECT sqlite_version()").fetchall()
    assert version == driver.sqlite_version
    assert _version(version) >= (3, 42)  # FTS5 secure-delete


def test_every_recall_table_erases_with_fts5_secure_delete(tmp_path: Path) -> None:
    Memory.open(tmp_path / "m.db").close()
    with driver.connect(tmp_path / "m.db") as raw:
        options = {table: _secure_delete(raw, table) for k in range(SHARDS)
                   for table in (facts_table(k), episodes_table(k))}
    assert options == dict.fromkeys(options, 1)
    assert len(options) == 2 * SHARDS


def test_a_forget_erases_every_byte_without_merging_the_shard(tmp_path: Path) -> None:
    """Secure-delete removes the term from the segment that holds it: the forget marks no
    shard and rewrites none (its other segments keep their rows), yet no byte is left."""
    store_dir = tmp_path / "store"
    clock = ManualClock(day(0))
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        table = facts_table(shard("u1"))
        # Every transaction keeps its own segment (no automatic merges), so a merge would show.
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0)")
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', 1000)")
        planted = memory.ingest(episode("secret-1", "user", day(0),
                                        content=f"the door code is {CANARY} today",
                                        assertions=[fact("door", "code", f"{CANARY} daily")]))
        for n in range(60):  # one transaction each: many segments around the canary's
            clock.now = day(0.01 * (n + 1))
            memory.ingest(episode(f"other-{n}", "user", clock.now, content=f"note {n} on doors",
                                  assertions=[fact(f"s{n}", "note", f"door note {n}")]))
        clock.now = day(1)
        segments_before = _segments(conn, table)
        assert len(segments_before) > 30
        assert _files_with(store_dir, CANARY)  # it really was stored (so the scan can fail)
        assert memory.forget(f"episode:{planted.episode_id}@u1").status == "complete"
        assert _files_with(store_dir, CANARY) == []
        assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'recall_erased%'"
                            ).fetchone()[0] == 0
        # No merge ran: a merge of the shard would fold its segments into one new segment.
        assert len(_segments(conn, table) & segments_before) >= len(segments_before) - 1
        assert memory.recall("door note 7", scope="u1").status == "ok"
        assert memory.recall(CANARY, scope="u1").status == "empty"


def test_sqlite_vec_loads_through_the_driver_and_answers_a_knn_query() -> None:
    rng = random.Random(28)
    vectors = {rowid: [rng.uniform(-1, 1) for _ in range(8)] for rowid in range(1, 201)}
    query = [rng.uniform(-1, 1) for _ in range(8)]
    conn = driver.connect(":memory:")
    try:
        driver.load_extension(conn, sqlite_vec.loadable_path())
        conn.execute("CREATE VIRTUAL TABLE vec USING vec0(embedding float[8])")
        conn.executemany("INSERT INTO vec (rowid, embedding) VALUES (?, ?)",
                         [(rowid, sqlite_vec.serialize_float32(v)) for rowid, v in vectors.items()])
        found = conn.execute(
            "SELECT rowid, distance FROM vec WHERE embedding MATCH ? AND k = 5 "
            "ORDER BY distance", [sqlite_vec.serialize_float32(query)]).fetchall()
    finally:
        conn.close()
    # The reference: exact Euclidean distances in Python.
    exact = sorted((math.dist(v, query), rowid) for rowid, v in vectors.items())[:5]
    assert [r[0] for r in found] == [rowid for _, rowid in exact]
    assert [r[1] for r in found] == pytest.approx([d for d, _ in exact], rel=1e-5)


def test_sql_cannot_load_an_extension_outside_the_driver() -> None:
    conn = driver.connect(":memory:")
    try:
        driver.load_extension(conn, sqlite_vec.loadable_path())
        with pytest.raises(driver.OperationalError, match="not authorized"):
            conn.execute("SELECT load_extension(?)", [sqlite_vec.loadable_path()])
    finally:
        conn.close()


def test_a_schema_8_store_from_the_interpreters_sqlite_migrates_and_works(
        tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    db = store_dir / "m.db"
    db.write_bytes(gzip.decompress(HERE.read_bytes()))
    # Its unfinished scrub left the erased episode's terms in an older segment.
    assert _files_with(store_dir, ERASED)
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, create=False)
    migrated = subprocess.run(
        [sys.executable, "-c", "from kg_memory.cli import main; main()",
         "migrate", "--store", str(db), "--json"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=120, env={**os.environ})
    assert migrated.returncode == 0, migrated.stderr
    assert json.loads(migrated.stdout)["status"] == "migrated"
    assert _files_with(store_dir, ERASED) == []
    with driver.connect(db) as raw:
        assert raw.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                           ).fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("SELECT count(*) FROM meta WHERE key LIKE 'recall_erased%'"
                           ).fetchone()[0] == 0
        assert {_secure_delete(raw, facts_table(k)) for k in range(SHARDS)} == {1}
    clock = ManualClock(day(2))
    with Memory.open(db, clock=clock, create=False) as memory:
        assert memory.asof(subject="j17", scope="u1").values() == [f"{KEPT} pdf"]
        assert memory.asof(subject="ana", scope="u2").values() == ["vegan"]
        assert memory.asof(subject="ana", scope="u1").values() == []
        assert memory.recall(ERASED, scope="u1").status == "empty"
        kept = memory.recall(KEPT, scope="u1")
        assert {h.type for h in kept.results} == {"fact", "episode"}
        # It keeps working: a forget on the migrated file erases every byte, with no merge.
        [planted] = [h for h in kept.results if h.type == "episode"]
        assert memory.forget(f"episode:{planted.id}@u1").status == "complete"
        assert memory.recall(KEPT, scope="u1").status == "empty"
    assert _files_with(store_dir, KEPT) == []
