"""The review queue a person can clear (issue 29), through the store on both backends.

Twins are the case the queue exists for: the same surname, birth date and address under another
given name is, field for field, a twin, so the resolver never merges it; it asks. The queue
shows each pair with its fields side by side and what a merge would change, most first; a
person's decision names the person, the resolver never overturns it, and the other decision
reverses it. Nothing here crosses a tenant.
"""

from __future__ import annotations

import pytest

from kg_memory import InvalidArgument, Memory, NotFound, ResolutionError
from kg_memory.domain.resolution import RESOLVER, Outcome
from tests.conftest import ManualClock, day, episode, fact

RECORD = {"birth_date": "1980-02-03", "street_number": "12", "street": "tullaroop street",
          "locality": "hawthorn", "postcode": "3122"}
#: Another household's record, that shares nothing with the Sandmans'.
OKAFORS_RECORD = {"birth_date": "1975-07-09", "street_number": "4", "street": "giblin street",
                  "locality": "kew", "postcode": "3101"}


def _said(memory: Memory, clock: ManualClock, when: float, op: str, name: str,
          facts: dict[str, str], context: dict[str, str] | None = None,
          scope: str = "acme") -> None:
    clock.now = day(when)
    memory.ingest(episode(op, "user", day(when), scope=scope, resolve=[{
        "key": "p", "name": name, "context": RECORD if context is None else context}],
        assertions=[fact("@p", p, v) for p, v in facts.items()]))


def _twins(memory: Memory, clock: ManualClock, scope: str = "acme") -> tuple[str, str]:
    """Jaes, then his twin Melinda: one REVIEW pair (provisional Melinda, candidate Jaes)."""
    _said(memory, clock, 1, f"{scope}-a", "Jaes Sandman",
          {"likes": "tea", "city": "Melbourne", "team": "blue"}, scope=scope)
    _said(memory, clock, 2, f"{scope}-b", "Melinda Sandman",
          {"likes": "coffee", "city": "Melbourne"}, scope=scope)
    [pair] = memory.review_queue(scope)
    return pair.provisional, pair.candidate


def _values(memory: Memory, subject: str) -> set[object]:
    return {f.value for f in memory.asof(subject=subject).facts if f.predicate != "same_as"}


def test_a_twin_is_a_pair_with_its_fields_side_by_side_and_what_a_merge_would_pool(
    memory: Memory, clock: ManualClock
) -> None:
    melinda, jaes = _twins(memory, clock)
    [pair] = memory.review_queue("acme")
    assert pair.pair_id == f"{melinda}:{jaes}"
    assert pair.mention == "Melinda Sandman"
    rows = {r.field: r for r in pair.fields}
    assert rows["given_name"].verdict == "disagree"
    assert (rows["given_name"].provisional, rows["given_name"].candidate) == (
        ("melinda",), ("jaes",))
    for agreeing in ("family_name", "birth_date", "street_number", "street", "postcode"):
        assert rows[agreeing].verdict == "agree", agreeing
    assert "email" not in rows  # neither side has one
    # Jaes's three facts and Melinda's two would pool; "likes" would hold two values.
    assert pair.impact.pooled == 5
    [conflict] = pair.impact.conflicts
    assert (conflict.predicate, conflict.provisional, conflict.candidate) == (
        "likes", ("coffee",), ("tea",))
    assert [r.entity_id for r in memory.review("acme")] == [melinda]


def test_the_queue_is_ordered_by_what_a_merge_would_change_then_by_pair_id(
    memory: Memory, clock: ManualClock
) -> None:
    _twins(memory, clock)
    # A second household: fewer facts, so its pair comes after the Sandmans'.
    _said(memory, clock, 3, "c", "Ann Okafor", {"likes": "jazz"}, OKAFORS_RECORD)
    _said(memory, clock, 4, "d", "Beth Okafor", {}, OKAFORS_RECORD)
    queue = memory.review_queue("acme")
    assert [p.mention for p in queue] == ["Melinda Sandman", "Beth Okafor"]
    assert [p.impact.pooled for p in queue] == [5, 1]
    # The order is the service's whole answer, the same on every read.
    assert [p.pair_id for p in memory.review_queue("acme")] == [p.pair_id for p in queue]


