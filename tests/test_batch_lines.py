"""Re-running a file after a forget, and every batched error on its own line (issue 27,
finding 4), on both backends, through the library and the CLI.

Rules protected: a line whose episode a forget request erased (its operation, or evidence of
content forgotten since) is reported ``forgotten`` (counted, not applied, not an error) and the
lines after it are ingested; an error of the write path (an operation-id conflict, a failed
``if_match``) names the line of the record that raised it, wherever that record sits in its
batch, never the batch's last line read; the records before it are acknowledged and the ones
after it are not; a tenant's handle reading a file names the line of another scope.

Each case failed on main at 63f92b7: the run stopped at the first forgotten line with exit 6
naming the batch's last line; a conflict on line 3 of 10 said line 10, line 1201 of 1500 said
1500; an ``if_match`` failure named no line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kg_memory import ConcurrencyError, IdempotencyConflict, IngestRecord, Memory, ScopeError
from tests.cli_store import cli, store_location
from tests.conftest import ManualClock, MemoryFactory, day, fact


def line(n: int, **fields: Any) -> dict[str, Any]:
    """Line ``n`` of a file: its own operation, subject and value."""
    return {"operation_id": f"op-{n}", "source": "user", "channel": "chat",
            "occurred_at": day(0).isoformat(), "scope": "u1", "content": f"note {n}",
            "assertions": [fact(f"s{n}", "note", f"v{n}")], **fields}


def jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in lines))
    return path


def values(memory: Memory) -> set[str]:
    """What u1 holds, as known after everything above (a batch's system times run past the
    clock, one microsecond an episode)."""
    return {str(f.value) for f in memory.asof(day(5), day(5), scope="u1").facts}


def test_a_rerun_after_a_forget_reports_forgotten_lines_and_ingests_the_rest(
    memory: Memory, clock: ManualClock, tmp_path: Path
) -> None:
    clock.now = day(0)
    memory.ingest_file(jsonl(tmp_path / "first.jsonl", [line(n) for n in range(1, 4)]))
    memory.forget("operation:op-2@u1")
    clock.now = day(1)
    acknowledged: list[tuple[str, str]] = []
    reports = memory.ingest_file(
        jsonl(tmp_path / "all.jsonl", [line(n) for n in range(1, 7)]), batch_size=4,
        on_report=lambda r: acknowledged.append((r.operation_id, r.status)))
    assert [(r.operation_id, r.status) for r in reports] == acknowledged == [
        ("op-1", "duplicate"), ("op-2", "forgotten"), ("op-3", "duplicate"),
        ("op-4", "accepted"), ("op-5", "accepted"), ("op-6", "accepted")]
    forgotten = reports[1]
    assert forgotten.system_time is None  # nothing of it was written
    assert [e.action for e in forgotten.effects] == ["forgotten"]
    assert values(memory) == {"v1", "v3", "v4", "v5", "v6"}


def test_the_library_batch_path_reports_forgotten_records_too(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(0)
    records = [IngestRecord.model_validate(line(n)) for n in range(1, 5)]
    memory.ingest_many(records[:2])
    memory.forget("operation:op-1@u1")
    clock.now = day(1)
    statuses = [r.status for r in memory.ingest_many(records, batch_size=3)]
    assert statuses == ["forgotten", "duplicate", "accepted", "accepted"]
    assert values(memory) == {"v2", "v3", "v4"}


def test_a_late_write_of_forgotten_content_in_a_batch_is_forgotten_not_fatal(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(0)
    memory.ingest(IngestRecord.model_validate(line(1)))
    clock.now = day(1)
    memory.forget("entity:s1@u1")
    # The same claim from before the forget, under an operation id never seen: old evidence
    # of what the user had erased. It stays out; the next record goes in.
    late = IngestRecord.model_validate(line(1, operation_id="op-late"))
    reports = memory.ingest_many([late, IngestRecord.model_validate(line(2))])
    assert [r.status for r in reports] == ["forgotten", "accepted"]
    assert values(memory) == {"v2"}


@pytest.mark.parametrize(("batch_size", "bad"), [(10, 3), (4, 5), (4, 8), (4, 1), (1, 2)])
def test_an_operation_id_conflict_names_its_own_line(
    memory: Memory, clock: ManualClock, tmp_path: Path, batch_size: int, bad: int
) -> None:
    clock.now = day(0)
    memory.ingest_file(jsonl(tmp_path / "first.jsonl", [line(bad)]))
    lines = [line(n) for n in range(1, 11)]
    lines[bad - 1] = line(bad, content="a different payload")
    acknowledged: list[str] = []
    with pytest.raises(IdempotencyConflict) as caught:
        memory.ingest_file(jsonl(tmp_path / "in.jsonl", lines), batch_size=batch_size,
                           on_report=lambda r: acknowledged.append(r.operation_id))
    assert (caught.value.line, caught.value.field) == (bad, "operation_id")
    assert str(caught.value).startswith(f"line {bad}, field 'operation_id': ")
    assert acknowledged == [f"op-{n}" for n in range(1, bad)]
    assert values(memory) == {f"v{n}" for n in range(1, bad + 1)}


@pytest.mark.parametrize(("batch_size", "bad"), [(10, 3), (4, 6), (1, 2)])
def test_an_if_match_conflict_names_its_own_line(
    memory: Memory, clock: ManualClock, tmp_path: Path, batch_size: int, bad: int
) -> None:
    clock.now = day(0)
    lines = [line(n) for n in range(1, 9)]
    # Line 1 writes s1.note; line ``bad`` believes it still absent.
    lines[bad - 1] = line(bad, assertions=[fact("s1", "note", "stale", if_match="absent")])
    with pytest.raises(ConcurrencyError) as caught:
        memory.ingest_file(jsonl(tmp_path / "in.jsonl", lines), batch_size=batch_size)
    assert caught.value.line == bad
    assert str(caught.value).startswith(f"line {bad}: operation 'op-{bad}', assertions.0 ")
    assert values(memory) == {f"v{n}" for n in range(1, bad)}


def test_a_tenants_handle_names_the_line_of_another_scope_and_its_own_errors(
    memory: Memory, clock: ManualClock, tmp_path: Path
) -> None:
    clock.now = day(0)
    u1 = memory.scoped("u1")
    with pytest.raises(ScopeError, match=r"^line 2: episode 'op-2' is for scope 'u2'") as caught:
        u1.ingest_file(jsonl(tmp_path / "mixed.jsonl",
                             [line(1), line(2, scope="u2"), line(3)]))
    assert caught.value.line == 2
    assert values(memory) == {"v1"}
    with pytest.raises(IdempotencyConflict) as conflict:
        u1.ingest_file(jsonl(tmp_path / "conflict.jsonl",
                             [line(1, content="changed"), line(4)]))
    assert conflict.value.line == 1


def test_the_cli_reruns_a_file_after_a_forget_exit_0_counting_forgotten_lines(
    make_memory: MemoryFactory, backend: str, tmp_path: Path
) -> None:
    store = store_location(make_memory, backend, tmp_path)
    path = jsonl(tmp_path / "in.jsonl", [line(n) for n in range(1, 4)])
    assert cli("ingest", str(path), "--trust-envelopes", "--store", store)[0] == 0
    assert cli("forget", "operation:op-2", "--scope", "u1", "--store", store)[0] == 0
    path = jsonl(path, [line(n) for n in range(1, 6)])
    acks = tmp_path / "acks.tsv"
    code, out = cli("ingest", str(path), "--trust-envelopes", "--store", store, "--json",
                     "--acks", str(acks))
    assert code == 0, out
    summary = json.loads(out)
    assert (summary["accepted"], summary["duplicate"], summary["forgotten"]) == (2, 2, 1)
    assert acks.read_text().splitlines()[:3] == [
        "op-1\tduplicate", "op-2\tforgotten", "op-3\tduplicate"]
    code, out = cli("ingest", str(path), "--trust-envelopes", "--store", store)
    assert code == 0
    assert "0 accepted, 4 duplicate, 1 forgotten" in " ".join(out.split())


def test_the_cli_names_line_1201_of_1500_in_its_default_batches(
    make_memory: MemoryFactory, backend: str, tmp_path: Path
) -> None:
    store = store_location(make_memory, backend, tmp_path)
    first = jsonl(tmp_path / "first.jsonl", [line(1201)])
    assert cli("ingest", str(first), "--trust-envelopes", "--store", store)[0] == 0
    lines = [line(n) for n in range(1, 1501)]
    lines[1200] = line(1201, content="a different payload")
    code, out = cli("ingest", str(jsonl(tmp_path / "in.jsonl", lines)), "--trust-envelopes",
                     "--store", store)
    assert code == 2
    assert "line 1201, field 'operation_id'" in " ".join(out.split())


def test_placing_an_error_on_a_line_keeps_its_class_and_what_it_carries() -> None:
    from kg_memory.domain.errors import RecallUnavailable

    answer = object()
    for error in (ConcurrencyError("stale"), ScopeError("elsewhere"),
                  RecallUnavailable("no index", answer)):
        placed = error.at_line(7)
        assert type(placed) is type(error)
        assert (placed.line, str(placed)) == (7, f"line 7: {error}")
        assert error.line is None  # the original is left as it was
    placed_recall = RecallUnavailable("no index", answer).at_line(3)
    assert isinstance(placed_recall, RecallUnavailable)
    assert placed_recall.answer is answer
