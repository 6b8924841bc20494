"""The gate's channel and ownership rules, against references written from their documentation.

A rule restricted to channels admits a write over one of them, or a write whose channel is not
known (a preview or a worker's own write is judged on the writer alone), and an unrestricted rule
admits every channel. Ownership is authority: an entity's owners are the ones stored with it
followed by the ones a policy grant gives it (first occurrence wins); adding owners is refused
for a sender that would name itself, and for anyone who is not an owner assigner (``"*"``: any);
declaring only owners the entity has already is no change. Only an owner may end an entity, and
an explicit owner list (the policy's grants included) overrides the stored one. Rules and
decisions are values: once made they cannot be edited.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import (
    Channel,
    Entity,
    GateRule,
    Kind,
    OwnerGrant,
    WriterPolicy,
    admit,
)
from kg_memory.domain.gate import may_assign, may_end, owners_of

SOURCES = ["user", "agent", "tool", "restaurant", "stranger"]
CHANNELS = [None, *Channel]
ENTITIES = ["R1", "R22", "u1", "ana"]
PATTERNS = ["R*", "u?", "ana", "*", "x"]


def glob_matches(pattern: str, text: str) -> bool:
    expression = "".join(
        ".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern
    )
    return re.fullmatch(expression, text, flags=re.DOTALL) is not None


def channel_ok(rule_channels: tuple[Channel, ...], channel: Channel | None) -> bool:
    if channel is None or not rule_channels:
        return True
    return channel in rule_channels


@given(
    st.lists(st.sampled_from(list(Channel)), max_size=3, unique=True).map(tuple),
    st.sampled_from(CHANNELS),
    st.sampled_from(SOURCES),
)
def test_a_channel_restricted_rule_admits_only_its_channels_or_an_unknown_one(
    channels: tuple[Channel, ...], channel: Channel | None, source: str,
) -> None:
    policy = WriterPolicy(rules=(GateRule(kind=Kind.STATED, writers=(source,),
                                          channels=channels),))
    decision = admit(policy, source=source, kind=Kind.STATED, subject="ana",
                     predicate="diet", channel=channel)
    assert decision.admitted == channel_ok(channels, channel)
    if not decision.admitted and channel is not None:
        assert f"over {channel.value}" in decision.reason  # the refusal names the channel


def test_the_default_policy_takes_stated_facts_from_the_agent_only_over_chat() -> None:
    policy = WriterPolicy.default()
    for channel in Channel:
        decision = admit(policy, source="agent", kind=Kind.STATED, subject="ana",
                         predicate="diet", channel=channel)
        assert decision.admitted == (channel is Channel.CHAT), channel
    # A world fact is not restricted to a channel: the agent books over any.
    assert admit(policy, source="agent", kind=Kind.WORLD, subject="R1", predicate="at",
                 channel=Channel.TOOL).admitted


def test_a_refusal_without_a_channel_does_not_name_one() -> None:
    decision = admit(WriterPolicy(), source="tool", kind=Kind.STATED, subject="ana",
                     predicate="diet")
    assert not decision.admitted
    assert " over " not in decision.reason


def reference_owners(grants: list[tuple[tuple[str, ...], tuple[str, ...]]], entity: str,
                     stored: tuple[str, ...]) -> tuple[str, ...]:
    result: list[str] = []
    for owner in stored:
        if owner not in result:
            result.append(owner)
    for patterns, owners in grants:
        if any(glob_matches(p, entity) for p in patterns):
            for owner in owners:
                if owner not in result:
                    result.append(owner)
    return tuple(result)


grants = st.lists(
    st.tuples(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=2).map(tuple),
              st.lists(st.sampled_from(SOURCES), min_size=1, max_size=2).map(tuple)),
    max_size=3,
)


@given(grants, st.sampled_from(ENTITIES), st.lists(st.sampled_from(SOURCES), max_size=2))
def test_owners_are_the_stored_ones_then_the_granted_ones_once_each(
    policy_grants: list[tuple[tuple[str, ...], tuple[str, ...]]], entity: str,
    stored: list[str],
) -> None:
    policy = WriterPolicy(owners=tuple(OwnerGrant(entities=e, owners=o)
                                       for e, o in policy_grants))
    assert owners_of(policy, entity, tuple(stored)) == reference_owners(
        policy_grants, entity, tuple(stored))


def reference_may_assign(assigners: tuple[str, ...], source: str, current: tuple[str, ...],
                         declared: tuple[str, ...]) -> bool:
    added = set(declared) - set(current)
    if not added:
        return True
    if source in added:
        return False
    return "*" in assigners or source in assigners


@given(
    st.lists(st.sampled_from([*SOURCES, "*"]), max_size=3).map(tuple),
    st.sampled_from(SOURCES),
    st.lists(st.sampled_from(SOURCES), max_size=2).map(tuple),
    st.lists(st.sampled_from(SOURCES), max_size=3).map(tuple),
)
def test_only_an_assigner_adds_owners_and_no_one_adds_itself(
    assigners: tuple[str, ...], source: str, current: tuple[str, ...],
    declared: tuple[str, ...],
) -> None:
    policy = WriterPolicy(owner_assigners=assigners)
    decision = may_assign(policy, source=source, entity_id="R1", current=current,
                          declared=declared)
    assert decision.admitted == reference_may_assign(assigners, source, current, declared)
    assert decision.reason


def test_an_assigner_may_add_others_but_never_itself() -> None:
    policy = WriterPolicy.default()
    assert may_assign(policy, source="user", entity_id="R1", current=(),
                      declared=("restaurant",)).admitted
    assert not may_assign(policy, source="user", entity_id="u1", current=(),
                          declared=("user",)).admitted
    # Restating an owner the entity already has is no change, even from a stranger.
    assert may_assign(policy, source="stranger", entity_id="R1", current=("restaurant",),
                      declared=("restaurant",)).admitted
    assert not may_assign(policy, source="stranger", entity_id="R1", current=(),
                          declared=("restaurant",)).admitted


@given(st.lists(st.sampled_from(SOURCES), max_size=2).map(tuple),
       st.none() | st.lists(st.sampled_from(SOURCES), max_size=2).map(tuple),
       st.sampled_from(SOURCES))
def test_only_an_owner_ends_an_entity_and_given_owners_override_the_stored(
    stored: tuple[str, ...], given_owners: tuple[str, ...] | None, source: str,
) -> None:
    entity = Entity(entity_id="R1", owners=stored)
    decision = may_end(entity, source, given_owners)
    assert decision.admitted == (source in (stored if given_owners is None else given_owners))
    assert "R1" in decision.reason
    assert not may_end(None, source, given_owners).admitted


def test_a_policy_grant_lets_its_owner_end_the_entity() -> None:
    policy = WriterPolicy(owners=(OwnerGrant(entities=("R*",), owners=("restaurant",)),))
    booking = Entity(entity_id="R1")
    assert not may_end(booking, "restaurant").admitted
    assert may_end(booking, "restaurant", owners_of(policy, "R1", booking.owners)).admitted


def test_the_default_policy_is_version_1_of_seed_000_and_a_policy_starts_at_version_1() -> None:
    assert (WriterPolicy.default().name, WriterPolicy.default().version) == ("seed-000", 1)
    assert WriterPolicy().version == 1


@pytest.mark.parametrize("value", [
    GateRule(kind=Kind.STATED, writers=("user",)),
    OwnerGrant(entities=("R*",), owners=("restaurant",)),
    WriterPolicy.default(),
    admit(WriterPolicy.default(), source="user", kind=Kind.STATED, subject="a", predicate="b"),
])
def test_rules_policies_and_decisions_cannot_be_edited(value: object) -> None:
    field = next(iter(type(value).model_fields))  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="frozen"):
        setattr(value, field, getattr(value, field))
