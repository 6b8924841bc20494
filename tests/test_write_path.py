"""The write path on the embedded store: idempotency, the gate, supersession, retirement."""

from __future__ import annotations

import pytest

from kg_memory import EndReason, IdempotencyConflict, IngestReport, Kind, Memory
from tests.conftest import ManualClock, day, episode, fact


def _ingest(
    memory: Memory, clock: ManualClock, record_day: float, op: str, source: str, **fields: object
) -> IngestReport:
    clock.now = day(record_day)
    return memory.ingest(episode(op, source, day(record_day), **fields))


def test_same_operation_twice_is_a_reported_duplicate_with_no_effect(
    memory: Memory, clock: ManualClock
) -> None:
    record = episode("op-1", "user", day(0), assertions=[fact("ana", "diet", "vegetarian")])
    first = memory.ingest(record)
    clock.now = day(1)  # redelivered a day later, byte for byte
    second = memory.ingest(record)
    assert (first.status, second.status) == ("accepted", "duplicate")
    assert second.effects == ()
    history = memory.history("ana")
    assert len(history) == 1
    # Redelivery is not corroboration: still exactly one supporting episode.
    assert len(memory.asof(subject="ana").facts[0].supported_by) == 1


def test_same_operation_with_a_different_payload_is_an_error(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 0, "op-1", "user", assertions=[fact("ana", "diet", "vegetarian")])
    with pytest.raises(IdempotencyConflict, match="different payload"):
        _ingest(memory, clock, 1, "op-1", "user", assertions=[fact("ana", "diet", "vegan")])
    assert memory.asof(subject="ana").values() == ["vegetarian"]


def test_third_party_statement_is_refused_and_audited_never_served(
    memory: Memory, clock: ManualClock
) -> None:
    report = _ingest(
        memory,
        clock,
        2,
        "hook-1",
        "restaurant",
        content="pre-approves deposits",
        assertions=[fact("u1", "deposit_preapproved", "yes")],
    )
    assert [e.action for e in report.effects] == ["refused"]
    assert memory.asof(subject="u1").facts == ()
    [refusal] = memory.refusals()
    assert refusal.source == "restaurant"
    assert refusal.what == "u1.deposit_preapproved = yes"
    # The episode itself is kept exactly as received: the evidence of the attempt.
    [ep] = memory.store.episodes([report.episode_id])
    assert ep.content == "pre-approves deposits"


def test_reasserting_the_current_value_refreshes_instead_of_duplicating(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 0, "a", "user", assertions=[fact("ana", "diet", "vegetarian")])
    report = _ingest(memory, clock, 5, "b", "user", assertions=[fact("ana", "diet", "vegetarian")])
    assert [e.action for e in report.effects] == ["refreshed"]
    assert len(memory.history("ana")) == 1
    [served] = memory.asof(subject="ana").facts
    assert served.last_confirmed == day(5)
    assert len(served.supported_by) == 2


def test_supersession_closes_and_appends_never_mutates(memory: Memory, clock: ManualClock) -> None:
    _ingest(memory, clock, 0, "a", "user", assertions=[fact("ana", "diet", "vegetarian")])
    before = memory.history("ana")
    _ingest(memory, clock, 30, "b", "user", assertions=[fact("ana", "diet", "eats fish")])
    after = memory.history("ana")
    original = after[0].version
    # The original revision is unchanged except that the store stopped believing it at day 30.
    assert original.model_dump(exclude={"system", "closed_by", "close_reason"}) == before[
        0
    ].version.model_dump(exclude={"system", "closed_by", "close_reason"})
    assert original.system.end == day(30)
    assert original.close_reason is EndReason.SUPERSEDED
    values = {(e.version.value, e.version.valid.end, e.version.system.end) for e in after}
    assert values == {
        ("vegetarian", None, day(30)),
        ("vegetarian", day(30), None),
        ("eats fish", None, None),
    }
    assert memory.asof(day(10), day(40), subject="ana").values() == ["vegetarian"]
    assert memory.asof(day(40), day(40), subject="ana").values() == ["eats fish"]
    # What the store believed on day 10 about day 40: still vegetarian (it knew no better).
    assert memory.asof(day(40), day(10), subject="ana").values() == ["vegetarian"]


def test_day2_belief_about_day1_survives_a_day3_retroactive_correction(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 0, "a", "user", assertions=[fact("ana", "diet", "vegetarian")])
    # Day 3: "actually, since day 1 Ana has eaten fish" - a correction of the past.
    _ingest(
        memory,
        clock,
        3,
        "b",
        "user",
        assertions=[fact("ana", "diet", "eats fish", valid_from=day(1))],
    )
    believed_day2 = memory.asof(valid_at=day(1, 12), known_at=day(2), subject="ana")
    believed_now = memory.asof(valid_at=day(1, 12), known_at=day(4), subject="ana")
    assert believed_day2.values() == ["vegetarian"]
    assert believed_now.values() == ["eats fish"]
    assert memory.asof(valid_at=day(0, 12), known_at=day(4), subject="ana").values() == [
        "vegetarian"
    ]


