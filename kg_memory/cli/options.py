"""Options every store command shares."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_memory import ChannelPolicy, Memory, default_path

__all__ = ["JsonOption", "StoreOption", "WideOption", "open_memory"]

StoreOption = Annotated[
    str | None,
    typer.Option("--store", help="Store file, or a Neo4j bolt:// URI (default: "
                 "$KG_MEMORY_STORE or the user data dir)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
WideOption = Annotated[
    bool,
    typer.Option("--wide", help="Every column, full ids and whole values, even past the "
                 "terminal's width."),
]


def open_memory(
    store: str | Path | None, *, create: bool, channels: ChannelPolicy | None = None
) -> Memory:
    return Memory.open(store or default_path(), create=create, channels=channels)
