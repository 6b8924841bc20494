"""The CLI's side of issue 10: a file is not an authenticated channel; conflicts are shown."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kg_memory import Channel, ChannelPolicy, ChannelRule
from kg_memory.cli import app
from tests.conftest import ROOT

DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"


def run(*args: str, columns: int = 200, **env: str) -> tuple[int, str]:
    result = CliRunner(env={"COLUMNS": str(columns), **env}).invoke(app, list(args))
    return result.exit_code, result.output


def test_file_ingest_without_an_established_source_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    code, out = run("ingest", str(DINNER), "--store", str(store))
    assert code == 2
    assert "not authenticated" in out
    assert "--trust-envelopes" in out
    assert not store.exists()  # nothing was opened, let alone written
    code, out = run("ingest", str(DINNER), "--source", "user", "--store", str(store))
    assert code == 2
    assert "--source and --channel go together" in out


def test_the_operator_establishes_the_files_source(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(DINNER), "--source", "restaurant", "--channel", "webhook",
                    "--store", store, "--json")
    assert code == 0, out
    summary = json.loads(out)
    # Six lines claim the user, the agent or the timer: not what this file's channel vouches for.
    # The restaurant's line is accepted, its stated claim refused, and its event too: the
    # booking it cancels was never made (the agent's line was refused).
    assert (summary["accepted"], summary["envelopes_refused"], summary["refused"]) == (1, 6, 2)
    code, out = run("refusals", "--store", store, "--scope", "u1", "--json")
    whats = sorted(r["what"] for r in json.loads(out))
    assert whats.count("envelope user over chat") == 3
    assert "envelope agent over chat" in whats
    assert "envelope timer over timer" in whats
    code, out = run("asof", "--store", store, "--scope", "u1", "--json")
    assert json.loads(out)["facts"] == []


def test_a_channel_policy_file_or_variable_vouches_for_the_envelopes(tmp_path: Path) -> None:
    only_chat = ChannelPolicy(name="chat-only", rules=(
        ChannelRule(sources=("user", "agent"), channels=(Channel.CHAT,)),))
    policy = tmp_path / "channels.json"
    policy.write_text(only_chat.model_dump_json())
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(DINNER), "--channel-policy", str(policy), "--store", store,
                    "--json")
    assert code == 0, out
    assert json.loads(out)["envelopes_refused"] == 2  # the restaurant's webhook, the timer
    other = str(tmp_path / "n.db")
    code, out = run("ingest", str(DINNER), "--store", other, "--json",
                    KG_MEMORY_CHANNEL_POLICY=str(policy))
    assert code == 0, out
    assert json.loads(out)["envelopes_refused"] == 2
    policy.write_text('{"rules": [{"sources": ["*"], "channels": ["pigeon"]}]}')
    code, out = run("ingest", str(DINNER), "--channel-policy", str(policy), "--store", store)
    assert code == 2
    assert "channel policy" in out


def _conflicted_store(tmp_path: Path) -> str:
    lines = [
        {"operation_id": "u", "source": "user", "channel": "chat", "scope": "u1",
         "occurred_at": "2026-01-05T09:00:00Z", "content": "No deposits, please.",
         "assertions": [{"subject": "u1", "predicate": "deposit_preapproved", "value": "no",
                         "kind": "stated"}]},
        {"operation_id": "t", "source": "tool", "channel": "tool", "scope": "u1",
         "occurred_at": "2026-01-06T09:00:00Z", "content": "crm: deposit_preapproved=yes",
         "assertions": [{"subject": "u1", "predicate": "deposit_preapproved", "value": "yes",
                         "kind": "world"}]},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = str(tmp_path / "m.db")
    code, out = run("ingest", str(path), "--trust-envelopes", "--store", store)
    assert code == 0, out
    return store


def test_asof_shows_a_conflict_beside_the_served_value(tmp_path: Path) -> None:
    store = _conflicted_store(tmp_path)
    code, out = run("asof", "--store", store, "--scope", "u1", "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert [(f["value"], f["writer"]) for f in answer["facts"]] == [("no", "user")]
    assert answer["facts"][0]["corroboration"] == {"sources": 1, "mentions": 1, "episodes": 1}
    [conflict] = answer["conflicts"]
    assert (conflict["fact"]["value"], conflict["fact"]["writer"]) == ("yes", "tool")
    assert conflict["contradicts"] == [answer["facts"][0]["assertion_id"]]

    code, out = run("asof", "--store", store, "--scope", "u1", columns=80)
    assert code == 0, out
    assert "1 conflict(s)" in out
    rows = out.splitlines()
    assert any(row.startswith("u1.deposit_preapproved") and " no " in row for row in rows)
    assert any(row.startswith("! u1.deposit_preapproved") and " yes " in row for row in rows)
    assert max(len(line) for line in rows) <= 80
