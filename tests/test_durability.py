"""Issue 11, durability and concurrency: acknowledged means durable, readers never wait for a
writer, contention is a typed retryable error, and preconditioned writers lose no update.

Every test here uses real processes (a SIGKILLed ingester, a second process holding SQLite's
write lock, concurrent writers), never a mock of the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory import Memory, StoreBusy, StoreUnavailable
from kg_memory.domain.backoff import Backoff
from kg_memory.domain.errors import STORE_BUSY_EXIT
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact
from tests.procs import ROOT, read_acks, spawn, wait_for, write_input


def _stored_operations(db: Path) -> set[str]:
    with driver.connect(db) as raw:
        return {r[0] for r in raw.execute("SELECT operation_id FROM episodes")}


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def _cli(*args: str | Path, env: dict[str, str] | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from kg_memory.cli import main; main()", *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def _seeded(db: Path) -> None:
    with Memory.open(db, clock=ManualClock(day(0))) as memory:
        memory.ingest(episode("seed", "user", day(0), assertions=[fact("ana", "diet", "veg")]))


# -- 1. acknowledged means durable -----------------------------------------------------------


def test_an_episode_acknowledged_by_ingest_many_survives_a_sigkill(tmp_path: Path) -> None:
    """Main called on_report before the batch committed: the child acknowledged 30 episodes,
    was SIGKILLed inside its first 50-episode batch, and none of the 30 was in the store."""
    db, source, acks = tmp_path / "m.db", tmp_path / "in.jsonl", tmp_path / "acks"
    write_input(source, 120)
    child = spawn("ingest_then_hang", db, source, acks, 50, 30)
    try:
        wait_for(child, "ready")
    finally:
        _kill(child)
    acknowledged = [op for op, _ in read_acks(acks)]
    assert len(acknowledged) >= 30
    assert set(acknowledged) <= _stored_operations(db)


def test_the_cli_acknowledges_only_committed_episodes(tmp_path: Path) -> None:
    """``kg-memory ingest --acks`` is killed as soon as it acknowledged anything; everything it
    acknowledged is stored, and re-running the file reports exactly those as duplicates."""
    db, source, acks = tmp_path / "m.db", tmp_path / "in.jsonl", tmp_path / "acks"
    ops = write_input(source, 700)
    child = subprocess.Popen(
        [sys.executable, "-c", "from kg_memory.cli import main; main()", "ingest",
         "--trust-envelopes", str(source), "--store", str(db), "--json", "--acks", str(acks)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not read_acks(acks) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    _kill(child)
    acknowledged = {op for op, _ in read_acks(acks)}
    assert acknowledged, "the CLI acknowledged nothing before it was killed"
    stored = _stored_operations(db)
    assert acknowledged <= stored
    # No partial batch either: what is stored is a prefix of the input.
    assert stored == set(ops[: len(stored)])
    rerun = _cli("ingest", "--trust-envelopes", source, "--store", db, "--json")
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["duplicate"] == len(stored)
    assert summary["accepted"] == len(ops) - len(stored)


def test_a_failing_line_acknowledges_the_lines_before_it(tmp_path: Path) -> None:
    """The batch before a bad line commits, then those episodes are acknowledged, then the
    error propagates."""
    source = tmp_path / "in.jsonl"
    write_input(source, 5)
    with source.open("a", encoding="utf-8") as handle:
        handle.write('{"operation_id": "bad"}\n')
    seen: list[str] = []
    with Memory.open(tmp_path / "m.db") as memory, pytest.raises(Exception, match="line 6"):
        memory.ingest_file(source, on_report=lambda r: seen.append(r.operation_id))
    assert seen == [f"op-{n:06d}" for n in range(5)]
    assert set(seen) == _stored_operations(tmp_path / "m.db")


# -- 2. readers never wait for writers --------------------------------------------------------


def test_readers_answer_while_another_process_holds_the_write_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Main's open ran the schema script and an INSERT into meta, which waited for the lock
    and failed with "database is locked"; with a zero busy timeout any wait fails at once, so
    answering proves the reader took no lock the writer held."""
    db = tmp_path / "m.db"
    _seeded(db)
    monkeypatch.setenv("KG_MEMORY_BUSY_TIMEOUT", "0")
    holder = spawn("hold_write_lock", db, 60)
    try:
        wait_for(holder, "locked")
        with Memory.open(db, create=False) as memory:
            assert memory.asof(subject="ana").values() == ["veg"]
            assert [h.version.value for h in memory.history("ana")] == ["veg"]
        # create=True opens an existing store the same way: it writes nothing either.
        with Memory.open(db) as memory:
            assert memory.asof(subject="ana").values() == ["veg"]
        answered = _cli("asof", "--scope", "u1", "--subject", "ana", "--store", db, "--json",
                        env={"KG_MEMORY_BUSY_TIMEOUT": "0"})
        assert answered.returncode == 0, answered.stderr
        assert [f["value"] for f in json.loads(answered.stdout)["facts"]] == ["veg"]
        assert holder.poll() is None  # the writer still held its transaction throughout
    finally:
        _kill(holder)


