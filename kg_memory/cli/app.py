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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from kg_memory import (
    EXIT_MEANINGS,
    AsOfAnswer,
    Channel,
    ChannelPolicy,
    ChannelRule,
    IngestError,
    IngestReport,
    InvalidArgument,
    Memory,
    count_records,
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
    login_name,
    open_memory,
    reader,
    settings,
    wanted_scope,
)
from kg_memory.cli.policies import (
    WritePolicyOption,
    admissions,
    load_write_policy,
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


def _file_channels(
    trust_envelopes: bool, channel_policy: Path | None, source: str | None,
    channel: Channel | None,
) -> ChannelPolicy:
    """Who a file's lines may claim to be: a file is not an authenticated channel, so its
    envelopes are trusted only when the operator says how (see docs/security.md)."""
    if (source is None) != (channel is None):
        raise IngestError("--source and --channel go together")
    if source is not None and channel is not None:
        # The operator establishes the file's source: any line claiming otherwise is refused.
        return ChannelPolicy(name=f"file from {source} over {channel.value}",
                             rules=(ChannelRule(sources=(source,), channels=(channel,)),))
    if channel_policy is not None:
        return ChannelPolicy.load(channel_policy)
    if trust_envelopes:
        return ChannelPolicy.default()
    raise IngestError(
        "a file's envelopes are not authenticated: pass --source NAME --channel CHANNEL (the "
        "file came from that sender), --channel-policy FILE (a deployment's channel config), "
        "or --trust-envelopes (the file is an export of kg-memory's own ingest)"
    )


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSONL file, one episode per line.")],
    source: Annotated[str | None, typer.Option(
        help="The sender the file came from; lines claiming another source are refused.")] = None,
    channel: Annotated[Channel | None, typer.Option(
        help="The channel the file came over (with --source).")] = None,
    channel_policy: Annotated[Path | None, typer.Option(
        envvar="KG_MEMORY_CHANNEL_POLICY",
        help="A channel policy (JSON) to trust the file's envelopes under.")] = None,
    trust_envelopes: Annotated[bool, typer.Option(
        "--trust-envelopes",
        help="Trust each line's source and channel (under the default channel policy).")] = False,
    store: StoreOption = None,
    write_policy: WritePolicyOption = None,
    json_out: JsonOption = False,
    acks: Annotated[Path | None, typer.Option(
        "--acks", help="Append each episode's operation id to this file once it is durable "
        "(for a pipeline that must know what it can drop).")] = None,
    batch_size: Annotated[int, typer.Option(
        "--batch-size", min=1, max=100_000,
        help="Episodes per commit (one disk sync each); a crash loses at most one "
        "unacknowledged batch.")] = 500,
    import_history: Annotated[bool, typer.Option(
        "--import-history", help="A past stream: each episode is known from its occurred_at "
        "(in order, none before the store's latest system time), not from now.")] = False,
    by: Annotated[str, typer.Option(
        help="Who imports (with --import-history), recorded with the import; default: "
        "the login name.")] = "",
) -> None:
    """Ingest episodes from a JSONL file, each episode atomic on its own.

    A file is not an authenticated channel: say who it came from (--source/--channel), give a
    channel policy, or --trust-envelopes. Envelopes the channel policy refuses are audited
    (kg-memory refusals). Re-running the same file is safe: known operation ids are reported as
    duplicates, and lines a forget request erased as forgotten (not applied; the run goes on).
    On a bad line the command stops with an error naming the line and field; the
    lines before it stay accepted. Episodes commit in batches; the progress bar, the printed
    counts and --acks count an episode only after its batch committed, so a crash never loses
    one already counted.

    --import-history ingests a past stream (last year's conversations), each episode known
    from its occurred_at, so that --known-at in the past finds it: see
    docs/guide.md#importing-history.
    """
    with render.errors():
        channels = _file_channels(trust_envelopes, channel_policy, source, channel)
        if not file.exists():
            # The input is what is missing, not the store: bad input (exit 2), not exit 3.
            raise IngestError(f"no such file: {file}", field="FILE")
        if file.is_dir():
            raise IngestError(f"{file} is a directory, not a JSONL file")
        try:
            total = count_records(file)
        except OSError as exc:
            raise IngestError(f"cannot read {file}: {exc.strerror}") from None
        counts = {"accepted": 0, "duplicate": 0, "forgotten": 0, "envelopes_refused": 0,
                  "refused": 0}
        chosen = load_write_policy(write_policy)
        if chosen is not None:
            counts["pending"] = 0
        with (
            open_memory(store, create=True, channels=channels) as memory,
            Progress(
                TextColumn("ingesting"),
                BarColumn(),
                MofNCompleteColumn(),
                console=render.console,
                disable=json_out,
                transient=True,
            ) as progress,
        ):
            task = progress.add_task("ingest", total=total)
            memory.write_policy = chosen
            try:
                ack_log = None if acks is None else acks.open("a", encoding="utf-8",
                                                               buffering=1)
            except OSError as exc:
                raise InvalidArgument(f"cannot write --acks {acks}: {exc.strerror}",
                                      field="--acks") from None

            def tally(report: IngestReport) -> None:
                # Called by ingest_file only once the episode's batch committed.
                if report.status == "refused":
                    counts["envelopes_refused"] += 1
                else:
                    counts[report.status] += 1
                    counts["refused"] += sum(1 for e in report.effects if e.action == "refused")
                    if chosen is not None:
                        counts["pending"] += sum(
                            1 for e in report.effects if e.action == "pending")
                progress.advance(task)
                if ack_log is not None:
                    ack_log.write(f"{report.operation_id}\t{report.status}\n")

            try:
                if import_history:
                    memory.import_file(file, by=by or login_name(), on_report=tally,
                                       batch_size=batch_size)
                else:
                    memory.ingest_file(file, on_report=tally, batch_size=batch_size)
            finally:
                if ack_log is not None:
                    ack_log.close()
                summary = {"file": str(file), "store": str(memory.store.location), **counts}
                if json_out:
                    render.emit_json(summary)
                else:
                    render.say_fitted(render.ingest_summary(counts, memory.store.location,
                                                            pending=chosen is not None))


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
