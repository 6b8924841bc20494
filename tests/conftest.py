"""Shared fixtures: a store on a real file with a clock the test moves by hand."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kg_memory import IngestRecord, Memory

EPOCH = datetime(2026, 1, 5, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


def day(n: float, hour: int = 9) -> datetime:
    return EPOCH + timedelta(days=n, hours=hour)


class ManualClock:
    def __init__(self, now: datetime = EPOCH) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def memory(tmp_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory.open(tmp_path / "memory.db", clock=clock) as mem:
        yield mem


def episode(op: str, source: str, when: datetime, **fields: Any) -> IngestRecord:
    """A valid ingest record with sensible defaults for the envelope."""
    channel = fields.pop("channel", "chat" if source in ("user", "agent") else "webhook")
    return IngestRecord.model_validate(
        {
            "operation_id": op,
            "source": source,
            "channel": channel,
            "occurred_at": when.isoformat(),
            "scope": fields.pop("scope", "u1"),
            **fields,
        }
    )


def fact(
    subject: str, predicate: str, value: object, kind: str = "stated", **fields: Any
) -> dict[str, Any]:
    for key in ("valid_from", "valid_to"):
        if isinstance(fields.get(key), datetime):
            fields[key] = fields[key].isoformat()
    return {"subject": subject, "predicate": predicate, "value": value, "kind": kind, **fields}
