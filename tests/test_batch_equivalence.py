"""A batch writes exactly the store that the same episodes ingested one by one write.

``ingest_many`` and ``ingest_file`` commit many episodes at once; whatever the batch path
shares between them (one transaction, prefetched reads, grouped statements), the result must
be indistinguishable from one ``Memory.ingest`` per episode: every table's rows, the recall
index and the outbox included. The only freedom a batch has is in surrogate row ids, so those
are left out of the comparison; system time is not, because both runs read the same ticking
clock once per episode.

The generated episodes are built to hit the interesting rules inside one batch: supersessions
of a slot written earlier in the same batch, retractions of it, derived facts that depend on
one and are retired with it, gate refusals (a source writing a kind it may not), envelope
refusals (a source over a channel it may not use), redeliveries of an earlier episode (a
duplicate) and, in the file variant, a bad line in the middle.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import IngestError, IngestRecord, Memory, WriterPolicy
from kg_memory.services.ingestion import ingest_record
from kg_memory.store.sqlite import driver
from tests.conftest import EPOCH

#: Surrogate keys a batch may assign differently; everything else must agree.
_SURROGATE = {"vid", "rid", "seq", "id", "rowid"}

SUBJECTS = ("jo", "sam")
PREDICATES = ("tone", "city")


class TickingClock:
    """One second later at every reading: the store reads it once per episode."""

    def __init__(self) -> None:
        self.now = EPOCH

    def __call__(self) -> Any:
        self.now += timedelta(seconds=1)
        return self.now


def _tables(conn: driver.Connection) -> list[str]:
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    shadows = ("_data", "_idx", "_docsize", "_config", "_content")
    # FTS5's shadow tables hold segment layouts (rowid-dependent); the virtual tables' own
    # rows are compared instead. meta holds the store's random tombstone secret.
    return [n for n in names if not n.endswith(shadows) and n not in (
        "meta", "sqlite_sequence")]


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows without surrogate ids, as sorted lists (a multiset per table)."""
    conn = driver.connect(f"file:{path}?mode=ro", uri=True)
    try:
        found: dict[str, list[tuple[Any, ...]]] = {}
        for table in _tables(conn):
            cursor = conn.execute(f"SELECT * FROM {table}")
            keep = [i for i, d in enumerate(cursor.description) if d[0] not in _SURROGATE]
            found[table] = sorted((tuple(row[i] for i in keep) for row in cursor), key=repr)
        return found
    finally:
        conn.close()


def _candidate(draw: st.DrawFn, n: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["stated", "world", "claim", "derived"]))
    candidate: dict[str, Any] = {
        "subject": draw(st.sampled_from(SUBJECTS)),
        "predicate": draw(st.sampled_from(PREDICATES)),
        "value": draw(st.sampled_from(["warm", "brief", "Oslo", "Lima", n])),
        "kind": kind,
    }
    if draw(st.booleans()):
        candidate["valid_from"] = (EPOCH + timedelta(days=draw(st.integers(0, 4)))).isoformat()
    if kind == "derived" and draw(st.booleans()):
        candidate["depends_on"] = [f"fact:{draw(st.sampled_from(SUBJECTS))}.tone"]
    elif draw(st.integers(0, 4)) == 0:  # rests on an entity its owner may end (R1.cancelled)
        candidate["depends_on"] = ["R1"]
    if draw(st.integers(0, 5)) == 0:
        candidate["qualifiers"] = {"project": "p1"}
    return candidate


def _mention(draw: st.DrawFn, key: str) -> dict[str, Any]:
    """A mention that lands, across a script, on the profiles earlier episodes of the same batch
    grew (a merge on a shared email or birth date, a review on a name alone, a new person)."""
    mention: dict[str, Any] = {"key": key, "name": draw(st.sampled_from(
        ["Jo", "Jo Park", "Joanne Park", "Jo Prak", "Sam Lee"]))}
    if draw(st.booleans()):
        mention["identifiers"] = {"email": draw(st.sampled_from(["jo@x.org", "sam@x.org"]))}
    if draw(st.booleans()):
        mention["context"] = {"birth_date": draw(st.sampled_from(["1981-02-03", "1990-07-01"])),
                              "city": draw(st.sampled_from(["Oslo", "Lima"]))}
    return mention