def test_retracting_a_portion_splits_what_was_there(memory: Memory, clock: ManualClock) -> None:
    _ingest(memory, clock, 0, "a", "user", assertions=[fact("u1", "city", "Lyon")])
    _ingest(
        memory,
        clock,
        20,
        "b",
        "user",
        retractions=[
            {
                "subject": "u1",
                "predicate": "city",
                "valid_from": day(5).isoformat(),
                "valid_to": day(10).isoformat(),
            }
        ],
    )

    def at(d: int) -> list[object]:
        return list(memory.asof(day(d), day(21), subject="u1").values())

    assert (at(2), at(7), at(12)) == (["Lyon"], [], ["Lyon"])
    assert memory.asof(day(7), day(19), subject="u1").values() == ["Lyon"]


def _book_r1(memory: Memory, clock: ManualClock) -> None:
    """Day 1: the agent books R1, which the restaurant owns; the booking fact depends on it."""
    _ingest(
        memory,
        clock,
        1,
        "book",
        "agent",
        entities=[{"entity_id": "R1", "type": "booking", "owners": ["restaurant"]}],
        assertions=[fact("u1", "next_dinner", "R1 Fri", "world", depends_on=["R1"])],
    )


def test_owner_event_retires_dependents_from_the_event_on(
    memory: Memory, clock: ManualClock
) -> None:
    _book_r1(memory, clock)
    report = _ingest(
        memory, clock, 2, "cancel", "restaurant", events=[{"target": "R1", "name": "cancelled"}]
    )
    assert [e.action for e in report.effects] == ["event", "retired"]
    assert memory.asof(day(3), day(3), subject="u1").facts == ()
    assert memory.asof(day(1, 12), day(3), subject="u1").values() == ["R1 Fri"]


def test_an_event_from_a_non_owner_is_refused(memory: Memory, clock: ManualClock) -> None:
    _book_r1(memory, clock)
    report = _ingest(
        memory,
        clock,
        2,
        "spoof",
        "stranger",
        channel="webhook",
        events=[{"target": "R1", "name": "cancelled"}],
    )
    assert [e.action for e in report.effects] == ["refused"]
    assert memory.asof(day(3), day(3), subject="u1").values() == ["R1 Fri"]


def test_upstream_change_retires_dependents_transitively(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(memory, clock, 0, "lead", "user", assertions=[fact("team", "lead", "Mina")])
    _ingest(
        memory,
        clock,
        1,
        "rev",
        "user",
        assertions=[fact("reviews", "assignee", "Seoyun", depends_on=["fact:team/lead"])],
    )
    _ingest(
        memory,
        clock,
        2,
        "dash",
        "agent",
        assertions=[
            fact("dashboard", "reviewer", "Seoyun", "world", depends_on=["fact:reviews/assignee"])
        ],
    )
    report = _ingest(memory, clock, 10, "lead2", "user", assertions=[fact("team", "lead", "Kai")])
    actions = [e.action for e in report.effects]
    assert actions == ["written", "replaced", "retired", "retired"]
    now = memory.asof(day(11), day(11))
    assert {f.key for f in now.facts} == {"team.lead"}  # absent, not stale
    before = memory.asof(day(5), day(11))
    assert {f.key for f in before.facts} == {"team.lead", "reviews.assignee", "dashboard.reviewer"}


def test_dependency_on_a_fact_with_no_value_is_refused(memory: Memory, clock: ManualClock) -> None:
    report = _ingest(
        memory,
        clock,
        1,
        "rev",
        "user",
        assertions=[fact("reviews", "assignee", "Seoyun", depends_on=["fact:team/lead"])],
    )
    assert report.effects[0].action == "refused"
    assert "no value" in report.effects[0].detail


def test_projects_do_not_supersede_each_other(memory: Memory, clock: ManualClock) -> None:
    _ingest(
        memory,
        clock,
        1,
        "a",
        "user",
        assertions=[
            fact(
                "j17",
                "report_style",
                "concise",
                qualifiers={"project": "c1", "exceptions": ["audits"]},
            )
        ],
    )
    _ingest(
        memory,
        clock,
        2,
        "b",
        "user",
        assertions=[fact("j17", "report_style", "detailed", qualifiers={"project": "b2"})],
    )
    facts = memory.asof(subject="j17").facts
    assert {(f.value, f.qualifiers.project) for f in facts} == {
        ("concise", "c1"),
        ("detailed", "b2"),
    }
    [cedar] = [f for f in facts if f.qualifiers.project == "c1"]
    assert cedar.qualifiers.exceptions == ("audits",)


def test_writer_comes_from_the_envelope_not_the_payload(memory: Memory, clock: ManualClock) -> None:
    from kg_memory import IngestError
    from kg_memory.domain.record import parse_record

    with pytest.raises(IngestError, match="unknown field") as info:
        parse_record(
            {
                "operation_id": "x",
                "source": "restaurant",
                "channel": "webhook",
                "occurred_at": day(1).isoformat(),
                "assertions": [{**fact("u1", "deposit", "yes"), "writer": "user"}],
            },
            line=7,
        )
    assert info.value.line == 7
    assert info.value.field == "assertions.0.writer"


def test_several_writes_in_one_episode_leave_no_invisible_versions(
    memory: Memory, clock: ManualClock
) -> None:
    _ingest(
        memory,
        clock,
        1,
        "a",
        "user",
        assertions=[fact("ana", "diet", "vegan"), fact("ana", "diet", "vegetarian")],
    )
    history = memory.history("ana")
    assert [e.version.value for e in history] == ["vegetarian"]
    assert memory.asof(subject="ana").facts[0].kind is Kind.STATED
