"""The growth benchmark (time per mention as the store grows) at tiny sizes: its structure and
what it ingests, never its timings."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kg_memory.bench.resolution.febrl import Part, load_febrl
from kg_memory.bench.resolution.growth import (
    format_growth,
    growth_sizes,
    growth_stream,
    measure_growth,
)
from kg_memory.cli import app


def test_the_stream_repeats_the_population_a_scope_per_copy() -> None:
    population = load_febrl("febrl4", part=Part.ALL, identifier=True, limit=6)
    lines = growth_stream(population, 2 * len(population) + 3)
    size = len(population)
    assert [line.scope for line in lines[::size]] == ["febrl-0", "febrl-1", "febrl-2"]
    assert len({line.operation_id for line in lines}) == len(lines)
    # A copy says what the original said, every field, later in time.
    first, copy = lines[0], lines[size]
    assert copy.resolve == first.resolve
    assert first.resolve[0].identifiers
    assert first.resolve[0].context
    assert copy.occurred_at > lines[size - 1].occurred_at


def test_windows_end_at_each_size_and_every_copy_resolves_alike() -> None:
    report = measure_growth("febrl4", sizes=(8, 40, 24), people=8)
    assert report.mentions == 40
    assert [w.end for w in report.windows] == [8, 24, 40]
    assert all(w.mentions == 8 and w.cpu_seconds >= 0 for w in report.windows)
    assert report.per_second > 0
    assert report.ratio > 0
    assert report.population < 40  # the stream went past one copy
    text = format_growth(report)
    assert "last window / first" in text
    assert "40 mentions" in text


def test_copies_make_the_same_entities_in_their_own_scopes(tmp_path: Path) -> None:
    # The copies are fresh people, not duplicates of the first: each scope resolves its copy
    # exactly as the first was resolved.
    from kg_memory.services.memory import Memory

    population = load_febrl("febrl4", part=Part.ALL, identifier=False, limit=10)
    lines = growth_stream(population, 2 * len(population))
    with Memory.open(f"{tmp_path}/g.db", embedder="none") as mem:
        mem.ingest_many(lines)
        counts = [len(mem.store.entities(scope)) for scope in ("febrl-0", "febrl-1")]
    assert counts[0] == counts[1] > 0


def test_growth_sizes() -> None:
    assert growth_sizes(100_000) == (1_000, 10_000, 100_000)
    assert growth_sizes(1_000) == (100, 1_000)


def test_the_cli_prints_the_growth_as_json() -> None:
    result = CliRunner().invoke(app, ["entities", "benchmark", "--dataset", "febrl4",
                                      "--growth", "20", "--limit", "6", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mentions"] == 20
    assert [w["end"] for w in data["windows"]] == [2, 20]
    assert data["identifier"] is True
