"""``kg-memory bench recall`` end to end on a tiny LoCoMo-shaped file the test writes itself
(the real data is never read by tests): the figures' keys and splits, a question whose
evidence is lexically plain found first, the as-of questions that never see a later turn, the
table in 80 columns, and a clear error for bad input.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.bench.locomo_command import recall_tables
from kg_memory.bench.locomo_data import load
from kg_memory.bench.locomo_result import RecallBenchResult
from kg_memory.bench.locomo_run import Turns, ask_as_of, history_records, questions_asked
from kg_memory.cli import app
from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.recall_answer import RecallAnswer

runner = CliRunner(env={"COLUMNS": "80"})


def _sample(sample_id: str, a: str, b: str, pet: str) -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": a, "speaker_b": b,
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": a, "dia_id": "D1:1", "text": f"I adopted a {pet} named Biscuit."},
                {"speaker": b, "dia_id": "D1:2", "text": "I painted a sunrise over the lake."},
                {"speaker": a, "dia_id": "D1:3", "text": "The weather has been lovely."},
            ],
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [
                {"speaker": a, "dia_id": "D2:1", "text": "My knee flared up after tennis."},
                {"speaker": b, "dia_id": "D2:2",
                 "text": "I painted the lake again, at sunset this time."},
            ],
        },
        "qa": [
            {"question": f"What is the name of the {pet}?", "evidence": ["D1:1"],
             "category": 1},
            {"question": "What flared up after tennis?", "evidence": ["D2:1"], "category": 4},
            # Multi-hop: one evidence turn in each session. Asked as of just before session 2,
            # the sunrise is known and the sunset is not, though it matches the same words.
            {"question": "Which sunrise and which sunset did they paint over the lake?",
             "evidence": ["D1:2", "D2:2"], "category": 2},
            {"question": f"What did {b} adopt?", "evidence": ["D1:1"], "category": 5},
        ],
    }


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """locomo10.json's shape: one conversation of the tuning split, one held out."""
    target = tmp_path / "locomo-shaped.json"
    target.write_text(json.dumps([_sample("conv-26", "Ann", "Bo", "greyhound"),
                                  _sample("conv-44", "Cy", "Di", "parrot")]))
    return target


def _bench(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["bench", "recall", *args])
    return result.exit_code, result.stdout, result.stderr


def test_lexical_figures_per_split_as_json(data: Path) -> None:
    code, out, err = _bench("--data", str(data), "--embedder", "none", "--json")
    assert code == 0, err
    result = RecallBenchResult.model_validate_json(out)
    assert result.modes == ["lexical"]
    assert result.references == ["fts5"]
    assert result.ingest.turns == 10
    assert result.ingest.turns_per_second > 0
    assert [(c.sample_id, c.split, c.questions) for c in result.conversations] == [
        ("conv-26", "tune", 3), ("conv-44", "held-out", 3)]  # category 5 is not asked
    assert [s.name for s in result.splits] == ["tune", "held-out", "all"]
    for split in result.splits:
        assert set(split.systems) == {"lexical", "fts5"}
        lexical = split.systems["lexical"]
        assert set(lexical.quality.turn) == set(lexical.quality.session) == {
            f"{kind}@{k}" for kind in ("any", "all") for k in (1, 5, 10)}
        # Every question names a word only its first evidence turn holds: found first.
        assert lexical.quality.turn["any@1"] == 1.0
        assert lexical.quality.mrr == 1.0
        assert lexical.quality.turn["all@5"] == 1.0
        assert lexical.latency.count == split.questions
        assert lexical.latency.p95_ms >= lexical.latency.median_ms > 0
        assert split.ratios["lexical_vs_fts5"] > 0
        as_of = split.as_of["lexical"]
        assert as_of.leaks == as_of.leaked_questions == 0
        # Only the multi-hop question has an evidence turn said before its moment, and it is
        # found then; its sunset turn, said later and matching, is not returned.
        assert as_of.answerable == split.questions // 3
        assert as_of.as_of.turn["any@1"] == pytest.approx(1 / 3)
        assert as_of.as_of.turn["all@10"] == 0.0
        assert as_of.at_end.turn["all@10"] == 1.0


