"""Fewer pages per commit (schema 14, issue 28): the outbox without ``AUTOINCREMENT``, recall's
FTS5 tables without column sizes.

A Neo4j mirror reads the outbox by increasing ``seq`` from its cursor. ``AUTOINCREMENT`` kept
the numbers from being reused with a ``sqlite_sequence`` row that every commit rewrote (one
more page per commit); schema 14 drops it and keeps the same guarantee by never deleting the
outbox's highest row. Recall ranks with its own lengths and counters, never FTS5's, so the
shard tables keep no ``_docsize`` rows (one more page in every commit that indexes a row).
Rules protected:

- a commit writes no ``sqlite_sequence`` row and no FTS5 column sizes (the saving);
- no number is issued twice nor goes backwards, after a mirror's rows are pruned or a forget's
  erased keys dropped: the highest row stays, blanked, and no reader resolves a blank row;
- the highest row cannot be deleted, even with raw SQL;
- a schema 13 file (``AUTOINCREMENT``, rows pruned past its highest held; shard tables with
  column sizes) is refused until ``kg-memory migrate``, which keeps every outbox row and seq,
  continues the sequence after the last number it ever issued, keeps every indexed row under
  its rowid, and answers every question as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.cli import app
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.services.check import check
from kg_memory.store.sqlite import SqliteStore, driver
from kg_memory.store.sqlite.outbox_sequence import drop_rows
from kg_memory.store.sqlite.rebuild import triggers_set_aside
from kg_memory.store.sqlite.recall_shards import SHARDS
from tests.conftest import ManualClock, day, episode, fact

#: The outbox as schema 13 created it.
_SCHEMA_13_OUTBOX = ("CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                     "tbl TEXT NOT NULL, key TEXT NOT NULL)")


def _fill(memory: Memory, clock: ManualClock, first: int, count: int) -> None:
    for n in range(first, first + count):
        clock.now = day(n)
        memory.ingest(episode(f"op-{n}", "user", day(n), content=f"turn {n} about cedar",
                              assertions=[fact("ana", "city", f"city-{n}"),
                                          fact(f"e{n}", "likes", "tea")]))


def _filled(tmp_path: Path, clock: ManualClock, count: int) -> Path:
    """A new store file holding ``count`` turns, closed."""
    db = tmp_path / "m.db"
    with Memory.open(db, clock=clock) as memory:
        _fill(memory, clock, 0, count)
    return db


def _rows(db: Path) -> list[tuple[int, str, str]]:
    with driver.connect(db) as raw:
        return [tuple(r) for r in raw.execute("SELECT seq, tbl, key FROM outbox ORDER BY seq")]


def _indexed(db: Path) -> list[tuple[str, int, str, str]]:
    """Every shard's rows: table, rowid, scope token and indexed text."""
    with driver.connect(db) as raw:
        return [(table, *r) for k in range(SHARDS) for table in (
            f"recall_facts_{k}", f"recall_episodes_{k}") for r in raw.execute(
                f"SELECT rowid, scope, text FROM {table} ORDER BY rowid")]


def _answers(memory: Memory) -> list[Any]:
    report = check(memory.store)
    return [
        [f.model_dump_json() for f in memory.asof(subject="ana", scope="u1").facts],
        [h.model_dump_json() for h in memory.history("ana", "city", scope="u1")],
        [h.id for h in memory.recall("cedar", scope="u1", limit=50).results],
        (report.ok, report.violations),
    ]


def _schema(db: Path) -> dict[str, str]:
    with driver.connect(db) as raw:
        return {r[0]: r[1] or "" for r in raw.execute("SELECT name, sql FROM sqlite_master")}


def test_a_commit_writes_no_sqlite_sequence_row_and_no_column_sizes(
    tmp_path: Path, clock: ManualClock
) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, clock=clock) as memory:
        _fill(memory, clock, 0, 2)
        assert [h.id for h in memory.recall("cedar", scope="u1").results]
    schema = _schema(db)
    assert "AUTOINCREMENT" not in schema["outbox"].upper()
    assert "sqlite_sequence" not in schema  # no table of the file uses AUTOINCREMENT any more
    assert not [name for name in schema if name.endswith("_docsize")]
    assert len(_rows(db)) > 4


def test_no_number_is_reused_after_every_applied_row_is_pruned(
    tmp_path: Path, clock: ManualClock
) -> None:
    db = _filled(tmp_path, clock, 3)
    store = SqliteStore.open(db, create=False)
    try:
        last = store.outbox.last()
        with store.batch():
            store.outbox.prune(last)
        # The highest row stays as the mark, blank: nothing for a mirror to apply.
        assert _rows(db) == [(last, "", "")]
        assert store.outbox.pending(0) == 1
        changes = store.outbox.changes(0, 100)
        assert changes is not None
        assert (changes.count, changes.last) == (0, last)
    finally:
        store.close()
    with Memory.open(db, clock=clock, create=False) as memory:
        _fill(memory, clock, 3, 1)
        assert check(memory.store).ok
    after = _rows(db)
    assert after[0] == (last, "", "")
    assert [seq for seq, _, _ in after[1:]] == list(range(last + 1, last + len(after)))


