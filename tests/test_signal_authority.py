"""Signals and rule bindings are written only by the source the policy names, over the channel
it names (issue 25, finding 5): nobody else can send a person-approved rule to review.

docs/policies.md: a signal is the world fact ``env:NAME.value`` written by the ``registry`` over
the API; a rule's binding ``RULE_ID.signal.NAME`` is the rule book's. Every other source,
channel and kind is tried here, as a write and as a retraction, on both backends."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.cli import app
from kg_memory.domain.gate import WriterPolicy, admit
from kg_memory.domain.layers import Rule, Tier
from kg_memory.domain.model import Channel, Kind
from kg_memory.services.ingestion import IngestReport
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

# Every source an attacker might claim, including near-misses of the one the policy names.
SOURCES = ("tool", "agent", "user", "restaurant", "Registry", "registry ", "registry")
KINDS = (Kind.WORLD, Kind.STATED, Kind.CLAIM)


def _approved(memory: Memory, clock: ManualClock) -> Rule:
    """A metadata rule bound to signal ``api`` = v1: observed in three tasks across two scenes,
    promoted, and approved by a person."""
    eps = []
    for n in range(3):
        clock.now = day(n / 10)
        eps.append(memory.ingest(episode(f"seen-{n}", "agent", day(n / 10),
                                         content=f"503 retried, task {n}")).episode_id)
    book = memory.rules
    rule = book.propose("u1", "retry on 503", signals={"api": "v1"})
    for n, scene in enumerate(("deploy", "deploy", "backfill")):
        book.observe(rule.rule_id, episode_id=eps[n], task_id=f"t{n}", scene=scene)
    clock.now = day(1)
    book.promote(rule.rule_id)
    book.promote(rule.rule_id)
    approved = book.approve(rule.rule_id, by="ana")
    assert (approved.tier, approved.status) == (Tier.METADATA, "active")
    return approved


def _untouched(memory: Memory, rule: Rule) -> None:
    book = memory.rules
    assert book.current_signal("api", "u1") == "v1"
    assert book.unbound(book.show(rule.rule_id)) is None
    assert book.due("u1") == []
    after = book.show(rule.rule_id)
    assert (after.tier, after.status) == (Tier.METADATA, "active")


def _refused(report: IngestReport) -> bool:
    return report.status == "refused" or any(e.action == "refused" for e in report.effects)


def _attacks(rule: Rule) -> list[tuple[str, Channel, Kind, str, str]]:
    """(source, channel, kind, subject, predicate) for every combination the policy does not
    name, against the signal and against the rule's binding."""
    slots = (("env:api", "value"), (rule.rule_id, "signal.api"))
    named = ("registry", Channel.API, Kind.WORLD)
    return [(s, c, k, subject, predicate)
            for s, c, k in itertools.product(SOURCES, Channel, KINDS) if (s, c, k) != named
            for subject, predicate in slots]


