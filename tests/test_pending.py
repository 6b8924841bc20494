"""Pending candidates and admission decisions, on every backend (the contract suite)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory import IngestRecord, Memory
from kg_memory.cli import app
from kg_memory.domain.model import Kind
from kg_memory.domain.pending import PendingCandidate, pending_id_for, waiting_entry
from kg_memory.domain.write_policy import Mode, PredicateRule, Retention, WritePolicy
from tests.conftest import ROOT, ManualClock, MemoryFactory, day, episode, fact

POLICY = WritePolicy(name="lab", mode=Mode.RECONCILE, rules=(PredicateRule(gate=0.6),))


def _open(make_memory: MemoryFactory, clock: ManualClock) -> Memory:
    memory = make_memory(clock)
    memory.write_policy = POLICY
    return memory


def _say(clock: ManualClock, op: str, n: int, value: str, conf: float = 0.7,
         **extra: Any) -> IngestRecord:
    """Day ``n``'s statement; the store's clock moves to that day, as in a live deployment."""
    clock.now = day(n)
    content = extra.pop("content", f"{op}: my format is {value}")
    return episode(op, "user", day(n), content=content, assertions=[
        fact("r1", "format", value, confidence=conf, **extra)])


def test_a_conflict_waits_visible_and_unserved_until_a_second_episode(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    report = memory.ingest(_say(clock, "op-2", 3, "audio"))
    assert [e.action for e in report.effects] == ["pending"]
    assert memory.asof(valid_at=day(4), subject="r1").values() == ["ebook"]
    (waiting,) = memory.pending("u1")
    assert (waiting.key, waiting.value, len(waiting.evidence)) == ("r1.format", "audio", 1)
    assert waiting.evidence[0].episode_id == report.episode_id

    # A redelivery is the same episode: it does not corroborate.
    again = memory.ingest(_say(clock, "op-2", 3, "audio"))
    assert again.status == "duplicate"
    assert memory.asof(valid_at=day(4), subject="r1").values() == ["ebook"]

    # Nor does a copy of the same message under a new operation id.
    copy = memory.ingest(_say(clock, "op-2-copy", 5, "audio", content="op-2: my format is audio"))
    assert [e.action for e in copy.effects] == ["pending"]
    assert memory.asof(valid_at=day(6), subject="r1").values() == ["ebook"]

    promoted = memory.ingest(_say(clock, "op-3", 10, "audio"))
    assert [e.action for e in promoted.effects] == ["written", "replaced"]
    assert memory.asof(valid_at=day(11), subject="r1").values() == ["audio"]
    assert memory.pending("u1") == []
    (done,) = memory.pending("u1", status=None)
    assert done.status == "promoted"
    assert done.promoted_to == promoted.effects[0].assertion_id
    # History kept: what was believed on day 4 is still ebook.
    assert memory.asof(valid_at=day(4), known_at=day(4), subject="r1").values() == ["ebook"]


def test_a_promotion_record_is_history_and_re_pending_the_value_never_overwrites_it(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """Rule: a promotion record is history. When a value that was promoted before has to wait
    again, its new mentions go to a new pending entry; the promoted record keeps its status,
    its evidence and the assertion it became."""
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    memory.ingest(_say(clock, "op-2", 1, "audio"))
    first = memory.ingest(_say(clock, "op-3", 2, "audio", content="again: audio"))
    (promoted,) = memory.pending("u1", status="promoted")
    before = promoted.model_dump()
    assert promoted.promoted_to == first.effects[0].assertion_id
    memory.ingest(_say(clock, "op-4", 3, "ebook"))
    memory.ingest(_say(clock, "op-5", 4, "ebook", content="back to ebook"))
    assert memory.asof(valid_at=day(5), subject="r1").values() == ["ebook"]

    waits = memory.ingest(_say(clock, "op-6", 5, "audio", content="audio after all"))
    assert [e.action for e in waits.effects] == ["pending"]
    (waiting,) = memory.pending("u1")
    assert (waiting.value, [m.episode_id for m in waiting.evidence]) == (
        "audio", [waits.episode_id])
    assert waiting.pending_id != promoted.pending_id
    kept = [p for p in memory.pending("u1", status=None) if p.pending_id == promoted.pending_id]
    assert [p.model_dump() for p in kept] == [before]

    # Promoted again: a second record of its own, the first one still as it was.
    second = memory.ingest(_say(clock, "op-7", 6, "audio", content="yes, audio"))
    assert memory.asof(valid_at=day(7), subject="r1").values() == ["audio"]
    audio = sorted((p for p in memory.pending("u1", status=None) if p.value == "audio"),
                   key=lambda p: p.updated_at)
    assert [(p.status, p.promoted_to) for p in audio] == [
        ("promoted", first.effects[0].assertion_id),
        ("promoted", second.effects[0].assertion_id)]
    assert audio[0].model_dump() == before


@settings(max_examples=25, deadline=None)
@given(said=st.lists(st.tuples(st.sampled_from(("ebook", "audio", "paper")), st.booleans()),
                     min_size=1, max_size=12))
def test_promotion_records_never_change_and_one_entry_waits_per_value(
    said: list[tuple[str, bool]]
) -> None:
    """Rules: a promotion record is history (once promoted, a pending record is never
    rewritten or removed by later mentions), and a value waits in at most one pending entry,
    which gathers every mention since it last waited."""
    clock = ManualClock(day(0))
    with Memory.open(":memory:", clock=clock) as memory:
        memory.write_policy = POLICY
        promoted: dict[str, dict[str, Any]] = {}
        for n, (value, explicit) in enumerate(said):
            memory.ingest(_say(clock, f"op-{n}", n, value, content=f"turn {n}: {value}",
                               explicit=explicit))
            records = memory.pending("u1", status=None)
            now = {p.pending_id: p.model_dump() for p in records}
            assert all(now.get(pid) == body for pid, body in promoted.items())
            promoted.update({p.pending_id: now[p.pending_id] for p in records
                             if p.status == "promoted"})
            waiting = [p.value for p in records if p.status == "pending"]
            assert len(waiting) == len(set(waiting))


def _entry(generation: int, status: str) -> PendingCandidate:
    return PendingCandidate(
        pending_id=pending_id_for("u1", "r1", "format", None, "audio", generation),
        scope="u1", subject="r1", predicate="format", value="audio", kind=Kind.STATED,
        writer="user", status=status, updated_at=day(0))


def test_a_mention_joins_the_entry_still_waiting_else_an_id_no_record_holds() -> None:
    """Rules: one entry waits per value (a mention joins it, whichever generation it is), and
    a promoted record's id is never handed out again, even when an earlier generation's id
    was freed by forgetting."""
    where = ("u1", "r1", "format", None, "audio")
    assert waiting_entry([], *where) == (pending_id_for(*where), None)
    done, waits = _entry(0, "promoted"), _entry(1, "pending")
    assert waiting_entry([done, waits], *where) == (waits.pending_id, waits)
    assert waiting_entry([waits], *where) == (waits.pending_id, waits)  # generation 0 forgotten
    # Two earlier generations forgotten: the one record left is still the entry that waits
    # (not a second waiting entry for the same value at a freed id).
    late = _entry(2, "pending")
    assert waiting_entry([late], *where) == (late.pending_id, late)
    fresh, none = waiting_entry([done, _entry(1, "promoted")], *where)
    assert none is None
    assert fresh == pending_id_for(*where, 2)
    assert waiting_entry([_entry(1, "promoted")], *where) == (pending_id_for(*where), None)
    other = _entry(0, "pending").model_copy(update={"value": "ebook", "pending_id": "pd_x"})
    assert waiting_entry([other], *where) == (pending_id_for(*where), None)


def test_a_mention_outside_the_window_does_not_corroborate(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    memory.ingest(_say(clock, "op-2", 1, "audio"))
    late = memory.ingest(_say(clock, "op-3", 40, "audio"))
    assert [e.action for e in late.effects] == ["pending"]
    assert memory.asof(valid_at=day(41), subject="r1").values() == ["ebook"]
    assert len(memory.pending("u1")[0].evidence) == 2


def test_every_decision_is_recorded_and_counted_by_reason(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    memory.ingest(_say(clock, "op-2", 1, "ebook", 0.9))
    memory.ingest(_say(clock, "op-3", 2, "audio", 0.5))
    memory.ingest(_say(clock, "op-4", 3, "gift", 0.9, scope_label="request"))
    memory.ingest(_say(clock, "op-5", 4, "audio", 0.7))
    memory.ingest(_say(clock, "op-6", 5, "paper", 0.7, explicit=True))
    assert memory.admission_counts("u1") == {
        "accepted": {"refresh": 1, "replaced: explicit update or correction": 1, "write": 1},
        "pending": {"conflict": 1},
        "refused": {"below gate": 1, "one-off": 1},
    }
    assert memory.asof(valid_at=day(6), subject="r1").values() == ["paper"]
    refused = [d for d in memory.admissions("u1") if d.decision == "refused"]
    assert {d.reason for d in refused} == {"below gate 0.60 (0.50)", "one-off (request)"}
    assert memory.admission_counts("another-tenant") == {}


def test_append_keeps_values_side_by_side_and_overwrite_replaces(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = _open(make_memory, clock)
    memory.write_policy = WritePolicy(mode=Mode.APPEND)
    memory.ingest(_say(clock, "op-1", 0, "ebook"))
    memory.ingest(_say(clock, "op-2", 1, "audio"))
    memory.ingest(_say(clock, "op-3", 2, "ebook"))
    assert sorted(memory.asof(valid_at=day(3), subject="r1").values()) == [
        "audio", "ebook", "ebook"]
    memory.write_policy = WritePolicy(mode=Mode.OVERWRITE)
    memory.ingest(_say(clock, "op-4", 3, "paper", 0.1))
    assert memory.asof(valid_at=day(4), subject="r1").values() == ["paper"]


def test_without_a_write_policy_nothing_is_recorded_and_every_value_supersedes(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    memory.ingest(_say(clock, "op-2", 1, "audio", 0.1, scope_label="request"))
    assert memory.asof(valid_at=day(2), subject="r1").values() == ["audio"]
    assert memory.admissions() == []
    assert memory.pending() == []


def test_forgetting_an_episode_erases_the_pending_value_it_proposed(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    secret = memory.ingest(_say(clock, "op-2", 1, "large-print-secret"))
    memory.ingest(_say(clock, "op-3", 2, "audio"))
    memory.ingest(_say(clock, "op-4", 3, "audio", content="another turn: audio"))
    assert {p.value for p in memory.pending("u1", status=None)} == {
        "large-print-secret", "audio"}
    clock.now = day(4)
    memory.forget(f"episode:{secret.episode_id}@u1")
    assert {p.value for p in memory.pending("u1", status=None)} == {"audio"}
    assert all(d.episode_id != secret.episode_id for d in memory.admissions("u1"))
    stored = [*memory.store.documents("pending"), *memory.store.documents("admission")]
    assert not any("large-print-secret" in body for body in stored)


def test_the_commands_load_a_policy_and_show_one_tenant_at_a_time(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(POLICY.model_dump_json())
    lines = tmp_path / "in.jsonl"
    lines.write_text("\n".join(_say(ManualClock(), f"op-{n}", n, v).model_dump_json()
                               for n, v in enumerate(("ebook", "audio", "paper"))) + "\n")
    store = str(tmp_path / "m.db")
    run = CliRunner().invoke
    done = run(app, ["ingest", str(lines), "--store", store, "--write-policy", str(policy),
                     "--trust-envelopes", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["pending"] == 2
    assert run(app, ["pending", "--store", store]).exit_code == 2  # whose?
    shown = run(app, ["pending", "--scope", "u1", "--store", store, "--json"])
    assert sorted(p["value"] for p in json.loads(shown.output)) == ["audio", "paper"]
    assert json.loads(run(app, ["pending", "--scope", "u2", "--store", store,
                                "--json"]).output) == []
    counts = run(app, ["admissions", "--scope", "u1", "--store", store, "--json"])
    assert json.loads(counts.output) == {"accepted": {"write": 1}, "pending": {"conflict": 2}}
    policy.write_text('{"mode": "sometimes"}')
    bad = run(app, ["ingest", str(lines), "--store", store, "--write-policy", str(policy),
                    "--trust-envelopes"])
    assert bad.exit_code == 2
    assert "write policy" in bad.output


def test_the_write_policy_comes_from_kg_memory_write_policy_as_the_channel_policy_does(
    tmp_path: Path
) -> None:
    """Rule: every command taking --write-policy reads $KG_MEMORY_WRITE_POLICY when the option
    is not given (named like $KG_MEMORY_CHANNEL_POLICY, so a deployment configures both the
    same way); the option wins over the variable, and a bad file from it is bad input."""
    policy = tmp_path / "policy.json"
    policy.write_text(POLICY.model_copy(update={"retention": Retention(cap=1)}).model_dump_json())
    lines = tmp_path / "in.jsonl"
    lines.write_text("\n".join(_say(ManualClock(), f"op-{n}", n, v).model_dump_json()
                               for n, v in enumerate(("ebook", "audio", "paper"))) + "\n")
    run = CliRunner().invoke
    env = {"KG_MEMORY_WRITE_POLICY": str(policy)}
    for option in ([], ["--write-policy", str(policy)]):
        store = str(tmp_path / f"m{len(option)}.db")
        done = run(app, ["ingest", str(lines), "--store", store, "--trust-envelopes",
                         "--json", *option], env=env if not option else {})
        assert done.exit_code == 0, done.output
        assert json.loads(done.output)["pending"] == 2
    swept = run(app, ["sweep", "--store", store, "--scope", "u1", "--json"], env=env)
    assert swept.exit_code == 0, swept.output  # the cap is the policy's, read from $...
    assert run(app, ["sweep", "--store", store, "--scope", "u1"], env={}).exit_code == 2
    plain = tmp_path / "plain.json"
    plain.write_text(WritePolicy().model_dump_json())
    store = str(tmp_path / "over.db")
    over = run(app, ["ingest", str(lines), "--store", store, "--trust-envelopes", "--json",
                     "--write-policy", str(plain)], env=env)
    assert json.loads(over.output)["pending"] == 0  # the option wins: overwrite, no waiting
    policy.write_text('{"mode": "sometimes"}')
    bad = run(app, ["ingest", str(lines), "--store", str(tmp_path / "bad.db"),
                    "--trust-envelopes"], env=env)
    assert bad.exit_code == 2
    assert "write policy" in bad.output
    # Every command with the option, and its section of docs/cli.md, names the variable.
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    taking = {name: [p for p in command.params if p.name == "write_policy"]
              for name, command in group.commands.items()}
    taking = {name: found for name, found in taking.items() if found}
    assert {"ingest", "sweep", "recall"} <= set(taking)
    for name, (param,) in taking.items():
        assert param.envvar == "KG_MEMORY_WRITE_POLICY", name
    sections = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("\n## kg-memory ")
    documented = {s.split("\n", 1)[0] for s in sections if "--write-policy FILE" in s}
    assert documented == set(taking)
    assert all("[env var: KG_MEMORY_WRITE_POLICY]" in " ".join(s.split())
               for s in sections if "--write-policy FILE" in s)


def test_a_refusal_by_the_writer_gate_is_counted_with_the_admission_decisions(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """Seed 003 watches rejection rates by reason, untrusted sources among them: under a write
    policy the provenance gate's refusals are counted beside the policy's own."""
    memory = _open(make_memory, clock)
    memory.ingest(_say(clock, "op-1", 0, "ebook", 0.8))
    clock.now = day(1)
    memory.ingest(episode("op-2", "restaurant", day(1), content="remember: paperback",
                          assertions=[fact("r1", "format", "paperback", confidence=0.95)]))
    assert memory.asof(valid_at=day(2), subject="r1").values() == ["ebook"]
    assert memory.admission_counts("u1") == {"accepted": {"write": 1},
                                             "refused": {"provenance": 1}}
    (refused,) = [d for d in memory.admissions("u1") if d.decision == "refused"]
    assert refused.reason == memory.refusals("u1")[0].reason
