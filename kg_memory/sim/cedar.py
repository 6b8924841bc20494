"""The Jo/Cedar scenario (seed 002): four days of a project assistant serving Jo (user j17).

Day 1 Jo asks for concise Cedar (c1) reports except audits; a registry roster names another Jo.
Day 2 the registry reports Cedar's status and a worker consolidates Jo's Cedar reporting profile.
Day 3 Jo changes the Cedar preference (the day-1 episode stays; its default stops applying), adds
a Birch preference, and the profile is consolidated again. Day 4 Jo asks to forget Cedar
reporting preferences, with future collection blocked.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kg_memory import resources
from kg_memory.domain.model import EdgeType
from kg_memory.domain.record import IngestRecord, read_records
from kg_memory.services.forget_run import ForgetReport
from kg_memory.services.memory import Memory
from kg_memory.services.publication import Basis, Published
from kg_memory.sim.scenario import ScenarioClock

__all__ = ["FORGET_SELECTOR", "CedarRun", "load_records", "replay"]

FORGET_SELECTOR = "category:acme/j17/report_*@c1"
SCOPE, PROFILE = "acme", "cedar_profile"


def load_records(directory: Path | None = None) -> list[IngestRecord]:
    base = directory or resources.path("jo_cedar")
    return list(read_records(base / "episodes.jsonl"))


class CedarRun(BaseModel):
    """What the replay produced, for tests and the notebook to inspect."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    profile_v1: Published
    profile_v2: Published
    stale_basis: Basis  # what a slow worker read after day 3, before the forget
    forget_plan: ForgetReport | None
    forget: ForgetReport | None


def _profile(memory: Memory) -> Published:
    facts = memory.asof(scope=SCOPE).facts
    evidence = [
        f.assertion_id
        for f in facts
        if (f.subject, f.predicate, f.qualifiers.project) == ("j17", "report_style", "c1")
        or (f.subject, f.predicate) == ("c1", "status")
    ]
    return memory.consolidate("j17", PROFILE, evidence, scope=SCOPE, project="c1")


def replay(
    memory: Memory, clock: ScenarioClock, records: list[IngestRecord], *, forget: bool = True
) -> CedarRun:
    """Replay the four days through ``memory``; ``clock`` must be the store's clock."""
    by_day: dict[int, list[IngestRecord]] = {}
    # Day 1 is the first record's date; the scenario counts from day 0.
    start = records[0].occurred_at.replace(hour=0, minute=0, second=0) - timedelta(days=1)
    for record in records:
        by_day.setdefault((record.occurred_at - start).days, []).append(record)
    for record in by_day.get(1, []) + by_day.get(2, []):
        clock.now = record.occurred_at
        memory.ingest(record)
    clock.now = start + timedelta(days=2, hours=12)
    v1 = _profile(memory)
    for record in by_day.get(3, []):
        clock.now = record.occurred_at
        memory.ingest(record)
    clock.now = start + timedelta(days=3, hours=12)
    v2 = _profile(memory)
    sources = [
        e.dst
        for e in memory.store.edges(v2.assertion_id)
        if e.src == v2.assertion_id and e.type is EdgeType.DERIVED_FROM
    ]
    stale = memory.read_basis("j17", PROFILE, sources, scope=SCOPE, project="c1")
    plan = report = None
    if forget:
        clock.now = start + timedelta(days=4, hours=9)
        plan = memory.forget(FORGET_SELECTOR, dry_run=True)
        report = memory.forget(FORGET_SELECTOR, block=True)
    return CedarRun(
        profile_v1=v1, profile_v2=v2, stale_basis=stale, forget_plan=plan, forget=report
    )