def test_dropping_rows_blanks_the_highest_instead_of_deleting_it(
    tmp_path: Path, clock: ManualClock
) -> None:
    db = _filled(tmp_path, clock, 2)
    held = _rows(db)
    with driver.connect(db) as raw:
        assert drop_rows(raw, "tbl = ?", (held[-1][1],)) == sum(
            1 for _, tbl, _ in held if tbl == held[-1][1])
    after = _rows(db)
    assert after[-1] == (held[-1][0], "", "")
    assert after[:-1] == [r for r in held[:-1] if r[1] != held[-1][1]]


def test_the_highest_row_cannot_be_deleted_even_with_raw_sql(
    tmp_path: Path, clock: ManualClock
) -> None:
    db = _filled(tmp_path, clock, 1)
    held = _rows(db)
    with driver.connect(db) as raw, pytest.raises(driver.IntegrityError, match="never delete"):
        raw.execute("DELETE FROM outbox")
    assert _rows(db) == held
    with driver.connect(db) as raw:  # every other row may go
        raw.execute("DELETE FROM outbox WHERE seq < ?", (held[-1][0],))
    assert _rows(db) == held[-1:]


def _as_schema_13(db: Path, issued: int) -> None:
    """Rewrite ``db``'s outbox as schema 13 kept it: ``AUTOINCREMENT``, its sequence at
    ``issued`` although the rows holding the last numbers were pruned."""
    with driver.connect(db, isolation_level=None) as raw:
        raw.execute("BEGIN")
        triggers = raw.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                               "AND sql LIKE '%outbox%'").fetchall()
        for name, _ in triggers:
            raw.execute(f"DROP TRIGGER {name}")
        raw.execute("ALTER TABLE outbox RENAME TO outbox_old")
        raw.execute(_SCHEMA_13_OUTBOX)
        raw.execute("INSERT INTO outbox SELECT * FROM outbox_old")
        raw.execute("DROP TABLE outbox_old")
        raw.execute("CREATE INDEX outbox_named ON outbox (key) "
                    "WHERE tbl IN ('entities', 'edges')")
        for name, sql in triggers:
            if name != "outbox_keep_last":
                raw.execute(sql)
        raw.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'outbox'", (issued,))
        shards = [f"recall_{corpus}_{k}" for k in range(SHARDS) for corpus in ("facts",
                                                                              "episodes")]
        with triggers_set_aside(raw, shards):  # with FTS5's column sizes, as before 14
            for table in shards:
                raw.execute("CREATE VIRTUAL TABLE old USING fts5(scope, text, "
                            "tokenize = 'unicode61 remove_diacritics 0')")
                raw.execute("INSERT INTO old (old, rank) VALUES ('secure-delete', 1)")
                raw.execute(f"INSERT INTO old (rowid, scope, text) "
                            f"SELECT rowid, scope, text FROM {table}")
                raw.execute(f"DROP TABLE {table}")
                raw.execute(f"ALTER TABLE old RENAME TO {table}")
        raw.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")
        raw.execute("COMMIT")


def test_a_schema_13_file_migrates_keeping_every_row_and_the_last_number_issued(
    tmp_path: Path, clock: ManualClock
) -> None:
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION

    db = tmp_path / "m.db"
    with Memory.open(db, clock=clock) as memory:
        _fill(memory, clock, 0, 4)
        before = _answers(memory)
    held, indexed = _rows(db), _indexed(db)
    issued = held[-1][0] + 7  # a mirror applied, and pruned, seven rows past the last held
    with driver.connect(db) as raw:
        triggers = {r[0] for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    _as_schema_13(db, issued)
    assert sum(name.endswith("_docsize") for name in _schema(db)) == 2 * SHARDS
    assert _indexed(db) == indexed
    with pytest.raises(StoreUnavailable, match=r"has schema 13, .* run `kg-memory migrate`"):
        Memory.open(db, create=False)
    migrated = CliRunner().invoke(app, ["migrate", "--store", str(db), "--json"])
    assert migrated.exit_code == 0, migrated.output
    assert '"migrated"' in migrated.output
    assert SCHEMA_VERSION == "14"
    assert _rows(db) == [*held, (issued, "", "")]
    assert _indexed(db) == indexed
    assert not [name for name in _schema(db) if name.endswith("_docsize")]
    with driver.connect(db) as raw:
        [sql] = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'outbox'").fetchone()
        assert "AUTOINCREMENT" not in sql.upper()
        assert raw.execute("SELECT count(*) FROM sqlite_sequence WHERE name = 'outbox'"
                           ).fetchone()[0] == 0
        assert {r[0] for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")} == triggers
        assert raw.execute("SELECT count(*) FROM sqlite_master WHERE name = 'outbox_named'"
                           ).fetchone()[0] == 1
    with Memory.open(db, clock=clock, create=False) as memory:
        assert _answers(memory) == before
        _fill(memory, clock, 4, 1)  # the sequence continues past every number ever issued
        assert check(memory.store).ok
    assert min(seq for seq, _, _ in _rows(db)[len(held) + 1:]) == issued + 1
    again = CliRunner().invoke(app, ["migrate", "--store", str(db), "--json"])
    assert '"up-to-date"' in again.output
