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

from kg_memory.bench.locomo import main, run
from kg_memory.bench.locomo_data import load, parse_selection
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
        data: Path, tmp_path: Path) -> None:
    result = run(load(data), tmp_path / "bench.db")
    names = [g.name for g in result.groups]
    assert names == ["1 (7)", "2 (12)", "tune (1-5)", "all"]  # nothing held out was run
    for g in result.groups:
        per = 3 if g.name[0].isdigit() else 6
        assert g.recall.questions == g.fts5.questions == per
        # Five turns a conversation: every evidence turn that shares a term is in the top 5,
        # and "allergic" finds "allergy" (a stem both sides share).
        assert g.recall.rates() == {"any@5": 1.0, "any@10": 1.0, "all@5": 1.0}
        assert g.recall_latency is not None
        assert g.fts5_latency is not None
    assert result.turns == 10


def test_the_command_prints_json_for_the_conversations_chosen(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(data), "--conversations", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["turns"] == 5
    assert [g["name"] for g in out["groups"]] == ["2 (12)", "tune (1-5)", "all"]
    assert out["groups"][0]["questions"] == 3
    assert set(out["groups"][0]) >= {"recall", "fts5", "recall_median_ms", "median_vs_fts5"}


def test_a_bad_selection_or_path_is_refused(data: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_selection("1-3, 7", 10) == [1, 2, 3, 7]
    for bad in ("0-2", "4-2", "x", "", "11"):
        with pytest.raises(InvalidArgument):
            parse_selection(bad, 10)
    assert main([str(tmp_path / "absent.zip")]) == 2
    assert "no LoCoMo data" in capsys.readouterr().err