@st.composite
def episodes(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A script of episodes: writes, retractions, refusals and redeliveries."""
    script: list[dict[str, Any]] = []
    for n in range(draw(st.integers(1, 14))):
        if script and draw(st.integers(0, 5)) == 0:
            script.append(dict(draw(st.sampled_from(script))))  # a redelivery: a duplicate
            continue
        source = draw(st.sampled_from(["user", "user", "agent", "tool"]))
        channel = draw(st.sampled_from(
            ["chat", "chat", "webhook"] if source != "tool" else ["webhook", "webhook", "chat"]))
        record: dict[str, Any] = {
            "operation_id": f"op-{n}", "source": source, "channel": channel,
            "occurred_at": (EPOCH + timedelta(days=draw(st.integers(0, 5)))).isoformat(),
            "scope": draw(st.sampled_from(["u1", "u1", "u2"])),
            "content": draw(st.sampled_from(["", "Jo likes it warm", "moving to Lima"])),
            "assertions": [_candidate(draw, n) for _ in range(draw(st.integers(0, 3)))],
        }
        if draw(st.integers(0, 4)) == 0:
            record["retractions"] = [{"subject": draw(st.sampled_from(SUBJECTS)),
                                      "predicate": draw(st.sampled_from(PREDICATES))}]
        if draw(st.integers(0, 3)) == 0:  # an entity, maybe named, maybe claiming owners
            record["entities"] = [{"entity_id": draw(st.sampled_from(["R1", "jo", "p1"])),
                                   "name": draw(st.sampled_from([None, "Roma", "Jo"])),
                                   "owners": draw(st.sampled_from([[], ["tool"], ["user"]]))}]
            record["mentions"] = [record["entities"][0]["entity_id"]]
        if draw(st.integers(0, 5)) == 0:  # the owner (or not) ends what rests on R1
            record["events"] = [{"target": "R1", "name": "cancelled"}]
        if draw(st.integers(0, 4)) == 0:  # identity resolution: profiles and decisions
            record["resolve"] = [_mention(draw, key) for key in draw(st.sampled_from(
                [["who"], ["who"], ["who", "other"]]))]
            record["assertions"] = [*record["assertions"], {
                "subject": "@who", "predicate": "tone", "value": "calm", "kind": "stated"}]
        script.append(record)
    return script


def _one_by_one(path: Path, records: list[IngestRecord]) -> list[tuple[str, str]]:
    with Memory.open(path, clock=TickingClock()) as memory:
        return [(r.episode_id, r.status) for r in (memory.ingest(x) for x in records)]


def _statement_by_statement(path: Path, records: list[IngestRecord], policy: WriterPolicy
                            ) -> list[tuple[str, str]]:
    """Each episode in a unit of work outside any batch: the store's direct path, which runs
    every read and write as a statement at once (the planner's reference: what the embedded
    store wrote before batches were planned, and still writes for a forget run)."""
    found = []
    with Memory.open(path, clock=TickingClock(), policy=policy) as memory:
        secret = memory.store.secret
        for record in records:
            with memory.store.transaction(record.scope) as tx:
                report = ingest_record(tx, record, memory.policy, secret, memory.channels)
            found.append((report.episode_id, report.status))
    return found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(script=episodes(), batch_size=st.sampled_from([1, 3, 500]))
def test_a_batch_writes_the_store_one_by_one_writes(
    tmp_path_factory: pytest.TempPathFactory, script: list[dict[str, Any]], batch_size: int
) -> None:
    base = tmp_path_factory.mktemp("batch")
    records = [IngestRecord.model_validate(r) for r in script]
    expected = _one_by_one(base / "single.db", records)
    with Memory.open(base / "batch.db", clock=TickingClock()) as memory:
        reports = memory.ingest_many(records, batch_size=batch_size)
    assert [(r.episode_id, r.status) for r in reports] == expected
    assert dump(base / "batch.db") == dump(base / "single.db")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(script=episodes(), bad_at=st.integers(0, 14))
def test_a_bad_line_keeps_the_lines_before_it_exactly_as_one_by_one(
    tmp_path_factory: pytest.TempPathFactory, script: list[dict[str, Any]], bad_at: int
) -> None:
    base = tmp_path_factory.mktemp("file")
    bad_at = min(bad_at, len(script))
    lines = [json.dumps(r) for r in script]
    lines.insert(bad_at, json.dumps({"operation_id": "bad", "source": "user"}))  # no channel
    (base / "in.jsonl").write_text("\n".join(lines) + "\n")
    expected = _one_by_one(base / "single.db",
                           [IngestRecord.model_validate(r) for r in script[:bad_at]])
    acknowledged: list[tuple[str, str]] = []
    with Memory.open(base / "batch.db", clock=TickingClock()) as memory, \
            pytest.raises(IngestError) as raised:
        memory.ingest_file(base / "in.jsonl", batch_size=4,
                           on_report=lambda r: acknowledged.append((r.episode_id, r.status)))
    assert raised.value.line == bad_at + 1
    assert acknowledged == expected
    assert dump(base / "batch.db") == dump(base / "single.db")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(script=episodes(), batch_size=st.sampled_from([1, 4, 500]), permissive=st.booleans())
def test_a_planned_batch_writes_what_the_direct_path_writes(
    tmp_path_factory: pytest.TempPathFactory, script: list[dict[str, Any]], batch_size: int,
    permissive: bool,
) -> None:
    """The permissive policy admits every kind from every writer, so supersessions (inside
    one episode too), derived facts and their retirement happen in nearly every script."""
    base = tmp_path_factory.mktemp("direct")
    policy = WriterPolicy.permissive() if permissive else WriterPolicy.default()
    records = [IngestRecord.model_validate(r) for r in script]
    expected = _statement_by_statement(base / "direct.db", records, policy)
    with Memory.open(base / "batch.db", clock=TickingClock(), policy=policy) as memory:
        reports = memory.ingest_many(records, batch_size=batch_size)
    assert [(r.episode_id, r.status) for r in reports] == expected
    assert dump(base / "batch.db") == dump(base / "direct.db")
