"""Issue 10's poisoning corpus, replayed on both backends.

``fixtures/poisoning/corpus.jsonl`` holds a few legitimate episodes of the user's conversation
and the attacks of the adversarial review, each as a hostile sender would send it: third-party
text phrased as the user's preference, "remember that ...", forged sources (the user over a
webhook, kg-memory's own workers), 20 redeliveries of one claim, claims with confidence 0.99,
ownership claims, derived and consolidated claims, a third party's retraction and a world fact
over the user's statement. ``malformed.jsonl`` holds the attacks that are bad input (forged
writer or support fields, made-up kinds and channels).

The rule checked is general: at every point of the timeline, no served fact rests on a poison
episode and every stated fact is the user's conversation's; every refusal is in the audit.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kg_memory import IngestError, IngestReport, Kind, Memory, parse_record
from kg_memory.services.ingestion import episode_id_for
from tests.conftest import ROOT, ManualClock, day

POISONING = ROOT / "fixtures" / "poisoning"
CHANGES = {"written", "replaced", "refreshed", "retracted", "retired", "event"}


def _entries(name: str) -> list[dict[str, Any]]:
    lines = (POISONING / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


def _replay(memory: Memory, clock: ManualClock) -> dict[str, tuple[dict[str, Any], IngestReport]]:
    reports: dict[str, tuple[dict[str, Any], IngestReport]] = {}
    for entry in _entries("corpus.jsonl"):
        record = parse_record(entry["episode"])
        clock.now = record.occurred_at + timedelta(minutes=len(reports))
        reports[record.operation_id] = (entry, memory.ingest(record))
    return reports


def test_the_corpus_covers_every_attack_of_the_issue() -> None:
    attacks = " ".join(e["attack"] for e in _entries("corpus.jsonl"))
    attacks += " ".join(e["attack"] for e in _entries("malformed.jsonl"))
    for needle in ("preference", "remember that", "forged source", "forged writer", "repeated",
                   "0.99", "ownership", "derived", "consolidated"):
        assert needle in attacks, needle


def test_no_poison_is_ever_served_and_every_refusal_is_audited(
    memory: Memory, clock: ManualClock
) -> None:
    reports = _replay(memory, clock)
    legit = {r.episode_id for e, r in reports.values() if e["expect"] == "accepted"}
    audited = Counter(r.episode_id for r in memory.refusals())

    for op, (entry, report) in reports.items():
        actions = [e.action for e in report.effects]
        assert audited[report.episode_id] == actions.count("refused"), op
        if entry["expect"] == "accepted":
            assert "refused" not in actions, op
        elif entry["expect"] == "refused":
            assert "refused" in actions, op
            assert CHANGES.isdisjoint(actions), (op, actions)
        else:  # a lower-authority value: kept beside the user's, changing nothing of it
            assert actions == ["written", "conflicts"], op

    clock.now = day(30)
    for hours in range(0, 24 * 12, 6):
        at = day(0, 0) + timedelta(hours=hours)
        for known in (at, None):
            answer = memory.asof(at, known)
            for fact in answer.facts:
                assert {s.episode_id for s in fact.supported_by} <= legit, (at, fact.key)
                if fact.kind is Kind.STATED:
                    assert fact.writer in ("user", "agent"), fact.key
            for conflict in answer.conflicts:
                assert conflict.fact.supported_by[0].episode_id == episode_id_for(
                    "u1", "poison-world-over-stated")

    final = {f.key: f.value for f in memory.asof().facts}
    assert final == {"ana.diet": "vegetarian", "u1.deposit_preapproved": "no",
                     "u1.next_dinner": "R1 Fri", "u1.dinner_plan": "bring flowers"}
    owners = {e.entity_id: e.owners for e in memory.entities()}
    assert owners["R1"] == ("restaurant",)
    assert owners["u1"] == ()
    # Twenty deliveries of one claim: twenty audit rows, not one supported fact.
    repeats = [r for r in memory.refusals() if r.episode_id in {
        episode_id_for("u1", f"poison-repeat-{i:02d}") for i in range(20)}]
    assert len(repeats) == 20


def test_malformed_poison_names_line_and_field_and_stores_nothing(
    memory: Memory, clock: ManualClock, tmp_path: Path
) -> None:
    legit = _entries("corpus.jsonl")[0]["episode"]
    for entry in _entries("malformed.jsonl"):
        path = tmp_path / "in.jsonl"
        path.write_text(json.dumps(legit) + "\n" + json.dumps(entry["episode"]) + "\n")
        with pytest.raises(IngestError) as caught:
            memory.ingest_file(path)
        assert caught.value.line == 2, entry["attack"]
        assert caught.value.field == entry["field"], entry["attack"]
    clock.now = day(30)
    assert [f.key for f in memory.asof().facts] == ["ana.diet"]
    assert memory.refusals() == []
