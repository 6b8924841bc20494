"""The dinner study's scenario (seed 000): inputs, reads and the truth on each day.

The inputs are the fixture's episodes (``fixtures/dinner/episodes.jsonl``); the read schedule and
the truth live beside them in ``scenario.json``. Every policy sees the same inputs and answers
the same 89 reads.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kg_memory import resources
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Kind, Value
from kg_memory.domain.record import IngestRecord, read_records

__all__ = [
    "Input",
    "Read",
    "Scenario",
    "ScenarioClock",
    "TruthSpan",
    "default_fixture_dir",
    "misfile_bookings",
]


def default_fixture_dir() -> Path:
    """``$KG_MEMORY_FIXTURES/dinner``, else the study's fixture as installed (``fixtures/dinner``
    of the repository, shipped in the wheel)."""
    import os

    base = os.environ.get("KG_MEMORY_FIXTURES")
    if base:
        return Path(base) / "dinner"
    return resources.path("dinner")


class TruthSpan(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: int
    end: int | None
    value: Value


class Read(BaseModel):
    model_config = ConfigDict(frozen=True)

    day: int
    key: str


class Input(BaseModel):
    """One input as the study replays it: who sent it, through which channel, on which day.

    ``carries`` is what the input proposes, in the write log's words: events as
    ``target.name`` and candidate facts as ``key = value (kind)``.
    """

    model_config = ConfigDict(frozen=True)

    day: int
    occurred_at: UtcDatetime
    operation_id: str
    sender: str
    channel: str
    content: str
    carries: tuple[str, ...]


class Scenario(BaseModel):
    """Everything a run needs; days are integers counted from ``epoch``."""

    model_config = ConfigDict(frozen=True)

    title: str
    epoch: UtcDatetime
    days: int
    read_hour: int
    scope: str
    keys: dict[str, tuple[str, str]]
    truth: dict[str, tuple[TruthSpan, ...]]
    reads: tuple[Read, ...]
    user_sources: tuple[str, ...]
    records: tuple[IngestRecord, ...]

    @classmethod
    def load(cls, directory: Path | None = None) -> Scenario:
        directory = directory or default_fixture_dir()
        spec = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))
        schedule = spec["reads"]
        reads: list[Read] = []
        for day in range(schedule["first"], schedule["last"] + 1, schedule["every"]):
            reads.extend(Read(day=day, key=k) for k in schedule["keys"])
            reads.extend(Read(day=day, key=a["key"]) for a in schedule["also"] if a["day"] == day)
        truth = {
            key: tuple(TruthSpan(start=s["from"], end=s["to"], value=s["value"]) for s in spans)
            for key, spans in spec["truth"].items()
        }
        return cls(
            title=spec["title"],
            epoch=spec["epoch"],
            days=spec["days"],
            read_hour=spec["read_hour"],
            scope=spec["scope"],
            keys={k: (v[0], v[1]) for k, v in spec["keys"].items()},
            truth=truth,
            reads=tuple(reads),
            user_sources=tuple(spec["user_sources"]),
            records=tuple(read_records(directory / "episodes.jsonl")),
        )

    def at(self, day: int, hour: int | None = None) -> datetime:
        return self.epoch + timedelta(days=day, hours=self.read_hour if hour is None else hour)

    def day_of(self, instant: datetime) -> int:
        return (instant - self.epoch).days

    def key_of(self, subject: str, predicate: str) -> str:
        for key, (s, p) in self.keys.items():
            if (s, p) == (subject, predicate):
                return key
        return f"{subject}.{predicate}"

    def true_value(self, key: str, day: int) -> Value | None:
        for span in self.truth.get(key, ()):
            if span.start <= day and (span.end is None or day < span.end):
                return span.value
        return None

    def inputs(self) -> list[Input]:
        """Every input, in the order the runs receive them (seed 000's ``inputs``)."""
        return [
            Input(
                day=self.day_of(r.occurred_at),
                occurred_at=r.occurred_at,
                operation_id=r.operation_id,
                sender=r.source,
                channel=r.channel.value,
                content=r.content,
                carries=(
                    *(f"{e.target}.{e.name}" for e in r.events),
                    *(
                        f"{self.key_of(a.subject, a.predicate)} = {a.value} ({a.kind.value})"
                        for a in r.assertions
                    ),
                ),
            )
            for r in sorted(self.records, key=lambda r: r.occurred_at)
        ]

    def session_days(self) -> list[int]:
        """The days on which memory is read, in order."""
        return sorted({r.day for r in self.reads})

    def with_records(self, records: tuple[IngestRecord, ...]) -> Scenario:
        return self.model_copy(update={"records": records})


def misfile_bookings(records: tuple[IngestRecord, ...]) -> tuple[IngestRecord, ...]:
    """The eighth run's one changed decision: bookings filed as stated, with no dependency."""
    changed = []
    for record in records:
        assertions = tuple(
            a.model_copy(update={"kind": Kind.STATED, "depends_on": ()})
            if a.kind is Kind.WORLD and a.depends_on
            else a
            for a in record.assertions
        )
        changed.append(record.model_copy(update={"assertions": assertions}))
    return tuple(changed)


class ScenarioClock:
    """A store clock moved along the scenario's timeline by whoever replays it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now
