"""Importing history (issue 27, finding 2): a past stream is known from the times its records
were known in their source, so an as-of question about then finds it; system time still only
moves forward; the import is recorded as such in lineage and PROV. On both backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kg_memory import ImportOrderError, IngestRecord, InvalidArgument, Memory
from kg_memory.cli import app
from kg_memory.services.provenance import prov_problems, qname, serialize_prov
from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact
from tests.test_cli import runner

LAST_YEAR = datetime(2025, 1, 5, 9, tzinfo=UTC)
NOW = datetime(2026, 1, 5, 9, tzinfo=UTC)  # the day the history is imported


def _diet(op: str, when: datetime, value: str, scope: str = "u1") -> IngestRecord:
    return episode(op, "user", when, scope=scope, content=f"I am {value}",
                   assertions=[fact("ana", "diet", value)])


def _history() -> list[IngestRecord]:
    return [_diet("m1", LAST_YEAR, "vegetarian"),
            _diet("m2", LAST_YEAR + timedelta(days=30), "vegan")]


@pytest.fixture
def at_now(make_memory: MemoryFactory) -> Memory:
    return make_memory(ManualClock(NOW))


def test_an_imported_history_answers_as_of_its_past(at_now: Memory) -> None:
    # The finding: ingested live, last year's conversation is known only from today, so
    # "what did we believe in February about January" was empty, silently.
    at_now.import_history(_history(), by="ops")
    day1, day2 = LAST_YEAR + timedelta(days=1), LAST_YEAR + timedelta(days=2)
    assert at_now.asof(valid_at=day1, known_at=day2, subject="ana").values() == ["vegetarian"]
    in_march = LAST_YEAR + timedelta(days=60)
    assert at_now.asof(valid_at=in_march, known_at=in_march, subject="ana").values() == ["vegan"]
    # Before the switch was said, the store did not know it, though it holds it now.
    assert at_now.asof(valid_at=in_march, known_at=day2, subject="ana").values() == [
        "vegetarian"]
    before = LAST_YEAR - timedelta(microseconds=1)
    assert at_now.asof(valid_at=day1, known_at=before, subject="ana").facts == ()


def test_each_record_is_known_from_its_occurred_at(at_now: Memory) -> None:
    reports = at_now.import_history(_history(), by="ops")
    assert [r.system_time for r in reports] == [r.occurred_at for r in _history()]
    episodes = at_now.store.scope_episodes("u1")
    assert [e.recorded_at for e in episodes] == [r.occurred_at for r in _history()]


def test_records_sharing_an_instant_take_successive_microseconds(at_now: Memory) -> None:
    records = [_diet(f"m{i}", LAST_YEAR, v) for i, v in enumerate(["a", "b", "c"])]
    reports = at_now.import_history([*records, _diet("m9", LAST_YEAR, "d")], by="ops")
    micro = timedelta(microseconds=1)
    assert [r.system_time for r in reports] == [LAST_YEAR + n * micro for n in range(4)]
    assert at_now.asof(LAST_YEAR, LAST_YEAR, subject="ana").values() == ["a"]
    assert at_now.asof(LAST_YEAR, LAST_YEAR + 3 * micro, subject="ana").values() == ["d"]


def test_a_record_before_the_stores_latest_system_time_is_refused(at_now: Memory) -> None:
    at_now.ingest(_diet("live", NOW - timedelta(days=1), "pescatarian"))  # known from NOW
    with pytest.raises(ImportOrderError) as caught:
        at_now.import_history(_history(), by="ops")
    assert caught.value.field == "occurred_at"
    assert "before the store's latest system time" in str(caught.value)
    assert [e.operation_id for e in at_now.store.scope_episodes("u1")] == ["live"]
    assert at_now.asof(subject="ana").values() == ["pescatarian"]
    assert at_now.check().ok


def test_an_import_goes_on_from_where_the_last_one_ended(at_now: Memory) -> None:
    first, second = _history()
    at_now.import_history([first], by="ops")
    at_now.import_history([second], by="ops")
    with pytest.raises(ImportOrderError):  # now behind what the store holds
        at_now.import_history([_diet("m0", LAST_YEAR + timedelta(days=1), "raw")], by="ops")
    assert [e.operation_id for e in at_now.store.scope_episodes("u1")] == ["m1", "m2"]


def test_live_writes_after_an_import_are_known_from_now(at_now: Memory) -> None:
    at_now.import_history(_history(), by="ops")
    report = at_now.ingest(_diet("live", NOW, "pescatarian"))
    assert report.system_time == NOW
    assert at_now.asof(subject="ana").values() == ["pescatarian"]


def test_a_future_record_is_refused_and_what_came_before_stays(at_now: Memory) -> None:
    future = _diet("m3", NOW + timedelta(seconds=1), "fruitarian")
    with pytest.raises(ImportOrderError) as caught:
        at_now.import_history([*_history(), future], by="ops")
    assert caught.value.field == "occurred_at"
    assert "in the future" in str(caught.value)
    assert [e.operation_id for e in at_now.store.scope_episodes("u1")] == ["m1", "m2"]


def test_a_rerun_of_an_import_is_all_duplicates_and_moves_no_time(at_now: Memory) -> None:
    at_now.import_history(_history(), by="ops")
    again = at_now.import_history(_history(), by="ops")
    assert [r.status for r in again] == ["duplicate", "duplicate"]
    # Duplicates took no system time: history can still go on from the last record's instant.
    last = _history()[-1].occurred_at
    tie = at_now.import_history([_diet("m3", last, "vegan again")], by="ops")
    assert tie[0].system_time == last + timedelta(microseconds=1)
    assert len(at_now.store.activities("import")) == 2


def test_the_import_is_recorded_in_lineage_and_prov(at_now: Memory) -> None:
    reports = at_now.import_history(_history(), by="alice@ops")
    [activity] = at_now.store.activities("import")
    assert (activity.agent, activity.scope, activity.started_at) == ("alice@ops", "u1", NOW)
    fact_id = reports[0].effects[0].assertion_id
    assert fact_id is not None
    graph = at_now.lineage(fact_id, "up")
    episode_id = reports[0].episode_id
    assert graph.has_edge(episode_id, activity.activity_id, key="IMPORTED_BY")
    doc = at_now.prov(scope="u1")
    assert prov_problems(doc) == []
    text = serialize_prov(doc, "provn")
    assert f"activity({qname(activity.activity_id)}, 2026-01-05T09:00:00" in text
    assert "kgm:import" in text
    assert "alice_ops" in text
    assert f"wasInfluencedBy({qname(episode_id)}, {qname(activity.activity_id)}" in text
    assert at_now.check().ok


def test_each_scope_gets_its_own_import_activity(at_now: Memory) -> None:
    records = [_diet("m1", LAST_YEAR, "vegetarian", scope="u1"),
               _diet("m1", LAST_YEAR + timedelta(hours=1), "vegan", scope="u2")]
    at_now.import_history(records, by="ops")
    assert sorted(a.scope for a in at_now.store.activities("import")) == ["u1", "u2"]
    for scope in ("u1", "u2"):
        [act] = at_now.store.activities("import", scope)
        for edge in at_now.store.edges(act.activity_id, scope):
            assert [e.scope for e in at_now.store.episodes([edge.src])] == [scope]
    known = LAST_YEAR + timedelta(minutes=30)
    assert at_now.asof(known, known, subject="ana", scope="u2").facts == ()


def test_forgetting_an_imported_episode_leaves_a_consistent_store(at_now: Memory) -> None:
    reports = at_now.import_history(_history(), by="ops")
    at_now.forget(f"episode:{reports[0].episode_id}@u1")
    [activity] = at_now.store.activities("import")
    assert [e.src for e in at_now.store.edges(activity.activity_id, "u1")] == [
        reports[1].episode_id]
    assert at_now.check().ok


def test_who_imports_must_be_said(at_now: Memory) -> None:
    with pytest.raises(InvalidArgument):
        at_now.import_history(_history(), by=" ")
    assert at_now.store.scope_episodes("u1") == []


def _write(path: Path, records: list[IngestRecord]) -> Path:
    path.write_text("".join(r.model_dump_json(exclude_defaults=True) + "\n" for r in records),
                    encoding="utf-8")
    return path


def test_import_file_names_the_line_of_a_record_out_of_order(tmp_path: Path) -> None:
    records = [*_history(), _diet("m3", LAST_YEAR + timedelta(days=40), "raw"),
               _diet("m4", LAST_YEAR + timedelta(days=2), "vegetarian")]
    with Memory.open(tmp_path / "m.db", clock=ManualClock(NOW)) as memory:
        with pytest.raises(ImportOrderError) as caught:
            memory.import_file(_write(tmp_path / "h.jsonl", records), by="ops", batch_size=2)
        assert (caught.value.line, caught.value.field) == (4, "occurred_at")
        assert len(memory.store.scope_episodes("u1")) == 3


def test_import_file_names_the_line_the_store_refuses(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db", clock=ManualClock(NOW)) as memory:
        memory.import_history([_diet("m0", LAST_YEAR + timedelta(days=10), "raw")], by="ops")
        history = _write(tmp_path / "h.jsonl", [_diet("m0", LAST_YEAR + timedelta(days=10),
                                                      "raw"), *_history()])
        with pytest.raises(ImportOrderError) as caught:
            memory.import_file(history, by="ops", batch_size=2)
        assert (caught.value.line, caught.value.field) == (2, "occurred_at")


def test_cli_ingest_import_history(tmp_path: Path) -> None:
    store = str(tmp_path / "cli.db")
    history = _write(tmp_path / "h.jsonl", _history())
    done = runner.invoke(app, ["ingest", str(history), "--trust-envelopes", "--import-history",
                               "--by", "ops", "--store", store, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["accepted"] == 2
    day1, day2 = LAST_YEAR + timedelta(days=1), LAST_YEAR + timedelta(days=2)
    asked = runner.invoke(app, ["asof", "--valid-at", day1.isoformat(), "--known-at",
                                day2.isoformat(), "--subject", "ana", "--scope", "u1",
                                "--store", store, "--json"])
    assert asked.exit_code == 0, asked.output
    assert "vegetarian" in asked.output
    late = _write(tmp_path / "late.jsonl", [_diet("m0", LAST_YEAR, "raw")])
    refused = runner.invoke(app, ["ingest", str(late), "--trust-envelopes", "--import-history",
                                  "--store", store])
    assert refused.exit_code == 2
    assert "line 1" in refused.output
    assert "occurred_at" in refused.output
    assert "Traceback" not in refused.output


def test_the_live_path_is_unchanged(make_memory: MemoryFactory) -> None:
    clock = ManualClock(EPOCH)
    memory = make_memory(clock)
    report = memory.ingest(_diet("m1", LAST_YEAR, "vegetarian"))
    assert report.system_time == EPOCH  # a live ingest is known when it arrives
