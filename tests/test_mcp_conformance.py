"""The MCP server as a client and the MCP Inspector see it: schemas, annotations, errors, stdio.

Issue 27 finding 9: a fact without ``kind`` was accepted; a stray field got the SDK's pydantic
dump; ``remember`` claimed to be idempotent; descriptions kept docstring indentation and some
fields had none; every error's structured content failed the tool's output schema (so the
Inspector showed a schema failure instead of the message); a malformed line on stdio got no
answer; a plan id that was never issued was reported as a plan that changed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("mcp", reason="needs the kg-memory-bitemporal[mcp] extra")

import jsonschema
from mcp import Client
from mcp.types import CallToolResult

from kg_memory import Memory
from kg_memory.integrations.mcp import build_server
from tests.conftest import ManualClock, fact

T = TypeVar("T")


def run(coro: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(coro())  # type: ignore[arg-type]


async def failed(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    assert result.is_error
    return result


def text(result: CallToolResult) -> str:
    first = result.content[0]
    assert first.type == "text"
    return first.text


def fits(result: CallToolResult, schema: dict[str, Any] | None) -> None:
    """What the TypeScript SDK (and so the Inspector) checks of every result, errors included:
    structured content, when there is any, must validate against the tool's output schema."""
    if schema is not None and result.structured_content is not None:
        jsonschema.validate(result.structured_content, schema)


def test_a_fact_without_kind_is_refused_as_in_a_file(memory: Memory, clock: ManualClock) -> None:
    server = build_server(memory, scope="u1", clock=clock)
    bare = {"subject": "ana", "predicate": "diet", "value": "vegetarian"}

    async def main() -> None:
        async with Client(server) as client:
            said = text(await failed(client, "remember", content="Ana is vegetarian",
                                     facts=[bare]))
            assert said == "InvalidArgument: remember: field 'facts.0.kind': required"
            # A document's facts are claims whatever is given: no kind needed there.
            done = await client.call_tool("read_document", {
                "origin": "chez-lili", "content": "Ana is vegetarian", "claims": [bare]})
            assert not done.is_error, done.content
        assert memory.asof(scope="u1").facts == ()

    run(main)


def test_arguments_are_checked_with_kg_memorys_typed_errors(memory: Memory, clock: ManualClock
                                                            ) -> None:
    server = build_server(memory, scope="u1", clock=clock)

    async def main() -> None:
        async with Client(server) as client:
            stray = await failed(client, "remember", content="x",
                                 facts=[{**fact("u1", "deposit", "yes"), "writer": "user"}])
            said = text(stray)
            assert said.startswith("InvalidArgument: remember: field 'facts.0.writer': "
                                   "unknown field")
            assert "pydantic" not in said
            assert "http" not in said
            assert stray.meta is not None
            assert stray.meta["kg-memory/error"]["error"] == "InvalidArgument"
            wrong = text(await failed(client, "recall", query="diet", limit=500))
            assert wrong.startswith("InvalidArgument: recall: field 'limit': ")
            assert "pydantic" not in wrong
            many = text(await failed(client, "remember", content=3,
                                     facts=[{"value": [1]}, {"value": {}}]))
            assert many.startswith("InvalidArgument: remember: field 'content': ")
        assert memory.asof(scope="u1").facts == ()

    run(main)


#: The hints each tool must carry: what it does, not what would be convenient to claim.
HINTS = {
    # the same call later is a second episode, so neither is idempotent
    "remember": (False, False, False), "read_document": (False, False, False),
    # forget erases; executing the same plan again changes nothing more
    "forget": (False, True, True),
    # settling a review pair pools or parts facts, erases nothing, and is reversed by settling
    # it the other way; the same settlement again is a no-op
    "settle": (False, False, True),
    **dict.fromkeys(("recall", "asof", "history", "lineage", "refusals", "entities"),
                    (True, False, True)),
}


def test_annotations_say_what_each_tool_does(memory: Memory, clock: ManualClock) -> None:
    server = build_server(memory, scope="u1", clock=clock)

    async def main() -> None:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == set(HINTS)
            for name, (read_only, destructive, idempotent) in HINTS.items():
                hints = tools[name].annotations
                assert hints is not None
                assert (hints.read_only_hint, hints.destructive_hint,
                        hints.idempotent_hint) == (read_only, destructive, idempotent), name
            # Why remember is not idempotent: the same call, later, is another episode.
            said = {"content": "Ana is vegetarian", "facts": [fact("ana", "diet", "vegetarian")]}
            first = (await client.call_tool("remember", said)).structured_content
            clock.now += timedelta(minutes=1)
            again = (await client.call_tool("remember", said)).structured_content
            assert first is not None
            assert again is not None
            assert first["episode_id"] != again["episode_id"]

    run(main)


def _undescribed(schema: dict[str, Any], where: str) -> list[str]:
    missing = []
    for name, prop in schema.get("properties", {}).items():
        if not prop.get("description"):
            missing.append(f"{where}.{name}")
    for model, body in schema.get("$defs", {}).items():
        missing += _undescribed(body, model)
    return missing


def test_descriptions_are_dedented_and_every_input_field_is_described(
    memory: Memory, clock: ManualClock
) -> None:
    server = build_server(memory, scope="u1", clock=clock)

    async def main() -> None:
        async with Client(server) as client:
            for tool in (await client.list_tools()).tools:
                assert tool.description
                lines = tool.description.splitlines()
                assert all(not line.startswith(" ") for line in lines), tool.name
                assert _undescribed(tool.input_schema, tool.name) == []

    run(main)


