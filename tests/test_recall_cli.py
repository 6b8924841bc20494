"""``kg-memory recall``: thin over the library, with the documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT
from tests.test_cli import run

RECALL_SET = ROOT / "fixtures" / "recall" / "episodes.jsonl"


def test_recall_prints_eligible_records_as_json_and_as_a_table(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(RECALL_SET), "--trust-envelopes", "--store", store, "--json")
    assert code == 0, out
    code, out = run("recall", "how does Jo want Cedar reports", "--scope", "acme",
                    "--subject", "j17", "--project", "c1", "--store", store, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["status"] == "ok"
    first = answer["results"][0]
    assert (first["subject"], first["predicate"], first["value"]) == ("j17", "report_style",
                                                                      "detailed")
    assert answer["excluded"]["not_believed_at_known_at"] == 1  # "concise", corrected
    code, out = run("recall", "Jo reports", "--scope", "acme", "--store", store)
    assert code == 0
    assert "excluded before ranking" in out
    # What held on day 2 (as known now): the old preference, not the later one.
    code, out = run("recall", "Jo Cedar reports", "--scope", "acme", "--store", store,
                    "--at", "2026-03-04T12:00:00Z", "--subject", "j17", "--no-episodes",
                    "--json")
    assert code == 0, out
    values = [r["value"] for r in json.loads(out)["results"]]
    assert values[0] == "concise"
    assert "detailed" not in values


def test_recall_exit_codes(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    assert run("ingest", str(RECALL_SET), "--trust-envelopes", "--store", store,
               "--json")[0] == 0
    code, out = run("recall", "zebra crossing", "--scope", "acme", "--store", store, "--json")
    assert code == 0
    assert json.loads(out)["status"] == "empty"
    assert run("recall", "what is the", "--scope", "acme", "--store", store)[0] == 2
    assert run("recall", "Jo", "--scope", "acme", "--kind", "opinion", "--store", store)[0] == 2
    assert run("recall", "Jo", "--scope", "acme", "--at", "2026-03-04T12:00:00",
               "--store", store)[0] == 2  # naive datetime
    code, out = run("recall", "Jo", "--scope", "acme", "--store", str(tmp_path / "none.db"))
    assert code == 3
    assert "no kg-memory store" in out


def test_recall_applies_the_write_policys_decay_and_says_what_to_ask_again(
    tmp_path: Path
) -> None:
    store = str(tmp_path / "m.db")
    assert run("ingest", str(RECALL_SET), "--trust-envelopes", "--store", store,
               "--json")[0] == 0
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"name": "decay", "rules": [
        {"predicates": ["report_style"], "half_life_days": 1}]}), encoding="utf-8")
    asked = ("recall", "how does Jo want Cedar reports", "--scope", "acme", "--subject", "j17",
             "--no-episodes", "--store", store)
    code, out = run(*asked, "--json")
    assert code == 0, out
    assert "report_style" in {r["predicate"] for r in json.loads(out)["results"]}
    code, out = run(*asked, "--write-policy", str(policy), "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert "report_style" not in {r["predicate"] for r in answer["results"]}
    assert answer["excluded"]["decayed_below_floor"] >= 1
    assert {a["predicate"] for a in answer["ask_again"]} == {"report_style"}
    code, out = run(*asked, "--write-policy", str(policy))
    assert code == 0
    assert "ask again: j17.report_style" in out
