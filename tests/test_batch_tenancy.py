"""A revision written and replaced inside one episode was never visible, so the store removes
the edges naming it; only this tenant's: another scope's edge to a node that happens to bear
the same id (entity ids are the senders' own strings) is that tenant's data."""

from __future__ import annotations

from kg_memory import Memory
from kg_memory.services.ingestion import assertion_id_for, episode_id_for
from tests.conftest import ManualClock, day, episode, fact


def test_a_vanished_revision_takes_no_other_tenants_edge_with_it(
    memory: Memory, clock: ManualClock
) -> None:
    # u2's episode b1 writes ana.city twice at the same valid time: the first value is
    # replaced inside the episode and vanishes, and with it every edge naming its id.
    vanishing = assertion_id_for(episode_id_for("u2", "b1"), 0)
    clock.now = day(0)
    memory.ingest(episode("a1", "user", day(0), scope="u1", mentions=[vanishing]))
    mentioned = {(e.type.value, e.dst) for e in memory.store.edges(vanishing, scope="u1")}
    assert ("MENTIONS", vanishing) in mentioned
    clock.now = day(1)
    report = memory.ingest(episode("b1", "user", day(1), scope="u2", assertions=[
        fact("ana", "city", "Oslo"), fact("ana", "city", "Lima")]))
    assert report.status == "accepted"
    assert memory.asof(subject="ana", scope="u2").values() == ["Lima"]
    assert not memory.store.edges(vanishing, scope="u2")  # gone from its own tenant
    after = {(e.type.value, e.dst) for e in memory.store.edges(vanishing, scope="u1")}
    assert after == mentioned