def test_no_source_or_channel_but_the_named_one_moves_a_signal_or_a_binding(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule = _approved(memory, clock)
    for n, (source, channel, kind, subject, predicate) in enumerate(_attacks(rule)):
        clock.now = day(2 + n / 1000)
        report = memory.ingest(episode(
            f"move-{n}", source, clock.now, channel=channel.value, content="api moved",
            assertions=[fact(subject, predicate, "v2", kind.value)]))
        assert _refused(report), (source, channel, kind, subject)
        if (source, channel) == ("registry", Channel.API):
            continue  # a retraction withdraws the named writer's own value: its to withdraw
        withdraw = memory.ingest(episode(
            f"withdraw-{n}", source, clock.now, channel=channel.value,
            retractions=[{"subject": subject, "predicate": predicate}]))
        assert not any(e.action == "retracted" for e in withdraw.effects), (source, channel)
    _untouched(memory, rule)
    # The named writer over the named channel still moves it: the boundary is where it says.
    clock.now = day(3)
    assert [r.rule_id for r in memory.rules.signal("api", "v2", "u1")] == [rule.rule_id]


def test_a_plain_ingest_by_the_registry_over_the_api_still_sends_the_rule_to_review(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule = _approved(memory, clock)
    clock.now = day(2)
    report = memory.ingest(episode("move", "registry", day(2), channel="api",
                                   assertions=[fact("env:api", "value", "v2", "world")]))
    assert not _refused(report)
    [due] = memory.rules.due("u1")
    assert (due.rule_id, due.status) == (rule.rule_id, "review")


def test_a_signal_stored_before_the_gate_reserved_it_is_not_what_a_rule_is_judged_by(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """A store written before this release may hold the agent's ``env:api.value`` beside the
    registry's (another authority tier, so it superseded nothing): the rule book reads only the
    values the policy vouches for now."""
    memory = make_memory(clock)
    rule = _approved(memory, clock)
    unreserved = WriterPolicy.default().model_copy(update={"reserved": ()})
    old = Memory(memory.store, policy=unreserved, clock=clock)
    clock.now = day(2)
    for n, (source, channel) in enumerate((("agent", "chat"), ("agent", "tool"))):
        report = old.ingest(episode(f"legacy-{n}", source, day(2), channel=channel,
                                    assertions=[fact("env:api", "value", f"v{n + 5}", "world"),
                                                fact(rule.rule_id, "signal.api", "x", "world")]))
        assert not _refused(report)
    _untouched(memory, rule)


def test_rules_review_due_on_the_command_line_demotes_nothing_after_the_attacks(
    tmp_path: Path, clock: ManualClock
) -> None:
    """The finding as reported: the attacks, then ``kg-memory rules review --due`` (now, and
    at an explicit time), which sent the approved rule to review on main."""
    store = tmp_path / "m.db"
    with Memory.open(store, clock=clock) as memory:
        rule = _approved(memory, clock)
        clock.now = day(2)
        for n, (source, channel, subject, predicate) in enumerate((
                ("tool", "tool", "env:api", "value"), ("registry", "webhook", "env:api", "value"),
                ("agent", "chat", "env:api", "value"), ("agent", "tool", "env:api", "value"),
                ("tool", "tool", rule.rule_id, "signal.api"))):
            memory.ingest(episode(f"attack-{n}", source, day(2), channel=channel,
                                  assertions=[fact(subject, predicate, "v2", "world")]))
    for extra in ([], ["--at", "2026-06-01T00:00:00Z"]):
        result = CliRunner().invoke(app, ["rules", "review", "--due", "--scope", "u1", "--json",
                                          "--store", str(store), *extra])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == []
    shown = CliRunner().invoke(app, ["rules", "show", rule.rule_id, "--scope", "u1", "--json",
                                     "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    body = json.loads(shown.output)
    assert (body["tier"], body["status"]) == ("metadata", "active")


@given(source=st.sampled_from(SOURCES) | st.text(min_size=1, max_size=12),
       channel=st.sampled_from(list(Channel)), kind=st.sampled_from(list(Kind)),
       name=st.from_regex(r"[a-z0-9_.:-]{1,20}", fullmatch=True),
       policy=st.sampled_from([WriterPolicy.default(),
                               WriterPolicy.default().model_copy(update={"rules": ()})]))
def test_only_the_registry_over_the_api_may_write_a_reserved_slot(
    source: str, channel: Channel, kind: Kind, name: str, policy: WriterPolicy
) -> None:
    """The gate alone, over arbitrary sources and signal names: a reserved slot is admitted
    exactly for the registry's world fact over the API, whatever the allow rules say."""
    for subject, predicate in ((f"env:{name}", "value"), (f"rl_{name}", f"signal.{name}")):
        decision = admit(policy, source=source, kind=kind, subject=subject,
                         predicate=predicate, channel=channel)
        assert decision.admitted == (source == "registry" and channel is Channel.API
                                     and kind is Kind.WORLD), (source, channel, kind)


def test_a_write_without_a_channel_is_judged_on_the_writer_alone() -> None:
    policy = WriterPolicy.default()
    assert admit(policy, source="registry", kind=Kind.WORLD, subject="env:api",
                 predicate="value").admitted
    assert not admit(policy, source="tool", kind=Kind.WORLD, subject="env:api",
                     predicate="value").admitted
