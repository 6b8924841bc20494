"""``kg-memory mcp``: serve one user's memory to an agent over the Model Context Protocol."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from kg_memory import default_path
from kg_memory.cli import render
from kg_memory.cli.options import EmbedderOption, StoreOption

__all__ = ["mcp"]


class Source(StrEnum):
    user = "user"
    agent = "agent"


def mcp(
    scope: Annotated[str, typer.Option(help="The user or tenant this server serves; every "
                                       "tool reads and writes this scope only.")],
    source: Annotated[Source, typer.Option(help="Who the conversation's writes are from: the "
                                           "user, or the agent recording what the user said."
                                           )] = Source.user,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 "
                                       "instead of stdio.")] = False,
    port: Annotated[int, typer.Option(help="Port for --http.", min=1, max=65535)] = 8765,
    embedder: EmbedderOption = None,
    store: StoreOption = None,
) -> None:
    """Run an MCP server over the store: tools remember, read_document, recall, asof, history,
    lineage, forget, refusals and entities, and entity and lineage resources.

    Stdio by default (an MCP client starts this command); --http serves
    http://127.0.0.1:PORT/mcp. Needs kg-memory's optional extra 'mcp' (docs/agents.md).
    """
    with render.errors():
        from kg_memory.integrations.mcp import serve

        serve(str(store or default_path()), scope=scope, source=source.value, http=http,
              port=port, embedder=embedder)
