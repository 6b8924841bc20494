"""The LoCoMo benchmark's harness, on a tiny LoCoMo-shaped set the test writes itself (the real
data is never read by tests): both published shapes load alike, each question of categories
1-4 with evidence is asked in its conversation's scope, and the figures count what they say.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory.bench.locomo import main
from kg_memory.bench.locomo_data import choose, load, parse_selection, split_of
from kg_memory.bench.locomo_scores import KS, RankScores, hit_counts
from kg_memory.domain.errors import InvalidArgument


def _conversation(a: str, b: str, topic: str) -> dict[str, Any]:
    return {
        "speaker_a": a, "speaker_b": b,
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": a, "dia_id": "D1:1", "text": f"I went to a {topic} support group."},
            {"speaker": b, "dia_id": "D1:2", "text": "I painted a sunrise over the lake."},
            {"speaker": a, "dia_id": "D1:3", "text": "The weather has been lovely."},
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            {"speaker": a, "dia_id": "D2:1", "text": "My allergy to peanuts flared up."},
            {"speaker": b, "dia_id": "D2:2", "text": "The kids loved the dinosaur museum.",
             "blip_caption": "a photo of a dinosaur"},
        ],
        "session_3_date_time": "9:55 am on 22 October, 2023",  # a date with no turns
    }


_QA = [
    {"question": "What did {b} paint?", "evidence": ["D1:2"], "category": 4},
    {"question": "What is {a} allergic to?", "evidence": ["D2:1"], "category": 1},
    {"question": "Which support group and which museum?", "evidence": ["D1:1; D2:2"],
     "category": 2},
    {"question": "What did {a} paint?", "evidence": ["D1:2"], "category": 5},  # adversarial
    {"question": "Anything?", "evidence": [], "category": 3},  # names no evidence
    {"question": "Gone?", "evidence": ["D9:9"], "category": 1},  # a turn that is not there
]


def _qa(a: str, b: str) -> list[dict[str, Any]]:
    return [{**q, "question": str(q["question"]).format(a=a, b=b)} for q in _QA]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A zip shaped like locomo10.zip (one conversation per file, named by sample id)."""
    target = tmp_path / "locomo-shaped.zip"
    with zipfile.ZipFile(target, "w") as archive:
        for sample, (a, b, topic) in {"7": ("Ann", "Bo", "LGBTQ"),
                                      "12": ("Cy", "Di", "grief")}.items():
            archive.writestr(f"data/dialog/{sample}.json",
                             json.dumps({**_conversation(a, b, topic), "qa": _qa(a, b)}))
    return target


def test_both_shapes_load_the_same_conversations(data: Path, tmp_path: Path) -> None:
    listed = tmp_path / "locomo10.json"
    listed.write_text(json.dumps([
        {"sample_id": "conv-12", "conversation": _conversation("Cy", "Di", "grief"),
         "qa": _qa("Cy", "Di")},
        {"sample_id": "conv-7", "conversation": _conversation("Ann", "Bo", "LGBTQ"),
         "qa": _qa("Ann", "Bo")}]))
    zipped, plain = load(data), load(listed)
    assert [c.sample_id for c in zipped] == ["7", "12"]  # numbered in sample id order
    assert [c.sample_id for c in plain] == ["conv-7", "conv-12"]
    for one, other in zip(zipped, plain, strict=True):
        assert (one.turns, one.questions) == (other.turns, other.questions)
    first = zipped[0]
    assert [t.dia_id for t in first.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert first.turns[1].at.isoformat() == "2023-05-08T13:56:01+00:00"
    assert [q.evidence for q in first.questions] == [
        ("D1:2",), ("D2:1",), ("D1:1", "D2:2"), ("D1:2",), (), ()]


def test_every_eligible_question_is_asked_in_its_conversations_scope(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The first entry point is an alias of `kg-memory bench recall --embedder none`.
    assert main([str(data), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ingest"]["turns"] == 10
    assert out["modes"] == ["lexical"]
    assert out["references"] == ["fts5"]
    assert [s["name"] for s in out["splits"]] == ["other", "all"]  # 7 and 12 are in no split
    for split in out["splits"]:
        assert split["questions"] == 6  # categories 1-4 with an evidence turn that is there
        lexical = split["systems"]["lexical"]["quality"]
        # Five turns a conversation: every evidence turn that shares a term is in the top 5,
        # and "allergic" finds "allergy" (a stem both sides share).
        assert lexical["turn"]["any@5"] == lexical["turn"]["all@5"] == 1.0
        assert split["systems"]["fts5"]["latency"]["count"] == 6
    assert [c["questions"] for c in out["conversations"]] == [3, 3]


def test_the_alias_takes_the_conversations_chosen(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(data), "--conversations", "12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ingest"]["turns"] == 5
    assert [c["sample_id"] for c in out["conversations"]] == ["12"]


def test_a_bad_selection_or_path_is_refused(data: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_selection("1-3, 7", 10) == [1, 2, 3, 7]
    for bad in ("0-2", "4-2", "x", "", "11"):
        with pytest.raises(InvalidArgument):
            parse_selection(bad, 10)
    found = load(data)
    assert [c.sample_id for c in choose(found, "all")] == ["7", "12"]
    assert [c.sample_id for c in choose(found, "conv-12")] == ["12"]
    assert choose(found, "tune, 7")[0].sample_id == "7"
    for bad in ("conv-26", "tune", ""):  # not in the data; a split with nothing in it; nothing
        with pytest.raises(InvalidArgument):
            choose(found, bad)
    assert main([str(tmp_path / "absent.zip")]) == 2
    assert "no LoCoMo data" in capsys.readouterr().err


def test_splits_follow_the_sample_ids_the_issue_names() -> None:
    assert [split_of(f"conv-{n}") for n in (26, 30, 41, 42, 43)] == ["tune"] * 5
    assert [split_of(str(n)) for n in (44, 47, 48, 49, 50)] == ["held-out"] * 5
    assert split_of("conv-7") == split_of("x") == "other"


@given(st.lists(st.sampled_from([f"D{s}:{t}" for s in (1, 2, 3) for t in (1, 2, 3)]),
                max_size=12, unique=True),
       st.lists(st.sampled_from([f"D{s}:{t}" for s in (1, 2, 3) for t in (1, 2, 3)]),
                min_size=1, max_size=4, unique=True))
def test_scores_grow_with_k_and_session_level_is_never_below_turn_level(
        found: list[str], evidence: list[str]) -> None:
    hits = hit_counts(found, evidence)
    for level in ("turn", "session"):
        for kind in ("any", "all"):
            at = [hits[f"{level} {kind}@{k}"] for k in KS]
            assert at == sorted(at)  # a larger k never loses a hit
    for k in KS:
        assert hits[f"turn all@{k}"] <= hits[f"turn any@{k}"]
        assert hits[f"turn any@{k}"] <= hits[f"session any@{k}"]
        assert hits[f"turn all@{k}"] <= hits[f"session all@{k}"]
    scores = RankScores()
    scores.add(found, evidence)
    first = next((r for r, d in enumerate(found, 1) if d in evidence), None)
    assert scores.quality().mrr == (1 / first if first else 0.0)
    assert scores.quality().turn["any@1"] == (first == 1)
