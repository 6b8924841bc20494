"""Ids as printed are ids as accepted (issue 27, finding 5): every id any command prints, in a
table, a tree or ``--json``, pasted back into every command that takes one, names what it
printed; lineage trees and forget plans say what each node is; relations read as their arrow.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import IngestRecord, Memory, NotFound
from kg_memory.cli import app
from tests.conftest import ROOT

DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"
JO_CEDAR = ROOT / "fixtures" / "jo_cedar" / "episodes.jsonl"
# What a node id looks like in any output: a hash id (with a revision), or an agent.
PRINTED = re.compile(r"\b(?:as|ep|act)_[0-9a-f]{6,}(?:#\d+)?|agent:[\w-]+")


def cli(*args: str, width: int = 200, code: int = 0) -> str:
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(app, list(args))
    assert result.exit_code == code, (args, result.output)
    return result.output


def strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("ids") / "m.db")
    for fixture in (DINNER, JO_CEDAR):
        cli("ingest", str(fixture), "--trust-envelopes", "--store", path)
    return path


def printed_ids(store: str, scope: str, subject: str) -> set[str]:
    """Every node id the reading commands print for ``scope``, at 80 columns and wide, as
    tables, trees and JSON."""
    at = ["--store", store, "--scope", scope]
    outputs: list[str] = []
    for args in (["asof"], ["history", subject], ["refusals"],
                 ["recall", "dinner OR report OR style OR fish"]):
        for form in ([], ["--wide"], ["--json"]):
            if args[0] == "recall" and form == ["--wide"]:
                continue  # recall has no --wide: its table shows ids when they fit
            for width in (80, 200):
                outputs.append(cli(*args, *at, *form, width=width))
    found = {m for out in outputs for m in PRINTED.findall(out)}
    found |= {s for out in outputs if out.lstrip().startswith(("{", "["))
              for s in strings(json.loads(out)) if PRINTED.fullmatch(s)}
    for node in sorted(found):  # and what lineage trees and forget plans print about them
        for form in ([], ["--json"]):
            found |= set(PRINTED.findall(cli("lineage", node, *at, *form)))
        if node.startswith(("as_", "ep_")):
            kind = "assertion" if node.startswith("as_") else "episode"
            for form in ([], ["--json"]):
                found |= set(PRINTED.findall(
                    cli("forget", f"{kind}:{node}", "--dry-run", *at, *form)))
    return found


@pytest.mark.parametrize(("scope", "subject"), [("u1", "u1"), ("acme", "j17")])
def test_every_printed_id_can_be_pasted_into_every_command_that_takes_one(
        store: str, scope: str, subject: str) -> None:
    """Rule: an id printed anywhere is accepted everywhere. On main ``asof --wide`` printed
    ``as_…#1`` and ``lineage 'as_…#1'`` was NotFound; tables printed ``as_95e8991b``, which
    no command accepted; a lineage tree printed ``agent:user``, NotFound too."""
    ids = printed_ids(store, scope, subject)
    assert any("#" in i for i in ids)
    assert any(i.startswith("agent:") for i in ids)
    assert any(i.startswith("ep_") for i in ids)
    at = ["--store", store, "--scope", scope]
    for node in sorted(ids):
        tree = json.loads(cli("lineage", node, *at, "--json"))["tree"]
        assert tree["id"] == node.split("#")[0]  # the node printed, not another
        assert cli("prov", node, *at).strip()
        if node.startswith(("as_", "ep_")):
            kind = "assertion" if node.startswith("as_") else "episode"
            plan = json.loads(cli("forget", f"{kind}:{node}", "--dry-run", *at, "--json"))
            assert node.split("#")[0] in strings(plan["plan"]), node
        if node.startswith("as_"):
            basis = ["consolidate", subject, "ids_test_record", "--from", node, *at[:2],
                     "--scope", scope, "--json"]
            result = CliRunner().invoke(app, basis)  # read as evidence, whatever follows
            assert result.exit_code != 4, result.output
            assert "NotFound" not in result.output


def test_a_revision_that_does_not_exist_names_nothing(store: str) -> None:
    at = ["--store", store, "--scope", "u1"]
    fact = json.loads(cli("asof", *at, "--json"))["facts"][0]
    cli("lineage", f"{fact['assertion_id']}#{fact['revision']}", *at)
    out = cli("lineage", f"{fact['assertion_id']}#99", *at, code=4)
    assert "no revision 99" in out
    # A forget naming a revision that does not exist plans nothing and says so (exit 4).
    out = cli("forget", f"assertion:{fact['assertion_id']}#99", "--dry-run", *at, "--json",
              code=4)
    assert "NotFound" in out


def test_an_id_of_another_tenant_is_not_found_in_any_printed_form(store: str) -> None:
    """A second tenant pasting the first one's printed ids finds nothing."""
    fact = json.loads(cli("asof", "--store", store, "--scope", "u1", "--json"))["facts"][0]
    for node in (fact["assertion_id"], f"{fact['assertion_id']}#{fact['revision']}",
                 "agent:restaurant"):
        cli("lineage", node, "--store", store, "--scope", "acme", code=4)


