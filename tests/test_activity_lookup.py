"""An activity is looked up by its id (``Store.activities(activity_id=...)``), as the lineage
commands do for an operator who names one, without reading every activity of the store; on
both backends, and never across tenants."""

from __future__ import annotations

from kg_memory import Memory
from kg_memory.services.ingestion import episode_id_for
from kg_memory.services.lineage import node_scope, scoped_node
from tests.conftest import ManualClock, day, episode, fact


def test_an_activity_is_found_by_its_id_and_another_tenants_are_never_returned(
    memory: Memory, clock: ManualClock
) -> None:
    for n, scope in enumerate(("u1", "u2")):
        clock.now = day(1 + n)
        memory.ingest(episode(f"say-{scope}", "user", day(1 + n), scope=scope,
                              assertions=[fact(scope, "city", "Lyon")]))
        clock.now = day(3 + n)
        report = memory.forget(f"episode:{episode_id_for(scope, f'say-{scope}')}@{scope}")
        assert report.status == "complete", report
    store = memory.store
    [mine] = store.activities(scope="u1")
    [theirs] = store.activities(scope="u2")
    assert mine.activity_id != theirs.activity_id
    assert store.activities(activity_id=mine.activity_id) == [mine]
    assert store.activities(activity_id=theirs.activity_id) == [theirs]
    assert store.activities("forget", "u1", mine.activity_id) == [mine]
    # The other filters still apply: another tenant's or another type's id finds nothing.
    assert store.activities(scope="u2", activity_id=mine.activity_id) == []
    assert store.activities("consolidation", activity_id=mine.activity_id) == []
    assert store.activities(activity_id="act_nothing_by_this_id") == []
    assert node_scope(store, mine.activity_id) == "u1"
    assert node_scope(store, theirs.activity_id) == "u2"
    assert scoped_node(store, mine.activity_id, "u1")
    assert not scoped_node(store, mine.activity_id, "u2")
