"""Issue 11, item 4: concurrent writers with preconditions (If-Match on a slot's revision).

The contract tests run on every backend; the multi-process test runs real writer processes
against one embedded store file and checks that no update was lost.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kg_memory import ConcurrencyError, IngestError, IngestRecord, Memory, parse_record
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact
from tests.procs import spawn


def _counter(value: int, if_match: str | None, op: str, when: int = 1) -> IngestRecord:
    return episode(op, "user", day(when), assertions=[
        fact("ana", "city", value, **({} if if_match is None else {"if_match": if_match}))])


def test_a_write_with_the_current_tag_succeeds_and_a_stale_one_fails(
    memory: Memory, clock: ManualClock
) -> None:
    assert memory.etag("ana", "city", scope="u1") == "absent"
    memory.ingest(_counter(1, "absent", "w1"))
    first = memory.etag("ana", "city", scope="u1")
    assert first.endswith("#1")
    clock.now = day(2)
    memory.ingest(_counter(2, first, "w2", 2))
    second = memory.etag("ana", "city", scope="u1")
    assert second != first
    clock.now = day(3)
    with pytest.raises(ConcurrencyError, match=f"is {second}, not {first}"):
        memory.ingest(_counter(3, first, "w3", 3))
    # Nothing of the refused episode was written: the value, history and tag are unchanged.
    assert memory.asof(subject="ana", scope="u1").values() == [2]
    assert memory.etag("ana", "city", scope="u1") == second
    assert not memory.store.episodes(["w3"])
    # Re-read, re-decide, retry under the same operation id: it was never recorded.
    report = memory.ingest(_counter(3, second, "w3", 3))
    assert report.status == "accepted"
    assert memory.asof(subject="ana", scope="u1").values() == [3]


def test_absent_means_the_writer_found_the_slot_empty(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(2)
    memory.ingest(_counter(1, None, "w1"))
    with pytest.raises(ConcurrencyError, match="not absent"):
        memory.ingest(_counter(2, "absent", "w2"))
    assert memory.asof(subject="ana", scope="u1").values() == [1]


def test_preconditions_are_checked_against_the_slot_before_the_episode(
    memory: Memory, clock: ManualClock
) -> None:
    """Two candidates on one slot, both conditional on what the writer read: the episode's own
    first write must not make its second precondition fail, nor a stale one pass."""
    memory.ingest(_counter(1, None, "w1"))
    tag = memory.etag("ana", "city", scope="u1")
    clock.now = day(2)
    memory.ingest(episode("w2", "user", day(2), assertions=[
        fact("ana", "city", 2, if_match=tag, valid_to=day(5)),
        fact("ana", "city", 3, if_match=tag, valid_from=day(5))]))
    assert memory.asof(day(6), subject="ana", scope="u1").values() == [3]


def test_one_stale_precondition_fails_the_whole_episode(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(3)
    memory.ingest(_counter(1, None, "w1"))
    with pytest.raises(ConcurrencyError, match=r"assertions\.1"):
        memory.ingest(episode("w2", "user", day(2), assertions=[
            fact("bo", "city", "Oslo"), fact("ana", "city", 9, if_match="absent")]))
    assert memory.asof(subject="bo", scope="u1").values() == []


def test_a_redelivered_operation_is_a_duplicate_whatever_its_tag(memory: Memory) -> None:
    """The first delivery stands: a crashed writer re-running its input must not turn its
    own accepted lines into conflicts."""
    memory.ingest(_counter(1, "absent", "w1"))
    again = memory.ingest(_counter(1, "absent", "w1"))
    assert again.status == "duplicate"


def test_a_malformed_tag_is_bad_input_naming_the_field() -> None:
    line = {"operation_id": "x", "source": "user", "channel": "chat",
            "occurred_at": "2026-01-05T09:00:00Z",
            "assertions": [{"subject": "a", "predicate": "b", "value": 1, "kind": "stated",
                            "if_match": "as_1"}]}
    with pytest.raises(IngestError, match=r"assertions\.0\.if_match"):
        parse_record(line, line=1)


def test_a_conflict_in_a_file_keeps_the_lines_before_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kg_memory.cli.app import app

    db, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    lines = [
        {"operation_id": "a", "source": "user", "channel": "chat", "scope": "u1",
         "occurred_at": "2026-01-05T09:00:00Z",
         "assertions": [{"subject": "ana", "predicate": "city", "value": "Oslo",
                         "kind": "stated", "if_match": "absent"}]},
        {"operation_id": "b", "source": "user", "channel": "chat", "scope": "u1",
         "occurred_at": "2026-01-06T09:00:00Z",
         "assertions": [{"subject": "ana", "predicate": "city", "value": "Rome",
                         "kind": "stated", "if_match": "absent"}]},
    ]
    source.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["ingest", str(source), "--store", str(db), "--json", "--trust-envelopes"])
    assert result.exit_code == 5, result.output
    assert "ConcurrencyError" in result.output
    with Memory.open(db, create=False) as memory:
        assert memory.asof(subject="ana", scope="u1").values() == ["Oslo"]


def test_concurrent_writers_with_preconditions_lose_no_update(tmp_path: Path) -> None:
    """Four processes each add 1 to one counter 25 times, reading the tag, then writing with
    If-Match and retrying on conflict: the counter ends at 100, every value 1..100 was
    written exactly once, and the store passes its integrity check."""
    db = tmp_path / "m.db"
    Memory.open(db).close()
    writers, increments = 4, 25
    go = tmp_path / "go"
    procs = [spawn("counter_writer", db, f"w{i}", increments, go) for i in range(writers)]
    time.sleep(1.0)  # let every writer import and open the store, then start them together
    go.touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["done"] == increments for r in results)
    total = writers * increments
    with Memory.open(db, create=False) as memory:
        assert memory.asof(subject="counter", scope="u1").values() == [total]
        written = sorted(int(str(h.version.value))
                         for h in memory.history("counter", scope="u1")
                         if h.created_because.value == "asserted")
        assert written == list(range(1, total + 1))
        check = memory.check()
        assert check.ok, check.violations
    with driver.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM episodes").fetchone() == (total,)
    conflicts = sum(r["conflicts"] for r in results)
    print(f"{writers} writers x {increments}: {conflicts} conflicts reported and retried")
