"""What a source says about an entity passes the same gate as its facts (issue 25, finding 8):
mentions to resolve (names, identifiers, context), entity declarations and mentions of known
entities, on both backends.

The attack: a restaurant whose facts about the user's contact Alice are all refused still
added a phone number to Alice's profile, and the user's later mention of Bob with that number
went to review as a possible Alice."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Channel
from kg_memory.domain.resolution import Outcome
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

PHONE = "+33 6 12 34 56 78"
EMAIL = "alice@example.com"
# Third parties, over every channel the default channel policy lets them arrive by.
THIRD_PARTIES = ("restaurant", "crm", "mallory")
CHANNELS = ("webhook", "tool", "document", "api")


def _alice(memory: Memory, clock: ManualClock) -> str:
    clock.now = day(1)
    memory.ingest(episode("alice", "user", day(1), content="Alice is a friend",
                          resolve=[{"key": "a", "name": "Alice", "identifiers": {"email": EMAIL},
                                    "context": {"relation": "friend"}}],
                          assertions=[fact("@a", "likes", "tea")]))
    [alice] = [f.subject for f in memory.asof(scope="u1").facts if f.predicate == "likes"]
    return alice


def _restaurant(memory: Memory, clock: ManualClock, n: int, source: str, channel: str,
                alice: str) -> Any:
    clock.now = day(2, n % 24)
    mention = {"key": "a", "name": "Alice", "identifiers": {"email": EMAIL, "phone": PHONE},
               "context": {"relation": "friend", "city": "Lyon"}}
    return memory.ingest(episode(
        f"{source}-{channel}-{n}", source, day(2, n % 24), channel=channel,
        content="table for Alice", resolve=[mention], mentions=[alice],
        entities=[{"entity_id": alice, "type": "person", "name": "Mallory"},
                  {"entity_id": f"contact-{n}", "type": "person", "name": "Eve"}],
        assertions=[fact("@a", "phone", PHONE), fact("@a", "booked", "R1", "world")]))


def test_a_refused_third_party_describes_no_one(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    alice = _alice(memory, clock)
    before = memory.profile(alice, "u1")
    attacks = [(s, c) for s in THIRD_PARTIES for c in CHANNELS]
    sent = []
    for n, (source, channel) in enumerate(attacks):
        report = _restaurant(memory, clock, n, source, channel, alice)
        sent.append(report.episode_id)
        assert report.status == "accepted"
        # Every part of it is refused: its facts, its mention, its entities and its link.
        assert [e.action for e in report.effects] == ["refused"] * 6, (source, channel)
    assert memory.profile(alice, "u1") == before
    assert {e.entity_id for e in memory.entities("u1")} == {alice}
    assert [r.decision.mention.name for r in memory.decisions("u1")] == ["Alice"]
    linked = set(memory.lineage(alice, "both", scope="u1").nodes)
    assert alice in linked
    assert not linked & set(sent)  # no MENTIONS or RESOLVED_TO from them
    reasons = {r.what: r.reason for r in memory.refusals("u1") if r.source == "restaurant"}
    assert reasons["@a"].startswith("restaurant may not describe ")
    assert reasons["@a.phone"] == "mention @a was refused"
    # The user's later Bob with that number is nobody's possible Alice.
    clock.now = day(3)
    memory.ingest(episode("bob", "user", day(3), content="Bob called",
                          resolve=[{"key": "b", "name": "Bob", "identifiers": {"phone": PHONE}}],
                          assertions=[fact("@b", "called", "yes")]))
    bob = memory.decisions("u1")[-1].decision
    assert bob.mention.name == "Bob"
    assert bob.outcome is Outcome.KEEP_APART
    assert alice not in bob.possible_same_as
    assert memory.review("u1") == []


def test_a_lower_tier_lands_on_the_entity_but_does_not_describe_it(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """The registry and tools may write world facts about anyone (the default gate), so their
    mention of Alice resolves to her and their facts land on her, attributed; but they rank
    below the user, so what they say about her joins no profile the user's mentions are
    matched on (the tiers, as for values)."""
    memory = make_memory(clock)
    alice = _alice(memory, clock)
    before = memory.profile(alice, "u1")
    for n, (source, channel) in enumerate((("registry", "document"), ("tool", "tool"),
                                           ("agent", "tool"))):
        clock.now = day(2, n)
        report = memory.ingest(episode(
            f"roster-{n}", source, day(2, n), channel=channel,
            resolve=[{"key": "a", "name": "Alice",
                      "identifiers": {"email": EMAIL, "phone": PHONE}}],
            assertions=[fact("@a", "team", f"ops-{n}", "world")]))
        expected = [] if source == "agent" else ["refused"]  # the agent is the user's tier
        assert [e.action for e in report.effects if e.action == "refused"] == expected
        assert f"ops-{n}" in {f.value for f in memory.asof(subject=alice, scope="u1").facts}
        if source != "agent":
            assert memory.profile(alice, "u1") == before
    refused = {r.what: r.reason for r in memory.refusals("u1") if r.source == "tool"}
    assert refused["@a.profile"] == (f"tool may not add to {alice}'s profile: user described "
                                     "it with more authority")
    # The agent records for the user: its description counts, as the user's would.
    after = memory.profile(alice, "u1")
    assert after is not None
    assert PHONE in {i.value for i in after.identifiers}


def test_a_lower_tier_description_is_no_evidence_against_the_users_mentions(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    alice = _alice(memory, clock)
    clock.now = day(2)
    memory.ingest(episode("crm", "tool", day(2), channel="tool",
                          resolve=[{"key": "a", "name": "Alice",
                                    "identifiers": {"email": EMAIL, "phone": PHONE}}]))
    clock.now = day(3)
    memory.ingest(episode("bob", "user", day(3),
                          resolve=[{"key": "b", "name": "Bob", "identifiers": {"phone": PHONE}}],
                          assertions=[fact("@b", "called", "yes")]))
    bob = memory.decisions("u1")[-1].decision
    assert (bob.mention.name, bob.outcome) == ("Bob", Outcome.KEEP_APART)
    assert alice not in bob.possible_same_as


def test_an_owner_describes_what_it_owns(make_memory: MemoryFactory, clock: ManualClock) -> None:
    memory = make_memory(clock)
    clock.now = day(3)
    memory.ingest(episode("own", "user", day(3), entities=[
        {"entity_id": "R1", "type": "booking", "owners": ["restaurant"]}]))
    report = memory.ingest(episode("r1", "restaurant", day(3), channel="webhook",
                                   entities=[{"entity_id": "R1", "name": "table for two"}],
                                   mentions=["R1"]))
    assert [e.action for e in report.effects] == []
    assert {e.entity_id: e.name for e in memory.entities("u1")}["R1"] == "table for two"


@given(source=st.sampled_from(THIRD_PARTIES) | st.text(min_size=1, max_size=12),
       channel=st.sampled_from(list(Channel)),
       entity=st.from_regex(r"[a-z0-9_-]{1,12}", fullmatch=True), owned=st.booleans())
def test_a_source_describes_an_entity_only_if_it_may_write_a_fact_about_it(
    source: str, channel: Channel, entity: str, owned: bool
) -> None:
    from kg_memory.domain.gate import may_describe  # new here: the file runs on main

    policy = WriterPolicy.default()
    owners = (source,) if owned else ()
    decision = may_describe(policy, source=source, entity_id=entity, owners=owners,
                            channel=channel)
    world_writer = source in ("agent", "tool", "registry") or owned
    user_in_chat = source in ("user", "agent") and channel is Channel.CHAT
    assert decision.admitted == (world_writer or user_in_chat), (source, channel, owned)
