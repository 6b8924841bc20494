"""The embedded store: durability, immutability, the on-disk index, unavailability."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kg_memory import Memory, StoreUnavailable
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact


def test_acknowledged_writes_survive_reopening(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "m.db"
    with Memory.open(path, clock=clock) as mem:
        mem.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "vegetarian")]))
    with Memory.open(path, create=False) as mem:
        assert mem.asof(subject="ana").values() == ["vegetarian"]


#: Where the power goes out while the second episode is written: while the batch planner
#: plans it, after the planner wrote its rows but before the commit, and inside the direct
#: statement-by-statement unit of work (a forget run's; here driven by hand).
_DYING = {
    "planning": """
        from kg_memory.store.sqlite.planned import PlannedUnit
        original = PlannedUnit.insert_version
        def dying(self, draft):
            result = original(self, draft)
            if draft.value == "fish":
                os._exit(9)  # no rollback, no close: the power goes out
            return result
        PlannedUnit.insert_version = dying
        mem.ingest(second)
    """,
    "flushed, not committed": """
        from kg_memory.store.sqlite import batching
        original = batching.flush
        def dying(conn, plan):
            original(conn, plan)
            if any(w.version.value == "fish" for w in plan.journal.inserted.values()):
                os._exit(9)
        batching.flush = dying
        mem.ingest(second)
    """,
    "statement by statement": """
        from kg_memory.services.ingestion import ingest_record
        from kg_memory.store.sqlite.tx import SqliteTransaction
        original = SqliteTransaction.insert_version
        def dying(self, draft):
            result = original(self, draft)
            if draft.value == "fish":
                os._exit(9)
            return result
        SqliteTransaction.insert_version = dying
        with mem.store.transaction(second.scope) as tx:
            ingest_record(tx, second, mem.policy, mem.store.secret)
    """,
}


@pytest.mark.parametrize("dying", sorted(_DYING))
def test_a_crash_mid_episode_leaves_no_partial_episode(tmp_path: Path, dying: str) -> None:
    """A process dies inside a transaction; on reopen the episode is wholly absent and every
    episode committed before it is intact."""
    path = tmp_path / "m.db"
    script = textwrap.dedent(f"""
        import os
        from kg_memory import Memory
        from tests.conftest import day, episode, fact

        mem = Memory.open({str(path)!r})
        mem.ingest(episode("first", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
        second = episode("second", "user", day(1), assertions=[
            fact("ana", "diet", "fish"), fact("ana", "city", "Lyon")])
    """) + textwrap.dedent(_DYING[dying])
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 9, proc.stderr
    with Memory.open(path, create=False) as mem:
        assert mem.asof(subject="ana").values() == ["veg"]
        assert len(mem.history("ana")) == 1
        assert mem.history("ana")[0].version.system.end is None
    raw = driver.connect(path)
    assert raw.execute("SELECT operation_id FROM episodes").fetchall() == [("first",)]
    raw.close()


def test_revisions_cannot_be_edited_even_with_raw_sql(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "m.db"
    with Memory.open(path, clock=clock) as mem:
        mem.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "vegetarian")]))
    raw = driver.connect(path)
    with pytest.raises(driver.IntegrityError, match="immutable"):
        raw.execute("UPDATE versions SET value = '\"vegan\"'")
    raw.execute("UPDATE versions SET sys_to = sys_from + 1")  # closing once is allowed
    with pytest.raises(driver.IntegrityError, match="immutable"):
        raw.execute("UPDATE versions SET sys_to = sys_from + 2")  # ...but only once
    raw.close()


def test_system_time_strictly_increases_when_the_clock_stands_still(
    tmp_path: Path, clock: ManualClock
) -> None:
    with Memory.open(tmp_path / "m.db", clock=clock) as mem:
        times = [
            mem.ingest(
                episode(f"op{i}", "user", day(0), assertions=[fact("x", "n", i)])
            ).system_time
            for i in range(5)
        ]
    stamps = [t for t in times if t is not None]
    assert len(stamps) == 5
    assert stamps == sorted(set(stamps))
    assert len(set(times)) == 5


def test_system_time_never_goes_backwards_when_the_clock_does(
    tmp_path: Path, clock: ManualClock
) -> None:
    with Memory.open(tmp_path / "m.db", clock=clock) as mem:
        clock.now = day(5)
        first = mem.ingest(episode("a", "user", day(0), assertions=[fact("x", "n", 1)]))
        clock.now = day(1)  # the machine's clock was stepped back
        second = mem.ingest(episode("b", "user", day(0), assertions=[fact("x", "n", 2)]))
    assert first.system_time is not None
    assert second.system_time is not None
    assert second.system_time > first.system_time


def test_asof_uses_the_on_disk_index(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "m.db"
    with Memory.open(path, clock=clock) as mem:
        mem.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "vegetarian")]))
    raw = driver.connect(path)
    plan = " ".join(
        row[3]
        for row in raw.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM versions WHERE subject = ? AND predicate = ? "
            "AND sys_from <= ? AND (sys_to IS NULL OR sys_to > ?) AND valid_from <= ? "
            "AND (valid_to IS NULL OR valid_to > ?)",
            ("ana", "diet", 1, 1, 1, 1),
        )
    )
    raw.close()
    assert "USING INDEX versions_asof" in plan


def test_missing_store_is_unavailable_not_empty(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match="no kg-memory store"):
        Memory.open(tmp_path / "absent.db", create=False)


def test_a_file_that_is_not_a_store_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailable, match="cannot open"):
        Memory.open(path)


def test_empty_answer_is_an_answer(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as mem:
        answer = mem.asof(subject="nobody")
    assert answer.status == "ok"
    assert answer.facts == ()