def test_apart_is_recorded_with_who_and_never_overturned_by_later_mentions(
    memory: Memory, clock: ManualClock
) -> None:
    melinda, jaes = _twins(memory, clock)
    clock.now = day(3)
    settled = memory.settle(melinda, jaes, "apart", by="ana", reason="twins", scope="acme")
    assert settled.decision.outcome is Outcome.KEEP_APART
    assert (settled.decision.decided_by, settled.decision.reason) == ("ana", "twins")
    assert memory.review_queue("acme") == []
    assert memory.review("acme") == []
    # Both twins are mentioned again, with every field of the record, and once each by an
    # initial: each lands on its own entity, the two are never pooled, and the pair is not
    # asked again.
    _said(memory, clock, 4, "c", "Melinda Sandman", {"shoe": "38"})
    _said(memory, clock, 5, "d", "Jaes Sandman", {"shoe": "44"})
    _said(memory, clock, 6, "e", "M Sandman", {"hat": "red"})
    assert _values(memory, melinda) == {"coffee", "Melbourne", "38", "red"}
    assert _values(memory, jaes) == {"tea", "Melbourne", "blue", "44"}
    assert memory.review_queue("acme") == []
    # Only the resolver decided since, and none of its decisions links the two again.
    later = list(memory.decisions("acme"))[3:]
    assert all(r.decision.decided_by == RESOLVER for r in later)
    assert not any({melinda, jaes} <= {r.entity_id, *r.decision.possible_same_as}
                   for r in later)
    [kept] = memory.review_queue("acme", settled=True)
    assert kept.settled is not None
    assert kept.settled.decided_by == "ana"


def test_a_merge_by_review_pools_and_is_reversed_by_apart_and_back(
    memory: Memory, clock: ManualClock
) -> None:
    melinda, jaes = _twins(memory, clock)
    clock.now = day(3)
    merged = memory.settle(melinda, jaes, "merge", by="ana", reason="one person after all",
                           scope="acme")
    assert merged.decision.outcome is Outcome.MERGE
    assert merged.decision.decided_by == "ana"
    assert _values(memory, jaes) == {"tea", "coffee", "Melbourne", "blue"}
    # The same settlement again is a no-op that returns it: a retry records nothing.
    again = memory.settle(melinda, jaes, "merge", by="ana", reason="", scope="acme")
    assert again.decision.decision_id == merged.decision.decision_id
    clock.now = day(4)
    apart = memory.settle(melinda, jaes, "apart", by="bo", reason="no: twins", scope="acme")
    assert apart.decision.outcome is Outcome.KEEP_APART
    assert apart.decision.decided_by == "bo"
    assert _values(memory, jaes) == {"tea", "Melbourne", "blue"}
    assert _values(memory, melinda) == {"coffee", "Melbourne"}
    clock.now = day(5)
    memory.settle(melinda, jaes, "merge", by="ana", reason="checked the register",
                  scope="acme")
    assert _values(memory, jaes) == {"tea", "coffee", "Melbourne", "blue"}
    [pair] = memory.review_queue("acme", settled=True)
    assert pair.settled is not None
    assert (pair.settled.outcome, pair.settled.decided_by) == (Outcome.MERGE, "ana")
    # What was believed in between is kept: on day 4 the two were apart.
    assert {f.value for f in memory.asof(day(4, 12), day(4, 12), subject=jaes).facts
            if f.predicate != "same_as"} == {"tea", "Melbourne", "blue"}


def test_a_review_between_two_candidates_stays_open_until_both_are_settled(
    memory: Memory, clock: ManualClock
) -> None:
    _said(memory, clock, 1, "a", "Jo Park", {"likes": "tea"}, {"employer": "Acme"})
    _said(memory, clock, 2, "b", "Jo Park", {"likes": "jazz"}, {"employer": "Globex"})
    _said(memory, clock, 3, "c", "Jo Park", {"likes": "chess"}, {})
    by_provisional: dict[str, list[str]] = {}
    for p in memory.review_queue("acme"):
        by_provisional.setdefault(p.provisional, []).append(p.candidate)
    provisional, candidates = max(by_provisional.items(), key=lambda kv: len(kv[1]))
    assert len(candidates) == 2, by_provisional
    clock.now = day(4)
    memory.settle(provisional, candidates[0], "apart", by="ana", reason="", scope="acme")
    # Before, one person's decision about the provisional entity hid its whole REVIEW.
    assert provisional in {r.entity_id for r in memory.review("acme")}
    assert (provisional, candidates[1]) in {
        (p.provisional, p.candidate) for p in memory.review_queue("acme")}