def test_lineage_says_what_each_node_is_and_reads_relations_as_their_arrows(
        store: str) -> None:
    """Rule: each line of a tree names its node's fact (subject.predicate = value, by whom) or
    episode (source, channel, when), and a relation reads in the direction of its arrow. On
    main the tree printed bare ids and "INVALIDATES ep_…" under an assertion's sources, which
    reads as the assertion invalidating the episode."""
    at = ["--store", store, "--scope", "u1"]
    history = json.loads(cli("history", "u1", "--predicate", "next_dinner", *at, "--json"))
    retired = next(e for e in history if e["version"]["reason"] == "retired")["version"]
    node = retired["assertion_id"]
    shown = json.loads(cli("lineage", node, *at, "--json"))["tree"]
    assert shown["about"]["subject"] == "u1"
    assert shown["about"]["predicate"] == "next_dinner"
    assert shown["about"]["value"] == retired["value"]
    invalidating = [c for c in shown["sources"] if c["relation"] == "INVALIDATES"]
    assert invalidating
    for child in invalidating:  # stored episode -[INVALIDATES]-> assertion
        assert (child["from"], child["to"]) == (child["id"], node)
        assert child["about"]["source"] == "restaurant"
    for child in shown["sources"]:
        if child["relation"] == "SUPPORTS":
            assert (child["from"], child["to"]) == (child["id"], node)
    out = cli("lineage", node, *at, width=80)
    lines = out.splitlines()
    assert lines[0].startswith(f"{node} (assertion) u1.next_dinner = {retired['value']}")
    episode = invalidating[0]["id"]
    line = next(line for line in lines if episode in line)
    assert f"←INVALIDATES─ {episode} (episode) restaurant over webhook" in line
    assert f"INVALIDATES {episode}" not in out
    assert all(len(line) <= 80 for line in lines)
    # From the episode's side the same relation points down the tree.
    down = cli("lineage", episode, *at, "--down")
    assert f"─INVALIDATES→ {node} (assertion) u1.next_dinner" in down


def test_a_forget_plan_says_what_each_node_is(store: str) -> None:
    """Rule: a plan names each node's fact or episode beside its id (main printed ids only),
    never its words: the value it is about to erase stays out of what is printed."""
    at = ["--store", store, "--scope", "u1"]
    plan = json.loads(cli("forget", "source:restaurant", "--dry-run", *at, "--json"))["plan"]
    out = cli("forget", "source:restaurant", "--dry-run", *at, width=120)
    for action in ("erase", "restore", "delete", "retire"):
        for node in plan[action]:
            line = next(line for line in out.splitlines() if node in line)
            if node.startswith("as_"):
                fact = json.loads(cli("lineage", node, *at, "--json"))["tree"]["about"]
                assert (f"{fact['subject']}.{fact['predicate']} (revision {fact['revision']}, "
                        f"by {fact['source']})") in line
                assert str(fact["value"]) not in line
            else:
                assert "restaurant over webhook" in line


def test_lineage_of_a_printed_form_on_both_backends(memory: Memory) -> None:
    """The library does what the CLI does, on either store: ``as_…#N`` names the assertion
    when revision N exists, ``agent:SOURCE`` names what SOURCE sent in the scope, and every
    node says what it is."""
    for scope, op in (("u1", "a"), ("u2", "b")):
        memory.ingest(IngestRecord.model_validate({
            "operation_id": op, "source": "user", "channel": "chat", "scope": scope,
            "occurred_at": "2026-01-05T09:00:00Z", "content": "I live in Oslo",
            "assertions": [{"subject": scope, "predicate": "home", "value": "Oslo",
                            "kind": "stated"}]}))
    fact = memory.asof(datetime(2026, 1, 6, tzinfo=UTC), scope="u1").facts[0]
    graph = memory.lineage(f"{fact.assertion_id}#{fact.revision}", scope="u1")
    assert graph.nodes[fact.assertion_id]["depth"] == 0
    assert graph.nodes[fact.assertion_id]["about"] == {
        "subject": "u1", "predicate": "home", "value": "Oslo", "source": "user", "revision": 1}
    with pytest.raises(NotFound):
        memory.lineage(f"{fact.assertion_id}#2", scope="u1")
    agent = memory.lineage("agent:user", "down", scope="u1")
    episodes = {n for n in agent.nodes if agent.nodes[n]["kind"] == "episode"}
    assert episodes == {s.episode_id for s in fact.supported_by}  # u2's episode is not there
    assert agent.nodes["agent:user"]["depth"] == 0
    with pytest.raises(NotFound):
        memory.lineage("agent:nobody", scope="u1")


