"""Layers and promotion (seed 004), and the Mt. Moon case: right when stored, wrong when reused."""

from __future__ import annotations

import pytest

from kg_memory import Memory, PolicyError
from kg_memory.domain.layers import (
    Observation,
    Outcome,
    PromotionPolicy,
    Rule,
    RuleType,
    Tier,
    approve,
    observe,
    promote,
    promotion_ready,
    review,
)
from tests.conftest import ManualClock, MemoryFactory, day, episode

POLICY = PromotionPolicy()


def _seen(rule: Rule, n: int, task: str, scene: str, holds: bool = True) -> Rule:
    return observe(rule, Observation(episode_id=f"ep{n}", task_id=task, scene=scene,
                                     at=day(n), holds=holds))


def test_three_clicks_in_one_task_are_one_confirmation() -> None:
    rule = Rule(rule_id="r", scope="u1", content="retry on 503")
    for n in range(3):
        rule = _seen(rule, n, "t1", "deploy")
    assert promotion_ready(rule, POLICY, day(3)) == (
        False, "1 of 3 confirmations from distinct tasks within 30 days")
    for n, task in ((3, "t2"), (4, "t3")):
        rule = _seen(rule, n, task, "deploy")
    assert promotion_ready(rule, POLICY, day(5))[1] == "1 of 2 scene tags"
    rule = _seen(rule, 5, "t4", "migrate")
    assert promotion_ready(rule, POLICY, day(6))[0]
    assert not promotion_ready(rule, POLICY, day(40))[0]  # outside the window
    assert not promotion_ready(_seen(rule, 6, "t5", "deploy", holds=False), POLICY, day(7))[0]


def test_nothing_promotes_itself_into_metadata_and_safety_needs_a_design_change() -> None:
    rule = Rule(rule_id="r", scope="u1", content="retry on 503", tier=Tier.EXPERIENCE)
    candidate = promote(rule, POLICY, day(1))
    assert (candidate.tier, candidate.candidate) == (Tier.EXPERIENCE, True)
    approved = approve(candidate, "ana", day(2))
    assert approved.tier is Tier.METADATA
    assert approved.transitions[-1].by == "ana"
    with pytest.raises(PolicyError, match="not a metadata candidate"):
        approve(rule, "ana", day(2))
    with pytest.raises(PolicyError, match="names who"):
        approve(candidate, " ", day(2))
    safety = Rule(rule_id="s", scope="u1", content="confirm before deleting",
                  type=RuleType.SAFETY)
    with pytest.raises(PolicyError, match="design change"):
        promote(safety, POLICY, day(1))
    assert approve(safety, "ana", day(1), design_change=True).tier is Tier.METADATA


def test_a_review_ends_in_keep_demote_or_expire() -> None:
    rule = Rule(rule_id="r", scope="u1", content="x", tier=Tier.METADATA, status="review")
    assert review(rule, Outcome.KEEP, "ana", day(1)).status == "active"
    assert review(rule, Outcome.DEMOTE, "ana", day(1)).tier is Tier.EXPERIENCE
    assert review(rule, Outcome.EXPIRE, "ana", day(1)).status == "expired"


