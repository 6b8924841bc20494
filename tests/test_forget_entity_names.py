"""Forgetting an episode erases the name and type it gave an entity that a kept episode
still refers to.

Rule protected (issue 25, finding 9): an entity's display name and type come from the first
episode that referred to it (later declarations only fill a missing name). When that episode
is forgotten and a kept one still refers to the entity, the entity stays (by its id) but the
name and type go: it is what a bare reference leaves (no name, type ``thing``), in the store
file byte for byte, in recall, on both backends; the dry run lists it. A name and type given
by a kept episode that referred to the entity first stay. It used to survive while forget
reported ``complete`` with 0 residues.

The name and byte checks failed on the main of 2026-12-05 (5fd1482).
"""

from __future__ import annotations

from pathlib import Path

from kg_memory import Memory
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact
from tests.test_forgetting import files_holding

CANARY = "CANARY-9d2c-Ysolde-Marchetti"


def _seed(memory: Memory, clock: ManualClock) -> str:
    """Episode ``intro`` names p7 (the canary) and says a fact about her; ``later``, kept,
    refers to p7 by id. Returns the episode to forget."""
    clock.now = day(1)
    intro = memory.ingest(episode(
        "intro", "user", day(1), content="Met my new accountant.",
        entities=[{"entity_id": "p7", "type": "person", "name": CANARY}],
        assertions=[fact("p7", "role", "accountant")]))
    clock.now = day(2)
    memory.ingest(episode("later", "user", day(2), content="Meeting p7 on Monday.",
                          mentions=["p7"], assertions=[fact("p7", "meeting", "monday")]))
    clock.now = day(3)
    return intro.episode_id


def test_forgetting_the_episode_that_named_an_entity_erases_its_name_and_type(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    intro = _seed(memory, clock)
    planned = memory.forget(f"episode:{intro}@u1", dry_run=True)
    run = memory.forget(f"episode:{intro}@u1")
    assert run.status == "complete"
    [p7] = [e for e in memory.store.entities("u1") if e.entity_id == "p7"]
    assert (p7.name, p7.type) == (None, "thing")
    assert run.plan == planned.plan  # the dry run listed it
    assert planned.plan.unnamed == ("p7",)
    assert [f.key for f in memory.asof(scope="u1").facts] == ["p7.meeting"]
    assert CANARY not in memory.recall("accountant meeting monday", scope="u1").model_dump_json()
    report = memory.check()
    assert report.ok, [v.model_dump() for v in report.violations]
    assert memory.forget(f"episode:{intro}@u1").status == "nothing-to-forget"


def test_a_name_a_kept_episode_gave_first_stays(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    clock.now = day(0)
    memory.ingest(episode("first", "user", day(0), content="Ysolde is my accountant.",
                          entities=[{"entity_id": "p7", "type": "person", "name": "Ysolde"}]))
    intro = _seed(memory, clock)
    run = memory.forget(f"episode:{intro}@u1")
    [p7] = [e for e in memory.store.entities("u1") if e.entity_id == "p7"]
    assert (p7.name, p7.type) == ("Ysolde", "person")
    assert run.plan.unnamed == ()


def test_no_byte_of_the_name_remains_in_the_store_files(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        intro = _seed(memory, clock)
        assert files_holding(store_dir, CANARY)  # it really was stored (the scan can fail)
        assert memory.forget(f"episode:{intro}@u1").status == "complete"
    assert files_holding(store_dir, CANARY) == []
