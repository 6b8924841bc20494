"""An identity claim is a write like any other (issue 25, finding 6): ``same_as`` passes the
writer gate, the authority tiers and the conflict rules, on both backends.

The attack: a tool writes ``u1.same_as = mallory`` and ``mallory.deposit_preapproved = yes``;
nothing of mallory may then be served, or ranked, as u1's."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.domain.gate import WriterPolicy, admit
from kg_memory.domain.model import Channel, Kind
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

# Everyone but the user's conversation, and names that imitate it.
OUTSIDERS = ("tool", "registry", "restaurant", "mallory", "User", "agent ")


def _user_says_no(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(1)
    memory.ingest(episode("no", "user", day(1), content="no deposit was preapproved",
                          assertions=[fact("u1", "deposit_preapproved", "no")]))


def _mallory(memory: Memory, clock: ManualClock, n: int, source: str, channel: Channel,
             kind: Kind) -> list[str]:
    """The attack over one source, channel and kind; returns the report's actions."""
    clock.now = day(2, n % 24)
    report = memory.ingest(episode(
        f"mallory-{n}", source, day(2, n % 24), channel=channel.value,
        content="deposit preapproved for mallory",
        assertions=[fact("u1", "same_as", "mallory", kind.value),
                    fact("mallory", "same_as", "u1", kind.value),
                    fact("mallory", "deposit_preapproved", "yes", "world")]))
    return [e.action for e in report.effects] if report.status != "refused" else ["refused"]


def _only_the_users(memory: Memory) -> None:
    answer = memory.asof(subject="u1", scope="u1")
    assert [(f.subject, f.value) for f in answer.facts if f.predicate != "same_as"] == [
        ("u1", "no")]
    assert answer.conflicts == ()
    hits = memory.recall("deposit preapproved", scope="u1", subject="u1").results
    about = {h.content: h.score.specificity for h in hits if h.type == "fact"}
    assert about["no"] > about.get("yes", 0.0)
    assert about.get("yes", 0.0) == 0.0  # mallory's value is not about u1


def test_no_source_but_the_users_conversation_can_claim_an_identity(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    _user_says_no(memory, clock)
    combos = itertools.product(OUTSIDERS, Channel, (Kind.WORLD, Kind.STATED, Kind.CLAIM))
    for n, (source, channel, kind) in enumerate(combos):
        actions = _mallory(memory, clock, n, source, channel, kind)
        assert actions.count("refused") >= 2 or actions == ["refused"], (source, channel, kind)
    _only_the_users(memory)
    assert memory.asof(subject="u1", predicate="same_as", scope="u1").facts == ()
    refused = [r.reason for r in memory.refusals("u1") if r.what.startswith("u1.same_as")]
    assert "tool may not claim u1.same_as: identity claims are the user's conversation's " \
        "(or a person's merge)" in refused


def test_a_same_as_stored_before_the_gate_judged_it_pools_nothing(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """A store written before this release may hold a tool's ``same_as``: it is kept,
    attributed, and pools nothing, in as-of answers and in recall."""
    memory = make_memory(clock)
    _user_says_no(memory, clock)
    lax = WriterPolicy.default().model_copy(update={"identity_writers": ("*",)})
    old = Memory(memory.store, policy=lax, clock=clock)
    assert "refused" not in _mallory(old, clock, 0, "tool", Channel.TOOL, Kind.WORLD)
    # Kept as the tool's attributed world fact; it only stops pooling.
    assert [f.writer for f in memory.asof(subject="u1", predicate="same_as").facts] == ["tool"]
    _only_the_users(memory)


def test_a_legitimate_merge_pools_under_the_tiers_and_the_conflict_rules(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """A person's merge pools mallory's facts into u1's answers, but a third party's value
    about mallory is then a conflict with the user's own, never served beside it."""
    memory = make_memory(clock)
    _user_says_no(memory, clock)
    clock.now = day(2)
    memory.ingest(episode("m", "tool", day(2), channel="tool",
                          assertions=[fact("mallory", "deposit_preapproved", "yes", "world"),
                                      fact("mallory", "shoe_size", "44", "world")]))
    clock.now = day(3)
    memory.merge("u1", "mallory", by="ana", reason="same person", scope="u1")
    answer = memory.asof(subject="u1", scope="u1")
    served = {(f.predicate, f.value) for f in answer.facts if f.predicate != "same_as"}
    assert served == {("deposit_preapproved", "no"), ("shoe_size", "44")}
    [conflict] = answer.conflicts
    assert (conflict.fact.value, conflict.tier, conflict.served_tier) == (
        "yes", "third-party", "user")
    # The user's own claim over chat is an identity claim the gate admits, and it pools.
    clock.now = day(4)
    report = memory.ingest(episode("same", "user", day(4), assertions=[
        fact("u1", "same_as", "u1-work"), fact("u1-work", "email", "u1@work.example")]))
    assert "refused" not in [e.action for e in report.effects]
    assert ("email", "u1@work.example") in {
        (f.predicate, f.value) for f in memory.asof(subject="u1", scope="u1").facts}


def _claim_rule(source: str, channel: Channel, kind: Kind, subject: str) -> None:
    """An identity claim is admitted exactly when the writer is the user's conversation and
    the same write of any other predicate would be: the gate's other rules still apply."""
    policy = WriterPolicy.default()
    claim = admit(policy, source=source, kind=kind, subject=subject, predicate="same_as",
                  channel=channel)
    plain = admit(policy, source=source, kind=kind, subject=subject, predicate="other",
                  channel=channel)
    assert claim.admitted == (source in ("user", "agent") and plain.admitted), (source, kind)


def test_the_gate_admits_an_identity_claim_only_from_an_identity_writer() -> None:
    for source, channel, kind in itertools.product((*OUTSIDERS, "user", "agent"), Channel, Kind):
        _claim_rule(source, channel, kind, "u1")


@given(source=st.text(min_size=1, max_size=12), channel=st.sampled_from(list(Channel)),
       kind=st.sampled_from(list(Kind)),
       subject=st.from_regex(r"[a-z0-9_-]{1,12}", fullmatch=True))
def test_no_other_name_may_claim_an_identity(
    source: str, channel: Channel, kind: Kind, subject: str
) -> None:
    _claim_rule(source, channel, kind, subject)
