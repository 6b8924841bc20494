"""The CLI against the backend under test: a store location it can open, and a call of it.

Shared by the tests that check a library behaviour again as a user types it (forget, ingest
re-runs), so each runs the same command on the embedded file and on the suite's Neo4j."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from kg_memory.cli import app
from tests.conftest import ManualClock, MemoryFactory

__all__ = ["cli", "store_location"]

_runner = CliRunner()


def store_location(make_memory: MemoryFactory, backend: str, tmp_path: Path) -> str:
    """What ``--store`` takes for ``backend``: a fresh file, or the suite's Neo4j, wiped."""
    if backend == "neo4j":
        make_memory(ManualClock())  # wipes the shared database
        return os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    return str(tmp_path / "cli.db")


def cli(*args: str) -> tuple[int, str]:
    """Exit code and output of ``kg-memory ARGS``; an exception other than an exit fails."""
    result = _runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output
