"""The valid-time rules as pure functions, against a reference model of one slot.

The reference is a cell array: one cell per hour of valid time, holding the content written
last over it (or nothing). Random sequences of writes and retractions are planned with
:func:`plan_write` / :func:`plan_retraction` and applied to an in-memory slot exactly as a store
would (closures end revisions, drafts become revisions). After every step the slot must agree
with the cells, keep its revisions disjoint, coalesce equal neighbours into one revision, and
record why each revision exists. Rules protected: SQL:2011 application-time overwrite, refresh
instead of duplicate, one assertion id per fact across restatements, reasons on closed pieces,
and a SUPERSEDES edge to every fact a write closed (a twin joined under another id included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory import Assertion, EdgeType, EndReason, Interval, Kind, Qualifiers
from kg_memory.domain.change import ChangePlan, Draft
from kg_memory.domain.dependency import plan_retirement
from kg_memory.domain.supersession import plan_retraction, plan_write

BASE = datetime(2026, 1, 1, tzinfo=UTC)
GRID = 10
OPEN = GRID + 3  # an open end covers the cells past the grid too

#: Contents differ in exactly one field each, so a rule that ignores a field mixes them up.
CONTENTS: list[dict[str, object]] = [
    {"value": "a"},
    {"value": "b"},
    {"value": "a", "qualifiers": Qualifiers(exceptions=("audits",))},
    {"value": "a", "kind": Kind.WORLD},
    {"value": "a", "depends_on": ("R1",)},
]


def at(hour: int) -> datetime:
    return BASE + timedelta(hours=hour)


def interval(start: int, end: int | None) -> Interval:
    return Interval(start=at(start), end=None if end is None else at(end))


def cells(start: int, end: int | None) -> range:
    return range(start, OPEN if end is None else end)


def draft(content: int, start: int, end: int | None, n: int) -> Draft:
    fields = {"kind": Kind.STATED, **CONTENTS[content]}
    return Draft(assertion_id=f"new-{n}", scope="u1", subject="ana", predicate="diet",
                 writer="user", valid=interval(start, end), reason=EndReason.ASSERTED,
                 recorded_by=f"ep-{n}", **fields)


def content_of(version: Assertion | Draft) -> int:
    """Which of CONTENTS a revision carries (value, qualifiers, kind and dependencies)."""
    key = (version.value, version.qualifiers, version.kind, version.depends_on)
    for i in range(len(CONTENTS)):
        probe = draft(i, 0, None, 0)
        if key == (probe.value, probe.qualifiers, probe.kind, probe.depends_on):
            return i
    raise AssertionError(version)


@dataclass
class Slot:
    """The live revisions of one slot, updated as a store applies a plan."""

    live: list[Assertion] = field(default_factory=list)
    revisions: dict[str, int] = field(default_factory=dict)
    clock: int = 0

    def apply(self, plan: ChangePlan) -> None:
        self.clock += 1
        now = BASE + timedelta(days=self.clock)
        closed = {(c.assertion_id, c.revision) for c in plan.closures}
        assert len(closed) == len(plan.closures), "a revision closed twice"
        live_keys = {(v.assertion_id, v.revision) for v in self.live}
        assert closed <= live_keys, "a plan closed a revision that is not live"
        self.live = [v for v in self.live if (v.assertion_id, v.revision) not in closed]
        for d in plan.drafts:
            revision = self.revisions.get(d.assertion_id, 0) + 1
            self.revisions[d.assertion_id] = revision
            self.live.append(Assertion(
                assertion_id=d.assertion_id, revision=revision, scope=d.scope,
                subject=d.subject, predicate=d.predicate, value=d.value,
                qualifiers=d.qualifiers, kind=d.kind, writer=d.writer,
                depends_on=d.depends_on, confidence=d.confidence, valid=d.valid,
                system=Interval(start=now), reason=d.reason, recorded_by=d.recorded_by))


operations = st.lists(
    st.tuples(
        st.sampled_from(["write", "write", "retract"]),
        st.integers(0, len(CONTENTS) - 1),
        st.integers(0, GRID - 1),
        st.one_of(st.none(), st.integers(1, GRID)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300)
@given(operations)
def test_plans_agree_with_a_cell_array_and_keep_the_slot_tidy(
    ops: list[tuple[str, int, int, int | None]],
) -> None:
    slot = Slot()
    reference: dict[int, int] = {}
    for n, (op, content, start, raw_end) in enumerate(ops):
        end = None if raw_end is None else max(raw_end, start + 1)
        span = cells(start, end)
        before = {(v.assertion_id, v.revision): v for v in slot.live}
        if op == "write":
            new = draft(content, start, end, n)
            refresh = all(reference.get(c) == content for c in span)
            plan = plan_write(slot.live, new, episode_id=f"ep-{n}")
            if refresh:
                assert not plan.closures, "a restatement closed revisions"
                assert not plan.drafts, "a restatement made revisions"
                assert [e.action for e in plan.effects] == ["refreshed"]
                [edge] = plan.edges
                assert edge.type == EdgeType.SUPPORTS
                assert edge.src == f"ep-{n}"
            else:
                assert plan.drafts, "a new value wrote nothing"
                assert all(c.reason == EndReason.SUPERSEDED for c in plan.closures)
                assert any(e.type == EdgeType.SUPPORTS for e in plan.edges)
                # Lineage: the written fact supersedes every fact it closed but itself (a twin
                # it absorbed under another id included), so no id silently disappears.
                written = plan.effects[0].assertion_id
                supersedes = [e for e in plan.edges if e.type == EdgeType.SUPERSEDES]
                assert {e.dst for e in supersedes} == (
                    {c.assertion_id for c in plan.closures} - {written})
                assert all(e.src == written for e in supersedes)
            for c in span:
                reference[c] = content
        else:
            reason = EndReason.RETIRED if n % 2 else EndReason.RETRACTED
            plan = plan_retraction(slot.live, interval(start, end), episode_id=f"ep-{n}",
                                   reason=reason)
            assert all(c.reason == reason for c in plan.closures)
            assert all(d.reason == reason for d in plan.drafts)
            assert {e.dst for e in plan.edges} == {c.assertion_id for c in plan.closures}
            assert all(e.type == EdgeType.INVALIDATES for e in plan.edges)
            for c in span:
                reference.pop(c, None)
        slot.apply(plan)
        _check(slot, reference)
        _check_ended(plan, before, span)


def _check(slot: Slot, reference: dict[int, int]) -> None:
    held: dict[int, int] = {}
    for v in slot.live:
        hours = cells(int((v.valid.start - BASE) / timedelta(hours=1)),
                      None if v.valid.end is None
                      else int((v.valid.end - BASE) / timedelta(hours=1)))
        for c in hours:
            assert c not in held, "two live revisions hold one instant"
            held[c] = content_of(v)
    assert held == reference
    # Coalescing: one revision per maximal run of equal content, never two touching twins.
    runs = sum(1 for c in sorted(reference) if reference.get(c - 1) != reference[c])
    assert len(slot.live) == runs


def _check_ended(plan: ChangePlan, before: dict[tuple[str, int], Assertion],
                 span: range) -> None:
    """``ended`` names what stopped holding, over exactly the portion that stopped."""
    for assertion_id, portion in plan.ended:
        closed = [v for (a, _), v in before.items() if a == assertion_id]
        assert closed, "ended names an assertion that was not live"
        assert any(v.valid.overlaps(portion) and v.valid.covers(portion) for v in closed)
        start = int((portion.start - BASE) / timedelta(hours=1))
        assert start in span


def test_a_restatement_keeps_the_fact_and_its_id_across_an_extension() -> None:
    slot = Slot()
    slot.apply(plan_write([], draft(0, 0, 4, 0), episode_id="ep-0"))
    [first] = slot.live
    plan = plan_write(slot.live, draft(0, 4, 8, 1), episode_id="ep-1")
    slot.apply(plan)
    [merged] = slot.live
    assert merged.assertion_id == first.assertion_id == "new-0"
    assert merged.valid == interval(0, 8)
    assert merged.revision == 2
    assert not [e for e in plan.edges if e.type == EdgeType.SUPERSEDES]


def test_changing_only_an_exception_is_a_new_value_not_a_refresh() -> None:
    for other in (2, 3, 4):  # qualifiers, kind, depends_on
        slot = Slot()
        slot.apply(plan_write([], draft(0, 0, None, 0), episode_id="ep-0"))
        plan = plan_write(slot.live, draft(other, 0, None, 1), episode_id="ep-1")
        assert next(e.action for e in plan.effects) == "written", other
        slot.apply(plan)
        [live] = slot.live
        assert content_of(live) == other


def test_a_value_cut_back_keeps_its_remainders_marked_superseded() -> None:
    slot = Slot()
    slot.apply(plan_write([], draft(0, 0, None, 0), episode_id="ep-0"))
    plan = plan_write(slot.live, draft(1, 3, 5, 1), episode_id="ep-1")
    assert [(d.valid, d.reason) for d in plan.drafts] == [
        (interval(0, 3), EndReason.SUPERSEDED),
        (interval(5, None), EndReason.SUPERSEDED),
        (interval(3, 5), EndReason.ASSERTED),
    ]
    assert [d.assertion_id for d in plan.drafts] == ["new-0", "new-0", "new-1"]
    assert [(e.type, e.dst) for e in plan.edges if e.src == "new-1"] == [
        (EdgeType.SUPERSEDES, "new-0")]
    assert plan.ended == (("new-0", interval(3, 5)),)


def test_retirement_ends_only_what_still_holds_from_the_event_on() -> None:
    slot = Slot()
    slot.apply(plan_write([], draft(4, 0, 3, 0), episode_id="ep-0"))
    slot.apply(plan_write(slot.live, draft(4, 5, None, 1), episode_id="ep-1"))
    early, late = sorted(slot.live, key=lambda v: v.valid.start)
    plan = plan_retirement(slot.live, at=at(6), episode_id="event")
    assert [(c.assertion_id, c.reason) for c in plan.closures] == [
        (late.assertion_id, EndReason.RETIRED)]
    assert [(d.valid, d.reason) for d in plan.drafts] == [(interval(5, 6), EndReason.RETIRED)]
    assert plan.ended == ((late.assertion_id, interval(6, None)),)
    assert early.assertion_id not in {c.assertion_id for c in plan.closures}


def test_a_write_that_joins_two_twins_keeps_the_first_id_and_supersedes_the_other() -> None:
    slot = Slot()
    slot.apply(plan_write([], draft(0, 0, 2, 0), episode_id="ep-0"))
    slot.apply(plan_write(slot.live, draft(0, 4, 6, 1), episode_id="ep-1"))
    plan = plan_write(slot.live, draft(0, 2, 4, 2), episode_id="ep-2")
    slot.apply(plan)
    [joined] = slot.live
    assert joined.valid == interval(0, 6)
    first = plan.effects[0].assertion_id
    assert joined.assertion_id == first
    [edge] = [e for e in plan.edges if e.type == EdgeType.SUPERSEDES]
    assert (edge.src, edge.dst) == (first, ({"new-0", "new-1"} - {first}).pop())
