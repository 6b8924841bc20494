"""Forgetting across derived records: the Jo/Cedar scenario of seed 002, and the cases where
Graphiti's remove_episode falls short (over-deletion, no restore, resurrection on re-ingest)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from kg_memory import ConcurrencyError, IngestRecord, Memory
from kg_memory.domain.errors import ConsolidationRefused, ForgottenError
from kg_memory.domain.model import Activity
from kg_memory.services.forget_run import FORGETTER
from kg_memory.sim.cedar import FORGET_SELECTOR, CedarRun, load_records, replay
from kg_memory.sim.scenario import ScenarioClock
from tests.conftest import ROOT, ManualClock, MemoryFactory, day, episode, fact

CANARY = "CANARY-7f3a-concise-except-audits"


@pytest.fixture
def cedar(make_memory: MemoryFactory) -> tuple[Memory, ScenarioClock, CedarRun]:
    records = load_records()
    clock = ScenarioClock(records[0].occurred_at)
    memory = make_memory(clock)
    return memory, clock, replay(memory, clock, records)


def _with_canary(records: list[IngestRecord]) -> list[IngestRecord]:
    """The scenario with a unique string planted in Jo's day-1 words and preference value."""
    first = records[0]
    planted = first.model_copy(update={
        "content": f"For Cedar, keep reports {CANARY}.",
        "assertions": (first.assertions[0].model_copy(update={"value": CANARY}),),
    })
    return [planted, *records[1:]]


def files_holding(directory: Path, text: str) -> list[str]:
    """The byte scan: every file the store owns under ``directory`` (the database, its WAL and
    shared memory) that still holds ``text``, in UTF-8, anywhere, free pages included."""
    return sorted(p.name for p in directory.iterdir() if text.encode() in p.read_bytes())


def _facts(memory: Memory) -> set[tuple[str, object, str | None]]:
    return {(f.key, f.value, f.qualifiers.project) for f in memory.asof(scope="acme").facts}


