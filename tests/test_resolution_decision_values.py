"""A resolution decision and its evidence are frozen, bounded values an auditor can replay.

Rules protected (``kg_memory.domain.resolution.decision``): every piece of a decision (the
decision, each candidate's evidence, each field's evidence, each veto) is frozen, so the record
of why cannot be edited after the fact; probabilities are probabilities (a prior strictly
between 0 and 1, a posterior and a name's commonness within [0, 1]) and a count of namesakes is
never negative; a field evidence is not near unless said so; a candidate's level of a field it
was not compared on is MISSING; a decision finds the evidence of each of its candidates by id;
``decided_by`` names someone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from kg_memory.domain.resolution import DEFAULT_CONFIG, RESOLVER, Mention
from kg_memory.domain.resolution.decision import (
    CandidateEvidence,
    FieldEvidence,
    Outcome,
    ResolutionDecision,
    Veto,
    VetoReason,
)
from kg_memory.domain.resolution.field import Field, Level

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)
MENTION = Mention(mention_id="m1", name="Jo Park", episode_id="e1", at=AT)
EVIDENCE = FieldEvidence(field=Field.EMPLOYER, level=Level.EXACT, weight=3.5)
VETO = Veto(entity_id="jo-2", reason=VetoReason.IDENTIFIER_CONFLICT, field=Field.USER_ID)


def _candidate(**fields: Any) -> CandidateEvidence:
    base: dict[str, Any] = {
        "entity_id": "jo-1", "blocking_keys": ("name:jo park",), "fields": (EVIDENCE,),
        "same_name_candidates": 1, "name_commonness": 0.5, "prior": 0.5, "weight": 3.5,
        "posterior": 0.9, "outcome": Outcome.MERGE, "reason": "test",
    }
    return CandidateEvidence.model_validate(base | fields)


def _decision(**fields: Any) -> ResolutionDecision:
    base: dict[str, Any] = {
        "decision_id": "d1", "mention": MENTION, "outcome": Outcome.MERGE, "entity_id": "jo-1",
        "candidates": (_candidate(), _candidate(entity_id="jo-2", outcome=Outcome.KEEP_APART)),
        "thresholds": DEFAULT_CONFIG.thresholds, "rule_version": DEFAULT_CONFIG.rule_version,
        "source_episode_ids": ("e1",), "decided_by": RESOLVER, "decided_at": AT,
        "reason": "test",
    }
    return ResolutionDecision.model_validate(base | fields)


@pytest.mark.parametrize(("value", "attribute", "new"), [
    (VETO, "entity_id", "jo-3"),
    (EVIDENCE, "weight", 99.0),
    (_candidate(), "posterior", 0.1),
    (_decision(), "entity_id", "jo-2"),
], ids=["veto", "field evidence", "candidate evidence", "decision"])
def test_every_part_of_a_decision_is_frozen(value: Any, attribute: str, new: object) -> None:
    with pytest.raises(ValidationError, match="frozen"):
        setattr(value, attribute, new)


@pytest.mark.parametrize(("fields", "valid"), [
    ({"same_name_candidates": 0}, True),
    ({"same_name_candidates": -1}, False),
    ({"name_commonness": 0.0}, True),
    ({"name_commonness": 1.0}, True),
    ({"name_commonness": 1.5}, False),
    ({"name_commonness": -0.1}, False),
    ({"prior": 0.01}, True),
    ({"prior": 0.99}, True),
    ({"prior": 0.0}, False),  # certainty before reading a field is no prior
    ({"prior": 1.0}, False),
    ({"posterior": 0.0}, True),
    ({"posterior": 1.0}, True),
    ({"posterior": 1.5}, False),
    ({"posterior": -0.1}, False),
])
def test_candidate_probabilities_are_probabilities_and_counts_are_not_negative(
    fields: dict[str, Any], valid: bool
) -> None:
    if valid:
        assert getattr(_candidate(**fields), next(iter(fields))) == next(iter(fields.values()))
    else:
        with pytest.raises(ValidationError, match=next(iter(fields))):
            _candidate(**fields)


def test_field_evidence_is_not_near_unless_said_so() -> None:
    assert not EVIDENCE.near
    assert FieldEvidence(field=Field.GIVEN_NAME, level=Level.DIFFERENT, weight=-2.0,
                         near=True).near


def test_a_field_a_candidate_was_not_compared_on_is_missing() -> None:
    candidate = _candidate()
    assert candidate.level(Field.EMPLOYER) is Level.EXACT
    assert candidate.level(Field.CITY) is Level.MISSING
    assert candidate.level("custom.height_cm") is Level.MISSING


def test_a_decision_finds_each_candidates_evidence_by_id() -> None:
    decision = _decision()
    for entity_id in ("jo-1", "jo-2"):
        found = decision.candidate(entity_id)
        assert found is not None
        assert found.entity_id == entity_id
    assert decision.candidate("jo-3") is None


def test_decided_by_names_someone_and_one_character_is_a_name() -> None:
    assert _decision(decided_by="a").is_manual
    with pytest.raises(ValidationError, match="decided_by"):
        _decision(decided_by="")
