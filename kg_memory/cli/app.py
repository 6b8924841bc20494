"""The ``kg-memory`` command line: parse, call the library, print.

Every command that reads a store takes ``--store PATH`` (default ``$KG_MEMORY_STORE`` or
``~/.local/share/kg-memory/memory.db``) and ``--json`` for machine-readable output. Every
command that reads or forgets names its tenant with ``--scope`` (an operator says
``--all-scopes`` explicitly); nothing reads every tenant by default. Exit codes: see
:data:`kg_memory.domain.errors.EXIT_CODES` and docs/cli.md.
"""

from __future__ import annotations

import importlib.metadata
import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from kg_memory import (
    EXIT_MEANINGS,
    AsOfAnswer,
    Memory,
    default_path,
    ingest_schema,
    parse_instant,
)
from kg_memory.bench.command import bench_app
from kg_memory.cli import render
from kg_memory.cli.check import check
from kg_memory.cli.entities import entities_app
from kg_memory.cli.forget import blocks_app, forget
from kg_memory.cli.help import install as _install_help
from kg_memory.cli.ingest import ingest
from kg_memory.cli.lineage import consolidate, lineage, prov
from kg_memory.cli.mcp import mcp
from kg_memory.cli.neo4j import neo4j_app
from kg_memory.cli.options import (
    AllScopesOption,
    BusyTimeoutOption,
    JsonOption,
    ScopeOption,
    StoreOption,
    WideOption,
    open_memory,
    reader,
    settings,
    wanted_scope,
)
from kg_memory.cli.policies import (
    admissions,
    pending,
    sweep,
)
from kg_memory.cli.recall import recall
from kg_memory.cli.rules import rules_app
from kg_memory.cli.sim import sim_app
from kg_memory.sim.scenario import Scenario

__all__ = ["app", "main"]

_install_help()

app = typer.Typer(
    name="kg-memory",
    no_args_is_help=True,
    add_completion=False,
)


def _distribution() -> tuple[str, str]:
    """(name, version) of the installed distribution that provides ``kg_memory``: the name on
    the package index is not the import name, so it is looked up rather than written twice."""
    names = importlib.metadata.packages_distributions().get("kg_memory", [])
    name = names[0] if names else "kg-memory-bitemporal"
    try:
        return name, importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return name, "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        name, version = _distribution()
        typer.echo(f"kg-memory {version} ({name})")
        raise typer.Exit()


@app.callback(help=(
    "A bitemporal memory graph for AI agents: ingest episodes, ask what held when.\n\n"
    "Exit codes: " + ", ".join(f"{c} {m.split(':')[0].split(' (')[0]}"
                               for c, m in sorted(EXIT_MEANINGS.items()))
    + " (the table: docs/cli.md#exit-codes)."))
def _global_options(
    busy_timeout: BusyTimeoutOption = None,
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the installed version and exit.")] = False,
) -> None:
    """Options every command shares (the help above is the app's)."""
    settings.busy_timeout = busy_timeout


app.add_typer(sim_app, name="sim")
app.command()(pending)
app.command()(admissions)
app.command()(sweep)
app.add_typer(rules_app, name="rules")
app.add_typer(blocks_app, name="blocks")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(entities_app, name="entities")
app.add_typer(bench_app, name="bench")
app.command()(lineage)
app.command()(prov)
app.command()(consolidate)
app.command()(forget)
app.command()(mcp)
app.command()(recall)
app.command()(check)
app.command()(ingest)


