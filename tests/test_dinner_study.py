"""The dinner study reproduces seed 000: its table, its write logs and its day-81 prompts.

Expected values are the study's published lines, kept verbatim under fixtures/dinner/expected/
(see the README there), so the test checks the published specification rather than numbers
typed into the test, and needs nothing outside the repository.
"""

from __future__ import annotations

from functools import cache

import pytest

from kg_memory.sim.dinner import (
    POLICIES,
    Verdict,
    format_log,
    format_prompt,
    format_table,
    run_all,
    run_policy,
)
from kg_memory.sim.scenario import Scenario
from tests.conftest import ROOT

EXPECTED = ROOT / "fixtures" / "dinner" / "expected"


def published(name: str) -> list[str]:
    """The non-blank lines of one published passage (blank lines are layout, not content)."""
    text = (EXPECTED / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@cache
def runs() -> dict[str, object]:
    return {run.slug: run for run in run_all(Scenario.load())}


def test_table_matches_the_seed_exactly() -> None:
    table = format_table([r.row() for r in runs().values()])  # type: ignore[attr-defined]
    assert table.splitlines() == published("table.txt")


def test_every_run_answers_the_same_89_reads() -> None:
    for run in runs().values():
        assert [(r.day, r.key) for r in run.reads] == [  # type: ignore[attr-defined]
            (r.day, r.key)
            for r in runs()["keep"].reads  # type: ignore[attr-defined]
        ]
        assert len(run.reads) == 89  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("slug", "name"),
    [("contra-all", "writes-contra-all.txt"), ("provenance", "writes-provenance.txt")],
)
def test_write_logs_match_the_seed(slug: str, name: str) -> None:
    expected = published(name)
    assert POLICIES[slug] == expected[0]  # the log's title is the policy's published name
    assert format_log(runs()[slug]).splitlines() == expected  # type: ignore[arg-type]


def test_day_81_prompt_ttl_refreshed_matches_the_seed() -> None:
    ours = [
        line
        for line in format_prompt(runs()["ttl-refresh"], 81).splitlines()  # type: ignore[arg-type]
        if line.strip()
    ]
    assert ours == published("prompt-day81-ttl-refresh.txt")


def test_day_81_prompt_writer_dependency_lists_the_seed_memories() -> None:
    heading, *memories = published("prompt-day81-provenance-memories.txt")
    prompt = format_prompt(runs()["provenance"], 81)  # type: ignore[arg-type]
    assert [line for line in prompt.splitlines() if line.startswith("- ")] == memories
    assert heading in prompt


def test_contra_all_day_81_prompt_lists_the_seed_memories() -> None:
    heading, *memories = published("prompt-day81-contra-all-memories.txt")
    prompt = format_prompt(runs()["contra-all"], 81)  # type: ignore[arg-type]
    assert [line for line in prompt.splitlines() if line.startswith("- ")] == memories
    assert heading in prompt.splitlines()


def test_misfiled_run_presents_r2_as_next_dinner_27_days_after_it_happened() -> None:
    run = runs()["provenance-misfiled"]
    day81 = [r for r in run.reads if r.day == 81 and r.key == "next_dinner"]  # type: ignore[attr-defined]
    assert [s.value for s in day81[0].served] == ["R2 Sat"]
    assert day81[0].verdict is Verdict.STALE


def test_graph_rows_come_from_a_real_store(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    run = run_policy(Scenario.load(), "provenance", store_dir=tmp_path)
    assert (tmp_path / "provenance.db").stat().st_size > 0
    assert run.row().injected == 0
