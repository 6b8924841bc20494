"""Day counts a policy or a recall request gives are finite and positive: a corroboration or
promotion window (at most a century, so its start stays a date) and recall's recency half-life.
Each refusal is the project's typed error naming the field; on the command line, exit 2 with
the field named and no traceback."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from kg_memory import InvalidArgument, PolicyError, RankingWeights
from kg_memory.cli.app import app
from kg_memory.domain.ranking import recency
from kg_memory.domain.write_policy import PredicateRule, WritePolicy
from tests.conftest import day, episode, fact

REFUSED_WINDOWS = ["Infinity", "-Infinity", "NaN", "1e999", "0", "-3", "36526"]


@pytest.mark.parametrize("text", REFUSED_WINDOWS)
def test_a_window_is_a_finite_positive_number_of_days_up_to_a_century(
    tmp_path: Path, text: str
) -> None:
    """Rule: ``window_days`` (a write policy rule's corroboration window, the promotion
    policy's window) is finite, above 0 and at most 36,525 days, in a file and in code."""
    path = tmp_path / "policy.json"
    path.write_text('{"rules": [{"window_days": ' + text + "}]}")
    with pytest.raises(PolicyError, match="window_days"):
        WritePolicy.load(path)
    value = float(text)
    with pytest.raises(ValidationError, match="window_days"):
        PredicateRule(window_days=value)


def test_a_window_of_a_century_or_a_moment_is_accepted() -> None:
    """The promotion policy's window has the same bounds (``test_layers_rules.py``)."""
    for value in (36_525, 1e-3):
        assert PredicateRule(window_days=value).window_days == value


def test_ingest_refuses_a_policy_with_an_infinite_window_before_it_writes(
    tmp_path: Path
) -> None:
    """On the command line the refusal is exit 2 naming the field, and nothing is stored."""
    policy = tmp_path / "policy.json"
    policy.write_text('{"mode": "reconcile", "rules": [{"window_days": Infinity}]}')
    lines = tmp_path / "in.jsonl"
    record = episode("op-1", "user", day(1), assertions=[fact("u1", "format", "ebook")])
    lines.write_text(record.model_dump_json() + "\n")
    store = tmp_path / "m.db"
    result = CliRunner().invoke(app, ["ingest", str(lines), "--store", str(store),
                                      "--write-policy", str(policy), "--trust-envelopes"])
    assert result.exit_code == 2, result.output
    assert "window_days" in result.output
    assert "Traceback" not in result.output
    assert not store.exists()


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 0.0, -1.0])
def test_a_recency_half_life_is_a_finite_positive_number_of_days(value: float) -> None:
    """Rule: ``RankingWeights.half_life_days`` is finite and above 0, as a write policy's
    ``half_life_days`` is; refused with :class:`InvalidArgument` naming the field."""
    with pytest.raises(InvalidArgument, match="half_life_days") as refused:
        RankingWeights(half_life_days=value)
    assert refused.value.field == "half_life_days"


def test_any_finite_positive_recency_half_life_is_accepted_and_halves_recency() -> None:
    for value in (1e-3, 1.0, 1e6):
        weights = RankingWeights(half_life_days=value)
        assert weights.half_life_days == value
    assert recency(day(0), day(10), RankingWeights(half_life_days=10).half_life_days) == 0.5
