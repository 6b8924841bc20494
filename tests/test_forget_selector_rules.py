"""Forget selectors and plans as values: how a selector is written, read and bound to a scope.

Rules protected: a selector is ``KIND:ID[@SCOPE]`` (the *last* ``@`` splits, so an id may hold
one) or ``category:SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT]``, reads back to what printed it, and
anything else is refused with a typed error (:class:`InvalidArgument`) that names the selector;
binding a selector to a scope rebinds an id selector and leaves a category (which names its own
scope) alone; a plan is empty only when it would change nothing (entities, residues and rules
whose evidence it trims count);
selectors and plans cannot be edited once made.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory import InvalidArgument, Selector
from kg_memory.domain.forgetting import ForgetPlan
from kg_memory.domain.residue import Residue
from kg_memory.domain.rule_review import RuleForget

ID_KINDS = ["episode", "assertion", "entity", "source"]
names = st.text(alphabet="abR1_.-@", min_size=1, max_size=8)
scopes = st.text(alphabet="u1acme_-", min_size=1, max_size=5)
parts = st.text(alphabet="abj17_*?", min_size=1, max_size=6)


@given(st.sampled_from(ID_KINDS), names, scopes)
def test_an_id_selector_splits_at_its_last_at_sign_and_prints_back(
    kind: str, name: str, scope: str,
) -> None:
    text = f"{kind}:{name}@{scope}"
    selector = Selector.parse(text)
    assert (selector.kind, selector.value, selector.scope) == (kind, name, scope)
    assert str(selector) == text
    assert Selector.parse(str(selector)) == selector


@given(st.sampled_from(ID_KINDS), names.filter(lambda n: "@" not in n))
def test_an_id_selector_without_a_scope_has_none(kind: str, name: str) -> None:
    selector = Selector.parse(f"{kind}:{name}")
    assert (selector.value, selector.scope) == (name, None)
    assert str(selector) == f"{kind}:{name}"


@given(parts, parts, parts, st.none() | scopes)
def test_a_category_selector_reads_its_scope_subject_globs_and_project(
    scope: str, subject: str, predicates: str, project: str | None,
) -> None:
    text = f"category:{scope}/{subject}/{predicates}" + (f"@{project}" if project else "")
    selector = Selector.parse(text)
    assert (selector.scope, selector.subject, selector.predicates, selector.project) == (
        scope, subject, predicates, project)
    assert str(selector) == text  # the scope is in the body: it is not printed twice
    assert Selector.parse(str(selector)) == selector


@pytest.mark.parametrize("text", [
    "", "entity", "entity:", "thing:x", ":x", "entity:@u1", "entity:ana@", "source:@",
    "episode:ep_1@@", "category:a/b", "category:a/b/c/d", "category:a//c", "category:/b/c@p",
    "category:a/b/", "category:", "entity:ana\udcff@u1",
])
def test_malformed_selectors_are_refused_with_a_typed_error(text: str) -> None:
    with pytest.raises(InvalidArgument, match="selector"):
        Selector.parse(text)


@pytest.mark.parametrize("fields", [
    {"kind": "entity", "value": "", "scope": "u1"},
    {"kind": "source", "value": "", "scope": "u1"},
    {"kind": "entity", "value": "ana", "scope": ""},
    {"kind": "entity", "value": "ana", "scope": "u1", "subject": "ana"},
    # A category without its subject or globs would select the whole scope.
    {"kind": "category", "value": "", "scope": "u1"},
    {"kind": "category", "value": "u1/j17/*", "scope": "u1"},
    {"kind": "category", "value": "u1/j17/*", "scope": "u1", "subject": "j17",
     "predicates": ""},
    {"kind": "category", "value": "u1/j17/*", "scope": "u1", "subject": "j17",
     "predicates": "*", "project": ""},
    # A missing part is refused even when the value spells it as "None" (the text a missing
    # part would print as), so the consistency check below cannot stand in for it.
    {"kind": "category", "value": "None/j17/*", "subject": "j17", "predicates": "*"},
    {"kind": "category", "value": "u1/None/*", "scope": "u1", "predicates": "*"},
    {"kind": "category", "value": "u1/j17/None", "scope": "u1", "subject": "j17"},
    # What it prints must be what it erases.
    {"kind": "category", "value": "u1/j17/*", "scope": "u1", "subject": "ana",
     "predicates": "*"},
    {"kind": "category", "value": "u1/j17/*", "scope": "u1", "subject": "j17",
     "predicates": "*", "project": "c1"},
])
def test_a_selector_built_directly_names_what_it_erases(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError, match=r"selector|category"):
        Selector.model_validate(fields)


@given(parts, parts, parts, st.none() | scopes)
def test_a_category_built_directly_is_the_one_parse_reads(
    scope: str, subject: str, predicates: str, project: str | None,
) -> None:
    value = f"{scope}/{subject}/{predicates}" + (f"@{project}" if project else "")
    built = Selector(kind="category", value=value, scope=scope, subject=subject,
                     predicates=predicates, project=project)
    assert built == Selector.parse(f"category:{value}")


def test_a_bare_at_sign_after_a_category_is_no_project() -> None:
    selector = Selector.parse("category:u1/j17/report_*@")
    assert (selector.project, str(selector)) == (None, "category:u1/j17/report_*")


def test_a_selector_that_is_not_valid_unicode_says_so() -> None:
    with pytest.raises(InvalidArgument, match="not valid Unicode"):
        Selector.parse("entity:\udcff@u1")


@pytest.mark.parametrize("text", ["entity:ana", "episode:ep_1@u9", "source:tool@u1"])
def test_binding_an_id_selector_to_a_scope_rebinds_it(text: str) -> None:
    bound = Selector.parse(text).in_scope("u2")
    assert bound.scope == "u2"
    assert (bound.kind, bound.value) == (Selector.parse(text).kind, Selector.parse(text).value)


def test_binding_a_category_leaves_the_scope_it_names() -> None:
    selector = Selector.parse("category:acme/j17/report_*@c1")
    assert selector.in_scope("u2") == selector


def test_a_plan_that_only_removes_entities_residues_or_rule_evidence_is_not_empty() -> None:
    selector = Selector.parse("entity:ana@u1")
    assert ForgetPlan(selector=selector).is_empty
    assert ForgetPlan(selector=selector, retain=("f0", "e0")).is_empty  # retaining changes nothing
    assert not ForgetPlan(selector=selector, entities=("ana",)).is_empty
    residue = Residue(where="episode", node="e1", spans=1)
    assert not ForgetPlan(selector=selector, residues=(residue,)).is_empty
    trimmed = RuleForget(rule_id="r1", dropped=1, kept=2, outcome="trim", reason="one fewer")
    assert not ForgetPlan(selector=selector, rules=(trimmed,)).is_empty
    for field in ("delete", "rebuild", "erase", "redact", "restore", "retire"):
        assert not ForgetPlan.model_validate({"selector": selector, field: ("x",)}).is_empty


def test_selectors_and_plans_cannot_be_edited() -> None:
    selector = Selector.parse("entity:ana@u1")
    with pytest.raises(ValidationError, match="frozen"):
        selector.scope = "u2"  # type: ignore[misc]
    plan = ForgetPlan(selector=selector)
    with pytest.raises(ValidationError, match="frozen"):
        plan.delete = ("f0",)  # type: ignore[misc]
