"""Dependency references as a pure rule: ``fact:SUBJECT/PREDICATE[@PROJECT]`` or an entity id.

Rules protected: a reference without the ``fact:`` prefix names an entity; one with it names a
subject and a predicate, both non-empty, and optionally a project (an empty ``@`` is none);
anything else is refused with a message that shows the expected form; a reference is a value
(hashable, never edited).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory.domain.dependency import FactRef, parse_fact_ref


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
