"""The writer gate's rule matching, against a reference written from its documentation.

A policy is an ordered list of allow rules; a candidate passes when one rule of its kind names
its writer (the source itself, ``"*"`` for anyone, or ``"owner"`` for a source among the subject
entity's owners) and matches its subject and predicate with *any* of its globs. Rules protected:
the ``"*"`` wildcard, ``owner`` meaning an owner of this subject and nothing more, any-glob
matching, and that no rule of another kind ever lets a candidate through.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory import GateRule, Kind, WriterPolicy, admit

SOURCES = ["user", "agent", "tool", "restaurant", "owner"]
WRITERS = ["*", "user", "agent", "tool", "restaurant", "owner"]
GLOBS = ["*", "ana", "a*", "u?", "R*", "?"]
NAMES = ["ana", "u1", "R1", "ab", "x", "diet", "u"]


def glob_matches(pattern: str, text: str) -> bool:
    """``*`` is any run of characters, ``?`` exactly one; everything else is itself."""
    expression = "".join(
        ".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern
    )
    return re.fullmatch(expression, text, flags=re.DOTALL) is not None


def reference(rules: list[GateRule], *, source: str, kind: Kind, subject: str,
              predicate: str, owners: tuple[str, ...]) -> bool:
    for rule in rules:
        if rule.kind is not kind:
            continue
        named = False
        for writer in rule.writers:
            if writer == "*":
                named = True
            elif writer == "owner":
                named = named or source in owners
            elif writer == source:
                named = True
        subject_ok = any(glob_matches(g, subject) for g in rule.subjects)
        predicate_ok = any(glob_matches(g, predicate) for g in rule.predicates)
        if named and subject_ok and predicate_ok:
            return True
    return False


rules = st.lists(
    st.builds(
        GateRule,
        kind=st.sampled_from(list(Kind)),
        writers=st.lists(st.sampled_from(WRITERS), min_size=1, max_size=3).map(tuple),
        subjects=st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3).map(tuple),
        predicates=st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3).map(tuple),
    ),
    max_size=4,
)


@given(
    rules,
    st.sampled_from(SOURCES),
    st.sampled_from(list(Kind)),
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
    st.lists(st.sampled_from(SOURCES), max_size=2).map(tuple),
)
def test_admit_agrees_with_the_documented_rules(
    policy_rules: list[GateRule], source: str, kind: Kind, subject: str, predicate: str,
    owners: tuple[str, ...],
) -> None:
    policy = WriterPolicy(rules=tuple(policy_rules))
    decision = admit(policy, source=source, kind=kind, subject=subject, predicate=predicate,
                     owners=owners)
    assert decision.admitted == reference(policy_rules, source=source, kind=kind,
                                          subject=subject, predicate=predicate, owners=owners)
    assert decision.reason  # every decision says why, admitted or not


def test_owner_in_a_rule_is_an_owner_of_this_subject_not_anyone_listed() -> None:
    policy = WriterPolicy(rules=(GateRule(kind=Kind.STATED, writers=("owner",)),))
    assert admit(policy, source="restaurant", kind=Kind.STATED, subject="R1",
                 predicate="time", owners=("restaurant",)).admitted
    # A source literally named "owner" is not an owner of anything by its name.
    assert not admit(policy, source="owner", kind=Kind.STATED, subject="R1", predicate="time",
                     owners=("restaurant",)).admitted
    assert not admit(policy, source="restaurant", kind=Kind.STATED, subject="u1",
                     predicate="time", owners=()).admitted


def test_one_matching_glob_is_enough() -> None:
    rule = GateRule(kind=Kind.WORLD, writers=("tool",), subjects=("R*", "u1"),
                    predicates=("status", "time"))
    policy = WriterPolicy(rules=(rule,))
    for subject, predicate in [("R7", "time"), ("u1", "status")]:
        assert admit(policy, source="tool", kind=Kind.WORLD, subject=subject,
                     predicate=predicate).admitted
    assert not admit(policy, source="tool", kind=Kind.WORLD, subject="ana",
                     predicate="time").admitted


def test_the_default_policy_is_seed_000s() -> None:
    policy = WriterPolicy.default()
    for source in ("user", "agent"):
        assert admit(policy, source=source, kind=Kind.STATED, subject="ana",
                     predicate="diet").admitted
    for source in ("restaurant", "tool", "registry", "consolidator"):
        decision = admit(policy, source=source, kind=Kind.STATED, subject="u1",
                         predicate="deposit_preapproved")
        assert not decision.admitted
        assert "may not write stated" in decision.reason
    assert admit(policy, source="restaurant", kind=Kind.WORLD, subject="R1", predicate="at",
                 owners=("restaurant",)).admitted
    assert not admit(policy, source="restaurant", kind=Kind.WORLD, subject="u1",
                     predicate="at").admitted
    assert admit(policy, source="consolidator", kind=Kind.DERIVED, subject="u1",
                 predicate="profile").admitted
    assert not admit(policy, source="user", kind=Kind.DERIVED, subject="u1",
                     predicate="profile").admitted
    for kind in Kind:
        if kind is Kind.CLAIM:
            assert not admit(policy, source="user", kind=kind, subject="u1",
                             predicate="x").admitted


@pytest.mark.parametrize("kind", list(Kind))
def test_the_permissive_policy_admits_everything(kind: Kind) -> None:
    assert admit(WriterPolicy.permissive(), source="stranger", kind=kind, subject="u1",
                 predicate="anything").admitted