def test_opening_a_store_for_reading_leaves_its_file_byte_for_byte(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _seeded(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with Memory.open(db, create=False) as memory:
        memory.asof(subject="ana")
        memory.history("ana")
        memory.refusals()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("create", [False, True])
def test_a_file_of_another_application_is_refused_and_left_untouched(
    tmp_path: Path, create: bool
) -> None:
    """Main added kg-memory's 14 tables to any SQLite file it was pointed at."""
    other = tmp_path / "app.db"
    with driver.connect(other) as raw:
        raw.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        raw.execute("INSERT INTO users (name) VALUES ('ana')")
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    with pytest.raises(StoreUnavailable, match="not a kg-memory store"):
        Memory.open(other, create=create)
    result = _cli("asof", "--scope", "u1", "--store", other)
    assert result.returncode == 3, result.stderr
    assert "not a kg-memory store" in result.stderr
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    with driver.connect(other) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"users"}


def test_an_older_schema_is_refused_until_migrated(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _seeded(db)
    with driver.connect(db) as raw:
        raw.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
        raw.execute("DROP INDEX versions_scope")
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, create=False)
    migrated = _cli("migrate", "--store", db, "--json")
    assert migrated.returncode == 0, migrated.stderr
    assert json.loads(migrated.stdout)["status"] == "migrated"
    with Memory.open(db, create=False) as memory:
        assert memory.asof(subject="ana").values() == ["veg"]
    with driver.connect(db) as raw:
        assert raw.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'versions_scope'").fetchone() == (1,)
    again = _cli("migrate", "--store", db, "--json")
    assert json.loads(again.stdout)["status"] == "up-to-date"


# -- 3. writer contention is a typed, retryable error -----------------------------------------


def test_a_writer_past_the_busy_timeout_gets_store_busy_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Main raised a raw sqlite3.OperationalError (a traceback, exit 1)."""
    db, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    _seeded(db)
    write_input(source, 3)
    holder = spawn("hold_write_lock", db, 60)
    try:
        wait_for(holder, "locked")
        with Memory.open(db, create=False, busy_timeout=0.1) as memory:
            with pytest.raises(StoreBusy, match="another writer") as caught:
                memory.ingest(episode("late", "user", day(1), assertions=[
                    fact("ana", "city", "Lyon")]))
            assert isinstance(caught.value, StoreUnavailable)  # older callers still catch it
        refused = _cli("--busy-timeout", "0.1", "ingest", "--trust-envelopes", source,
                       "--store", db)
        assert refused.returncode == STORE_BUSY_EXIT == 75, refused.stderr
        assert "StoreBusy" in refused.stderr
        assert "Traceback" not in refused.stderr
        by_env = _cli("ingest", "--trust-envelopes", source, "--store", db,
                      env={"KG_MEMORY_BUSY_TIMEOUT": "0.1"})
        assert by_env.returncode == 75, by_env.stderr
    finally:
        _kill(holder)
    assert _stored_operations(db) == {"seed"}


def test_the_batch_path_retries_with_backoff_until_the_writer_lets_go(tmp_path: Path) -> None:
    db, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    _seeded(db)
    ops = write_input(source, 20)
    holder = spawn("hold_write_lock", db, 0.5)
    try:
        wait_for(holder, "locked")
        patient = Backoff(attempts=30, first=0.05, factor=1.5, cap=0.3)  # waits up to ~7 s
        with Memory.open(db, create=False, busy_timeout=0.05, retry=patient) as memory:
            reports = memory.ingest_file(source)
        assert [r.status for r in reports] == ["accepted"] * 20
    finally:
        holder.wait(timeout=30)
    assert set(ops) < _stored_operations(db)


def test_the_batch_path_gives_up_after_its_bounded_retries(tmp_path: Path) -> None:
    db, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    _seeded(db)
    write_input(source, 5)
    holder = spawn("hold_write_lock", db, 60)
    try:
        wait_for(holder, "locked")
        with Memory.open(db, create=False, busy_timeout=0.01,
                         retry=Backoff(attempts=3, first=0.01)) as memory, pytest.raises(StoreBusy):
            memory.ingest_file(source)
    finally:
        _kill(holder)
    assert _stored_operations(db) == {"seed"}


@given(st.builds(Backoff, attempts=st.integers(1, 20), first=st.floats(0, 5),
                 factor=st.floats(1, 4), cap=st.floats(0, 30)), st.integers(0, 2**32))
def test_a_backoff_schedule_is_bounded_and_grows(policy: Backoff, seed: int) -> None:
    waits = policy.delays(random.Random(seed))
    assert len(waits) == policy.attempts - 1
    for n, wait in enumerate(waits):
        base = min(policy.cap, policy.first * policy.factor**n)
        assert base / 2 <= wait <= base
    assert sum(waits) <= policy.longest + 1e-9
    assert waits == policy.delays(random.Random(seed))  # seeded: replays exactly


@pytest.mark.parametrize("value", ["x", "-1", "nan", "1e9"])
def test_a_bad_busy_timeout_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("KG_MEMORY_BUSY_TIMEOUT", value)
    with pytest.raises(StoreUnavailable, match=r"(?i)busy.timeout"):
        Memory.open(tmp_path / "m.db")
