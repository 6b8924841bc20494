"""The trust rules stated one by one: the authority order, channel binding and corroboration.

``tests/test_trust_gate.py`` and ``tests/test_authority_properties.py`` show them on the store;
here each rule is checked as a pure function against a small reference, at the cases where a
flipped comparison or a dropped condition would change the answer.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import PolicyError
from kg_memory.domain.authority import (
    DEFAULT_AUTHORITY,
    AuthorityTier,
    arbitrate,
    rank,
    ranks_at_least,
    same_tier,
    standing,
    tier_of,
)
from kg_memory.domain.channel import ChannelPolicy, ChannelRule, bind, is_internal
from kg_memory.domain.corroboration import corroboration, fingerprint, mentioned
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Channel, Kind, Qualifiers, Support
from kg_memory.domain.result import Fact
from tests.conftest import day

# -- the authority order ----------------------------------------------------------------------

TIERS = (
    AuthorityTier(name="top", writers=("user", "ops-*")),
    AuthorityTier(name="middle", writers=("*",)),
    AuthorityTier(name="low", writers=("ops-bot", "bot-*")),
)
WRITERS = ("user", "ops-1", "ops-bot", "bot-7", "tool", "agent")


def _reference_rank(tiers: tuple[AuthorityTier, ...], writer: str) -> int:
    """An exact name beats every glob; otherwise the first tier with a matching glob."""
    exact = [i for i, t in enumerate(tiers) if writer in t.writers]
    if exact:
        return exact[0]
    globbed = [i for i, t in enumerate(tiers) if any(fnmatchcase(writer, p) for p in t.writers)]
    return globbed[0] if globbed else len(tiers)


@given(writer=st.sampled_from(WRITERS), other=st.sampled_from(WRITERS),
       tiers=st.sampled_from((TIERS, TIERS[:1], TIERS[2:], DEFAULT_AUTHORITY)))
def test_a_writer_ranks_by_its_exact_name_first_then_by_the_first_glob(
    writer: str, other: str, tiers: tuple[AuthorityTier, ...]
) -> None:
    mine, theirs = _reference_rank(tiers, writer), _reference_rank(tiers, other)
    assert rank(tiers, writer) == mine
    assert tier_of(tiers, writer).name == (tiers[mine].name if mine < len(tiers) else "unranked")
    assert ranks_at_least(tiers, writer, other) == (mine <= theirs)
    assert same_tier(tiers, writer, other) == (mine == theirs)


def test_a_writer_no_tier_names_ranks_below_every_tier() -> None:
    assert rank(TIERS[:1], "tool") == 1
    assert tier_of(TIERS[:1], "tool").name == "unranked"
    assert tier_of(TIERS[:1], "user").name == "top"
    assert tier_of(TIERS, "ops-bot").name == "low"  # named exactly, despite the earlier glob


def test_statements_stand_before_every_other_kind_of_the_same_tier() -> None:
    assert standing(TIERS, "user", Kind.STATED) < standing(TIERS, "user", Kind.WORLD)
    assert standing(TIERS, "user", Kind.WORLD) == standing(TIERS, "user", Kind.CLAIM)
    assert standing(TIERS, "user", Kind.WORLD) < standing(TIERS, "tool", Kind.STATED)


def _fact(aid: str, writer: str, value: str, kind: Kind = Kind.WORLD, *, subject: str = "x",
          project: str | None = None) -> Fact:
    return Fact(assertion_id=aid, revision=1, scope="s", subject=subject, predicate="p",
                value=value, qualifiers=Qualifiers(project=project), kind=kind, writer=writer,
                depends_on=(), confidence=1.0, valid=Interval(start=day(0)),
                system=Interval(start=day(0)), supported_by=())


def test_arbitration_serves_the_best_standing_and_lists_disagreeing_lower_values() -> None:
    user = _fact("a1", "user", "no", Kind.STATED)
    tool = _fact("a2", "tool", "yes")
    agreeing = _fact("a3", "bot-7", "no")
    other_slot = _fact("a4", "tool", "maybe", subject="y")
    served, conflicts = arbitrate([tool, other_slot, user, agreeing], TIERS)
    assert served == (other_slot, user)  # in the answer's order
    assert [(c.fact, c.tier, c.contradicts, c.served_tier) for c in conflicts] == [
        (tool, "middle", ("a1",), "top")]


def test_arbitration_keeps_equals_side_by_side_and_projects_apart() -> None:
    a, b = _fact("a1", "tool", "x"), _fact("a2", "agent", "y")  # both the middle tier
    assert arbitrate([a, b], TIERS) == ((a, b), ())
    general, cedar = _fact("a1", "user", "x"), _fact("a2", "tool", "y", project="cedar")
    assert arbitrate([general, cedar], TIERS) == ((general, cedar), ())
    lone = _fact("a1", "tool", "x")
    assert arbitrate([lone], TIERS) == ((lone,), ())


def test_a_slot_of_two_disagreeing_tiers_is_arbitrated_even_when_it_is_the_only_slot() -> None:
    user, tool = _fact("a1", "user", "no", Kind.STATED), _fact("a2", "tool", "yes")
    served, conflicts = arbitrate([tool, user], TIERS)
    assert served == (user,)
    assert [c.fact for c in conflicts] == [tool]


def test_the_default_authority_order_cannot_be_changed_in_place() -> None:
    # Every store without its own policy shares DEFAULT_AUTHORITY: an edit would re-rank them all.
    with pytest.raises(ValidationError, match="frozen"):
        DEFAULT_AUTHORITY[0].writers = ("tool",)  # type: ignore[misc]
    assert isinstance(DEFAULT_AUTHORITY, tuple)


# -- channel binding --------------------------------------------------------------------------


@given(source=st.sampled_from(("user", "agent", "timer", "restaurant", "tool", "registry")),
       channel=st.sampled_from(Channel))
def test_the_default_channels_admit_exactly_their_table(source: str, channel: Channel) -> None:
    table = {"user": {Channel.CHAT}, "agent": {Channel.CHAT, Channel.TOOL},
             "timer": {Channel.TIMER}}
    others = {Channel.WEBHOOK, Channel.TOOL, Channel.DOCUMENT, Channel.API}
    assert bind(ChannelPolicy.default(), source=source, channel=channel).admitted == (
        channel in table.get(source, others))


def test_the_first_rule_matching_the_source_decides_even_when_a_later_one_would_admit() -> None:
    policy = ChannelPolicy(rules=(ChannelRule(sources=("bank-*",), channels=(Channel.API,)),
                                  ChannelRule(sources=("*",), channels=tuple(Channel))))
    assert bind(policy, source="bank-1", channel=Channel.API).admitted
    assert not bind(policy, source="bank-1", channel=Channel.CHAT).admitted
    assert bind(policy, source="shop", channel=Channel.CHAT).admitted
    assert not bind(ChannelPolicy(), source="shop", channel=Channel.CHAT).admitted


@given(name=st.sampled_from(("consolidator", "resolver", "kg-memory", "preview",
                             "kg-memory-forget", "kg-memory-anything", "KG_MEMORY_X",
                             " Consolidator ", "RESOLVER")))
def test_no_policy_admits_a_name_that_is_or_imitates_an_internal_worker(name: str) -> None:
    open_policy = ChannelPolicy(rules=(ChannelRule(sources=("*",), channels=tuple(Channel)),))
    assert is_internal(name)
    assert not bind(open_policy, source=name, channel=Channel.API).admitted


def test_ordinary_names_are_not_internal() -> None:
    assert not any(is_internal(n) for n in ("user", "memory-kg", "agent", "my-kg-memory"))


# -- corroboration ----------------------------------------------------------------------------


def _support(ep: str, source: str, when: int = 0, text: str | None = None) -> Support:
    return Support(episode_id=ep, source=source, occurred_at=day(when),
                   fingerprint="" if text is None else fingerprint(text))


supports = st.lists(st.builds(
    _support, ep=st.sampled_from(("e1", "e2", "e3", "e4")),
    source=st.sampled_from(("user", "tool")), when=st.integers(0, 5),
    text=st.sampled_from((None, "R1 confirmed", "r1   CONFIRMED", "R1 cancelled"))),
    max_size=8)


@given(items=supports, times=st.integers(0, 4), since=st.none() | st.integers(0, 5))
def test_mentions_count_distinct_writer_and_content_since_the_cutoff(
    items: list[Support], times: int, since: int | None
) -> None:
    def content(s: Support) -> str:
        return s.fingerprint or s.episode_id  # no digest: each episode is its own content

    got = corroboration(items)
    assert (got.sources, got.mentions, got.episodes) == (
        len({s.source for s in items}), len({(s.source, content(s)) for s in items}),
        len({s.episode_id for s in items}))
    recent = [s for s in items if since is None or s.occurred_at >= day(since)]
    assert mentioned(items, times=times, since=None if since is None else day(since)) == (
        len({(s.source, content(s)) for s in recent}) >= times)


def test_episodes_without_a_digest_are_separate_mentions() -> None:
    assert mentioned([_support("e1", "user"), _support("e2", "user")], times=2)
    assert not mentioned([_support("e1", "user"), _support("e1", "user")], times=2)


def test_a_mention_exactly_at_the_cutoff_counts() -> None:
    items = [_support("e1", "user", 3, "a"), _support("e2", "user", 5, "b")]
    assert mentioned(items, times=2, since=day(3))
    assert not mentioned(items, times=2, since=day(4))


def test_fingerprints_fold_case_and_whitespace_only() -> None:
    assert fingerprint("R1  confirmed\n") == fingerprint("r1 CONFIRMED")
    assert fingerprint("R1 confirmed") != fingerprint("R1 not confirmed")


def test_policies_bindings_and_counts_are_immutable_and_the_default_is_named() -> None:
    policy = ChannelPolicy.default()
    assert (policy.name, policy.version) == ("default", 1)  # audit rows cite name and version
    assert ChannelPolicy.model_validate({"rules": []}).version == 1
    binding = bind(policy, source="user", channel=Channel.CHAT)
    for record in (policy, policy.rules[0], binding, corroboration([])):
        field = next(iter(type(record).model_fields))
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, getattr(record, field))


def test_a_channel_policy_file_that_does_not_parse_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "channels.json"
    path.write_text(ChannelPolicy.default().model_dump_json(), encoding="utf-8")
    assert ChannelPolicy.load(path) == ChannelPolicy.default()
    for text in ("{not json", '{"rules": [{"sources": ["*"], "channels": ["carrier pigeon"]}]}'):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(PolicyError, match="channel policy"):
            ChannelPolicy.load(path)
    with pytest.raises(PolicyError, match="channel policy"):
        ChannelPolicy.load(tmp_path / "missing.json")


def test_fingerprints_already_stored_stay_comparable_with_new_ones() -> None:
    # Support rows keep the digest; a new digest size or hash would make every redelivery of an
    # old message look like new content, so the format is part of the store's contract.
    import hashlib

    expected = hashlib.blake2b(b"r1 confirmed", digest_size=8).hexdigest()
    assert fingerprint(" R1\tConfirmed ") == expected
