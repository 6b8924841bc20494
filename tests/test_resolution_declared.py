"""The resolver sees declared entities (issue 29, its last bullet).

Rules protected, on both backends: an entity an episode declares (``entities``: an id, a name,
a type, optionally identifiers and context) is a candidate for later ``resolve`` mentions like
an entity a resolved mention made, under the resolver's usual rules: the same person mentioned
later by name alone goes to REVIEW (a provisional entity linked ``POSSIBLE_SAME_AS``, facts not
pooled), never a same-name merge without evidence; with an identifier or context the
declaration carried, it MERGEs onto the declared entity. A declaration the writer gate refuses
is no candidate (issue 25 #8), and a lower tier's declaration joins no profile a higher tier
built. A person's decision stands whatever is declared later. Forgetting the declaring episode
takes the candidate with it.

Before this, a later mention by name made a second entity with no review link (every test
here failed on the main of 2026-12-05, f912dc0).
"""

from __future__ import annotations

import pytest

from kg_memory import IdempotencyConflict, IngestReport, Memory
from kg_memory.domain.model import EdgeType
from kg_memory.domain.record import MentionCandidate
from kg_memory.domain.resolution import Outcome
from kg_memory.services.identity import PROFILE, preview_resolution
from tests.conftest import ManualClock, day, episode, fact

NAME = "Zedwina Quarrington"
EMAIL = "zq@example.org"


def _declare(memory: Memory, clock: ManualClock, when: float, op: str, source: str = "user",
             **declared: object) -> IngestReport:
    clock.now = day(when)
    channel = {"user": "chat", "tool": "tool"}.get(source, "webhook")
    return memory.ingest(episode(op, source, day(when), channel=channel, content="noted",
                                 entities=[{"entity_id": "p7", "type": "person", "name": NAME,
                                            **declared}]))


def _mention(memory: Memory, clock: ManualClock, when: float, op: str,
             **said: object) -> IngestReport:
    clock.now = day(when)
    return memory.ingest(episode(op, "user", day(when), content=f"{NAME} likes tea",
                                 resolve=[{"key": "z", "name": NAME, **said}],
                                 assertions=[fact("@z", "likes", f"tea-{op}")]))


def _subject(memory: Memory, op: str) -> str:
    [found] = [f.subject for f in memory.asof(scope="u1").facts if f.value == f"tea-{op}"]
    return found


def test_a_later_mention_by_name_alone_is_a_review_linked_to_the_declared_entity(
    memory: Memory, clock: ManualClock
) -> None:
    _declare(memory, clock, 0, "intro")
    _mention(memory, clock, 1, "later")
    [resolved] = memory.decisions("u1")
    decision = resolved.decision
    assert decision.outcome is Outcome.REVIEW
    assert decision.possible_same_as == ("p7",)
    provisional = resolved.entity_id
    assert provisional != "p7"
    assert _subject(memory, "later") == provisional  # never pooled across the link
    assert [r.entity_id for r in memory.review("u1")] == [provisional]
    edges = memory.store.edges(provisional, "u1")
    assert any(e.type is EdgeType.POSSIBLE_SAME_AS and e.dst == "p7" for e in edges)
    # The preview (kg-memory entities resolve) sees the declared entity too.
    preview = preview_resolution(memory.store, MentionCandidate(key="z", name=NAME), "u1")
    assert "p7" in preview.possible_same_as


def test_the_declared_identifier_merges_the_later_mention_onto_the_declared_entity(
    memory: Memory, clock: ManualClock
) -> None:
    _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL},
             context={"employer": "Globex"})
    _mention(memory, clock, 1, "later", identifiers={"email": EMAIL})
    [resolved] = memory.decisions("u1")
    assert (resolved.decision.outcome, resolved.entity_id) == (Outcome.MERGE, "p7")
    assert _subject(memory, "later") == "p7"
    assert {e.entity_id for e in memory.entities("u1")} == {"p7"}
    # Context a declaration carried is evidence as a mention's is.
    _mention(memory, clock, 2, "work", context={"employer": "Globex", "city": "Lyon"})
    latest = memory.decisions("u1")[-1]
    assert (latest.decision.outcome, latest.entity_id) == (Outcome.MERGE, "p7")
    assert "employer" in latest.decision.reason


def test_two_declared_namesakes_stay_apart_from_a_mention_by_name(
    memory: Memory, clock: ManualClock
) -> None:
    _declare(memory, clock, 0, "intro")
    clock.now = day(0, 10)
    memory.ingest(episode("other", "user", day(0, 10), content="another one",
                          entities=[{"entity_id": "p8", "type": "person", "name": NAME}]))
    _mention(memory, clock, 1, "later")
    decision = memory.decisions("u1")[-1].decision
    assert decision.outcome is Outcome.REVIEW
    assert set(decision.possible_same_as) == {"p7", "p8"}
    assert _subject(memory, "later") not in {"p7", "p8"}


def test_a_declaration_the_gate_refuses_is_no_candidate(
    memory: Memory, clock: ManualClock
) -> None:
    report = _declare(memory, clock, 0, "intro", source="restaurant",
                      identifiers={"email": EMAIL})
    assert [e.action for e in report.effects] == ["refused"]
    assert memory.store.documents(PROFILE, "u1") == []
    _mention(memory, clock, 1, "later", identifiers={"email": EMAIL})
    [resolved] = memory.decisions("u1")
    assert resolved.decision.outcome is Outcome.KEEP_APART
    assert resolved.decision.candidates == ()
    assert "p7" not in {e.entity_id for e in memory.entities("u1")}


