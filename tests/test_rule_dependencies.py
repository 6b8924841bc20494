"""Rules in the graph (seed 004): environment signals are facts a rule DEPENDS_ON, dated review
conditions come due, and forgetting a rule's evidence reaches the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory import Memory, NotFound, PolicyError
from kg_memory.domain.forgetting import node_key
from kg_memory.domain.layers import Observation, Outcome, PromotionPolicy, Rule, RuleType, Tier
from kg_memory.domain.residue import Matcher
from kg_memory.domain.rule_review import (
    cut_words,
    forget_basis,
    forget_words,
    next_review,
    review_due,
)
from kg_memory.services.ingestion import episode_id_for
from tests.conftest import ManualClock, MemoryFactory, day, episode
from tests.test_forgetting import files_holding

POLICY = PromotionPolicy()


def _seen(memory: Memory, clock: ManualClock, n: float, content: str, op: str = "") -> str:
    clock.now = day(n)
    return memory.ingest(episode(op or f"op-{n:g}", "agent", day(n),
                                 content=content)).episode_id


def _trusted(memory: Memory, clock: ManualClock, *, signals: dict[str, str] | None = None,
             content: str = "the Pokemon center is at A", start: float = 0
             ) -> tuple[Rule, list[str]]:
    """A rule observed in three tasks across two scenes, promoted to experience."""
    eps = [_seen(memory, clock, start + n / 10, f"observation {n}: {content}",
                 op=f"{content}/{n}") for n in range(3)]
    book = memory.rules
    rule = book.propose("u1", content, signals=signals)
    for n, scene in enumerate(("route-3", "mt-moon", "mt-moon")):
        book.observe(rule.rule_id, episode_id=eps[n], task_id=f"t{n}", scene=scene)
    clock.now = day(start + 1)
    return book.promote(rule.rule_id), eps


def _prov(memory: Memory, nodes: list[str] | None, scope: str) -> str:
    return str(memory.prov(nodes, scope=scope).serialize(format="json"))


def _relations(memory: Memory, node: str) -> set[tuple[str, str, str]]:
    graph = memory.lineage(node, "up", scope="u1")
    return {(src, key, dst) for src, dst, key in graph.edges(keys=True)}


# -- signals are dependencies in the graph --------------------------------------------------


def test_a_signal_is_a_fact_and_a_rule_depends_on_it(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule, eps = _trusted(memory, clock, signals={"map_version": "v1"})
    [signal] = memory.asof(subject="env:map_version", scope="u1").facts
    assert (signal.value, signal.writer) == ("v1", "registry")
    assert memory.rules.current_signal("map_version", "u1") == "v1"
    [binding] = memory.asof(subject=rule.rule_id, scope="u1").facts
    assert binding.depends_on == (signal.assertion_id,)
    edges = _relations(memory, rule.rule_id)
    assert (rule.rule_id, "DEPENDS_ON", signal.assertion_id) in edges
    assert {(rule.rule_id, "BASED_ON", ep) for ep in eps} <= edges
    # Down from the signal, the rule bound to it shows, as a fact's dependents do.
    down = memory.lineage(signal.assertion_id, "down", scope="u1")
    assert rule.rule_id in down.nodes
    assert binding.assertion_id in down.nodes
    assert rule.rule_id in memory.lineage(eps[0], "down", scope="u1").nodes
    assert rule.rule_id not in memory.lineage(eps[0], "up", scope="u1").nodes

    # PROV: the rule derives from its basis episodes and is influenced by the signal fact.
    prov = _prov(memory, [rule.rule_id], "u1")
    assert f"kgm:{rule.rule_id}" in prov
    assert "kgm:Rule" in prov
    assert "dependsOn" in prov
    whole = _prov(memory, None, "u1")
    assert f"kgm:{rule.rule_id}" in whole
    assert f"kgm:{rule.rule_id}" not in _prov(memory, None, "u2")

    # The signal moves: the write path retires the binding, and the rule goes to review.
    clock.now = day(10)
    moved = memory.rules.signal("map_version", "v2")
    assert [(r.rule_id, r.status) for r in moved] == [(rule.rule_id, "review")]
    assert moved[0].transitions[-1].reason == "signal map_version: v1 -> v2"
    assert memory.asof(subject=rule.rule_id, scope="u1").facts == ()
    retired = [v for v in memory.store.history(rule.rule_id, None, "u1")
               if v.system.end is None]
    assert [(v.reason, v.valid.end) for v in retired] == [("retired", day(10))]
    # History is kept: what the rule was bound to then is still what an as-of query shows.
    then = memory.asof(subject=rule.rule_id, scope="u1", valid_at=day(5))
    assert [f.value for f in then.facts] == ["v1"]
    assert (rule.rule_id, "DEPENDS_ON", signal.assertion_id) in _relations(memory, rule.rule_id)


def test_a_signal_moved_by_a_plain_ingest_is_caught_when_reviews_are_due(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule, _ = _trusted(memory, clock, signals={"tool_schema": "h1"})
    other, _ = _trusted(memory, clock, content="retry on 503", signals={"api": "2"}, start=5)
    clock.now = day(12)
    memory.ingest(episode("schema-push", "registry", day(12), channel="api", assertions=[
        {"subject": "env:tool_schema", "predicate": "value", "value": "h2", "kind": "world",
         "explicit": True}]))
    assert memory.rules.show(rule.rule_id).status == "active"  # nobody looked yet
    due = memory.rules.due("u1")
    assert [(r.rule_id, r.transitions[-1].reason) for r in due] == [
        (rule.rule_id, "signal tool_schema: h1 -> h2")]
    assert memory.rules.show(other.rule_id).status == "active"
    # Keeping it binds it to the value it is kept under: the next move reviews it again.
    kept = memory.rules.review(rule.rule_id, Outcome.KEEP, "ana", "schema h2 works")
    assert (kept.status, kept.signals) == ("active", {"tool_schema": "h2"})
    assert memory.rules.due("u1") == []
    clock.now = day(13)
    assert [r.rule_id for r in memory.rules.signal("tool_schema", "h3", "u1")] == [rule.rule_id]


def test_a_forgotten_signal_sends_its_rules_to_review(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule = memory.rules.propose("u1", "may read drafts", signals={"snapshot": "s1"})
    [signal] = memory.asof(subject="env:snapshot", scope="u1").facts
    clock.now = day(1)
    run = memory.forget(f"assertion:{signal.assertion_id}@u1")
    # The binding believed on the erased signal is retired with it (history kept).
    assert len(run.plan.retire) == 1
    assert memory.check().ok
    assert [(r.rule_id, r.transitions[-1].reason) for r in memory.rules.due("u1")] == [
        (rule.rule_id, "signal snapshot: s1 -> no value")]


def test_a_rule_is_bound_to_the_value_it_is_learned_under(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    memory.rules.signal("permissions", "read", "u1")
    with pytest.raises(PolicyError, match="reads 'read' now, not 'write'"):
        memory.rules.propose("u1", "may delete drafts", signals={"permissions": "write"})
    with pytest.raises(PolicyError, match="letters, digits"):
        memory.rules.signal("a/b", "x", "u1")
    # A chat message cannot move a signal: the writer gate holds for signals as for facts.
    clock.now = day(1)
    memory.ingest(episode("chat-1", "user", day(1), assertions=[
        {"subject": "env:permissions", "predicate": "value", "value": "admin",
         "kind": "world"}]))
    assert memory.rules.current_signal("permissions", "u1") == "read"
    # Nor do a user's stated words about a signal or a binding count as either.
    rule = memory.rules.propose("u1", "may read drafts", signals={"permissions": "read"})
    clock.now = day(2)
    memory.rules.signal("permissions", "write", "u1")
    memory.ingest(episode("chat-2", "user", day(2), assertions=[
        {"subject": "env:permissions", "predicate": "value", "value": "read", "kind": "stated"},
        {"subject": rule.rule_id, "predicate": "signal.permissions", "value": "read",
         "kind": "stated"}]))
    assert memory.rules.current_signal("permissions", "u1") == "write"
    assert memory.rules.unbound(memory.rules.show(rule.rule_id)) == (
        "signal permissions: read -> write")
    # Another tenant's signal is not this tenant's, nor is its episode a basis here.
    assert memory.rules.current_signal("permissions", "u2") is None
    theirs = memory.ingest(episode("u2-ep", "agent", day(2), content="x", scope="u2"))
    with pytest.raises(NotFound):
        memory.rules.observe(rule.rule_id, episode_id=theirs.episode_id, task_id="t",
                             scene="s")


# -- review conditions come due -----------------------------------------------------------


def test_review_conditions_come_due_at_their_dates() -> None:
    rule = Rule(rule_id="r", scope="u1", content="x", tier=Tier.EXPERIENCE,
                proposed_at=day(0), review_every_days=7)
    assert next_review(rule) == day(7)
    assert review_due(rule, day(6)) is None
    assert review_due(rule, day(7)) == (
        f"re-check every 7 days came due at {day(7).isoformat()}")
    recent = rule._moved("ana", day(5), "kept")
    assert next_review(recent) == day(12)
    expiring = rule.model_copy(update={"expires_at": day(3)})
    assert review_due(expiring, day(3)) == f"review condition expired at {day(3).isoformat()}"
    assert review_due(expiring.model_copy(update={"status": "review"}), day(9)) is None
    assert next_review(Rule(rule_id="s", scope="u1", content="y")) is None


def test_due_reviews_move_every_rule_past_its_date(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    book = memory.rules
    weekly = book.propose("u1", "check the deploy window", review_every_days=7)
    dated = book.propose("u1", "use staging", expires_at=day(20))
    undated = book.propose("u1", "prefer small diffs")
    clock.now = day(6)
    assert book.due("u1") == []
    clock.now = day(7)
    assert [r.rule_id for r in book.due("u1")] == [weekly.rule_id]
    assert book.due("u1") == []  # already waiting: reported once
    clock.now = day(21)
    assert [r.rule_id for r in book.due()] == [dated.rule_id]
    assert book.show(undated.rule_id).status == "active"
    assert {r.rule_id for r in book.pending_review("u1")} == {weekly.rule_id, dated.rule_id}


# -- forgetting reaches rules -------------------------------------------------------------


def _obs(n: int, task: str, scene: str, holds: bool = True) -> Observation:
    return Observation(episode_id=f"ep{n}", task_id=task, scene=scene, at=day(n), holds=holds)


def _outcome(rule: Rule, episodes: set[str]) -> tuple[str, int] | None:
    entry = forget_basis(rule, episodes, POLICY)
    return None if entry is None else (entry.outcome, entry.kept)


def test_the_rule_for_forgotten_basis() -> None:
    basis = (_obs(0, "t0", "a"), _obs(1, "t1", "b"), _obs(2, "t2", "b"), _obs(3, "t3", "a"))
    trusted = Rule(rule_id="r", scope="u1", content="x", tier=Tier.METADATA, basis=basis)
    everything = {f"ep{n}" for n in range(4)}
    assert _outcome(trusted, {"ep9"}) is None
    assert _outcome(trusted, {"ep0"}) == ("trim", 3)
    assert _outcome(trusted, {"ep0", "ep3"}) == ("review", 2)  # 2 tasks of 3, one scene
    assert _outcome(trusted, {"ep0", "ep1"}) == ("review", 2)
    assert _outcome(trusted, everything) == ("delete", 0)
    session = trusted.model_copy(update={"tier": Tier.SESSION})
    assert _outcome(session, {"ep0", "ep3"}) == ("trim", 2)
    safety = trusted.model_copy(update={"type": RuleType.SAFETY})
    assert _outcome(safety, everything) == ("review", 0)  # never deleted by forgetting
    overturned = trusted.model_copy(update={"status": "overturned"})
    assert _outcome(overturned, {"ep0", "ep3"}) == ("trim", 2)
    assert _outcome(overturned, everything) == ("delete", 0)


def test_the_rule_for_forgotten_words_in_a_rule() -> None:
    """Every copy is cut; a cut in what the rule says (content, a condition) sends an active
    rule to review, any tier; elsewhere (a kept observation, a transition) it is redacted; a
    rule deleted for its basis stays deleted; copies in dropped observations do not count."""
    words = Matcher(["the blue side door"])
    basis = (_obs(0, "t0", "a"), _obs(1, "t1", "b"), _obs(2, "t2", "the blue side door"))
    rule = Rule(rule_id="r", scope="u1", content="x", tier=Tier.SESSION, basis=basis)

    def outcome(r: Rule, episodes: set[str]) -> tuple[str, int, int] | None:
        entry = forget_words(r, forget_basis(r, episodes, POLICY), episodes, words)
        return None if entry is None else (entry.outcome, entry.dropped, entry.cut)

    assert outcome(rule, set()) == ("redact", 0, 1)  # a scene tag: what it says is unchanged
    assert outcome(rule, {"ep2"}) == ("trim", 1, 0)  # the copy went with its observation
    said = rule.model_copy(update={"content": "knock at The Blue Side  Door"})
    assert outcome(said, {"ep9"}) == ("review", 0, 2)
    assert outcome(said.model_copy(update={"tier": Tier.METADATA}), set()) == ("review", 0, 2)
    condition = rule.model_copy(update={"conditions": ("only at the blue side door",)})
    assert outcome(condition, {"ep2"}) == ("review", 1, 1)
    assert outcome(said.model_copy(update={"status": "overturned"}), set()) == ("redact", 0, 2)
    assert outcome(said, {"ep0", "ep1", "ep2"}) == ("delete", 3, 0)
    assert outcome(Rule(rule_id="q", scope="u1", content="nothing to cut"), set()) is None
    cut, spans, meaning = cut_words(said, words)
    assert (cut.content, cut.basis[2].scene, spans, meaning) == (
        "knock at [forgotten]", "[forgotten]", 2, True)


def test_forgetting_a_basis_episode_drops_the_observation_by_the_same_plan(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    memory = make_memory(clock)
    rule, eps = _trusted(memory, clock, signals={"map_version": "v1"})
    clock.now = day(6)
    selector = f"episode:{eps[0]}@u1"
    planned = memory.forget(selector, dry_run=True)
    assert [(r.rule_id, r.dropped, r.kept, r.outcome) for r in planned.plan.rules] == [
        (rule.rule_id, 1, 2, "review")]
    assert len(memory.rules.show(rule.rule_id).basis) == 3  # a dry run changes nothing
    done = memory.forget(selector)
    assert done.plan == planned.plan
    after = memory.rules.show(rule.rule_id)
    assert [o.episode_id for o in after.basis] == eps[1:]
    assert (after.status, after.tier) == ("review", Tier.EXPERIENCE)
    assert after.transitions[-1].reason == "1 observation(s) of its basis forgotten, 2 left"
    assert eps[0] not in after.model_dump_json()
    assert [e.episode_id for e in memory.rules.basis(rule.rule_id)] == eps[1:]
    assert not any(dst == eps[0] for _, _, dst in _relations(memory, rule.rule_id))
    assert memory.check().ok

    # The rest of its basis goes: the rule is deleted, its bindings with it, a tombstone left.
    clock.now = day(7)
    last = memory.forget("source:agent@u1", dry_run=True)
    assert [(r.rule_id, r.outcome) for r in last.plan.rules] == [(rule.rule_id, "delete")]
    memory.forget("source:agent@u1")
    assert memory.rules.all("u1") == []
    assert memory.store.history(rule.rule_id, None, "u1") == []
    assert memory.asof(subject="env:map_version", scope="u1").values() == ["v1"]
    assert memory.check().ok
    tombstones = memory.store.integrity_snapshot().tombstones
    assert node_key(memory.store.secret, "u1", rule.rule_id) in tombstones
    # Proposed again, it starts afresh: no basis, the session tier, bound anew.
    clock.now = day(8)
    again = memory.rules.propose("u1", rule.content, signals={"map_version": "v1"})
    assert (again.rule_id, again.tier, again.basis) == (rule.rule_id, Tier.SESSION, ())
    assert memory.asof(subject=rule.rule_id, scope="u1").values() == ["v1"]
    assert memory.check().ok


def test_forgetting_reaches_rules_and_no_byte_of_the_canary_remains(
    tmp_path: Path, clock: ManualClock
) -> None:
    canary = "CANARY-rule-9c1e-blue-door"
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        kept = [_seen(memory, clock, n, f"plain observation {n}") for n in range(2)]
        secret = _seen(memory, clock, 2, f"the code behind the {canary} is 4471")
        book = memory.rules
        trimmed = book.propose("u1", "doors open at nine")
        for n, ep in enumerate([*kept, secret]):
            book.observe(trimmed.rule_id, episode_id=ep, task_id=f"t{n}",
                         scene=f"{canary}-scene" if ep == secret else "lobby")
        gone = book.propose("u1", f"the {canary} is the back entrance",
                            signals={"floor_plan": "p1"})
        book.observe(gone.rule_id, episode_id=secret, task_id="t9", scene="lobby")
        assert files_holding(store_dir, canary)  # really stored (can fail)
        report = memory.forget(f"episode:{episode_id_for('u1', 'op-2')}@u1")
        assert report.status == "complete"
        assert {(r.rule_id, r.outcome) for r in report.plan.rules} == {
            (trimmed.rule_id, "trim"), (gone.rule_id, "delete")}
        assert files_holding(store_dir, canary) == []
        assert [o.episode_id for o in book.show(trimmed.rule_id).basis] == kept
        assert all(canary not in a.detail for a in memory.store.activities())


def _quoting_rules(memory: Memory, clock: ManualClock, sentence: str) -> tuple[str, Rule, Rule]:
    """An episode saying ``sentence`` (forgotten next), a trusted rule quoting it in its content
    (its basis elsewhere) and an overturned rule quoting it in the reason it was overturned."""
    book = memory.rules
    trusted = book.propose("u1", f"when locked out, remember: {sentence}")
    for n, scene in enumerate(("porch", "yard", "yard")):
        seen = _seen(memory, clock, n / 10, f"locked out, step {n}", op=f"door/{n}")
        book.observe(trusted.rule_id, episode_id=seen, task_id=f"t{n}", scene=scene)
    clock.now = day(1)
    trusted = book.promote(trusted.rule_id)
    secret = _seen(memory, clock, 3, f"{sentence} Nothing else to add here.", op="secret")
    wrong = book.propose("u1", "the gate code is 1234")
    wrong = book.overturn(wrong.rule_id, by="ana", reason=f"no: {sentence.upper()}")
    return secret, trusted, wrong


def test_a_rule_that_survives_loses_the_forgotten_words_it_quotes(
    make_memory: MemoryFactory, clock: ManualClock
) -> None:
    """docs/policies.md "Limits" (until this): the residue search did not read rules, so a
    rule that survived a forget kept the forgotten sentence in its content."""
    memory = make_memory(clock)
    sentence = "The spare key is under the green gate mat."
    secret, trusted, wrong = _quoting_rules(memory, clock, sentence)
    selector = f"episode:{secret}@u1"
    clock.now = day(5)
    kept = memory.forget(selector, dry_run=True, keep_residues=True)
    assert kept.plan.rules == ()  # copies kept: nothing to decide about the rules
    assert {r.node for r in kept.plan.residues} >= {f"rule:{trusted.rule_id}",
                                                    f"rule:{wrong.rule_id}"}
    planned = memory.forget(selector, dry_run=True)
    assert {(r.rule_id, r.outcome, r.dropped, r.cut) for r in planned.plan.rules} == {
        (trusted.rule_id, "review", 0, 1), (wrong.rule_id, "redact", 0, 1)}
    assert memory.rules.show(trusted.rule_id) == trusted  # a dry run changes nothing
    done = memory.forget(selector)
    assert (done.plan, done.status) == (planned.plan, "complete")
    assert done.residues_redacted == done.residues_found >= 2
    after = memory.rules.show(trusted.rule_id)
    # What it says changed: its basis confirmed the old words, so a person decides.
    assert (after.content, after.status) == ("when locked out, remember: [forgotten]", "review")
    assert (after.tier, after.basis) == (trusted.tier, trusted.basis)
    assert "green gate" not in after.transitions[-1].reason  # counts, never the words
    overturned = memory.rules.show(wrong.rule_id)
    assert (overturned.content, overturned.status) == (wrong.content, "overturned")
    assert overturned.transitions[-2].reason == "no: [forgotten]"
    assert overturned.transitions[-1].action == "forgotten text cut"
    assert all("green gate" not in r.model_dump_json().lower() for r in memory.rules.all("u1"))
    assert memory.forget(selector).status == "nothing-to-forget"  # idempotent
    assert memory.check().ok


def test_a_surviving_rule_quoting_a_forgotten_episode_leaves_no_byte_of_it(
    tmp_path: Path, clock: ManualClock
) -> None:
    canary = "CANARY-rule-77ad-green-gate"
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        secret, trusted, wrong = _quoting_rules(
            memory, clock, f"The spare key is under the {canary} mat.")
        assert files_holding(store_dir, canary)  # really stored (can fail)
        clock.now = day(5)
        report = memory.forget(f"episode:{secret}@u1")
        assert report.status == "complete"
        assert files_holding(store_dir, canary) == []
        assert {r.rule_id for r in report.plan.rules} == {trusted.rule_id, wrong.rule_id}
        assert memory.rules.show(trusted.rule_id).status == "review"


# -- a property: the rule book follows a small reference model, and never rewrites history ---

_op = st.one_of(
    st.tuples(st.just("signal"), st.sampled_from(["a", "b", "c"])),
    st.tuples(st.just("ingest"), st.sampled_from(["a", "b", "c"])),
    st.tuples(st.just("keep"), st.just("")),
    st.tuples(st.just("expire"), st.just("")),
    st.tuples(st.just("due"), st.just("")),
)


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(_op, min_size=1, max_size=10))
def test_signals_and_reviews_follow_the_reference_and_never_rewrite_history(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, str]]
) -> None:
    """Rules: a moved signal sends a bound rule to review once; a keep binds it to the value
    it is kept under; an expired rule stays expired (a keep on it is refused and writes
    nothing); and no step rewrites what was believed before it."""
    clock = ManualClock(day(0))
    path = tmp_path_factory.mktemp("rules") / "m.db"
    # The reference: the value the rule is bound to, the signal's value, whether the binding
    # still holds (no move since it was made), and the rule's status.
    bound, current, live, status = "a", "a", True, "active"
    snapshots = []
    with Memory.open(path, clock=clock) as memory:
        book = memory.rules
        rule = book.propose("u1", "the center is at A", signals={"map": "a"})
        for n, (op, value) in enumerate(ops):
            clock.now = day(1 + n)
            reported: list[str] = []
            expected: list[str] = []
            if op in ("signal", "ingest"):
                was_live = live
                if value != current:
                    current, live = value, False
                if op == "signal":
                    reported = [r.rule_id for r in book.signal("map", value, "u1")]
                    if was_live and not live and status != "expired":
                        status, expected = "review", [rule.rule_id]
                else:
                    memory.ingest(episode(f"push-{n}", "registry", clock.now, channel="api",
                                          assertions=[{"subject": "env:map", "predicate":
                                                       "value", "value": value,
                                                       "kind": "world", "explicit": True}]))
            elif op == "keep" and status == "review":
                kept = book.review(rule.rule_id, Outcome.KEEP, "ana")
                status = "active"
                if not live:
                    bound, live = current, True
                assert kept.signals == {"map": bound}
            elif op == "keep" and status == "expired":
                with pytest.raises(PolicyError, match="expired"):
                    book.review(rule.rule_id, Outcome.KEEP, "ana")
            elif op == "expire" and status != "expired":
                book.review(rule.rule_id, Outcome.EXPIRE, "ana")
                status = "expired"
            elif op == "due":
                reported = [r.rule_id for r in book.due("u1")]
                if status == "active" and not live:
                    status, expected = "review", [rule.rule_id]
            assert reported == expected
            shown = book.show(rule.rule_id)
            assert (shown.status, shown.signals) == (status, {"map": bound})
            assert book.current_signal("map", "u1") == current
            facts = memory.asof(subject=rule.rule_id, scope="u1", valid_at=clock.now,
                                known_at=clock.now).values()
            assert facts == ([bound] if live else [])
            snapshots.append((clock.now, facts))
        for at, facts in snapshots:  # what was believed then is what is believed about then
            assert memory.asof(subject=rule.rule_id, scope="u1", valid_at=at,
                               known_at=at).values() == facts
        assert memory.check().ok
