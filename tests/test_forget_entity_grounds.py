"""Forgetting an entity retires what was believed on it, as the write path would.

Rules protected: a fact that ``DEPENDS_ON`` an entity rests on that entity; when the entity is
forgotten (``entity:R1@SCOPE``) the fact is retired over its whole valid time, like a fact whose
dependency fact was erased (:func:`kg_memory.domain.dependency.retirement_walk`, shared with the
write path, where the owner's event on the entity retires the same facts from its instant on).
So are the facts that depend on the facts about the entity, transitively. The dry run lists
exactly what the run retires; another scope's entity of the same id is not touched; the store's
own check holds afterwards.
"""

from __future__ import annotations

from kg_memory import IngestReport, Memory
from kg_memory.domain.model import EndReason
from tests.conftest import ManualClock, day, episode, fact


def _ingest(memory: Memory, clock: ManualClock, when: float, op: str, scope: str = "u1",
            **fields: object) -> IngestReport:
    clock.now = day(when)
    return memory.ingest(episode(op, "user", day(when), scope=scope, **fields))


def _seed(memory: Memory, clock: ManualClock, scope: str = "u1") -> dict[str, str]:
    """R1 (a booking the restaurant owns), a fact about it, a fact resting on R1 itself, one
    resting on the fact about it, one resting on that, and an unrelated fact."""
    _ingest(memory, clock, 0, f"r1-{scope}", scope,
            entities=[{"entity_id": "R1", "type": "booking", "name": "Table 4",
                       "owners": ["restaurant"]}],
            assertions=[fact("R1", "venue", "Sushi Ko")])
    on_entity = _ingest(memory, clock, 1, f"note-{scope}", scope, assertions=[
        fact("dinner", "booked", True, depends_on=["R1"])])
    on_fact = _ingest(memory, clock, 2, f"plan-{scope}", scope, assertions=[
        fact("friday", "plan", "dinner out", depends_on=["fact:R1/venue"])])
    on_plan = _ingest(memory, clock, 3, f"remind-{scope}", scope, assertions=[
        fact("reminder", "leave_at", "19:00", depends_on=["fact:friday/plan"])])
    _ingest(memory, clock, 4, f"other-{scope}", scope, assertions=[fact("ana", "diet", "veg")])
    return {"on_entity": on_entity.effects[0].assertion_id or "",
            "on_fact": on_fact.effects[0].assertion_id or "",
            "on_plan": on_plan.effects[0].assertion_id or ""}


def _believed(memory: Memory, scope: str, when: float) -> set[str]:
    return {f.key for f in memory.asof(day(when), day(when), scope=scope).facts}


def test_forgetting_an_entity_retires_what_depends_on_it_and_on_its_facts(
    memory: Memory, clock: ManualClock
) -> None:
    ids = _seed(memory, clock)
    clock.now = day(6)
    planned = memory.forget("entity:R1@u1", dry_run=True)
    assert set(planned.plan.retire) == set(ids.values())
    run = memory.forget("entity:R1@u1")
    assert run.status == "complete"
    assert run.plan == planned.plan  # the dry run is the run
    assert _believed(memory, "u1", 7) == {"ana.diet"}
    check = memory.check()
    assert check.ok, check.violations
    # Retired, not erased: their history stays, closed by the run, over the whole valid time.
    for subject, predicate in (("dinner", "booked"), ("friday", "plan"),
                               ("reminder", "leave_at")):
        [entry] = memory.history(subject, predicate, scope="u1")
        assert entry.closed_by == run.activity_id
        assert entry.close_reason is EndReason.RETIRED
    # Nothing is believed on the forgotten entity at any valid time, as the store knows now
    # (day 3.5: every dependent was valid then, the unrelated fact not yet).
    assert {f.key for f in memory.asof(day(3.5), day(7), scope="u1").facts} == set()


def test_another_scopes_entity_of_the_same_id_keeps_what_rests_on_it(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock, "u1")
    _seed(memory, clock, "u2")
    before = _believed(memory, "u2", 5)
    clock.now = day(6)
    memory.forget("entity:R1@u1")
    assert _believed(memory, "u2", 5) == before
    assert {"dinner.booked", "friday.plan", "reminder.leave_at"} <= before


def test_the_entity_goes_even_when_another_scope_uses_its_id(
    memory: Memory, clock: ManualClock
) -> None:
    """The orphan search reads the plan's scope only: u2's R1 must not keep u1's R1 (and its
    name) alive after everything in u1 that named it is forgotten."""
    _ingest(memory, clock, 0, "a", "u1", entities=[{"entity_id": "R9", "name": "Zedwina"}],
            assertions=[fact("R9", "venue", "Sushi Ko")])
    _ingest(memory, clock, 0, "b", "u2", entities=[{"entity_id": "R9", "name": "Other"}],
            assertions=[fact("R9", "venue", "Elsewhere")])
    report = memory.forget(f"episode:{_episode_id(memory, 'u1')}@u1")
    assert "R9" in report.plan.entities
    assert [e.name for e in memory.store.entities("u1")] == []
    assert [e.name for e in memory.store.entities("u2")] == ["Other"]


def _episode_id(memory: Memory, scope: str) -> str:
    [ep] = memory.store.scope_episodes(scope)
    return ep.episode_id
