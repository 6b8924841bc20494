"""Entity resolution through the store: two people named Jo stay two people, merges by a person
are recorded with system time and can be undone, and nothing crosses a scope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kg_memory import Memory
from kg_memory.domain.resolution import RESOLVER, Outcome
from tests.conftest import ManualClock, day, episode, fact


def _jo(key: str = "jo", **extra: Any) -> dict[str, Any]:
    return {"key": key, "name": "Jo", **extra}


def _ingest(memory: Memory, clock: ManualClock, when: float, op: str, source: str,
            **fields: Any) -> str:
    clock.now = day(when)
    report = memory.ingest(episode(op, source, day(when), scope="acme", **fields))
    return report.episode_id


def _values(memory: Memory, subject: str, *at: datetime) -> set[object]:
    """Fact values about ``subject``, without the same_as bookkeeping of a merge."""
    answer = memory.asof(*at, subject=subject)
    return {f.value for f in answer.facts if f.predicate != "same_as"}


def _subject_of(memory: Memory, predicate: str) -> str:
    [found] = [f.subject for f in memory.asof(scope="acme").facts if f.predicate == predicate]
    return found


def test_two_jos_stay_apart_and_the_user_id_finds_the_right_one(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 1, "roster", "registry", channel="document",
            resolve=[_jo(context={"employer": "registry", "role": "approver"})],
            assertions=[fact("@jo", "role", "registry approver", "world")])
    _ingest(memory, clock, 2, "jo-1", "user",
            resolve=[_jo(identifiers={"user_id": "j17"}, context={"project": "c1"})],
            assertions=[fact("@jo", "report_style", "concise", qualifiers={"project": "c1"})])
    _ingest(memory, clock, 3, "jo-2", "user",
            resolve=[_jo(identifiers={"user_id": "j17"})],
            assertions=[fact("@jo", "timezone", "Europe/Paris")])
    registry_jo = _subject_of(memory, "role")
    user_jo = _subject_of(memory, "report_style")
    assert registry_jo != user_jo  # the same name was not enough
    assert _subject_of(memory, "timezone") == user_jo  # the user id was
    outcomes = [r.decision.outcome for r in memory.decisions("acme")]
    assert outcomes[-1] is Outcome.MERGE
    assert Outcome.MERGE not in outcomes[:2]
    last = memory.decisions("acme")[-1].decision
    assert last.decided_by == RESOLVER
    assert last.posterior is not None
    assert any(c.fields for c in last.candidates)  # per-field evidence is kept
    assert {f.value for f in memory.asof(subject=user_jo).facts} == {"concise", "Europe/Paris"}


def test_a_lone_same_name_candidate_is_never_enough(memory: Memory, clock: ManualClock) -> None:
    _ingest(memory, clock, 1, "a", "user", resolve=[_jo()],
            assertions=[fact("@jo", "likes", "tea")])
    _ingest(memory, clock, 2, "b", "user", resolve=[_jo()],
            assertions=[fact("@jo", "likes", "coffee")])
    subjects = {f.subject for f in memory.asof(scope="acme").facts}
    assert len(subjects) == 2
    [second] = [r for r in memory.decisions("acme") if r.decision.candidates]
    assert second.decision.outcome is not Outcome.MERGE
    if second.decision.outcome is Outcome.REVIEW:
        assert [r.entity_id for r in memory.review("acme")] == [second.entity_id]


def test_a_persons_merge_pools_facts_and_an_unmerge_restores_them(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 1, "a", "user", resolve=[_jo(key="x")],
            assertions=[fact("@x", "likes", "tea")])
    _ingest(memory, clock, 2, "b", "user",
            resolve=[{"key": "y", "name": "Joanna", "context": {"city": "Lyon"}}],
            assertions=[fact("@y", "city", "Lyon")])
    first, second = _subject_of(memory, "likes"), _subject_of(memory, "city")
    clock.now = day(3)
    memory.merge(second, first, by="ana", reason="same person", scope="acme")
    assert _values(memory, second) == {"tea", "Lyon"}
    clock.now = day(4)
    memory.unmerge(second, first, by="ana", reason="not the same after all", scope="acme")
    assert _values(memory, second) == {"Lyon"}
    assert _values(memory, first) == {"tea"}
    # The merge is history, not erased: as known on day 3, the facts were pooled.
    assert _values(memory, second, day(3, 12), day(3, 12)) == {"tea", "Lyon"}
    assert [r.decision.decided_by for r in memory.decisions("acme")][-2:] == ["ana", "ana"]


def test_resolution_never_crosses_scopes(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(1)
    memory.ingest(episode("a", "user", day(1), scope="acme", resolve=[
        _jo(identifiers={"user_id": "j17"})], assertions=[fact("@jo", "likes", "tea")]))
    clock.now = day(2)
    memory.ingest(episode("b", "user", day(2), scope="globex", resolve=[
        _jo(identifiers={"user_id": "j17"})], assertions=[fact("@jo", "likes", "coffee")]))
    acme = {f.subject for f in memory.asof(scope="acme").facts}
    globex = {f.subject for f in memory.asof(scope="globex").facts}
    assert acme.isdisjoint(globex)
    assert all(not r.decision.candidates for r in memory.decisions("globex"))


def test_an_unknown_mention_handle_is_refused(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(1)
    report = memory.ingest(episode("a", "user", day(1), assertions=[fact("@nobody", "x", 1)]))
    assert [e.action for e in report.effects] == ["refused"]


def test_forgetting_an_episode_erases_what_resolution_learnt_from_it(
    memory: Memory, clock: ManualClock
) -> None:
    episode_id = _ingest(memory, clock, 1, "a", "user", resolve=[
        _jo(identifiers={"email": "jo.secret@example.org"}, context={"city": "Oslo"})],
        assertions=[fact("@jo", "likes", "tea")])
    subject = _subject_of(memory, "likes")
    assert memory.decisions("acme")
    clock.now = day(2)
    memory.forget(f"episode:{episode_id}@acme")
    assert memory.decisions("acme") == []
    assert memory.profile(subject) is None
    everything = str([memory.store.documents(k) for k in ("profile", "decision")])
    assert "jo.secret" not in everything
    assert "Oslo" not in everything


def test_undoing_a_resolver_merge_splits_the_facts_back_by_lineage(
    memory: Memory, clock: ManualClock
) -> None:
    email = {"email": "jo@example.org"}
    _ingest(memory, clock, 1, "a", "user", resolve=[_jo(identifiers=email,
                                                        context={"city": "Oslo"})],
            assertions=[fact("@jo", "city", "Oslo")])
    second = _ingest(memory, clock, 2, "b", "user",
                     resolve=[_jo(identifiers=email, context={"city": "Oslo"})],
                     assertions=[fact("@jo", "likes", "tea")])
    jo = _subject_of(memory, "city")
    assert _values(memory, jo) == {"Oslo", "tea"}  # the resolver merged the second mention
    [merge] = [r for r in memory.decisions("acme") if r.decision.outcome is Outcome.MERGE]
    clock.now = day(3)
    undone = memory.unmerge_decision(merge.decision.decision_id, by="ana", reason="two people")
    assert _values(memory, jo) == {"Oslo"}
    assert _values(memory, undone.entity_id) == {"tea"}
    [moved] = memory.asof(subject=undone.entity_id).facts
    assert [s.episode_id for s in moved.supported_by] == [second]
    assert _values(memory, jo, day(2, 12), day(2, 12)) == {"Oslo", "tea"}  # history kept
