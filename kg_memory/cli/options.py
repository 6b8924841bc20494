"""Options every store command shares, and the frame a command runs in."""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from kg_memory import ChannelPolicy, Memory, ScopedMemory, ScopeError, default_path
from kg_memory.cli import render

__all__ = [
    "AllScopesOption",
    "BusyTimeoutOption",
    "EmbedderOption",
    "JsonOption",
    "ScopeOption",
    "StoreOption",
    "WideOption",
    "login_name",
    "open_memory",
    "reader",
    "settings",
    "store_command",
    "wanted_scope",
]

StoreOption = Annotated[
    str | None,
    typer.Option("--store", help="Store file, or a Neo4j bolt:// URI (default: "
                 "$KG_MEMORY_STORE or the user data dir)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
BusyTimeoutOption = Annotated[
    float | None,
    typer.Option("--busy-timeout", envvar="KG_MEMORY_BUSY_TIMEOUT", min=0, max=86_400,
                 help="Seconds a write waits for another writer's lock before giving up "
                 "with exit 75 (default 10)."),
]


EmbedderOption = Annotated[
    str | None,
    typer.Option("--embedder", help="The model recall's vectors come from: default (the "
                 "shipped model, when kg-memory's extra 'embed' is installed), minilm, hashing, "
                 "none (words only), fastembed:MODEL, sentence-transformers:MODEL or "
                 "openai:MODEL (default: $KG_MEMORY_EMBEDDER, else default)."),
]


class _Settings:
    """Options given before the command (``kg-memory --busy-timeout 2 ingest ...``)."""

    busy_timeout: float | None = None


settings = _Settings()


ScopeOption = Annotated[
    str | None, typer.Option("--scope", help="The tenant (scope) to read or forget in.")]
AllScopesOption = Annotated[
    bool, typer.Option("--all-scopes", help="Operator: every tenant at once (explicit).")]
WideOption = Annotated[
    bool,
    typer.Option("--wide", help="Every column and whole values, even past the "
                 "terminal's width."),
]


def open_memory(
    store: str | Path | None, *, create: bool, channels: ChannelPolicy | None = None,
    embedder: str | None = None,
) -> Memory:
    return Memory.open(store or default_path(), create=create, channels=channels,
                       busy_timeout=settings.busy_timeout, embedder=embedder)


@contextmanager
def store_command(store: str | Path | None, *, create: bool = False
                  ) -> Iterator[Callable[[], Memory]]:
    """The frame of a command that uses the store. Every kg-memory error raised inside it,
    from checking the arguments to the store's answer, is one line on stderr and its
    documented exit code (:func:`kg_memory.cli.render.errors`: 2 bad input, 3 store
    unavailable, 4 not found, 75 busy). The store opens the first time the command asks for
    it (``opened()``, the same memory each time), so bad arguments are reported as bad input
    before any store is touched, and it is closed when the frame ends::

        with store_command(store) as opened:
            tenant = wanted_scope(scope, all_scopes)
            rows = opened().pending(tenant)
    """
    memory: Memory | None = None

    def opened() -> Memory:
        nonlocal memory
        if memory is None:
            memory = open_memory(store, create=create)
        return memory

    with render.errors():
        try:
            yield opened
        finally:
            if memory is not None:
                memory.close()


def wanted_scope(scope: str | None, all_scopes: bool) -> str | None:
    """The scope a reading or forgetting command acts in; ``None`` only for an operator who
    said --all-scopes. Neither, or both, is bad input (exit 2): no command reads every
    tenant by default."""
    if scope is not None and all_scopes:
        raise ScopeError("give --scope or --all-scopes, not both")
    if scope is None and not all_scopes:
        raise ScopeError("name the tenant with --scope SCOPE (or, as an operator, --all-scopes)")
    if scope is not None and not scope:
        raise ScopeError("a scoped memory needs a non-empty scope")
    return scope


def reader(memory: Memory, scope: str | None) -> Memory | ScopedMemory:
    """The handle a command reads through: scoped to the tenant, or the operator's."""
    return memory if scope is None else memory.scoped(scope)


def login_name() -> str:
    """Who runs the command, by the login name; ``operator`` where there is none (a container
    without a user entry)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "operator"
