"""One plain turn through ``Memory.ingest`` (issue 28: the agent's path, a durable commit per
turn) makes the fewest statements its rows need: eight, where it made twelve (session 16: ten).

A turn alone reads its tombstone, whether its operation id is used, the stored system time and
the largest recall row id in one statement (each by its key as it is, no JSON list to encode
and parse); it reads no forget blocks (only a candidate fact is checked against them). What it
stores and answers is unchanged: ``tests/test_batch_equivalence.py`` holds the rows to one-by-one
ingest's, and the refusals below hold the reads it still makes to their purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_memory import IngestRecord, Memory
from kg_memory.domain.errors import ForgottenError, IdempotencyConflict
from kg_memory.store.sqlite import driver
from tests.conftest import EPOCH


def _turn(n: int, content: str | None = None) -> IngestRecord:
    return IngestRecord.model_validate({
        "operation_id": f"turn-{n}", "source": "user", "channel": "chat", "scope": "u1",
        "occurred_at": EPOCH.isoformat(), "content": content or f"we talked about lisbon {n}"})


def _statements(memory: Memory, record: IngestRecord) -> list[str]:
    """The statements the store ran for ``record`` (a trigger's body and FTS5's own statements
    are traced too: only the ones the store itself ran are kept)."""
    conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    try:
        memory.ingest(record)
    finally:
        conn.set_trace_callback(None)
    ran = [s for s in traced if not s.startswith("--")]
    # SQLite traces a statement again at the start of each trigger it fires: one run each.
    return [s for i, s in enumerate(ran) if i == 0 or s != ran[i - 1]]


def test_a_plain_turn_alone_makes_eight_statements(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db", embedder="none") as memory:
        memory.ingest_many([_turn(n) for n in range(20)])
        statements = _statements(memory, _turn(20))
    shown = "\n".join(s[:100] for s in statements)
    assert len(statements) == 8, shown
    assert statements[0] == "BEGIN IMMEDIATE", shown
    assert statements[-1] == "COMMIT", shown
    assert not any("FROM blocks" in s for s in statements), shown
    assert not any("json_each" in s for s in statements), shown


def test_a_plain_turn_alone_still_meets_its_operation_and_its_tombstone(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db", embedder="none") as memory:
        first = memory.ingest(_turn(1))
        assert first.status == "accepted"
        again = memory.ingest(_turn(1))
        assert (again.status, again.system_time) == ("duplicate", first.system_time)
        with pytest.raises(IdempotencyConflict):
            memory.ingest(_turn(1, "something else"))
        memory.forget("operation:turn-1@u1")
        with pytest.raises(ForgottenError):
            memory.ingest(_turn(1))
        assert memory.ingest(_turn(2)).status == "accepted"
