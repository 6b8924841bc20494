"""Input every way in refuses the same way, with a typed error naming the line and field
(issue 25, finding 11): a key given twice, content over one line's cap, a missing input file,
and LangGraph batches that must refuse what ``get``/``put`` refuse and write all or nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import (
    ChannelPolicy,
    IngestError,
    Memory,
    PolicyError,
    WritePolicy,
    parse_record,
)
from kg_memory.cli import app
from kg_memory.domain.limits import MAX_LINE_BYTES
from kg_memory.domain.record import parse_line
from tests.conftest import ROOT, ManualClock, MemoryFactory, day

DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"
runner = CliRunner(env={"COLUMNS": "200"})


def _line(**fields: Any) -> dict[str, Any]:
    return {"operation_id": "op-1", "source": "user", "channel": "chat",
            "occurred_at": "2026-01-05T10:00:00Z", "scope": "u1", "content": "hi",
            "assertions": [{"subject": "u1", "predicate": "diet", "value": "vegan",
                            "kind": "stated"}], **fields}


def _with_twice(text: str, key: str, value: str) -> str:
    """``text`` (one JSON object) with ``"key": value`` inserted before the first ``"key"``."""
    at = text.index(f'"{key}"')
    return f'{text[:at]}"{key}": {value}, {text[at:]}'


@pytest.mark.parametrize(("key", "field"), [
    ("scope", "scope"),
    ("operation_id", "operation_id"),
    ("predicate", "assertions.0.predicate"),
    ("value", "assertions.0.value"),
])
def test_a_key_given_twice_is_refused_naming_line_and_field(key: str, field: str) -> None:
    text = _with_twice(json.dumps(_line()), key, '"u2"')
    with pytest.raises(IngestError) as caught:
        parse_line(text.encode(), line=7)
    assert (caught.value.line, caught.value.field) == (7, field)
    assert "twice" in str(caught.value)


def test_a_key_twice_in_a_line_that_is_not_plain_is_refused_too() -> None:
    # Lines with a long string take the decoder hooks' path: the same refusal.
    text = _with_twice(json.dumps(_line(content="x" * 70_000)), "scope", '"u2"')
    with pytest.raises(IngestError) as caught:
        parse_line(text.encode(), line=2)
    assert (caught.value.line, caught.value.field) == (2, "scope")


def test_a_duplicated_scope_never_files_an_episode_under_another_tenant(tmp_path: Path) -> None:
    good = json.dumps(_line(operation_id="op-0"))
    evil = _with_twice(json.dumps(_line()), "scope", '"u2"')
    source = tmp_path / "in.jsonl"
    source.write_text(f"{good}\n{evil}\n", encoding="utf-8")
    store = str(tmp_path / "m.db")
    result = runner.invoke(app, ["ingest", str(source), "--trust-envelopes", "--store", store])
    assert result.exit_code == 2, result.output
    assert "line 2" in result.output
    assert "'scope'" in result.output
    with Memory.open(store, create=False) as memory:
        assert [f.value for f in memory.asof(scope="u1").facts] == ["vegan"]  # line 1 stays
        assert memory.asof(scope="u2").facts == ()
        assert len(memory.asof(scope="u1").facts) == 1


@pytest.mark.parametrize("loader", [ChannelPolicy.load, WritePolicy.load])
def test_a_policy_file_with_a_key_twice_is_refused(loader: Any, tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text('{"name": "strict", "name": "lax"}', encoding="utf-8")
    with pytest.raises(PolicyError, match="'name'"):
        loader(path)


def test_content_over_one_lines_cap_is_refused_on_every_way_in(
        make_memory: MemoryFactory, clock: ManualClock) -> None:
    memory = make_memory(clock)
    big = "x" * (MAX_LINE_BYTES + 1)
    with pytest.raises(IngestError) as caught:
        parse_record(_line(content=big))
    assert caught.value.field == "content"
    with pytest.raises(IngestError):
        memory.inlet("user", "chat", scope="u1").ingest(_line(content=big))
    # Multi-byte text is measured in UTF-8 bytes, as a file line is.
    with pytest.raises(IngestError):
        parse_record(_line(content="é" * (MAX_LINE_BYTES // 2 + 1)))
    assert parse_record(_line(content="é" * (MAX_LINE_BYTES // 2 - 64))).content
    assert memory.asof(scope="u1").facts == ()


def test_mcp_remember_refuses_content_a_file_line_could_not_carry(
        make_memory: MemoryFactory, clock: ManualClock) -> None:
    pytest.importorskip("mcp", reason="needs the kg-memory[mcp] extra")
    from kg_memory.integrations.mcp.session import BoundMemory

    clock.now = day(1)
    bound = BoundMemory(make_memory(clock), scope="u1", source="user", clock=clock)
    with pytest.raises(IngestError) as caught:
        bound.remember("x" * (2 << 20))
    assert caught.value.field == "content"
    assert bound.remember("x" * 1000).status == "accepted"


def test_a_missing_input_file_is_bad_input_not_an_unavailable_store(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(tmp_path / "absent.jsonl"), "--trust-envelopes",
                                 "--store", str(tmp_path / "m.db")])
    assert result.exit_code == 2, result.output
    assert "IngestError" in result.output
    assert "absent.jsonl" in result.output


@pytest.mark.parametrize("option", ["--channel-policy", "--write-policy"])
def test_a_missing_policy_file_is_bad_input(option: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(DINNER), option, str(tmp_path / "absent.json"),
                                 *(["--trust-envelopes"] if option == "--write-policy" else []),
                                 "--store", str(tmp_path / "m.db")])
    assert result.exit_code == 2, result.output
    assert "PolicyError" in result.output


def test_an_unwritable_acks_file_is_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(DINNER), "--trust-envelopes", "--store",
                                 str(tmp_path / "m.db"), "--acks", str(tmp_path / "no" / "a")])
    assert result.exit_code == 2, result.output
    assert "--acks" in result.output
