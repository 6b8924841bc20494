"""Faithful consolidation, as pure rules.

Rules protected: a derived record never drops a source's project or exception (seed 002: Jo's
"concise for Cedar, except audits" must not become "Jo likes brevity"); the derivation is
deterministic and keeps every source; evidence and If-Match tags parse and print one way (an
empty or malformed half is an InvalidArgument naming that field), and evidence is a value
(hashable, never edited). Dependency references: test_dependency_rules.py.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import Assertion, Evidence, Interval, InvalidArgument, Kind, Qualifiers
from kg_memory.domain.consolidation import derive_profile, etag, scope_problems
from kg_memory.domain.record import IF_MATCH_PATTERN

DAY = datetime(2026, 1, 5, tzinfo=UTC)


def fact(n: int, value: str, project: str | None = None,
         exceptions: tuple[str, ...] = ()) -> Assertion:
    return Assertion(assertion_id=f"as_{n}", revision=1 + n % 3, scope="acme", subject="j17",
                     predicate=f"report_{n}", value=value,
                     qualifiers=Qualifiers(project=project, exceptions=exceptions),
                     kind=Kind.STATED, writer="user", valid=Interval(start=DAY),
                     system=Interval(start=DAY), recorded_by=f"ep-{n}")


sources = st.lists(
    st.tuples(
        st.sampled_from(["concise", "detailed", "weekly"]),
        st.sampled_from([None, "c1", "b2"]),
        st.lists(st.sampled_from(["audits", "legal"]), max_size=2, unique=True).map(tuple),
    ),
    min_size=1,
    max_size=4,
).map(lambda specs: [fact(i, v, p, e) for i, (v, p, e) in enumerate(specs)])


@given(sources, st.sampled_from([None, "c1", "b2"]))
def test_a_derived_profile_keeps_every_source_and_drops_nothing_it_can_keep(
    evidence: list[Assertion], project: str | None,
) -> None:
    value, qualifiers = derive_profile(evidence, project)
    assert isinstance(value, str)
    lines = value.split("; ")
    assert len(lines) == len(evidence)
    assert lines == sorted(lines)
    assert derive_profile(list(reversed(evidence)), project) == (value, qualifiers)
    for source in evidence:
        assert any(line.startswith(f"j17.{source.predicate}={source.value}") for line in lines)
        for exception in source.qualifiers.exceptions:
            assert exception in qualifiers.exceptions
    projects = {s.qualifiers.project for s in evidence if s.qualifiers.project}
    if project is not None:
        assert qualifiers.project == project
    elif len(projects) == 1:
        assert qualifiers.project == next(iter(projects))
    else:
        assert qualifiers.project is None
    assert list(qualifiers.exceptions) == sorted(set(qualifiers.exceptions))
    # What the derivation cannot keep (a second project) is exactly what scope_problems names.
    dropped = {p for p in projects if p != qualifiers.project}
    problems = scope_problems(qualifiers, evidence)
    assert {p.split("'")[1] for p in problems if p.startswith("drops project")} == dropped
    assert not [p for p in problems if p.startswith("drops exception")]


def test_the_lines_say_project_and_exceptions() -> None:
    value, _ = derive_profile([fact(0, "concise", "c1", ("audits", "legal"))])
    assert value == "j17.report_0=concise @c1 except audits, legal"
    value, _ = derive_profile([fact(1, "weekly")])
    assert value == "j17.report_1=weekly"


def test_a_record_that_drops_a_project_or_an_exception_is_named_for_review() -> None:
    evidence = [fact(0, "concise", "c1", ("audits",))]
    assert scope_problems(Qualifiers(project="c1", exceptions=("audits",)), evidence) == []
    assert scope_problems(Qualifiers(project=None, exceptions=("audits",)), evidence) == [
        "drops project 'c1' of as_0"]
    assert scope_problems(Qualifiers(project="c1"), evidence) == [
        "drops exception 'audits' of as_0"]
    assert scope_problems(Qualifiers(project="b2"), [fact(1, "x")]) == []


@pytest.mark.parametrize("text", ["as_1#2", "as_x#10", "a#1"])  # a one-letter id, revision 1
def test_evidence_round_trips(text: str) -> None:
    evidence = Evidence.parse(text)
    assert str(evidence) == text
    assert evidence.revision == int(text.rsplit("#", 1)[1])


@pytest.mark.parametrize("text", ["as_1", "as_1#", "as_1#x", "as_1#-1", "#"])
def test_malformed_evidence_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="ASSERTION_ID#REVISION"):
        Evidence.parse(text)


@pytest.mark.parametrize(("text", "field"), [
    ("#3", "assertion_id"), ("#", "assertion_id"), ("as 1#3", "assertion_id"),
    ("as_1#0", "revision"), ("as_1#²", "revision"), ("as_1#٣", "revision"),
    ("as_1#3#4", "revision"), ("as_1# 3", "revision"),
])
def test_evidence_with_an_empty_or_malformed_half_names_that_field(text: str, field: str) -> None:
    with pytest.raises(InvalidArgument, match=f"field '{field}'") as caught:
        Evidence.parse(text)
    assert caught.value.field == field


def test_text_without_a_hash_is_not_a_tag_and_names_no_half() -> None:
    # Neither half can be blamed when there is no "#" to split at: the error says the form.
    with pytest.raises(InvalidArgument, match="must look like ASSERTION_ID#REVISION") as caught:
        Evidence.parse("as_1")
    assert caught.value.field is None


def test_evidence_built_directly_has_the_same_rules() -> None:
    for bad in ({"assertion_id": "", "revision": 3}, {"assertion_id": "as_1", "revision": 0},
                {"assertion_id": "as#1", "revision": 2}):
        with pytest.raises(ValidationError):
            Evidence.model_validate(bad)


@given(st.text(alphabet="as_1#0 ²٣x", max_size=8))
def test_evidence_parses_exactly_the_tags_if_match_takes(text: str) -> None:
    # The reference: the ingest format's if_match pattern (less its "absent"), an independent
    # statement of what an ASSERTION_ID#REVISION tag is.
    expected = text != "absent" and re.fullmatch(IF_MATCH_PATTERN, text) is not None
    try:
        evidence = Evidence.parse(text)
    except InvalidArgument:
        assert not expected
    else:
        assert expected
        assert str(evidence) == text


def test_etag_names_the_current_revision() -> None:
    assert etag(None) is None
    assert etag(fact(4, "x")) == "as_4#2"


def test_evidence_is_a_value_that_cannot_be_edited() -> None:
    evidence = Evidence.parse("as_1#2")
    assert evidence in {Evidence(assertion_id="as_1", revision=2)}  # hashable, by value
    with pytest.raises(ValidationError, match="frozen"):
        evidence.revision = 3  # type: ignore[misc]
