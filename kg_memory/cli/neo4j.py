"""``kg-memory neo4j up|down|status``: the local Neo4j 5.26 server, from a checkout or a wheel.

Thin wrapper over ``docker/neo4j-local/neo4j-local.sh`` (shipped in the wheel as package data),
which builds Neo4j Community with APOC and Neo4j Browser from Maven artifacts in the user's cache
(``$KG_NEO4J_CACHE``, default ``~/.cache/kg-memory/neo4j-local``; never beside the script, which
may be a read-only site-packages) and runs it in-process (no Docker engine needed). With Docker,
use ``docker/compose.yml`` instead (see docker/README.md). ``style`` and ``cypher``
(kg_memory.cli.browser) hand over the Browser style and the query library.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from kg_memory import INCOMPLETE_EXIT, StoreUnavailable, resources
from kg_memory.cli import render
from kg_memory.cli.browser import cypher, style
from kg_memory.cli.options import JsonOption, StoreOption

__all__ = ["neo4j_app"]

neo4j_app = typer.Typer(
    help="Run the local Neo4j; print its Browser style and queries.",
    no_args_is_help=True)
DataOption = Annotated[Path | None, typer.Option(
    "--data", help="Data folder (default $KG_NEO4J_HOME or ~/.local/share/kg-memory/neo4j).")]


def _script() -> Path:
    try:
        script = resources.path("neo4j_local") / "neo4j-local.sh"
    except FileNotFoundError as exc:
        raise StoreUnavailable(f"{exc}; with Docker use docker/compose.yml") from None
    return script


def _run(command: str, data: Path | None) -> None:
    with render.errors():
        args = ["bash", str(_script()), command]
        if data is not None:
            args += ["--data", str(data)]
        code = subprocess.run(args, check=False).returncode
    if code != 0:
        raise typer.Exit(code)


@neo4j_app.command()
def up(data: DataOption = None) -> None:
    """Build if needed, start, wait until Bolt answers, print the Browser URL. The build (Maven,
    about 140 MB) goes to $KG_NEO4J_CACHE, default $XDG_CACHE_HOME/kg-memory/neo4j-local or
    ~/.cache/kg-memory/neo4j-local, never into the installed package."""
    _run("start", data)


@neo4j_app.command()
def down(data: DataOption = None) -> None:
    """Stop the local Neo4j cleanly."""
    _run("stop", data)


@neo4j_app.command()
def status(data: DataOption = None) -> None:
    """Exit 0 when the local Neo4j runs, 3 when it does not."""
    _run("status", data)


neo4j_app.command()(style)
neo4j_app.command()(cypher)


@neo4j_app.command()
def migrate(
    uri: Annotated[str, typer.Option(help="The Neo4j database to convert.")] = (
        "bolt://127.0.0.1:7687"),
    batch_size: Annotated[int, typer.Option(
        min=1, help="Nodes (or edges) converted per transaction.")] = 5000,
    json_out: JsonOption = False,
) -> None:
    """Convert a database written by the previous kg-memory (schema 2: instants as integers)
    to this version's layout in place, in batches; resumable, a no-op once done."""
    from kg_memory import Neo4jStore

    with render.errors(), Neo4jStore.connect(uri, migrating=True) as target:
        report = target.migrate(batch_size=batch_size)
    if json_out:
        render.emit_json(report)
    else:
        render.console.print(
            f"schema {report.from_version} → {report.to_version}: converted {report.nodes} "
            f"node(s) and {report.edges} edge(s) in {report.batches} batch(es) → "
            f"{report.location}")


@neo4j_app.command()
def sync(
    uri: Annotated[str, typer.Option(help="The Neo4j to project into.")] = (
        "bolt://127.0.0.1:7687"),
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """Project the embedded store into Neo4j through its outbox: idempotent, resumable,
    reports the lag. Once synced, forget runs propagate to the mirror before they report."""
    from kg_memory import Neo4jStore, SqliteStore, default_path
    from kg_memory import sync_mirror as run_sync

    with render.errors():
        source = SqliteStore.open(store or default_path(), create=False)
        target = Neo4jStore.connect(uri)
        try:
            with Progress(TextColumn("syncing"), BarColumn(), MofNCompleteColumn(),
                          console=render.console, disable=json_out, transient=True) as bar:
                task = bar.add_task("sync", total=None)
                report = run_sync(source, target, progress=lambda done, total: bar.update(
                    task, completed=done, total=total))
        finally:
            target.close()
            source.close()
    if json_out:
        render.emit_json(report)
    else:
        render.console.print(
            f"{report.status}: applied {report.applied} change(s), {report.records} record(s) "
            f"in {report.seconds:.2f}s; cursor {report.cursor}, lag {report.lag}"
            f" → {report.location}")
    if report.status == "incomplete":
        render.fail(f"sync is incomplete: {report.lag} change(s) arrived meanwhile; run it again",
                    INCOMPLETE_EXIT)