def test_a_lower_tier_declaration_joins_no_profile_the_user_built(
    memory: Memory, clock: ManualClock
) -> None:
    _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL})
    before = memory.profile("p7", "u1")
    report = _declare(memory, clock, 1, "crm", source="tool",
                      identifiers={"phone": "+33 6 12 34 56 78"})
    assert [(e.action, e.key) for e in report.effects] == [("refused", "p7.profile")]
    assert memory.profile("p7", "u1") == before
    # The user's own later declaration grows it.
    _declare(memory, clock, 2, "again", context={"city": "Lyon"})
    after = memory.profile("p7", "u1")
    assert after is not None
    assert [d.source for d in after.declared] == ["user", "user"]


def test_a_persons_decision_stands_whatever_is_declared_later(
    memory: Memory, clock: ManualClock
) -> None:
    _declare(memory, clock, 0, "intro")
    _mention(memory, clock, 1, "later")
    provisional = memory.decisions("u1")[-1].entity_id
    clock.now = day(2)
    memory.keep_apart(provisional, "p7", by="alice@ops", reason="another Zedwina", scope="u1")
    # A re-declaration carrying what the provisional entity's mention said reopens nothing.
    _declare(memory, clock, 3, "again", identifiers={"email": EMAIL})
    assert memory.review("u1") == []
    assert memory.decisions("u1", entity_id=provisional)[-1].decision.decided_by == "alice@ops"
    assert _subject(memory, "later") == provisional
    # Kept apart, it is no longer a copy of p7: a later mention by name is a review between
    # two families, which links neither to the other.
    kept = memory.profile(provisional, "u1")
    assert kept is not None
    assert kept.copy_of is None
    _mention(memory, clock, 3.5, "third")
    third = memory.decisions("u1")[-1].decision
    assert third.outcome is Outcome.REVIEW
    assert set(third.possible_same_as) == {"p7", provisional}
    assert third.copy_of is None
    # A person's merge stands too: the declared entity and the provisional one pool.
    clock.now = day(4)
    memory.merge("p7", provisional, by="alice@ops", reason="the same after all", scope="u1")
    _declare(memory, clock, 5, "once-more", context={"city": "Lyon"})
    assert {f.value for f in memory.asof(scope="u1", subject="p7").facts} >= {"tea-later"}


def test_forgetting_the_declaration_takes_the_candidate_with_it(
    memory: Memory, clock: ManualClock
) -> None:
    intro = _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL})
    clock.now = day(1)
    assert memory.forget(f"episode:{intro.episode_id}@u1").status == "complete"
    assert memory.store.documents(PROFILE, "u1") == []
    _mention(memory, clock, 2, "later", identifiers={"email": EMAIL})
    [resolved] = memory.decisions("u1")
    assert resolved.decision.outcome is Outcome.KEEP_APART
    assert resolved.decision.candidates == ()


def test_a_declared_name_only_a_forgotten_episode_gave_leaves_a_kept_profile(
    memory: Memory, clock: ManualClock
) -> None:
    """The profile outlives the declaring episode when a kept mention merged onto it; the
    name and identifier only the declaration gave go with the declaration."""
    intro = _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL, "user_id": "z1"})
    clock.now = day(1)
    memory.ingest(episode("later", "user", day(1), content="Zed likes tea",
                          resolve=[{"key": "z", "name": "Zed Quarrington",
                                    "identifiers": {"user_id": "z1", "handle": "@zq"}}],
                          assertions=[fact("@z", "likes", "tea")]))
    assert memory.decisions("u1")[-1].entity_id == "p7"
    clock.now = day(2)
    assert memory.forget(f"episode:{intro.episode_id}@u1").status == "complete"
    profile = memory.profile("p7", "u1")
    assert profile is not None
    assert profile.names == ("Zed Quarrington",)
    assert profile.declared == ()
    assert {(i.kind.value, i.value) for i in profile.identifiers} == {
        ("user_id", "z1"), ("handle", "@zq")}
    assert NAME not in profile.model_dump_json()
    assert EMAIL not in profile.model_dump_json()


def test_a_declarations_identifiers_are_part_of_its_payload(
    memory: Memory, clock: ManualClock
) -> None:
    """A redelivery is a duplicate; the same operation id declaring other identifiers is a
    conflict, not a duplicate (a declaration without them hashes as before they existed)."""
    _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL})
    assert _declare(memory, clock, 0, "intro", identifiers={"email": EMAIL}).status == "duplicate"
    with pytest.raises(IdempotencyConflict):
        _declare(memory, clock, 0, "intro", identifiers={"email": "other@example.org"})


def test_a_named_booking_is_no_identity_and_stays_a_planned_write(
    memory: Memory, clock: ManualClock
) -> None:
    """A declaration that is no person and carries no identifiers or context makes no
    profile: a person mention never merges with it (a type mismatch is a veto), and a batch of
    bookings keeps its planned writes."""
    clock.now = day(0)
    memory.ingest(episode("booked", "agent", day(0), channel="tool", content="Booked",
                          entities=[{"entity_id": "R1", "type": "booking",
                                     "name": "Chez Lili for Ana", "owners": ["restaurant"]}]))
    assert memory.store.documents(PROFILE, "u1") == []
    # With identity evidence, any type is a candidate.
    memory.ingest(episode("vendor", "user", day(0), content="Globex",
                          entities=[{"entity_id": "org1", "type": "org", "name": "Globex Corp",
                                     "identifiers": {"email": "hello@globex.example"}}]))
    profile = memory.profile("org1", "u1")
    assert profile is not None
    assert profile.type == "org"