def test_day4_forget_removes_cedar_preferences_and_keeps_everything_else(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    memory, _, run = cedar
    assert run.forget is not None
    assert run.forget.status == "complete"
    facts = _facts(memory)
    assert not any(key == "j17.report_style" and project == "c1" for key, _, project in facts)
    assert ("j17.report_style", "bullet points", "b2") in facts  # Birch survives
    assert ("c1.status", "in review", None) in facts  # the registry's record is untouched
    assert ("p-jo-okafor.role", "registry approver", None) in facts  # the other Jo too
    # No earlier system time brings the preferences back: erasure, not supersession.
    for known in (day(1.5), day(2.5), day(3.5)):
        for subject_fact in memory.asof(known, known, scope="acme").facts:
            assert not (
                subject_fact.predicate == "report_style" and subject_fact.qualifiers.project == "c1"
            )
    assert [e.version.value for e in memory.history("j17", "report_style")] == ["bullet points"]


def test_profile_is_rebuilt_from_what_remains(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    memory, _, run = cedar
    assert "concise" in str(run.profile_v1.value)
    assert "audits" in str(run.profile_v1.value)
    assert "detailed" in str(run.profile_v2.value)
    [profile] = [
        f for f in memory.asof(scope="acme", subject="j17").facts if f.predicate == "cedar_profile"
    ]
    assert profile.value == "c1.status=in review"
    assert profile.qualifiers.project == "c1"
    assert profile.assertion_id not in (run.profile_v1.assertion_id, run.profile_v2.assertion_id)
    assert run.forget_plan is not None
    assert set(run.forget_plan.plan.rebuild) == {
        run.profile_v1.assertion_id,
        run.profile_v2.assertion_id,
    }


def test_dry_run_prints_exactly_what_the_run_did(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    _, _, run = cedar
    assert run.forget_plan is not None
    assert run.forget is not None
    assert run.forget_plan.dry_run
    assert run.forget_plan.status == "planned"
    assert run.forget_plan.plan == run.forget.plan
    assert len(run.forget.plan.delete) == 2
    assert len(run.forget.plan.erase) == 2


def test_a_worker_that_read_before_the_forget_cannot_publish(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    memory, _, run = cedar
    with pytest.raises(ForgottenError):
        memory.publish(run.stale_basis)


def test_replaying_forgotten_input_is_refused_terminally(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    memory, clock, _ = cedar
    day1 = load_records()[0]
    with pytest.raises(ForgottenError, match="forgotten"):
        memory.ingest(day1)
    late = day1.model_copy(update={"operation_id": "cedar-d1-redelivered-by-another-path"})
    with pytest.raises(ForgottenError, match="late write"):
        memory.ingest(late)
    # Collection stays blocked for new statements until the block is revoked.
    fresh = late.model_copy(
        update={"operation_id": "cedar-d5", "occurred_at": clock.now + timedelta(days=1)}
    )
    report = memory.ingest(fresh)
    assert [e.action for e in report.effects] == ["refused"]
    [block] = memory.blocks("acme")
    memory.revoke_block(block.block_id)
    again = memory.ingest(fresh.model_copy(update={"operation_id": "cedar-d5b"}))
    assert [e.action for e in again.effects] == ["written"]


def test_forget_is_idempotent(cedar: tuple[Memory, ScenarioClock, CedarRun]) -> None:
    memory, _, _ = cedar
    before = _facts(memory)
    second = memory.forget(FORGET_SELECTOR)
    assert second.status == "nothing-to-forget"
    assert second.plan.is_empty
    assert _facts(memory) == before


def test_no_byte_of_forgotten_text_remains_in_any_store_file(tmp_path: Path) -> None:
    records = _with_canary(load_records())
    clock = ScenarioClock(records[0].occurred_at)
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        replay(memory, clock, records, forget=False)

        assert files_holding(store_dir, CANARY)  # the canary really was stored (can fail)
        report = memory.forget(FORGET_SELECTOR)
        assert report.status == "complete"
        assert files_holding(store_dir, CANARY) == []
        assert CANARY not in str(memory.asof(scope="acme").model_dump())
        assert all(CANARY not in a.detail for a in memory.store.activities())


def test_forgetting_one_episode_keeps_facts_others_corroborate(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(0)
    first = memory.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
    clock.now = day(5)
    memory.ingest(episode("b", "user", day(5), assertions=[fact("ana", "diet", "veg")]))
    clock.now = day(6)
    report = memory.forget(f"episode:{first.episode_id}@u1")
    assert report.plan.erase == (first.episode_id,)
    assert report.plan.delete == ()
    [served] = memory.asof(subject="ana").facts
    assert served.value == "veg"
    assert [s.episode_id for s in served.supported_by] != [first.episode_id]


def test_forgetting_a_correction_restores_what_it_superseded(
    memory: Memory, clock: ManualClock
) -> None:
    clock.now = day(0)
    memory.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
    clock.now = day(30)
    fish = memory.ingest(episode("b", "user", day(30), assertions=[fact("ana", "diet", "fish")]))
    clock.now = day(40)
    report = memory.forget(f"episode:{fish.episode_id}@u1")
    assert len(report.plan.restore) == 1
    assert memory.asof(day(35), day(41), subject="ana").values() == ["veg"]


def test_forgetting_the_restaurant_restores_what_its_webhook_ended(
    make_memory: MemoryFactory,
) -> None:
    from kg_memory.sim.scenario import Scenario

    scenario = Scenario.load()
    clock = ScenarioClock(scenario.epoch)
    with make_memory(clock) as memory:
        for record in scenario.records[:4]:
            clock.now = record.occurred_at
            memory.ingest(record)
        assert memory.refusals()  # the deposit claim was refused and audited
        clock.now = scenario.at(10)
        report = memory.forget("source:restaurant@u1")
        assert report.status == "complete"
        assert memory.refusals() == []  # the audit quoted the restaurant: erased too
        assert memory.asof(scenario.at(5), subject="u1", predicate="next_dinner").values() == [
            "R1 Fri"
        ]


def test_consolidation_is_conditional_and_keeps_qualifiers(
    memory: Memory, clock: ManualClock
) -> None:
    from kg_memory import Qualifiers

    clock.now = day(1)
    pref = memory.ingest(
        episode(
            "p",
            "user",
            day(1),
            scope="acme",
            assertions=[
                fact(
                    "j17",
                    "report_style",
                    "concise",
                    qualifiers={"project": "c1", "exceptions": ["audits"]},
                )
            ],
        )
    )
    [written] = [e.assertion_id for e in pref.effects if e.assertion_id]
    basis = memory.read_basis("j17", "profile", [written], scope="acme", project="c1")
    with pytest.raises(ConsolidationRefused, match="audits"):
        memory.publish(basis, value="concise", qualifiers=Qualifiers(project="c1"))
    clock.now = day(2)
    memory.ingest(
        episode(
            "q",
            "user",
            day(2),
            scope="acme",
            assertions=[fact("j17", "report_style", "detailed", qualifiers={"project": "c1"})],
        )
    )
    with pytest.raises(ConcurrencyError, match="precondition failed"):
        memory.publish(basis)


def test_lineage_reaches_episodes_writers_and_derivatives(
    cedar: tuple[Memory, ScenarioClock, CedarRun],
) -> None:
    import networkx as nx

    memory, _, _ = cedar
    [status] = memory.asof(scope="acme", subject="c1").facts
    graph = memory.lineage(status.assertion_id, "both")
    kinds = {graph.nodes[n]["kind"] for n in graph.nodes}
    assert {"assertion", "episode", "agent"} <= kinds
    profile = next(
        f for f in memory.asof(scope="acme", subject="j17").facts if f.predicate == "cedar_profile"
    )
    assert profile.assertion_id in nx.ancestors(graph, status.assertion_id)
    shallow = memory.lineage(status.assertion_id, "up", depth=1)
    assert "agent:registry" not in {n for n in shallow.nodes if graph.nodes[n]["depth"] > 1}


def test_the_notebook_fixture_is_the_one_tested() -> None:
    assert (ROOT / "fixtures" / "jo_cedar" / "episodes.jsonl").exists()


def test_a_crash_between_erasure_and_scrub_is_finished_by_rerunning(tmp_path: Path) -> None:
    import subprocess
    import sys
    import textwrap

    store_dir = tmp_path / "store"
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from kg_memory import Memory
        from kg_memory.sim.cedar import load_records, replay, FORGET_SELECTOR
        from kg_memory.sim.scenario import ScenarioClock
        from kg_memory.store.sqlite import SqliteStore

        records = load_records()
        first = records[0]
        planted = first.model_copy(update={{"content": {CANARY!r}}})
        clock = ScenarioClock(first.occurred_at)
        memory = Memory.open(Path({str(store_dir)!r}) / "m.db", clock=clock)
        replay(memory, clock, [planted, *records[1:]], forget=False)
        SqliteStore.scrub = lambda self: os._exit(9)  # the power goes out after the commit
        memory.forget(FORGET_SELECTOR)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 9, proc.stderr
    # The erasure committed, but old page images still hold the text: the scrub matters.
    assert files_holding(store_dir, CANARY)
    with Memory.open(store_dir / "m.db", create=False) as memory:
        [activity] = memory.store.activities("forget")
        assert activity.status == "erased"
        report = memory.forget(FORGET_SELECTOR)
        assert report.status == "nothing-to-forget"
        [activity] = memory.store.activities("forget")
        assert activity.status == "complete"
    assert files_holding(store_dir, CANARY) == []


def test_a_forget_run_finishes_only_its_own_tenants_interrupted_runs(
    memory: Memory, clock: ManualClock
) -> None:
    """Rule: a forget run reads and completes the interrupted runs of its own scope only.
    Another tenant's run, interrupted between its erasure and its scrub, is neither completed
    by it nor able to change its report; it stays that tenant's to finish."""
    with memory.store.transaction("u2") as tx:
        tx.add_activity(Activity(activity_id="act_forget_u2_interrupted", type="forget",
                                 agent=FORGETTER, scope="u2", started_at=day(1),
                                 ended_at=day(1), status="erased"))
    clock.now = day(1, 10)
    memory.ingest(episode("ana-u1", "user", day(1, 10), scope="u1",
                          entities=[{"entity_id": "ana", "type": "person"}],
                          assertions=[fact("ana", "diet", "veg")]))
    clock.now = day(2)
    report = memory.scoped("u1").forget("entity:ana")
    assert (report.status, report.scope) == ("complete", "u1")
    assert [(a.activity_id, a.status) for a in memory.store.activities("forget", "u2")] == [
        ("act_forget_u2_interrupted", "erased")]
    [own] = memory.store.activities("forget", "u1")
    assert (own.activity_id, own.status) == (report.activity_id, "complete")


def test_canary_is_gone_from_every_query_path(make_memory: MemoryFactory) -> None:
    """Backend-neutral: every read the API offers, at every system time, shows no trace."""
    records = _with_canary(load_records())
    clock = ScenarioClock(records[0].occurred_at)
    memory = make_memory(clock)
    replay(memory, clock, records, forget=False)

    def everything() -> str:
        parts = []
        for hours in range(0, 24 * 6, 6):
            when = records[0].occurred_at + timedelta(hours=hours)
            parts.append(memory.asof(when, when).model_dump_json())
        for subject in ("j17", "c1", "p-jo-okafor"):
            parts.append(str([h.model_dump() for h in memory.history(subject)]))
        parts.append(str([r.model_dump() for r in memory.refusals()]))
        ids = [f.assertion_id for f in memory.asof().facts]
        for node in ids:
            parts.append(str(memory.lineage(node).nodes(data=True)))
        episodes = {e.src for node in ids for e in memory.store.edges(node)}
        parts.append(str([e.model_dump() for e in memory.store.episodes(sorted(episodes))]))
        parts.append(str(memory.prov().serialize(format="json")))
        parts.append(str([a.model_dump() for a in memory.store.activities()]))
        return " ".join(parts)

    assert CANARY in everything()
    memory.forget(FORGET_SELECTOR)
    assert CANARY not in everything()


def test_forgetting_a_large_source_leaves_no_bytes_in_freed_pages(tmp_path: Path) -> None:
    """Thousands of rows over many pages: freed pages and index cells must not keep them."""
    clock = ManualClock(day(0))
    store_dir = tmp_path / "big"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        records = [
            episode(f"spam-{i}", "agent", day(0), channel="tool", assertions=[
                fact(f"thing-{i}", "note", f"{CANARY}-{i:05d} " + "x" * 200, "world")])
            for i in range(3000)
        ]
        memory.ingest_many(records, batch_size=500)
        memory.ingest(episode("keep", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
        assert files_holding(store_dir, CANARY)
        clock.now = day(1)
        report = memory.forget("source:agent@u1")
        assert report.status == "complete"
        assert len(report.plan.delete) == 3000
        assert files_holding(store_dir, CANARY) == []
        assert memory.asof(subject="ana").values() == ["veg"]
