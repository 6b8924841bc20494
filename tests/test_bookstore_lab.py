"""The bookstore lab (seed 003): the four missions over five seeds, with the seed's thresholds.

Every run goes through the real write path and decayed recall on an in-memory embedded store, so
these are also end-to-end tests of admission, reconcile and decay. The runs are deterministic
(every draw is seeded), so a threshold that passes here passes every time.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_memory.cli import app
from kg_memory.domain.write_policy import Mode
from kg_memory.sim.bookstore import LabConfig, Summary, run_lab, run_seed
from kg_memory.sim.bookstore_missions import MISSIONS

SEEDS = 5


@cache
def _summary(config: LabConfig, seeds: int = SEEDS) -> Summary:
    return run_lab(config, seeds)[0]


@pytest.mark.parametrize("number", sorted(MISSIONS))
def test_each_mission_is_met_over_five_seeds(number: int) -> None:
    mission = MISSIONS[number]
    summary = _summary(mission.solution)
    reference = _summary(mission.reference).mean if mission.reference else None
    assert summary.seeds == (1, 2, 3, 4, 5)
    assert mission.check(summary.mean, reference) == []


@pytest.mark.parametrize("number", sorted(MISSIONS))
def test_each_mission_starts_broken(number: int) -> None:
    """The starting store fails its own mission, so passing it means something changed."""
    mission = MISSIONS[number]
    assert mission.check(_summary(mission.start, 1).mean) != []


def test_turning_provenance_on_costs_no_accuracy_and_injection_changes_nothing_else() -> None:
    good = MISSIONS[3].reference
    assert good is not None
    guarded = _summary(MISSIONS[3].solution)
    assert guarded.mean == _summary(good).mean
    # Every injected candidate is refused by the writer gate and counted as provenance; what
    # the write policy decided about the readers' own words is unchanged.
    counts = {decision: dict(cats) for decision, cats in guarded.admissions.items()}
    assert counts["refused"].pop("provenance") > 0
    assert counts == _summary(good).admissions


def test_append_grows_without_bound_and_reconcile_keeps_one_record_per_fact() -> None:
    append = _summary(MISSIONS[1].start, 1)
    reconcile = _summary(MISSIONS[1].solution)
    assert append.mean["live_records"] > 4000
    assert reconcile.mean["live_records"] == 240


def test_every_admission_decision_is_counted_by_reason() -> None:
    counts = _summary(MISSIONS[4].solution).admissions
    assert counts["refused"]["one-off"] > 0
    assert counts["refused"]["below gate"] > 0
    assert counts["pending"]["conflict"] > 0
    assert counts["accepted"]["replaced: explicit update or correction"] > 0
    assert counts["accepted"]["refresh"] > counts["accepted"]["write"]


def test_the_half_life_trades_stale_answers_for_re_asks() -> None:
    base = MISSIONS[4].solution
    short = run_lab(base.model_copy(update={"half_life": 3.0}), 1)[0].mean
    long = run_lab(base.model_copy(update={"half_life": 365.0}), 1)[0].mean
    assert short["stale"] < long["stale"]
    assert short["reask"] > long["reask"] + 0.15


def test_a_seed_is_reproducible() -> None:
    config = LabConfig(policy=Mode.RECONCILE, gate=0.6, drift=True, injection=True)
    assert run_seed(config, 7, readers=6).counts == run_seed(config, 7, readers=6).counts


def test_the_command_reports_a_mission_and_draws_the_picture(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "lab.png"
    result = CliRunner().invoke(app, ["sim", "bookstore", "--mission", "2", "--solution",
                                      "--seeds", "1", "--plot", str(png)])
    assert result.exit_code == 0, result.output
    assert "mission 2" in result.output
    assert "passed" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    wrong = CliRunner().invoke(app, ["sim", "bookstore", "--mission", "5"])
    assert wrong.exit_code == 2
