from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg_memory import GateRule, Kind, PolicyError, WriterPolicy, admit
from kg_memory.domain.gate import may_end
from kg_memory.domain.model import Entity


def test_default_policy_follows_seed_000() -> None:
    policy = WriterPolicy.default()

    def ok(src: str, kind: Kind) -> bool:
        return admit(
            policy, source=src, kind=kind, subject="u1", predicate="deposit_preapproved"
        ).admitted

    assert ok("user", Kind.STATED)
    assert ok("agent", Kind.STATED)  # the agent records what the user told it
    assert not ok("restaurant", Kind.STATED)  # someone else's words are not the user's
    assert not ok("user", Kind.CLAIM)  # claims are refused at the gate by default
    assert not ok("restaurant", Kind.CLAIM)
    assert ok("agent", Kind.WORLD)


def test_owner_may_report_world_facts_about_its_own_entity_only() -> None:
    policy = WriterPolicy.default()
    about_own = admit(
        policy,
        source="restaurant",
        kind=Kind.WORLD,
        subject="R1",
        predicate="status",
        owners=("restaurant",),
    )
    about_other = admit(
        policy, source="restaurant", kind=Kind.WORLD, subject="u1", predicate="status", owners=()
    )
    assert about_own.admitted
    assert not about_other.admitted
    assert "restaurant may not write world u1.status" in about_other.reason


def test_policy_is_data_with_globs(tmp_path: Path) -> None:
    policy = WriterPolicy(
        name="team", rules=(GateRule(kind=Kind.STATED, writers=("user",), predicates=("pref_*",)),)
    )
    path = tmp_path / "policy.json"
    path.write_text(policy.model_dump_json())
    loaded = WriterPolicy.load(path)
    assert loaded == policy
    assert admit(loaded, source="user", kind=Kind.STATED, subject="x", predicate="pref_a").admitted
    assert not admit(
        loaded, source="user", kind=Kind.STATED, subject="x", predicate="diet"
    ).admitted


def test_bad_policy_file_is_a_policy_error(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"rules": [{"kind": "gossip", "writers": []}]}))
    with pytest.raises(PolicyError, match="policy"):
        WriterPolicy.load(path)


def test_only_owners_end_an_entity() -> None:
    booking = Entity(entity_id="R1", owners=("restaurant", "timer"))
    assert may_end(booking, "restaurant").admitted
    assert not may_end(booking, "stranger").admitted
    assert not may_end(None, "restaurant").admitted