def test_settling_needs_a_person_and_a_pair_of_this_tenant(
    memory: Memory, clock: ManualClock
) -> None:
    melinda, jaes = _twins(memory, clock)
    theirs_p, theirs_c = _twins(memory, clock, scope="other")
    for by in ("", "   "):
        with pytest.raises(InvalidArgument, match="by"):
            memory.settle(melinda, jaes, "apart", by=by, scope="acme")
        with pytest.raises(InvalidArgument, match="by"):
            memory.keep_apart(melinda, jaes, by=by, reason="", scope="acme")
        with pytest.raises(InvalidArgument, match="by"):
            memory.merge(jaes, melinda, by=by, reason="", scope="acme")
    with pytest.raises(ResolutionError):
        memory.settle(melinda, jaes, "apart", by=RESOLVER, scope="acme")
    # Another tenant's pair, named from this tenant, is not found, and nothing is recorded.
    with pytest.raises(NotFound):
        memory.settle(theirs_p, theirs_c, "merge", by="ana", scope="acme")
    with pytest.raises(NotFound):
        memory.scoped("acme").settle(theirs_p, theirs_c, "apart", by="ana")
    with pytest.raises(NotFound):  # half of it ours, half theirs
        memory.settle(melinda, theirs_c, "apart", by="ana", scope="acme")
    # Before, keeping apart from another tenant's entity was recorded without a word.
    with pytest.raises(NotFound):
        memory.keep_apart(melinda, theirs_c, by="ana", reason="", scope="acme")
    assert not any(r.decision.is_manual for r in memory.decisions())
    assert sorted(p.scope for p in memory.review_queue()) == ["acme", "other"]
    assert [p.pair_id for p in memory.scoped("other").review_queue()] == [
        f"{theirs_p}:{theirs_c}"]


def test_a_pair_not_asked_is_not_settled(memory: Memory, clock: ManualClock) -> None:
    melinda, jaes = _twins(memory, clock)
    with pytest.raises(NotFound, match="no review pair"):
        memory.settle(jaes, melinda, "merge", by="ana", scope="acme")  # the other way round
    with pytest.raises(InvalidArgument, match="decision"):
        memory.settle(melinda, jaes, "maybe", by="ana", scope="acme")  # type: ignore[arg-type]


def test_a_copy_kept_apart_is_another_person_for_every_later_mention(
    memory: Memory, clock: ManualClock
) -> None:
    """A bare "Jo Park" is a REVIEW copy of Jo Park of Acme; a person says it is someone else.
    Jo of Acme mentioned again still merges into Jo of Acme (the other Jo is no rival), and a
    bare "Jo Park" is now a question about two different people (two new pairs), never the
    settled pair again."""
    acme = {"employer": "Acme", "city": "Leeds"}
    _said(memory, clock, 1, "a", "Jo Park", {"likes": "tea"}, acme)
    _said(memory, clock, 2, "b", "Jo Park", {"likes": "jazz"}, {})
    [pair] = memory.review_queue("acme")
    clock.now = day(3)
    memory.settle(pair.provisional, pair.candidate, "apart", by="ana", reason="another Jo",
                  scope="acme")
    _said(memory, clock, 4, "c", "Jo Park", {"shoe": "44"}, acme)
    assert _values(memory, pair.candidate) == {"tea", "44"}
    assert _values(memory, pair.provisional) == {"jazz"}
    _said(memory, clock, 5, "d", "Jo Park", {"hat": "red"}, {})
    asked = {(p.provisional, p.candidate) for p in memory.review_queue("acme")}
    [newcomer] = {p for p, _ in asked}
    assert asked == {(newcomer, pair.candidate), (newcomer, pair.provisional)}
    assert newcomer not in (pair.candidate, pair.provisional)
    settled = memory.review_queue("acme", settled=True)
    assert [p.settled.decided_by for p in settled if p.pair_id == pair.pair_id
            and p.settled is not None] == ["ana"]
