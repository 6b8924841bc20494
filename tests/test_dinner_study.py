"""The dinner study reproduces seed 000: its table, its write logs and its day-81 prompts.

Expected values are read from the seed document itself, so the test checks the published
specification rather than numbers copied into the test.
"""

from __future__ import annotations

import re
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
from tests.conftest import SEEDS


@cache
def seed_text() -> str:
    [path] = SEEDS.glob("000_*.txt")
    return path.read_text(encoding="utf-8")


def seed_block(first_line: str, stop: str) -> list[str]:
    lines = seed_text().splitlines()
    start = lines.index(first_line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(stop))
    return lines[start:end]


@cache
def runs() -> dict[str, object]:
    return {run.slug: run for run in run_all(Scenario.load())}


def test_table_matches_the_seed_exactly() -> None:
    published = seed_block("policy" + " " * 43 + "reads stale missing injected", "The first four")
    published = [line for line in published if line.strip()]
    table = format_table([r.row() for r in runs().values()])  # type: ignore[attr-defined]
    assert table.splitlines() == published


def test_every_run_answers_the_same_89_reads() -> None:
    for run in runs().values():
        assert [(r.day, r.key) for r in run.reads] == [  # type: ignore[attr-defined]
            (r.day, r.key)
            for r in runs()["keep"].reads  # type: ignore[attr-defined]
        ]
        assert len(run.reads) == 89  # type: ignore[attr-defined]


@pytest.mark.parametrize("title", ["Contradiction check, every input", "Writer + dependency"])
def test_write_logs_match_the_seed(title: str) -> None:
    published = seed_block(title, "The ")
    published = [line for line in published if line.strip()]
    slug = next(s for s, t in POLICIES.items() if t == title)
    assert format_log(runs()[slug]).splitlines() == published  # type: ignore[arg-type]


def test_day_81_prompt_ttl_refreshed_matches_the_seed() -> None:
    published = seed_block("day 81, TTL 7 days, refreshed on read", "Ana")
    published = [line for line in published if line.strip()]
    ours = [
        line
        for line in format_prompt(runs()["ttl-refresh"], 81).splitlines()  # type: ignore[arg-type]
        if line.strip()
    ]
    assert ours == published


def test_day_81_prompt_writer_dependency_lists_the_seed_memories() -> None:
    lines = seed_text().splitlines()
    start = lines.index(
        "Memories about the user. Each says who wrote it, on which day, and what ends it:"
    )
    published = [line for line in lines[start : start + 3] if line.strip()]
    prompt = format_prompt(runs()["provenance"], 81)  # type: ignore[arg-type]
    memories = [line for line in prompt.splitlines() if line.startswith("- ")]
    assert memories == published[1:]
    assert published[0] in prompt


def test_contra_all_day_81_prompt_lists_the_seed_memories() -> None:
    text = seed_text()
    match = re.search(
        r"the relevant part of the planner.s request looks like this:\n\n"
        r"Memories about the user:\n((?:- .*\n)+)",
        text,
    )
    assert match is not None
    expected = match.group(1).strip().splitlines()
    prompt = format_prompt(runs()["contra-all"], 81)  # type: ignore[arg-type]
    assert [line for line in prompt.splitlines() if line.startswith("- ")] == expected


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
