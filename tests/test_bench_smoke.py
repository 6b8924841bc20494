"""The benchmark end to end at a tiny scale: structure, counts and agreement, never timings."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from kg_memory import Memory
from kg_memory.bench import (
    BenchProgress,
    BenchResult,
    LatencyStats,
    UnsupportedBackend,
    Workload,
    bench_command,
    parse_scales,
    run_bench,
)
from kg_memory.bench.command import _us, result_table
from kg_memory.bench.turns import measure_turns
from kg_memory.bench.workload import EPISODES_PER_USER, VERSIONS_PER_USER
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.domain.errors import KgMemoryError
from kg_memory.services.recall_vectors import vector_space


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> BenchResult:
    events: list[BenchProgress] = []
    out = run_bench(
        [500, 1_000],
        progress=events.append,
        lookups=200,
        snapshots=50,
        opens=2,
        recalls=100,
        workdir=tmp_path_factory.mktemp("bench"),
    )
    assert {e.phase for e in events} >= {"ingest", "lookups", "open", "references"}
    return out


def test_counts_match_the_workload(result: BenchResult) -> None:
    for scale in result.scales:
        workload = Workload.for_versions(scale.scale)
        assert scale.versions == scale.expected_versions == workload.versions
        assert scale.users * VERSIONS_PER_USER == scale.versions
        assert scale.episodes == scale.users * EPISODES_PER_USER
    assert [s.scale for s in result.scales] == [500, 1_000]


def test_store_and_references_give_the_same_answers(result: BenchResult) -> None:
    for scale in result.scales:
        assert scale.references.answers_agree
        # Probes land inside each user's history, so most of them find something.
        assert scale.lookup_hit_rate > 0.5
        assert scale.snapshot_mean_facts > 1
        assert scale.lookup.count == 200
        assert scale.snapshot.count == 50
        assert scale.open_to_first_answer.count == 2


def test_ratios_and_figures_are_positive(result: BenchResult) -> None:
    for scale in result.scales:
        for name, value in scale.ratios.model_dump().items():
            assert value > 0, name
        assert scale.ingest.versions_per_second > 0
        assert scale.references.executemany_versions_per_second > 0
        assert scale.peak_rss.bytes > 0
        assert scale.file_bytes_per_version > 0
    assert result.growth is not None
    assert result.growth.from_scale == 500
    assert result.growth.to_scale == 1_000


def test_targets_and_lineage_and_forget_figures_are_reported(result: BenchResult) -> None:
    names = {t.name for t in result.targets}
    assert "forget cascade of 1,000 derivatives (median)" in names
    assert "forget cascade growth (median)" in names
    assert {"recall, lexical (median)", "recall vs raw FTS5 (median)",
            "recall, hybrid (median)"} <= names
    assert {"plain episodes, batched vs executemany + FTS5",
            "one Memory.ingest of a plain episode (median)"} <= names
    assert len(result.targets) == 13
    assert all(t.met is not None for t in result.targets)
    assert result.pending == ()
    for scale in result.scales:
        assert scale.lineage is not None
        assert scale.lineage.count > 0
        assert scale.forget_cascade is not None
        assert scale.forget_cascade.count == 5


def test_result_round_trips_through_json(result: BenchResult) -> None:
    assert BenchResult.model_validate_json(result.model_dump_json()) == result


def test_workload_is_deterministic() -> None:
    first = [r.model_dump() for r in Workload.for_versions(300, seed=3).records()]
    again = [r.model_dump() for r in Workload.for_versions(300, seed=3).records()]
    assert first == again
    times = [r["occurred_at"] for r in first]
    assert times == sorted(times)
    assert len(set(times)) == len(times)


@pytest.mark.parametrize("width", [80, 120])
def test_tables_print_one_line_per_row_in_80_columns(result: BenchResult, width: int) -> None:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    tables = result_table(result)
    for table in tables:
        console.print(table)
    lines = console.file.getvalue().rstrip("\n").split("\n")  # type: ignore[attr-defined]
    assert max(len(line) for line in lines) <= width
    # Each table is a title, a header, a rule and its rows: nothing wrapped onto a new line.
    assert len(lines) == sum(3 + table.row_count for table in tables)
    assert "…" not in "".join(lines)
    assert result.growth is not None  # two scales: the growth table is among them
    for target in result.targets:
        assert any(line.startswith(target.name) for line in lines)


def test_command_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    bench_command(scale="300", json_out=True, output=out)
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text())
    assert printed["scales"][0]["versions"] == Workload.for_versions(300).versions


def test_scales_parse_and_bad_input_is_refused() -> None:
    assert parse_scales("1e4,2500") == [10_000, 2_500]
    with pytest.raises(KgMemoryError):
        parse_scales("lots")
    with pytest.raises(KgMemoryError):
        parse_scales("0.5")


def test_an_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(UnsupportedBackend, match="unknown backend"):
        run_bench([500], backend="postgres")


@pytest.mark.neo4j
def test_neo4j_backend_syncs_and_answers_the_same() -> None:
    # 50 recall probes: the Neo4j figures time each twice (hybrid: a warm-up pass), and the
    # default 1,000 made this the slowest test of the suite without asserting more.
    result = run_bench([400], backend="neo4j", lookups=50, snapshots=10, opens=1, recalls=50,
                       isolate=False)
    [scale] = result.scales
    assert scale.neo4j is not None
    assert scale.neo4j.answers_agree
    assert scale.neo4j.sync_records > 0
    # Written straight into Neo4j, the same workload gives the same answers.
    assert scale.neo4j.direct_episodes > 0
    assert scale.neo4j.direct_answers_agree
    # Recall on Neo4j returns what the embedded store returns, probe for probe.
    assert scale.neo4j.recall_agrees == 1.0
    assert {"neo4j sync", "neo4j direct writes", "neo4j as-of lookup (median)"} <= {
        t.name for t in result.targets}


def test_recall_is_measured_beside_a_plain_fts5_query(result: BenchResult) -> None:
    for scale in result.scales:
        figures = scale.recall
        assert figures is not None
        assert figures.queries == 100
        # Every probe asks about its own user's values: most find something, and the
        # workload's superseded and retracted facts are excluded before ranking.
        assert figures.hit_rate > 0.8
        assert figures.mean_excluded > 0
        assert figures.recall.count == figures.fts5.count == 100
        # Hybrid beside brute-force cosine over the same stored vectors, and the index path
        # against exact scoring.
        assert figures.hybrid is not None
        assert figures.cosine is not None
        assert figures.cosine.count == 100
        assert figures.vectors is not None
        assert figures.vectors > 0
        assert figures.index_recall_at_10 is not None
        assert 0 < figures.index_recall_at_10 <= 1
    assert result.growth is not None
    assert result.growth.recall_median is not None
    assert result.growth.hybrid_median is not None


@given(st.floats(min_value=0.01, max_value=5e8), st.floats(min_value=0.01, max_value=5e8))
def test_a_latency_cell_keeps_one_width_at_every_magnitude(median: float, p99: float) -> None:
    """A loaded machine makes every figure slower; the table must still fit its columns."""
    stats = LatencyStats(count=1, median_us=median, p99_us=p99, mean_us=median, max_us=p99)
    assert len(_us(stats)) <= len("0.0123 µs / 0.0123 µs")


def test_plain_turns_are_measured_beside_raw_executemany_and_fts5(result: BenchResult) -> None:
    """Issue 28's conversation-turn figures: batched and one at a time, each beside the raw
    table + FTS5 floor written with the same commits, every turn stored on both sides."""
    for scale in result.scales:
        turns = scale.turns
        assert turns is not None
        assert turns.answers_agree
        assert turns.turns == scale.scale  # at most 20,000, and the smoke scales are smaller
        assert turns.singles == turns.one_at_a_time.count == turns.raw_one_at_a_time.count
        assert turns.batched_vs_executemany == pytest.approx(
            turns.batched_per_second / turns.executemany_per_second)
        assert turns.one_vs_raw == pytest.approx(
            turns.one_at_a_time.median_us / turns.raw_one_at_a_time.median_us)
        assert turns.one_with_model is None  # the suite runs without a model (conftest)


def test_plain_turns_are_measured_again_as_an_application_opens_its_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a model (here the weights-free one, as $KG_MEMORY_EMBEDDER names it), the single
    turns are written again through a memory opened with it, and every one of them has its
    vector once the memory closed."""
    monkeypatch.setenv("KG_MEMORY_EMBEDDER", "hashing")
    figures = measure_turns(tmp_path, datetime(2026, 1, 1, tzinfo=UTC), turns=20, singles=15)
    assert figures.model == HashingEmbedder().name
    assert figures.one_with_model is not None
    assert figures.one_with_model.count == 15
    with Memory.open(tmp_path / "turns-model.db", embedder="hashing") as memory:
        space = vector_space(HashingEmbedder())
        assert not any(memory.store.vector_backlog(f"chat-{n}", space, 100) for n in range(10))
