"""A forget selector naming an id that does not exist is NotFound, on every backend and entry
point (issue 27, finding 3).

Rules protected: an id selector (``episode:``, ``operation:``, ``assertion:``, ``entity:``) that
names nothing in its scope raises :class:`NotFound` (CLI exit 4, an MCP error result), dry run
or not, and writes nothing; another tenant's id is not found in the same words as a made-up
one; an id an earlier forget erased reports ``nothing-to-forget`` (a re-run stays safe); the
operation id a writer chose selects the episode it was ingested as; a ``source:`` or
``category:`` that matches nothing is an empty answer, not an error; an operator's all-scopes
request for an id no scope holds or ever forgot is NotFound too.

Each case failed on main at 63f92b7 (``nothing-to-forget``, exit 0; ``operation:`` unknown).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory, NotFound, ScopeError
from tests.cli_store import cli, store_location
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact


def _seed(memory: Memory, clock: ManualClock) -> dict[str, str]:
    """Two tenants' episodes; the ids u1's caller holds."""
    clock.now = day(0)
    mine = memory.ingest(episode("op-001-user-facts", "user", day(0), content="Ana is veg",
                                 assertions=[fact("ana", "diet", "veg")]))
    theirs = memory.ingest(episode("op-9", "user", day(0), scope="u2", content="Bo eats fish",
                                   assertions=[fact("bo", "diet", "fish")]))
    clock.now = day(1)
    [ana] = memory.asof(scope="u1").facts
    [bo] = memory.asof(scope="u2").facts
    return {"episode": mine.episode_id, "assertion": ana.assertion_id, "entity": "ana",
            "operation": "op-001-user-facts", "their_episode": theirs.episode_id,
            "their_assertion": bo.assertion_id}


def _activities(memory: Memory) -> int:
    return len(memory.store.activities("forget"))


@pytest.mark.parametrize("selector", [
    "episode:ep_0000000000000000", "operation:op-404", "assertion:as_0000000000000000",
    "entity:nobody"])
@pytest.mark.parametrize("dry_run", [True, False])
def test_an_id_that_does_not_exist_is_not_found_and_writes_nothing(
    memory: Memory, clock: ManualClock, selector: str, dry_run: bool
) -> None:
    _seed(memory, clock)
    kind, _, value = selector.partition(":")
    with pytest.raises(NotFound, match=f"^no {kind} '{value}' in scope 'u1'$"):
        memory.forget(f"{selector}@u1", dry_run=dry_run)
    with pytest.raises(NotFound):
        memory.scoped("u1").forget(selector, dry_run=dry_run)
    assert _activities(memory) == 0
    assert [f.value for f in memory.asof(scope="u1").facts] == ["veg"]


@pytest.mark.parametrize("kind", ["episode", "assertion"])
def test_another_tenants_id_is_not_found_in_the_words_of_a_made_up_one(
    memory: Memory, clock: ManualClock, kind: str
) -> None:
    ids = _seed(memory, clock)
    theirs = ids[f"their_{kind}"]
    with pytest.raises(NotFound) as caught:
        memory.forget(f"{kind}:{theirs}@u1")
    assert str(caught.value) == f"no {kind} '{theirs}' in scope 'u1'"
    assert [f.value for f in memory.asof(scope="u2").facts] == ["fish"]
    # Their operation id names nothing in u1 either (an operation id is per scope).
    with pytest.raises(NotFound, match=r"^no operation 'op-9' in scope 'u1'$"):
        memory.forget("operation:op-9@u1")


def test_an_operation_id_selects_the_episode_it_was_ingested_as(
    memory: Memory, clock: ManualClock
) -> None:
    ids = _seed(memory, clock)
    by_operation = memory.forget("operation:op-001-user-facts@u1", dry_run=True)
    by_episode = memory.forget(f"episode:{ids['episode']}@u1", dry_run=True)
    assert by_operation.plan.erase == by_episode.plan.erase == (ids["episode"],)
    assert by_operation.plan.delete == by_episode.plan.delete == (ids["assertion"],)
    done = memory.forget("operation:op-001-user-facts@u1")
    assert (done.status, done.selector) == ("complete", "operation:op-001-user-facts@u1")
    assert memory.asof(scope="u1").facts == ()
    assert [f.value for f in memory.asof(scope="u2").facts] == ["fish"]


def test_an_operation_id_given_as_an_episode_id_is_not_found_and_says_what_to_type(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock)
    with pytest.raises(NotFound, match=r"operation:op-001-user-facts@u1$"):
        memory.forget("episode:op-001-user-facts@u1")
    assert [f.value for f in memory.asof(scope="u1").facts] == ["veg"]


@pytest.mark.parametrize("kind", ["episode", "operation", "assertion", "entity"])
def test_an_id_forgotten_already_is_nothing_to_forget(
    memory: Memory, clock: ManualClock, kind: str
) -> None:
    ids = _seed(memory, clock)
    assert memory.forget(f"{kind}:{ids[kind]}@u1").status == "complete"
    for dry_run in (True, False):
        again = memory.forget(f"{kind}:{ids[kind]}@u1", dry_run=dry_run)
        assert again.plan.is_empty
        assert again.status == ("planned" if dry_run else "nothing-to-forget")
    # The tombstone is the scope's: the same id in another scope is still not found there.
    with pytest.raises(NotFound):
        memory.forget(f"{kind}:{ids[kind]}@u2")


def test_a_source_or_category_matching_nothing_is_an_empty_answer(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock)
    for selector in ("source:restaurant@u1", "category:u1/ana/salary_*"):
        report = memory.forget(selector)
        assert (report.status, report.plan.is_empty) == ("nothing-to-forget", True)
    assert [f.value for f in memory.asof(scope="u1").facts] == ["veg"]


def test_all_scopes_an_id_no_scope_holds_or_forgot_is_not_found(
    memory: Memory, clock: ManualClock
) -> None:
    ids = _seed(memory, clock)
    with pytest.raises(NotFound, match=r"^no entity 'nobody' in any scope$"):
        memory.forget("entity:nobody", all_scopes=True)
    assert memory.forget("entity:bo", all_scopes=True).scopes == ("u2",)
    again = memory.forget("entity:bo", all_scopes=True)
    assert (again.status, again.scopes) == ("nothing-to-forget", ("u2",))
    # bo's fact went with bo: its id is one u2 forgot, not one that never was.
    gone = memory.forget(f"assertion:{ids['their_assertion']}", all_scopes=True)
    assert (gone.status, gone.scopes) == ("nothing-to-forget", ("u2",))
    with pytest.raises(NotFound, match=r"^no assertion 'as_0' in any scope$"):
        memory.forget("assertion:as_0", all_scopes=True)
    # An operation id is its scope's own: without one it names nothing anywhere.
    with pytest.raises(ScopeError, match="operation id"):
        memory.forget("operation:op-001-user-facts", all_scopes=True)


def test_the_cli_says_not_found_exit_4_and_takes_operation_ids(
    make_memory: MemoryFactory, backend: str, tmp_path: Path
) -> None:
    store = store_location(make_memory, backend, tmp_path)
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({
        "operation_id": "op-001-user-facts", "source": "user", "channel": "chat",
        "occurred_at": day(0).isoformat(), "scope": "u1", "content": "Ana is veg",
        "assertions": [fact("ana", "diet", "veg")]}) + "\n")
    assert cli("ingest", str(path), "--trust-envelopes", "--store", store)[0] == 0
    code, out = cli("forget", "episode:op-001-user-facts", "--scope", "u1", "--store", store)
    assert code == 4
    assert "NotFound" in out
    assert "operation:op-001-user-facts@u1" in out
    code, out = cli("forget", "operation:op-001-user-facts", "--scope", "u1", "--store", store,
                     "--json")
    assert code == 0
    assert json.loads(out)["status"] == "complete"
    code, out = cli("forget", "operation:op-001-user-facts", "--scope", "u1", "--store", store,
                     "--json")
    assert (code, json.loads(out)["status"]) == (0, "nothing-to-forget")
    assert cli("forget", "operation:op-002", "--scope", "u1", "--store", store)[0] == 4


def test_mcp_forget_of_an_unknown_id_is_an_error_result(
    memory: Memory, clock: ManualClock
) -> None:
    pytest.importorskip("mcp", reason="needs the kg-memory-bitemporal[mcp] extra")
    from mcp import Client
    from mcp.types import CallToolResult

    from kg_memory.integrations.mcp import build_server

    server = build_server(memory, scope="u1", source="user", clock=clock)

    async def tool(client: Client, name: str, **arguments: Any) -> CallToolResult:
        result = await client.call_tool(name, arguments)
        assert isinstance(result, CallToolResult)
        return result

    async def main() -> None:
        async with Client(server) as client:
            said = await tool(client, "remember", content="Ana is veg", operation_id="m1",
                              facts=[fact("ana", "diet", "veg")])
            assert not said.is_error
            assert said.structured_content is not None
            operation = said.structured_content["operation_id"]
            for selector in ("episode:m1", "operation:m1", "entity:nobody"):
                result = await tool(client, "forget", selector=selector)
                assert result.is_error, selector
                text = result.content[0]
                assert text.type == "text"
                assert text.text.startswith("NotFound: "), text.text
            plan = await tool(client, "forget", selector=f"operation:{operation}")
            assert not plan.is_error
            assert plan.structured_content is not None
            assert plan.structured_content["delete"] != []
            done = await tool(client, "forget", selector=f"operation:{operation}",
                              plan_id=plan.structured_content["plan_id"])
            assert done.structured_content is not None
            assert done.structured_content["status"] == "complete"
            again = await tool(client, "forget", selector=f"operation:{operation}")
            assert again.structured_content is not None
            assert again.structured_content["next_step"] == "nothing to forget."

    asyncio.run(main())
