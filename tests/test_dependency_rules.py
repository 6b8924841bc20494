"""Dependency references as a pure rule: ``fact:SUBJECT/PREDICATE[@PROJECT]`` or an entity id.

Rules protected: a reference without the ``fact:`` prefix names an entity; one with it names a
subject and a predicate, both non-empty, and optionally a project (an empty ``@`` is none);
anything else is refused with a message that shows the expected form; a reference is a value
(hashable, never edited). A dependency that ended retires its dependents from its end on; one
that was erased (forgotten) retires them over their whole valid time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import Assertion, EndReason, Interval, InvalidArgument, Kind
from kg_memory.domain.dependency import FactRef, parse_fact_ref, retirement_walk


@pytest.mark.parametrize(("ref", "expected"), [
    ("R1", None),
    ("fact:team/lead", FactRef(subject="team", predicate="lead")),
    ("fact:j17/report_style@c1", FactRef(subject="j17", predicate="report_style",
                                          project="c1")),
    ("fact:j17/report_style@", FactRef(subject="j17", predicate="report_style")),
])
def test_dependency_references(ref: str, expected: FactRef | None) -> None:
    assert parse_fact_ref(ref) == expected


@pytest.mark.parametrize("ref", ["fact:x", "fact:/p", "fact:s/", "fact:", "fact:@c1"])
def test_malformed_fact_references_are_refused(ref: str) -> None:
    with pytest.raises(ValueError, match=r"fact:subject/predicate\[@project\]"):
        parse_fact_ref(ref)


@pytest.mark.parametrize(("ref", "field"), [
    ("fact:", "subject"), ("fact:/p", "subject"), ("fact:@c1", "subject"),
    ("fact:x", "predicate"), ("fact:s/", "predicate"), ("fact:s/@c1", "predicate"),
])
def test_a_malformed_fact_reference_is_a_typed_error_naming_the_empty_part(
    ref: str, field: str,
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_fact_ref(ref)
    assert caught.value.field == field


words = st.text(alphabet="abj17_.-", min_size=1, max_size=6)


@given(words, words, st.none() | words)
def test_a_fact_reference_names_subject_predicate_and_optional_project(
    subject: str, predicate: str, project: str | None,
) -> None:
    ref = f"fact:{subject}/{predicate}" + (f"@{project}" if project else "")
    assert parse_fact_ref(ref) == FactRef(subject=subject, predicate=predicate, project=project)
    assert parse_fact_ref(f"{subject}/{predicate}") is None  # no prefix: an entity id


def test_a_reference_is_a_value_that_cannot_be_edited() -> None:
    ref = parse_fact_ref("fact:team/lead@c1")
    assert ref is not None
    assert ref in {FactRef(subject="team", predicate="lead", project="c1")}  # hashable, by value
    with pytest.raises(ValidationError, match="frozen"):
        ref.project = None  # type: ignore[misc]


def _booking_note(start: datetime) -> Assertion:
    return Assertion(assertion_id="as_note", revision=1, scope="u1", subject="u1",
                     predicate="dinner_note", value="window seat", kind=Kind.STATED,
                     writer="user", depends_on=("R1",), valid=Interval(start=start),
                     system=Interval(start=start), recorded_by="ep-1")


def test_a_key_nothing_depends_on_yields_no_plan() -> None:
    """The walk yields one plan per key with live dependents: an ended fact nothing depends on
    is no retirement (no empty plan for the caller to apply and record)."""
    ended = [("R1", Interval(start=datetime(2026, 1, 6, tzinfo=UTC)))]
    assert list(retirement_walk(ended, lambda key: [], episode_id="ev")) == []
    assert list(retirement_walk(ended, lambda key: [], episode_id="ev", erased=True)) == []


def test_an_ended_dependency_retires_its_dependents_from_its_end_on_an_erased_one_whole() -> None:
    day0 = datetime(2026, 1, 1, tzinfo=UTC)
    note, cancelled = _booking_note(day0), day0 + timedelta(days=6)

    def walk(**erased: bool) -> list[tuple[Interval, EndReason]]:
        live = {"R1": [note]}
        drafts = []
        for plan in retirement_walk([("R1", Interval(start=cancelled))],
                                    lambda key: live.pop(key, []), episode_id="ev", **erased):
            drafts += [(d.valid, d.reason) for d in plan.drafts]
        return drafts

    # The booking was cancelled on day 6: the note held until then (the default).
    assert walk() == [(Interval(start=day0, end=cancelled), EndReason.RETIRED)]
    # The booking was forgotten: the note never held on its ground.
    assert walk(erased=True) == []