def test_mt_moon_the_map_changes_and_the_rule_is_rewritten_from_raw_observations(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory: Memory = make_memory(clock)
    seen = {}
    for n, (task, _scene, text) in enumerate([
        ("t1", "route-3", "map fragment: the center is at A"),
        ("t2", "mt-moon", "healed at the center at A"),
        ("t3", "mt-moon", "walked back to the center at A"),
    ]):
        clock.now = day(n)
        seen[task] = memory.ingest(episode(f"op-{task}", "agent", day(n), content=text))
    book = memory.rules
    rule = book.propose("u1", "the Pokemon center is at A", signals={"map_version": "v1"},
                        conditions=("map_version=v1",))
    for task, scene in (("t1", "route-3"), ("t2", "mt-moon"), ("t3", "mt-moon")):
        rule = book.observe(rule.rule_id, episode_id=seen[task].episode_id, task_id=task,
                            scene=scene)
    clock.now = day(4)
    assert book.promote(rule.rule_id).tier is Tier.EXPERIENCE
    assert book.promote(rule.rule_id).candidate
    assert book.approve(rule.rule_id, "ana").tier is Tier.METADATA
    assert [r.rule_id for r in book.all("u1", Tier.METADATA)] == [rule.rule_id]

    # The map changes: the signal moves, the rule bound to it goes to review.
    clock.now = day(10)
    moved = book.signal("map_version", "v2")
    assert [(r.rule_id, r.status) for r in moved] == [(rule.rule_id, "review")]
    failed = memory.ingest(episode("op-t4", "agent", day(10),
                                   content="no center at A; new map: the center is at B"))
    book.observe(rule.rule_id, episode_id=failed.episode_id, task_id="t4", scene="mt-moon",
                 holds=False)
    demoted = book.demote(rule.rule_id, "ana", "map v2 moved the center")
    assert (demoted.tier, demoted.status) == (Tier.EXPERIENCE, "active")
    overturned = book.overturn(rule.rule_id, "ana", "falsified by t4")
    assert overturned.status == "overturned"
    assert len(overturned.counterexamples) == 1  # kept, as a counterexample

    # The correction starts from the raw record: what was seen, and which observation said A.
    raw = book.basis(rule.rule_id)
    assert raw[0].content == "map fragment: the center is at A"
    assert raw[-1].content.endswith("the center is at B")
    fixed = book.propose("u1", "the Pokemon center is at B",
                         conditions=("map_version=v2",), signals={"map_version": "v2"},
                         corrects=rule.rule_id)
    fixed = book.observe(fixed.rule_id, episode_id=raw[-1].episode_id, task_id="t4",
                         scene="mt-moon")
    assert fixed.tier is Tier.SESSION  # it earns its way up again; nothing promotes itself
    with pytest.raises(PolicyError, match="stays in session"):
        book.promote(fixed.rule_id)
    assert book.show(rule.rule_id).transitions[-1].reason == "falsified by t4"


def test_an_expired_rule_proposed_again_starts_a_new_rule(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """Rule: an expiry is final (no review undoes it), and proposing the same text again is
    a new session entry, not the expired rule handed back; the expired one stays expired, and
    a further proposal returns the new rule, as any repeated proposal does."""
    memory: Memory = make_memory(clock)
    book = memory.rules
    first = book.propose("u1", "retry on 503", conditions=("api=v1",))
    assert book.propose("u1", "retry on 503", conditions=("api=v1",)) == first
    clock.now = day(1)
    expired = book.review(first.rule_id, Outcome.EXPIRE, "ana", "the api retries itself")
    assert expired.status == "expired"
    clock.now = day(2)
    again = book.propose("u1", "retry on 503", conditions=("api=v1",))
    assert again.rule_id != first.rule_id
    assert (again.status, again.tier, again.transitions) == ("active", Tier.SESSION, ())
    assert book.show(first.rule_id).status == "expired"
    assert book.propose("u1", "retry on 503", conditions=("api=v1",)) == again
    assert {r.rule_id for r in book.all("u1")} >= {first.rule_id, again.rule_id}
    # It expires too: the third proposal is a third rule, each id its own.
    clock.now = day(3)
    book.review(again.rule_id, Outcome.EXPIRE, "ana", "again")
    third = book.propose("u1", "retry on 503", conditions=("api=v1",))
    assert len({first.rule_id, again.rule_id, third.rule_id}) == 3
    assert third.status == "active"
    # Another tenant's same text is its own rule, untouched by u1's expiries.
    other = book.propose("u2", "retry on 503", conditions=("api=v1",))
    assert other.rule_id not in {first.rule_id, again.rule_id, third.rule_id}


def test_the_rules_commands_list_show_approve_demote_and_review(
    tmp_path: object, clock: ManualClock
) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from kg_memory.cli import app

    store = Path(str(tmp_path)) / "m.db"
    with Memory.open(store, clock=clock) as memory:
        ids = []
        for n in range(3):
            clock.now = day(n)
            ids.append(memory.ingest(episode(f"op-{n}", "agent", day(n),
                                             content=f"seen {n}")).episode_id)
        book = memory.rules
        rule = book.propose("u1", "retry on 503", signals={"api": "v1"})
        for n, scene in enumerate(("a", "b", "b")):
            book.observe(rule.rule_id, episode_id=ids[n], task_id=f"t{n}", scene=scene)
        clock.now = day(3)
        book.promote(rule.rule_id)
        book.promote(rule.rule_id)
    run = CliRunner().invoke
    assert run(app, ["rules", "list", "--store", str(store)]).exit_code == 2  # whose rules?
    listed = run(app, ["rules", "list", "--scope", "u1", "--store", str(store), "--json"])
    assert listed.exit_code == 0, listed.output
    assert '"candidate": true' in listed.output
    waiting = run(app, ["rules", "review", "--scope", "u1", "--store", str(store)])
    assert "retry on 503" in waiting.output
    # Another tenant cannot approve it, nor learn that it exists.
    other = run(app, ["rules", "approve", rule.rule_id, "--by", "eve", "--scope", "u2",
                      "--store", str(store)])
    assert other.exit_code == 4
    approved = run(app, ["rules", "approve", rule.rule_id, "--by", "ana", "--scope", "u1",
                         "--store", str(store)])
    assert approved.exit_code == 0, approved.output
    assert "approved into metadata" in approved.output
    shown = run(app, ["rules", "show", rule.rule_id, "--scope", "u1", "--store", str(store),
                      "--json"])
    assert '"tier": "metadata"' in shown.output
    demoted = run(app, ["rules", "demote", rule.rule_id, "--by", "ana", "--scope", "u1",
                        "--store", str(store)])
    assert "demoted to experience" in demoted.output
    kept = run(app, ["rules", "review", rule.rule_id, "--outcome", "expire", "--by", "ana",
                     "--scope", "u1", "--store", str(store), "--json"])
    assert '"status": "expired"' in kept.output
    assert run(app, ["rules", "show", "rl_nope", "--scope", "u1",
                     "--store", str(store)]).exit_code == 4
    assert run(app, ["rules", "review", rule.rule_id, "--scope", "u1",
                     "--store", str(store)]).exit_code == 2
