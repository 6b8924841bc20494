"""``kg-memory lineage``, ``kg-memory prov`` and ``kg-memory consolidate``."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.text import Text
from rich.tree import Tree

from kg_memory import Direction, lineage_tree, serialize_prov
from kg_memory.cli import render
from kg_memory.cli.options import (
    AllScopesOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    open_memory,
    reader,
    wanted_scope,
)
from kg_memory.cli.sheet import text

__all__ = ["about", "consolidate", "lineage", "node_line", "prov"]


class ProvFormat(StrEnum):
    json = "json"
    provn = "provn"
    ttl = "ttl"
    xml = "xml"


def about(node: dict[str, Any], *, words: bool = True) -> str:
    """What a node is, after its id: a fact's ``subject.predicate = value`` and who wrote it,
    an episode's source, channel and time, an entity's type and name. Without ``words``, no
    stored text (a fact's value, an entity's name): what a forget plan may print."""
    facts = node.get("about")
    if not facts:
        return ""
    if node["kind"] == "assertion":
        if not words:
            return (f"{facts['subject']}.{facts['predicate']} (revision {facts['revision']}, "
                    f"by {facts['source']})")
        return (f"{facts['subject']}.{facts['predicate']} = {text(facts['value'])} "
                f"(by {facts['source']})")
    if node["kind"] == "episode":
        occurred = render.when(datetime.fromisoformat(facts["occurred_at"]))
        return f"{facts['source']} over {facts['channel']}, {occurred}"
    return ", ".join(f"{k} {text(v)}" for k, v in facts.items()
                     if v is not None and (words or k != "name"))


def node_line(node: dict[str, Any], relation: str = "") -> Text:
    """One line of a tree: the relation as it reads, the id whole (so it can be pasted), its
    kind, then what it is, cut at the terminal's edge (never the id)."""
    line = Text(no_wrap=True, overflow="ellipsis")
    if relation:
        # The arrow points as the relation reads: ←SUPPORTS─ ep_1 under as_1 is "ep_1
        # SUPPORTS as_1"; ─DERIVED_FROM→ as_2 is "(this) DERIVED_FROM as_2".
        arrow = (f"←{relation}─ " if node.get("from") == node["id"] else f"─{relation}→ ")
        line.append(arrow, style="dim")
    line.append(text(node["id"]), style="bold" if not relation else "")
    line.append(f" ({node['kind']})", style="dim")
    said = about(node)
    if said:
        line.append(f" {said}")
    return line


def _rich(tree: Tree, nodes: list[dict[str, Any]]) -> None:
    for node in nodes:
        # Ids can be stored input (entity ids): Text, so they print as written.
        _rich(tree.add(node_line(node, node["relation"])), node["children"])


def lineage(
    node_id: Annotated[str, typer.Argument(
        metavar="ID", help="An id as any command prints it: an assertion (as_..., or "
        "as_...#N for its revision N), episode, entity, record or agent:SOURCE.")],
    up: Annotated[bool, typer.Option("--up", help="Only sources: episodes and writers.")] = False,
    down: Annotated[bool, typer.Option("--down", help="Only derivatives.")] = False,
    depth: Annotated[int | None, typer.Option(help="Stop after N hops.")] = None,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """The lineage of ID in --scope: back to episodes and writers (--up), forward to every
    derivative (--down), or both (the default). The walk never leaves the scope."""
    direction: Direction = "up" if up and not down else "down" if down and not up else "both"
    with render.errors(), open_memory(store, create=False) as memory:
        # An id that is not a node of the scope is NotFound (exit 4), never "elsewhere".
        graph = reader(memory, wanted_scope(scope, all_scopes)).lineage(node_id, direction, depth)
        tree = lineage_tree(graph, node_id, direction)
        node_id = tree["id"]  # ``as_…#N`` as printed is the assertion ``as_…``
        edges = [
            {"derivative": s, "source": d, "relation": k, "since": v["since"].isoformat()}
            for s, d, k, v in graph.edges(keys=True, data=True)
        ]
    if json_out:
        render.emit_json({"root": node_id, "direction": direction, "tree": tree, "edges": edges})
        return
    root = Tree(node_line(tree))
    for part in ("sources", "derivatives"):
        if part in tree:
            _rich(root.add(f"[bold]{part}[/]"), tree[part])
    render.console.print(root)


def prov(
    node_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="Export this lineage.")
    ] = None,
    all_nodes: Annotated[bool, typer.Option("--all", help="Export the whole scope.")] = False,
    fmt: Annotated[ProvFormat, typer.Option("--format", help="Serialization.")] = ProvFormat.json,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
) -> None:
    """Export W3C PROV (PROV-JSON, PROV-N, Turtle or PROV-XML) for ID, or --all, of --scope
    (every tenant only with --all-scopes)."""
    if node_id is None and not all_nodes:
        raise typer.BadParameter("give an ID or --all")
    with render.errors(), open_memory(store, create=False) as memory:
        doc = reader(memory, wanted_scope(scope, all_scopes)).prov(
            None if all_nodes else [node_id or ""])
    typer.echo(serialize_prov(doc, fmt.value))


def consolidate(
    subject: Annotated[str, typer.Argument(help="Whose record (e.g. j17).")],
    predicate: Annotated[str, typer.Argument(help="Which record (e.g. cedar_profile).")],
    evidence: Annotated[list[str], typer.Option("--from", help="An evidence assertion id.")],
    scope: Annotated[str, typer.Option("--scope", help="The tenant of the record, required.")],
    project: Annotated[str | None, typer.Option(help="Project the record is scoped to.")] = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """Derive and publish a record from evidence assertions, conditionally (If-Match).

    Exit 5 when the evidence changed under the worker (after retries), 6 when a source was
    forgotten, 7 when the record would drop a scope or an exception (review required).
    """
    with render.errors(), open_memory(store, create=False) as memory:
        published = memory.consolidate(subject, predicate, evidence, scope=scope, project=project)
    if json_out:
        render.emit_json(published)
    else:
        render.say(f"{published.status}: {published.etag} = {published.value}")