def test_the_mcp_lineage_tool_takes_the_printed_form(memory: Memory) -> None:
    """The MCP tools read the same ids: ``lineage`` of ``as_…#N`` is the assertion's tree, with
    what each node is (on main a KeyError inside the tool)."""
    import asyncio

    from mcp import Client

    from kg_memory.integrations.mcp import build_server

    memory.ingest(IngestRecord.model_validate({
        "operation_id": "a", "source": "user", "channel": "chat", "scope": "u1",
        "occurred_at": "2026-01-05T09:00:00Z", "content": "I live in Oslo",
        "assertions": [{"subject": "u1", "predicate": "home", "value": "Oslo",
                        "kind": "stated"}]}))
    fact = memory.asof(datetime(2026, 1, 6, tzinfo=UTC), scope="u1").facts[0]
    server = build_server(memory, scope="u1")

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool(
                "lineage", {"node_id": f"{fact.assertion_id}#{fact.revision}"})
            assert not result.is_error, result.content
            assert isinstance(result.structured_content, dict)
            return result.structured_content

    tree = asyncio.run(main())["tree"]
    assert tree["id"] == fact.assertion_id
    assert tree["about"]["value"] == "Oslo"
    assert [c["from"] for c in tree["sources"]] == [s.episode_id for s in fact.supported_by]


def test_a_block_id_as_listed_is_the_id_revoke_takes(tmp_path: Path) -> None:
    """On main ``blocks list`` printed ``blk_`` and 8 of its 12 digits; revoke wanted all."""
    store = str(tmp_path / "m.db")
    cli("ingest", str(JO_CEDAR), "--trust-envelopes", "--store", store)
    cli("forget", "category:acme/j17/report_*@c1", "--block", "--store", store)
    listed = cli("blocks", "list", "--store", store, "--scope", "acme", width=80)
    (block,) = re.findall(r"\bblk_\w+", listed)
    cli("blocks", "revoke", block, "--store", store, "--scope", "acme")
    revoked = json.loads(cli("blocks", "list", "--store", store, "--scope", "acme", "--json"))
    assert [b["revoked_at"] is not None for b in revoked] == [True]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_entity_ids_are_listed_whole(tmp_path: Path, width: int) -> None:
    """An entity id is the name commands take (``lineage``, ``entities show``, ``forget
    entity:``): listed whole or not at all, never cut in its middle."""
    store = str(tmp_path / "m.db")
    cli("ingest", str(JO_CEDAR), "--trust-envelopes", "--store", store)
    cli("ingest", str(DINNER), "--trust-envelopes", "--store", store)
    booking = "booking-2026-03-14-table-for-two-at-chez-lili"  # an id longer than 24
    line = {"operation_id": "long", "source": "agent", "channel": "chat", "scope": "u1",
            "occurred_at": "2026-03-01T09:00:00Z",
            "entities": [{"entity_id": booking, "type": "booking", "name": "Chez Lili, 14th",
                          "owners": ["restaurant"]}],
            "assertions": [{"subject": "u1", "predicate": "next_dinner", "value": "14th",
                            "kind": "world", "depends_on": [booking]}]}
    (tmp_path / "long.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    cli("ingest", str(tmp_path / "long.jsonl"), "--trust-envelopes", "--store", store)
    listed = json.loads(cli("entities", "list", "--store", store, "--all-scopes", "--json"))
    out = cli("entities", "list", "--store", store, "--all-scopes", width=width)
    assert booking in {e["entity_id"] for e in listed}
    for entity in listed:
        assert re.search(rf"(^|\s){re.escape(entity['entity_id'])}\s", out), entity
        cli("entities", "show", entity["entity_id"], "--store", store, "--scope",
            entity["scope"])
