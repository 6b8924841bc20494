"""``python -m kg_memory.bench.locomo PATH [--conversations tune] [--json]``: the LoCoMo recall
benchmark's first entry point, kept as an alias of ``kg-memory bench recall --dataset locomo
--data PATH --embedder none`` (lexical recall beside raw FTS5 BM25).

The work, the figures and the splits are :mod:`kg_memory.bench.locomo_run`'s; see
docs/recall.md ("LoCoMo") for what is measured and how to reproduce it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import typer

from kg_memory.bench.locomo_command import recall_command

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark as ``kg-memory bench recall`` would; return its exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m kg_memory.bench.locomo",
        description="Lexical recall on LoCoMo beside raw FTS5 BM25 over the same turns "
                    "(an alias of kg-memory bench recall --embedder none).")
    parser.add_argument("path", type=Path, help="locomo10.zip, its JSON, or a directory")
    parser.add_argument("--conversations", default="all",
                        help="all, tune, held-out, or sample ids (conv-26 or 26)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--store", type=Path, default=None,
                        help="the new store file to write (default: a temporary one)")
    args = parser.parse_args(argv)
    try:
        recall_command(data=args.path, embedder="none", conversations=args.conversations,
                       store=args.store, json_out=args.json)
    except typer.Exit as done:
        return int(done.exit_code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