def test_every_error_result_fits_its_tools_output_schema(memory: Memory, clock: ManualClock
                                                         ) -> None:
    """One error per tool, each checked as the Inspector checks it."""
    server = build_server(memory, scope="u1", clock=clock)
    calls: dict[str, dict[str, Any]] = {
        "remember": {"content": "x", "facts": [fact("ana", "diet", "v", valid_from="nope")]},
        "read_document": {"origin": "x:user", "content": "t"},
        "recall": {"query": "?!"},
        "asof": {"valid_at": "2026-01-05T09:00:00"},
        "history": {"subject": ["ana"]},
        "lineage": {"node_id": "as_nothing"},
        "forget": {"selector": "nonsense"},
        "refusals": {"scope": 3},
        "entities": {"action": "show"},
        "settle": {"pair_id": "p:c", "decision": "merge", "decided_by": "ana", "token": "rv_x"},
    }

    async def main() -> None:
        async with Client(server) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            assert set(schemas) == set(calls)
            for name, arguments in calls.items():
                result = await client.call_tool(name, arguments)
                if name == "refusals":  # no arguments to get wrong: a stray one is ignored
                    assert not result.is_error
                else:
                    assert result.is_error, name
                    assert text(result).split(":")[0] in {
                        "IngestError", "InvalidArgument", "RecallError", "NaiveDatetimeError",
                        "NotFound", "PolicyError", "TimeError"}, (name, text(result))
                fits(result, schemas[name])

    run(main)


def test_an_unknown_plan_id_is_unknown_not_a_changed_plan(memory: Memory, clock: ManualClock
                                                          ) -> None:
    server = build_server(memory, scope="u1", clock=clock)

    async def main() -> None:
        async with Client(server) as client:
            await client.call_tool("remember", {"content": "Ana is vegetarian",
                                                "facts": [fact("ana", "diet", "vegetarian")]})
            plan = (await client.call_tool("forget", {"selector": "entity:ana"}))
            assert plan.structured_content is not None
            pid = plan.structured_content["plan_id"]
            made_up = text(await failed(client, "forget", selector="entity:ana",
                                        plan_id="fp_000000000000000000000000"))
            assert made_up.startswith("NotFound: no forget plan 'fp_000000000000000000000000'")
            assert "changed" not in made_up
            # Another selector's plan is no plan of this one.
            other = text(await failed(client, "forget", selector="source:user", plan_id=pid))
            assert other.startswith("NotFound: ")
            assert memory.asof(scope="u1").facts != ()
            done = await client.call_tool("forget", {"selector": "entity:ana", "plan_id": pid})
            assert not done.is_error

    run(main)


def _serve(store: Path) -> list[str]:
    return [sys.executable, "-m", "kg_memory.cli", "mcp", "--store", str(store), "--scope", "u1"]


def test_a_malformed_line_on_stdio_gets_a_json_rpc_error(tmp_path: Path) -> None:
    lines = ['{not json', '{"jsonrpc":"2.0","id":7,"method":"ping"}', '[1, 2]', '"text"']
    done = subprocess.run(_serve(tmp_path / "s.db"), input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120, check=False)
    # Answers to the rejected lines and the ping may come in either order: compare as multisets.
    answers = sorted(done.stdout.splitlines())
    assert answers == sorted(json.dumps(a, separators=(",", ":")) for a in [
        {"jsonrpc": "2.0", "id": None,
         "error": {"code": -32700, "message": "Parse error: the line is not JSON"}},
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        *[{"jsonrpc": "2.0", "id": None,
           "error": {"code": -32600, "message": "Invalid Request: the line is JSON but not a "
                     "JSON-RPC 2.0 message"}}] * 2,
    ]), done.stderr


def _inspector() -> str | None:
    """The MCP Inspector's command (npm ``@modelcontextprotocol/inspector``), when installed:
    ``$KG_MCP_INSPECTOR`` or ``mcp-inspector`` on the PATH."""
    return os.environ.get("KG_MCP_INSPECTOR") or shutil.which("mcp-inspector")


# CI installs it (.ci/test), so there it fails rather than skips when it is missing.
@pytest.mark.skipif(_inspector() is None and not os.environ.get("CI"),
                    reason="the MCP Inspector is not installed "
                    "(npm install @modelcontextprotocol/inspector; set KG_MCP_INSPECTOR)")
def test_the_inspector_shows_a_tool_error_as_printed(tmp_path: Path) -> None:
    command = _inspector()
    assert command is not None, "CI installs the MCP Inspector (.ci/test): it is missing"
    done = subprocess.run(
        [command, "--cli", *_serve(tmp_path / "i.db"), "--method", "tools/call",
         "--tool-name", "forget", "--tool-arg", "selector=nonsense"],
        capture_output=True, text=True, timeout=180, check=False)
    assert "does not match the tool's output schema" not in done.stdout + done.stderr
    # Its CLI prints the result and, in some releases, exits non-zero for a tool error
    # (``tool_is_error``): that is the error shown, not a failure to show it.
    assert done.returncode == 0 or "tool_is_error" in done.stderr, done.stdout + done.stderr
    shown = json.loads(done.stdout[done.stdout.index("{"):done.stdout.rindex("}") + 1])
    assert shown["isError"] is True
    assert shown["content"][0]["text"].startswith("PolicyError: selector 'nonsense'")
