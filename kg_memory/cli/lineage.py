"""``kg-memory lineage``, ``kg-memory prov`` and ``kg-memory consolidate``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.markup import escape
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

__all__ = ["consolidate", "lineage", "prov"]


class ProvFormat(StrEnum):
    json = "json"
    provn = "provn"
    ttl = "ttl"
    xml = "xml"


def _rich(tree: Tree, nodes: list[dict[str, Any]]) -> None:
    for node in nodes:
        # Ids can be stored input (entity ids): escaped, so they print as written.
        branch = tree.add(
            f"[dim]{node['relation']}[/] {escape(node['id'])} [dim]({node['kind']})[/]"
        )
        _rich(branch, node["children"])


def lineage(
    node_id: Annotated[str, typer.Argument(metavar="ID", help="An assertion, episode or record.")],
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
        edges = [
            {"derivative": s, "source": d, "relation": k, "since": v["since"].isoformat()}
            for s, d, k, v in graph.edges(keys=True, data=True)
        ]
    if json_out:
        render.emit_json({"root": node_id, "direction": direction, "tree": tree, "edges": edges})
        return
    root = Tree(f"[bold]{escape(node_id)}[/] ({tree['kind']})")
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
