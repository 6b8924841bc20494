"""Decay floor and pending status are eligibility rules of recall (seeds 002, 003), both backends.

A fact whose trust ``0.5 ** (age / half_life)`` (age from its last confirmation known at
``known_at``, up to ``at``) fell below its predicate's floor is excluded before ranking, counted
under ``decayed_below_floor`` and listed in ``ask_again``; a pending candidate is never served.
The property test replays random logs against a brute-force reference of that rule.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.domain.model import EdgeType
from kg_memory.domain.write_policy import Mode, PredicateRule, WritePolicy
from kg_memory.services.recall import DECAYED
from tests.conftest import EPOCH, ManualClock, MemoryFactory, day, episode, fact

POLICY = WritePolicy(name="decay", rules=(
    PredicateRule(predicates=("diet",), half_life_days=10),
    PredicateRule(predicates=("seat",), half_life_days=3, floor=0.5),
))


def _say(memory: Memory, clock: ManualClock, op: str, n: float, *facts: dict[str, object]
         ) -> None:
    clock.now = day(n)
    memory.ingest(episode(op, "user", day(n), assertions=list(facts),
                          content=f"{op}: " + " ".join(str(f["value"]) for f in facts)))


def test_a_fact_decayed_below_its_floor_is_excluded_and_the_agent_asked_to_ask_again(
    memory: Memory, clock: ManualClock
) -> None:
    memory.write_policy = POLICY
    _say(memory, clock, "op-1", 0, fact("ana", "diet", "vegetarian"),
         fact("ana", "drink", "vegetarian tea"))
    clock.now = day(25)  # 2.5 half-lives: trust 0.18 < 0.25
    answer = memory.recall("vegetarian", scope="u1", include_episodes=False)
    assert [h.predicate for h in answer.results] == ["drink"]  # no half-life: never decays
    assert answer.excluded[DECAYED] == 1
    [stale] = answer.ask_again
    assert (stale.subject, stale.predicate, stale.last_confirmed) == ("ana", "diet", day(0))
    assert stale.factor < 0.25
    assert "ask again" in stale.reason
    # Inside two half-lives it is served, ranked like any other.
    early = memory.recall("vegetarian", scope="u1", include_episodes=False, at=day(19))
    assert {h.predicate for h in early.results} == {"diet", "drink"}
    assert early.excluded[DECAYED] == 0
    assert early.ask_again == ()


def test_a_confirmation_renews_trust_but_a_replay_before_it_decays_what_was_known_then(
    memory: Memory, clock: ManualClock
) -> None:
    memory.write_policy = POLICY
    _say(memory, clock, "op-1", 0, fact("ana", "diet", "vegetarian"))
    _say(memory, clock, "op-2", 22, fact("ana", "diet", "vegetarian"))  # restated: a support
    clock.now = day(25)
    assert [h.predicate for h in memory.recall(
        "vegetarian", scope="u1", include_episodes=False).results] == ["diet"]
    # As believed on day 21, the restatement was not known yet: decayed since day 0.
    then = memory.recall("vegetarian", scope="u1", include_episodes=False, at=day(25),
                         known_at=day(21))
    assert then.results == ()
    assert then.status == "empty"
    assert then.excluded[DECAYED] == 1
    assert then.ask_again[0].last_confirmed == day(0)


def test_without_a_decay_rule_nothing_decays(memory: Memory, clock: ManualClock) -> None:
    _say(memory, clock, "op-1", 0, fact("ana", "diet", "vegetarian"))
    clock.now = day(400)
    answer = memory.recall("vegetarian", scope="u1", include_episodes=False)
    assert [h.predicate for h in answer.results] == ["diet"]
    assert answer.excluded[DECAYED] == 0


def test_a_pending_candidate_is_never_served_as_a_fact(
    memory: Memory, clock: ManualClock
) -> None:
    memory.write_policy = WritePolicy(name="lab", mode=Mode.RECONCILE,
                                      rules=(PredicateRule(gate=0.6),))
    _say(memory, clock, "op-1", 0, fact("r1", "format", "ebook", confidence=0.8))
    _say(memory, clock, "op-2", 3, fact("r1", "format", "audiobook", confidence=0.7))
    [waiting] = memory.pending("u1")
    assert waiting.value == "audiobook"
    clock.now = day(4)
    answer = memory.recall("audiobook ebook format", scope="u1")
    facts = [h for h in answer.results if h.type == "fact"]
    assert [h.value for h in facts] == ["ebook"]
    # The message that proposed it is recallable as what it is: someone's words, not a fact.
    assert any(h.type == "episode" and h.id == waiting.evidence[0].episode_id
               for h in answer.results)


# -- property: recall's decay rule against a brute-force reference -----------------------------

HALF_LIVES = {"diet": 4.0, "seat": 2.0, "city": None}
FLOORS = {"diet": 0.25, "seat": 0.5, "city": 0.25}
PROPERTY_POLICY = WritePolicy(name="prop", rules=tuple(
    PredicateRule(predicates=(p,), half_life_days=h, floor=FLOORS[p])
    for p, h in HALF_LIVES.items()))

steps = st.tuples(
    st.sampled_from(sorted(HALF_LIVES)),  # predicate
    st.sampled_from(["porto", "lisbon"]),  # value (a restatement confirms, a change closes)
    st.integers(min_value=1, max_value=72),  # hours after the previous step
)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(log=st.lists(steps, min_size=1, max_size=6),
       asks=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), min_size=1,
                     max_size=4))
def test_decay_eligibility_matches_a_brute_force_reference(
    make_memory: MemoryFactory, log: list[tuple[str, str, int]],
    asks: list[tuple[int, int]]
) -> None:
    clock = ManualClock(EPOCH)
    memory = make_memory(clock)
    memory.write_policy = PROPERTY_POLICY
    when = EPOCH
    for n, (predicate, value, hours) in enumerate(log):
        when += timedelta(hours=hours)
        clock.now = when
        memory.ingest(episode(f"op-{n}", "user", when, content="note",
                              assertions=[fact("ana", predicate, f"{value} place")]))
    end = clock.now
    for at_h, known_h in asks:
        at = EPOCH + timedelta(hours=at_h)
        known = min(EPOCH + timedelta(hours=known_h), end)
        answer = memory.recall("place", scope="u1", include_episodes=False, limit=100,
                               at=at, known_at=known)
        served = {(h.id, h.revision) for h in answer.results}
        stale = {(a.assertion_id, a.revision) for a in answer.ask_again}
        want_served: set[tuple[str, int]] = set()
        want_stale: set[tuple[str, int]] = set()
        for predicate in HALF_LIVES:
            for row in memory.history("ana", predicate, scope="u1"):
                v = row.version
                if not (v.system.contains(known) and v.valid.contains(at)):
                    continue
                seen = _confirmations(memory, v.assertion_id, known, at)
                last = max(seen, default=v.valid.start)
                half = HALF_LIVES[predicate]
                age = (at - last).total_seconds() / 86400
                factor = 1.0 if half is None or age <= 0 else 0.5 ** (age / half)
                key = (v.assertion_id, v.revision)
                (want_served if factor >= FLOORS[predicate] else want_stale).add(key)
        assert served == want_served, (at, known)
        assert stale == want_stale, (at, known)
        assert answer.excluded[DECAYED] == len(want_stale)


def _confirmations(memory: Memory, assertion_id: str, known: datetime, at: datetime
                   ) -> list[datetime]:
    """When the episodes supporting ``assertion_id`` occurred, for links recorded by ``known``
    and episodes that occurred by ``at``: read from the episodes and their edges, not from the
    support query recall uses."""
    found = []
    for ep in memory.store.scope_episodes("u1"):
        if ep.recorded_at > known or ep.occurred_at > at:
            continue
        for edge in memory.store.edges(ep.episode_id, scope="u1"):
            if (edge.type is EdgeType.SUPPORTS and edge.src == ep.episode_id
                    and edge.dst == assertion_id and edge.since <= known):
                found.append(ep.occurred_at)
    return found
