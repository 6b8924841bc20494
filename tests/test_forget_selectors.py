"""Each selector kind forgets what it names in its scope, and nothing else, on every backend.

Rules protected: ``entity:ID@SCOPE`` forgets every fact about that subject in that scope (never
the same name in another scope); ``assertion:ID@SCOPE`` forgets that one fact; an episode that
also supports a surviving fact is redacted (kept as a node, its other facts kept), not erased.
"""

from __future__ import annotations

import pytest

from kg_memory import Memory, NotFound
from tests.conftest import ManualClock, day, episode, fact


def _facts(memory: Memory, scope: str) -> set[tuple[str, object]]:
    return {(f.key, f.value) for f in memory.asof(scope=scope).facts}


def _seed(memory: Memory, clock: ManualClock) -> str:
    clock.now = day(0)
    mixed = memory.ingest(episode("a", "user", day(0), assertions=[
        fact("ana", "diet", "veg"), fact("ana", "city", "Oslo"), fact("bob", "diet", "fish")]))
    memory.ingest(episode("b", "user", day(0), scope="u2",
                          assertions=[fact("ana", "diet", "vegan")]))
    clock.now = day(1)
    return mixed.episode_id


def test_an_entity_selector_forgets_that_subject_in_its_scope_only(
    memory: Memory, clock: ManualClock
) -> None:
    mixed = _seed(memory, clock)
    report = memory.forget("entity:ana@u1")
    assert len(report.plan.delete) == 2
    assert report.plan.redact == (mixed,)  # it also supports bob's diet
    assert report.plan.erase == ()
    assert _facts(memory, "u1") == {("bob.diet", "fish")}
    assert _facts(memory, "u2") == {("ana.diet", "vegan")}


def test_an_assertion_selector_forgets_that_one_fact(memory: Memory, clock: ManualClock) -> None:
    mixed = _seed(memory, clock)
    [city] = [f for f in memory.asof(scope="u1").facts if f.key == "ana.city"]
    report = memory.forget(f"assertion:{city.assertion_id}@u1")
    assert report.plan.delete == (city.assertion_id,)
    assert report.plan.redact == (mixed,)
    assert _facts(memory, "u1") == {("ana.diet", "veg"), ("bob.diet", "fish")}
    # Another scope's handle on the same id names nothing there: not found, as a made-up id.
    with pytest.raises(NotFound, match=f"no assertion '{city.assertion_id}' in scope 'u2'$"):
        memory.forget(f"assertion:{city.assertion_id}@u2", dry_run=True)