def test_vector_and_hybrid_beside_brute_force_cosine(data: Path) -> None:
    code, out, err = _bench("--data", str(data), "--embedder", "hashing", "--json",
                            "--conversations", "held-out")
    assert code == 0, err
    result = RecallBenchResult.model_validate_json(out)
    assert result.modes == ["lexical", "vector", "hybrid"]
    assert result.references == ["fts5", "cosine"]
    assert result.ingest.embedder == "hashing-trigram"
    assert 0 < result.ingest.embedding_seconds < result.ingest.seconds
    [held, _] = result.splits
    assert set(held.systems) == {"lexical", "vector", "hybrid", "fts5", "cosine"}
    assert {"lexical_vs_fts5", "hybrid_vs_fts5_cosine", "vector_vs_cosine"} <= set(held.ratios)
    assert all(f.leaks == 0 for f in held.as_of.values())
    assert held.systems["hybrid"].quality.turn["any@5"] == 1.0
    assert held.systems["cosine"].quality.turn["any@10"] > 0
    # Vector recall is exact cosine over the same turns' vectors: it finds what the brute
    # force finds.
    assert held.systems["vector"].quality.turn == held.systems["cosine"].quality.turn
    assert held.systems["cosine"].latency.count == held.questions


def test_the_leak_count_sees_a_later_turn(data: Path, tmp_path: Path) -> None:
    """The harness's own check: a recall that ignored known_at would be caught."""
    conversations = load(data)
    turns = Turns()
    records = history_records(conversations, turns)
    asked = questions_asked(conversations, turns)
    with Memory.open(tmp_path / "m.db", embedder="none") as memory:
        turns.imported(records, memory.import_history(records, by="test"))

        def forgetful(query: str, *, scope: str, limit: int, known_at: object) -> RecallAnswer:
            return memory.recall(query, scope=scope, limit=limit)

        _, leaks = ask_as_of(forgetful, asked, turns, "lexical", lambda *_: None)
        _, none = ask_as_of(memory.recall, asked, turns, "lexical", lambda *_: None)
    assert sum(leaks) > 0
    assert sum(none) == 0


def test_the_table_fits_80_columns(data: Path) -> None:
    code, out, err = _bench("--data", str(data), "--embedder", "none", "--json")
    assert code == 0, err
    console = Console(width=80, record=True, file=io.StringIO())
    for table in recall_tables(RecallBenchResult.model_validate_json(out)):
        console.print(table)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "tune, 3 q" in text
    assert "held-out, 3 q" in text
    code, out, _ = _bench("--data", str(data), "--embedder", "none")
    assert code == 0
    assert "recall by turn" in out
    assert "as of before the last evidence session" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--data", "absent.zip"], "no LoCoMo data"),
    (["--data", "{data}", "--dataset", "beir"], "datasets are locomo"),
    (["--data", "{data}", "--embedder", "none", "--modes", "hybrid"], "need an embedder"),
    (["--data", "{data}", "--embedder", "none", "--conversations", "conv-99"],
     "no conversation 'conv-99'"),
])
def test_bad_input_is_one_typed_line_and_exit_2(
        data: Path, tmp_path: Path, args: list[str], message: str) -> None:
    args = [a.replace("{data}", str(data)).replace("absent.zip", str(tmp_path / "absent.zip"))
            for a in args]
    code, out, err = _bench(*args)
    assert code == 2
    assert "InvalidArgument" in err
    assert message in " ".join(err.split())
    assert "Traceback" not in err + out
    assert out == ""


def test_bench_alone_is_still_the_speed_benchmark() -> None:
    """`bench` became a group: with no command it runs the speed benchmark, as before."""
    result = runner.invoke(app, ["bench", "--scale", "x"])
    assert isinstance(result.exception, KgMemoryError)  # parse_scales refused it: it ran
    assert "scale 'x' is not a number" in str(result.exception)
    listed = runner.invoke(app, ["bench", "--help"], env={"TYPER_USE_RICH": "0"})
    assert "--scale" in listed.stdout
    assert "recall" in listed.stdout


@pytest.mark.neo4j
def test_on_neo4j_the_figures_are_the_embedded_stores(data: Path) -> None:
    """The same command with recall on Neo4j: the same answers as on the embedded store (the
    backends' contract), 0 leaks, and a second run into the same database refused."""
    from kg_memory.store.neo4j import Neo4jStore

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    Neo4jStore.connect(uri).wipe()
    args = ["--data", str(data), "--embedder", "hashing", "--json"]
    code, embedded, err = _bench(*args)
    assert code == 0, err
    code, on_neo4j, err = _bench(*args, "--neo4j", uri)
    assert code == 0, err
    here, there = json.loads(embedded), json.loads(on_neo4j)
    for a, b in zip(here["splits"], there["splits"], strict=True):
        for mode in ("lexical", "vector", "hybrid", "fts5", "cosine"):
            assert a["systems"][mode]["quality"] == b["systems"][mode]["quality"], mode
        assert all(m["leaks"] == 0 for m in b["as_of"].values())
    code, _, err = _bench(*args, "--neo4j", uri)
    assert code == 2
    assert "already holds" in err
    code, _, err = _bench(*args, "--neo4j", "/tmp/not-a-uri")
    assert code == 2
    assert "bolt://" in err