@app.command()
def asof(
    valid_at: Annotated[
        str, typer.Option(help="When in the world (ISO 8601 with offset).")
    ] = "now",
    known_at: Annotated[str, typer.Option(help="As the store believed it then.")] = "now",
    subject: Annotated[str | None, typer.Option(help="Only this subject.")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """What held at --valid-at, as the store believed it at --known-at, in --scope.

    "What did we believe on day 2 about day 1" is --valid-at DAY1 --known-at DAY2. An empty
    answer means the store held nothing eligible; a missing store is an error (exit 3).
    """
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        valid = None if valid_at == "now" else parse_instant(valid_at, what="--valid-at")
        known = None if known_at == "now" else parse_instant(known_at, what="--known-at")
        with open_memory(store, create=False) as memory:
            answer = reader(memory, tenant).asof(valid, known, subject=subject,
                                                 predicate=predicate)
        if json_out:
            render.emit_json(answer)
        else:
            render.show(render.asof_sheet(answer), wide=wide)


@app.command()
def history(
    subject: Annotated[str, typer.Argument(help="The subject whose facts to list.")],
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Every revision about SUBJECT in --scope, with both intervals and what closed it."""
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        with open_memory(store, create=False) as memory:
            entries = reader(memory, tenant).history(subject, predicate)
        if json_out:
            render.emit_json(entries)
        else:
            render.show(render.history_sheet(subject, entries), wide=wide)


@app.command()
def refusals(
    scope: ScopeOption = None,
    all_scopes: AllScopesOption = False,
    store: StoreOption = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """The writer gate's audit in --scope: every candidate it refused, who sent it and why."""
    with render.errors():
        tenant = wanted_scope(scope, all_scopes)
        with open_memory(store, create=False) as memory:
            rows = reader(memory, tenant).refusals()
        if json_out:
            render.emit_json(rows)
            return
        render.show(render.refusals_sheet(rows), wide=wide)


@app.command()
def migrate(store: StoreOption = None, json_out: JsonOption = False) -> None:
    """Upgrade an embedded store's schema to this version of kg-memory (keeps every row).

    Opening a store never changes its schema, so readers never wait for a writer; this command
    is the one place an existing store's schema changes. It waits for a running writer.
    """
    with render.errors():
        target = store or default_path()
        before, after = Memory.migrate(target, busy_timeout=settings.busy_timeout)
    result = {"store": str(target), "from": before, "to": after,
              "status": "up-to-date" if before == after else "migrated"}
    if json_out:
        render.emit_json(result)
    else:
        render.console.print(f"{result['status']}: schema {before} → {after} ({target})")


@app.command()
def schema() -> None:
    """Print the JSON Schema of one ingest line (JSONL, one episode per line)."""
    typer.echo(json.dumps(ingest_schema(), indent=2))


@app.command()
def demo(
    store: Annotated[Path, typer.Option(help="Where to build the demo store.")] = Path(
        ".kg-memory/demo.db"
    ),
    wide: WideOption = False,
) -> None:
    """The main job on the embedded store: replay the dinner study, then ask it questions.

    Ingests fixtures/dinner on the study's own timeline (the store's clock follows the days),
    prints an as-of answer on both axes, a history and the eight-run table, then what the
    table's columns mean and what to try next on the store it wrote.
    """
    from kg_memory.sim.dinner import format_table, run_all
    from kg_memory.sim.scenario import ScenarioClock

    with render.errors():
        scenario = Scenario.load()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{store}{suffix}").unlink(missing_ok=True)
        clock = ScenarioClock(scenario.epoch)
        with Memory.open(store, clock=clock) as memory:
            for record in scenario.records:
                clock.now = record.occurred_at
                memory.ingest(record)
            clock.now = scenario.at(scenario.days)
            render.console.rule(f"ingested {len(scenario.records)} episodes into {store}")
            for answer in demo_answers(memory, scenario):
                if isinstance(answer, str):
                    render.console.print(answer)
                else:
                    render.show(render.asof_sheet(answer), wide=wide)
            render.show(render.history_sheet("ana", memory.history("ana")), wide=wide)
        with tempfile.TemporaryDirectory() as tmp:
            runs = run_all(scenario, Path(tmp))
        render.console.rule("the dinner study, eight runs (seed 000)")
        render.console.print(format_table([r.row() for r in runs]), highlight=False)
        render.console.print(demo_epilogue(store), highlight=False, soft_wrap=True)


def demo_answers(memory: Memory, scenario: Scenario) -> list[AsOfAnswer | str]:
    """The demo's questions, in order: day 40 on both axes, then what we believed about day 1
    on day 1 and on day 40, and about day 2 on day 40 (the cancellation)."""
    day1, day2, day40 = scenario.at(1), scenario.at(2), scenario.at(40)
    return [
        memory.asof(day40, day40, scope="u1"),
        "What did we believe on day 1 about day 1, and on day 40 about day 1?",
        memory.asof(day1, day1, subject="u1", predicate="next_dinner"),
        memory.asof(day1, day40, subject="u1", predicate="next_dinner"),
        memory.asof(day2, day40, subject="u1", predicate="next_dinner"),
    ]


def demo_epilogue(store: Path) -> str:
    """What the table's columns mean and what to try next on the demo's store: the commands are
    printed ready to paste, with the store the demo wrote. Every line fits 80 columns but the
    one naming the store, whose path is never broken."""
    return "\n".join([
        "Each run answers 89 reads between day 3 and day 87. stale: served a value that",
        "no longer held; missing: served nothing where a value held; injected: served",
        "the restaurant's words as the user's own. Only the writer gate with dependency",
        "retirement gets all three to 0.",
        "",
        "Try next on the demo's store (day 1 on day 1, the audit, a search, a forget):",
        f"  export KG_MEMORY_STORE={store}",
        "  kg-memory asof --scope u1 \\",
        "      --valid-at 2026-01-06T20:00Z --known-at 2026-01-06T20:00Z",
        "  kg-memory history ana --scope u1",
        "  kg-memory refusals --scope u1",
        "  kg-memory recall deposit --scope u1",
        "  kg-memory asof --scope u1 --wide     (then: kg-memory lineage ID --scope u1)",
        "  kg-memory forget source:restaurant --scope u1 --dry-run",
        "Every command's help: kg-memory COMMAND --help, or docs/cli.md.",
    ])


def main() -> None:
    app()
