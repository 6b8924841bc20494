"""The review queue's pure rules (``domain/resolution/review_pair.py``): what a merge would change
as of ``now`` on both time axes, the order, who settled a pair last, and the fields side by side.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Kind, Qualifiers
from kg_memory.domain.resolution import (
    Context,
    EntityProfile,
    Identifier,
    IdentifierKind,
    Mention,
    Outcome,
    ResolutionDecision,
    grow_profile,
    manual_decision,
)
from kg_memory.domain.resolution.review_pair import (
    FactConflict,
    Impact,
    ReviewPair,
    Verdict,
    impact,
    ordered,
    settlement,
    side_by_side,
)
from kg_memory.domain.result import Fact

NOW = datetime(2026, 3, 1, tzinfo=UTC)
HOUR = timedelta(hours=1)


def _fact(i: int, predicate: str, value: str, *, valid: Interval | None = None,
          system: Interval | None = None, subject: str = "p") -> Fact:
    return Fact(assertion_id=f"as_{i}", revision=1, scope="s", subject=subject,
                predicate=predicate, value=value, qualifiers=Qualifiers(), kind=Kind.STATED,
                writer="user", depends_on=(), confidence=1.0,
                valid=valid or Interval(start=NOW - HOUR),
                system=system or Interval(start=NOW - HOUR), supported_by=())


# A fact's two intervals around NOW: each either holds at NOW, ended before it, or starts after.
_WHEN = st.sampled_from(["holds", "ended", "later"])


def _interval(when: str) -> Interval:
    if when == "ended":
        return Interval(start=NOW - 2 * HOUR, end=NOW)  # half-open: ends exactly at NOW
    if when == "later":
        return Interval(start=NOW + HOUR)
    return Interval(start=NOW - HOUR)


_FACTS = st.lists(st.tuples(st.sampled_from(["likes", "city", "same_as"]),
                            st.sampled_from(["a", "b"]), _WHEN, _WHEN), max_size=6)


@given(_FACTS, _FACTS)
def test_only_what_holds_now_on_both_axes_is_pooled_or_conflicts(
    left: list[tuple[str, str, str, str]], right: list[tuple[str, str, str, str]]
) -> None:
    mine = [_fact(i, p, v, valid=_interval(vw), system=_interval(sw))
            for i, (p, v, vw, sw) in enumerate(left)]
    theirs = [_fact(100 + i, p, v, valid=_interval(vw), system=_interval(sw))
              for i, (p, v, vw, sw) in enumerate(right)]
    found = impact(mine, theirs, now=NOW)
    current = [f for f in (*mine, *theirs) if f.predicate != "same_as"
               and f.valid.contains(NOW) and f.system.contains(NOW)]
    assert found.pooled == len(current)

    def now_values(facts: list[Fact], predicate: str) -> set[str]:
        return {str(f.value) for f in facts if f in current and f.predicate == predicate}

    expected = {p for p in ("likes", "city")
                if now_values(mine, p) and now_values(theirs, p)
                and now_values(mine, p) != now_values(theirs, p)}
    assert {c.predicate for c in found.conflicts} == expected
    # The same question from the other side has the same answer, sides swapped.
    back = impact(theirs, mine, now=NOW)
    assert back.pooled == found.pooled
    assert [(c.provisional, c.candidate) for c in back.conflicts] == [
        (c.candidate, c.provisional) for c in found.conflicts]


def test_a_fact_of_both_sides_is_pooled_once_and_projects_do_not_conflict() -> None:
    shared = _fact(1, "likes", "tea")
    cedar = _fact(2, "style", "concise").model_copy(
        update={"qualifiers": Qualifiers(project="cedar")})
    birch = _fact(3, "style", "detailed").model_copy(
        update={"qualifiers": Qualifiers(project="birch")})
    assert impact([shared, cedar], [shared, birch], now=NOW) == Impact(pooled=3)


def _pair(pid: str, pooled: int, conflicts: int) -> ReviewPair:
    provisional, candidate = pid.split(":")
    return ReviewPair(
        scope="s", provisional=provisional, candidate=candidate, decision_id="d",
        mention="Jo", posterior=0.5, reason="", fields=(),
        impact=Impact(pooled=pooled, conflicts=tuple(
            FactConflict(predicate=f"p{i}", provisional=("a",), candidate=("b",))
            for i in range(conflicts))))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), max_size=8), st.randoms())
def test_the_order_is_most_pooled_then_most_conflicts_then_pair_id_whatever_came_first(
    impacts: list[tuple[int, int]], shuffle: random.Random
) -> None:
    pairs = [_pair(f"p{i}:c{i}", pooled, conflicts)
             for i, (pooled, conflicts) in enumerate(impacts)]
    queue = ordered(pairs)
    keys = [(-p.impact.pooled, -len(p.impact.conflicts), p.pair_id) for p in queue]
    assert keys == sorted(keys)
    shuffle.shuffle(pairs)
    assert ordered(pairs) == queue


def _person(entity: str, outcome: Outcome, other: str, by: str, hours: float
            ) -> ResolutionDecision:
    mention = Mention(mention_id=f"entity:{entity}", name=entity, scope="s",
                      episode_id=f"entity:{entity}", at=NOW)
    if outcome is Outcome.MERGE:
        return manual_decision(mention, outcome, entity_id=other, decided_by=by,
                               decided_at=NOW + hours * HOUR, reason="")
    return manual_decision(mention, outcome, kept_apart_from=[other], decided_by=by,
                           decided_at=NOW + hours * HOUR, reason="")


def test_the_latest_persons_decision_about_the_pair_settles_it_either_way_round() -> None:
    apart = _person("p", Outcome.KEEP_APART, "c", "ana", 1)
    merge = _person("c", Outcome.MERGE, "p", "bo", 2)  # recorded from the other side
    elsewhere = _person("p", Outcome.KEEP_APART, "x", "cy", 3)
    assert settlement("p", "c", []) is None
    found = settlement("p", "c", [apart, elsewhere])
    assert found is not None
    assert (found.outcome, found.decided_by) == (Outcome.KEEP_APART, "ana")
    found = settlement("p", "c", [merge, apart, elsewhere])
    assert found is not None
    assert (found.outcome, found.decided_by) == (Outcome.MERGE, "bo")


def test_fields_side_by_side_say_which_agree_disagree_or_are_one_sides() -> None:
    mention = Mention(
        mention_id="e1/p", name="Melinda Sandman", scope="s", episode_id="e1", at=NOW,
        identifiers=(Identifier(kind=IdentifierKind.EMAIL, value="mel@example.org"),),
        context=Context(birth_date="1980-02-03", postcode="3122", employer="Acme"))
    profile = EntityProfile(
        entity_id="c", scope="s", names=("Jaes Sandman",),
        identifiers=(Identifier(kind=IdentifierKind.PHONE, value="+61 3 9000 0000"),),
        attributes=(),
    )
    profile = grow_profile(profile, "c", Mention(
        mention_id="e0/p", name="Jaes Sandman", scope="s", episode_id="e0", at=NOW,
        context=Context(birth_date="1980-03-02", postcode="3122")))
    rows = {r.field: r for r in side_by_side(mention, profile)}
    assert rows["given_name"].verdict is Verdict.DISAGREE
    assert rows["family_name"].verdict is Verdict.AGREE
    assert rows["postcode"].verdict is Verdict.AGREE
    assert rows["birth_date"].verdict is Verdict.CLOSE  # day and month transposed
    assert "transposed" in rows["birth_date"].detail
    assert rows["email"].verdict is Verdict.ONLY_PROVISIONAL
    assert rows["email"].provisional == ("mel@example.org",)
    assert rows["phone"].verdict is Verdict.ONLY_CANDIDATE
    assert rows["employer"].verdict is Verdict.ONLY_PROVISIONAL
    assert "street" not in rows  # neither side has one
    assert "temporal" not in rows  # a summary of the attributes, not a field
