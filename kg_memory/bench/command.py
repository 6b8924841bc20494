"""``kg-memory bench``: run the benchmark, show a table (or JSON), and keep the result file.

:func:`bench_command` is a plain function with typer annotations, so the CLI registers it with
``app.command("bench")(bench_command)`` and tests or notebooks can call it directly. Progress
and the table go to stderr/stdout through rich; with ``--json`` stdout carries only the JSON,
so ``kg-memory bench --json | jq`` works while the progress bar still shows on stderr.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from kg_memory.bench.latency import LatencyStats
from kg_memory.bench.locomo_command import recall_command
from kg_memory.bench.progress import BenchProgress
from kg_memory.bench.result import BenchResult, ScaleResult
from kg_memory.bench.runner import run_bench
from kg_memory.domain.errors import KgMemoryError

__all__ = ["bench_app", "bench_command", "parse_scales", "render_table", "result_table"]


def parse_scales(text: str) -> list[int]:
    """``"1e4,1e5"`` -> ``[10000, 100000]``; refuses anything that is not a positive count.

    >>> parse_scales("1e4, 1e5,2500")
    [10000, 100000, 2500]
    """
    scales: list[int] = []
    for part in text.split(","):
        try:
            value = float(part.strip())
        except ValueError:
            raise KgMemoryError(f"scale {part.strip()!r} is not a number (try 1e4,1e5)") from None
        if not value.is_integer() or value < 1:
            raise KgMemoryError(f"scale {part.strip()!r} must be a positive whole number")
        scales.append(int(value))
    return scales


def _us(stats: LatencyStats) -> str:
    # Three significant figures at every magnitude keep a figure's cell one width, so a slow
    # run (a loaded machine) cannot push a table past 80 columns.
    def fmt(us: float) -> str:
        if us >= 1_000_000:
            return f"{us / 1_000_000:.3g} s"
        return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"

    return f"{fmt(stats.median_us)} / {fmt(stats.p99_us)}"


def _mib(value: int | None) -> str:
    return "?" if value is None else f"{value / 2**20:,.0f} MiB"


#: A figure: its name, what kg-memory measured, and detail lines (a reference or a note, and
#: the ratio against it when there is one).
Figure = tuple[str, str, list[tuple[str, str]]]


def _figures(s: ScaleResult) -> list[Figure]:
    """The figures of one scale, each reference on a line of its own with its ratio."""
    ref, r = s.references, s.ratios
    figures: list[Figure] = [
        (
            "versions (counted / expected)",
            f"{s.versions:,} / {s.expected_versions:,}",
            [(f"{s.users:,} users, {s.episodes:,} episodes", "")],
        ),
        (
            "durable ingest, versions/s",
            f"{s.ingest.versions_per_second:,.0f}",
            [(f"executemany {ref.executemany_versions_per_second:,.0f}",
              f"{r.ingest_vs_executemany:.3f}x")],
        ),
        (
            "  batch commit median / p99",
            _us(s.ingest.batch_commit),
            [(f"batch {s.ingest.batch_size} episodes", "")],
        ),
        (
            "as-of lookup median / p99",
            _us(s.lookup),
            [(f"sqlite3 {_us(ref.sqlite_lookup)}", f"{r.lookup_vs_sqlite:.1f}x"),
             (f"in-memory {_us(ref.memory_lookup)}", f"{r.lookup_vs_memory:.0f}x")],
        ),
        (
            "scope snapshot median / p99",
            _us(s.snapshot),
            [(f"sqlite3 {_us(ref.sqlite_snapshot)}", f"{r.snapshot_vs_sqlite:.1f}x"),
             (f"{s.snapshot_mean_facts:.1f} facts", "")],
        ),
        ("open to first answer median / p99", _us(s.open_to_first_answer),
         [("warm page cache", "")]),
        (
            "peak RSS",
            f"{s.peak_rss.bytes / 2**20:,.0f} MiB",
            [(f"{_mib(s.start_rss_bytes)} at start", ""), (s.peak_rss.method, "")],
        ),
        (
            "file bytes / version",
            f"{s.file_bytes_per_version:,.0f}",
            [(f"sqlite3 {ref.sqlite_file_bytes_per_version:,.0f}", f"{r.file_vs_sqlite:.1f}x")],
        ),
    ]
    if s.lineage:
        figures.append(("lineage depth 5, median / p99", _us(s.lineage),
                        [("both directions, from found facts", "")]))
    if s.forget_cascade:
        figures.append(("forget 1,000 derivatives, median / p99", _us(s.forget_cascade),
                        [("plan, erase, tombstones, scrub", "")]))
    if s.recall:
        rc = s.recall
        figures.append(("recall median / p99", _us(rc.recall), [
            (f"plain FTS5 {_us(rc.fts5)}", f"{rc.median_vs_fts5:.1f}x"),
            ("p99 against FTS5 p99", f"{rc.p99_vs_fts5:.1f}x"),
            (f"{rc.hit_rate:.0%} found; {rc.mean_candidates:.1f} matches, "
             f"{rc.mean_excluded:.1f} excluded before ranking", "")]))
        if rc.hybrid:
            details = [("trigram vectors in the vector index, against lexical",
                        f"{rc.hybrid_vs_lexical or 0:.1f}x")]
            if rc.cosine:
                details.append((f"brute-force cosine {_us(rc.cosine)}",
                                f"{rc.hybrid_vs_cosine or 0:.1f}x"))
            if rc.index_recall_at_10 is not None:
                details.append((f"index recall@10 against exact, {rc.vectors or 0:,} vectors",
                                f"{rc.index_recall_at_10:.2f}"))
            figures.append(("hybrid recall median / p99", _us(rc.hybrid), details))
    if s.turns:
        t = s.turns
        figures.append(("plain episodes, batched", f"{t.batched_per_second:,.0f}/s", [
            (f"executemany + FTS5 {t.executemany_per_second:,.0f}/s",
             f"{t.batched_vs_executemany:.2f}x"),
            (f"{t.turns:,} turns, {t.batch_size} per commit", "")]))
        figures.append(("one plain episode, median / p99", _us(t.one_at_a_time), [
            (f"raw row + FTS5 + commit {_us(t.raw_one_at_a_time)}", f"{t.one_vs_raw:.1f}x")]))
        if t.one_with_model is not None:
            figures.append(("one plain episode with a model", _us(t.one_with_model), [
                (f"{t.model}: embedded after the write returned", "")]))
    if s.neo4j:
        figures.append(("neo4j sync", f"{s.neo4j.sync_records_per_second:,.0f} records/s",
                        [(f"{s.neo4j.sync_records:,} records in {s.neo4j.sync_seconds:.1f} s",
                          "")]))
        if s.neo4j.direct_episodes:
            ratio = s.neo4j.direct_episodes_per_second / max(s.ingest.episodes_per_second, 1e-9)
            figures.append(("neo4j direct writes",
                            f"{s.neo4j.direct_episodes_per_second:,.0f} episodes/s", [
                                (f"{s.neo4j.direct_versions_per_second:,.0f} versions/s; "
                                 f"{ratio:.2f}x the embedded ingest", ""),
                                ("answers agree", "yes" if s.neo4j.direct_answers_agree
                                 else "NO")]))
        figures.append(("neo4j as-of lookup median / p99", _us(s.neo4j.lookup),
                        [("Memory.asof on Neo4jStore, same probes", "")]))
        if s.neo4j.recall:
            figures.append(("neo4j recall median / p99", _us(s.neo4j.recall), [
                ("Memory.recall on Neo4jStore, lexical, same probes", ""),
                ("same top ids as embedded", f"{s.neo4j.recall_agrees or 0:.0%}")]))
        if s.neo4j.hybrid:
            figures.append(("neo4j hybrid recall median / p99", _us(s.neo4j.hybrid),
                            [("native vector index, exact fallback", "")]))
    figures.append(("answers agree with references", "yes" if ref.answers_agree else "NO",
                    [(f"lookup hit rate {s.lookup_hit_rate:.0%}", "")]))
    return figures


def _table(title: str, *headers: str) -> Table:
    # Two narrow columns and detail lines under each figure rather than a third column of
    # prose: every row stays one line in an 80-column terminal.
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True, padding=(0, 1))
    for header in headers:
        table.add_column(header, no_wrap=True, overflow="ellipsis")
    return table


def _add(table: Table, name: str, value: str | Text, details: list[tuple[str, str]]) -> None:
    table.add_row(Text(name), value if isinstance(value, Text) else Text(value))
    for detail, ratio in details:
        if detail or ratio:
            table.add_row(Text(f"    {detail}", style="dim"), Text(ratio))


def result_table(result: BenchResult) -> list[Table]:
    """The rich tables of a result: figures per scale, growth, targets, pending figures.

    Each table has two columns; a reference or a note is a line of its own, indented under its
    figure, with the ratio against it in the second column.
    """
    tables: list[Table] = []
    for s in result.scales:
        table = _table(f"kg-memory bench: {s.versions:,} versions ({result.backend})",
                       "figure (reference)", "kg-memory (ratio)")
        for name, value, details in _figures(s):
            _add(table, name, value, details)
        for pending in result.pending:
            _add(table, pending.name, pending.status, [(pending.note, "")])
        tables.append(table)
    if result.growth is not None:
        g = result.growth
        table = _table(f"growth {g.from_versions:,} -> {g.to_versions:,} versions",
                       "figure", "largest / smallest")
        for figure, growth in (
            ("lookup median", g.lookup_median),
            ("lookup p99", g.lookup_p99),
            ("sqlite3 lookup median (reference)", g.sqlite_lookup_median),
            ("snapshot median", g.snapshot_median),
            ("ingest rate", g.ingest_rate),
            ("open to first answer", g.open_to_first_answer),
            ("peak RSS", g.peak_rss),
            ("file bytes / version", g.file_bytes_per_version),
            ("recall median", g.recall_median),
            ("plain FTS5 median (reference)", g.fts5_median),
            ("hybrid recall median", g.hybrid_median),
        ):
            if growth is not None:
                table.add_row(figure, f"{growth:.2f}x")
        tables.append(table)
    targets = _table("targets", "target (wanted, measured, margin)", "")
    for t in result.targets:
        verdict = {True: Text("met", style="green"), False: Text("missed", style="red"),
                   None: Text("-")}[t.met]
        _add(targets, t.name, verdict,
             [(f"wanted {t.target}, measured {t.measured}", ""), (t.margin, ""), (t.note, "")])
    tables.append(targets)
    return tables


def render_table(result: BenchResult, console: Console) -> None:
    for table in result_table(result):
        console.print(table)


def _default_output() -> Path:
    return Path("artifacts") / "bench" / f"bench-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"


ScaleOption = Annotated[
    str, typer.Option("--scale", help="Comma-separated version counts, e.g. 1e4,1e5,1e6.")
]
BackendOption = Annotated[
    str,
    typer.Option(
        "--backend", help="embedded, or neo4j: also sync into $KG_NEO4J_URI (wiped), query it."
    ),
]
JsonOutOption = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON instead of tables.")
]
OutputOption = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Result file (default artifacts/bench/bench-*.json)."),
]


def bench_command(
    scale: ScaleOption = "1e4",
    backend: BackendOption = "embedded",
    json_out: JsonOutOption = False,
    output: OutputOption = None,
) -> None:
    """Measure ingest, as-of lookups, snapshots, open time, memory and file size against
    raw sqlite3 and an in-memory index run on the same rows, and check the targets."""
    scales = parse_scales(scale)
    err = Console(stderr=True)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=json_out,
    ) as bar:
        tasks: dict[tuple[int, str], TaskID] = {}

        def on_progress(event: BenchProgress) -> None:
            key = (event.scale, event.phase)
            if key not in tasks:
                tasks[key] = bar.add_task(f"{event.scale:.0e} {event.phase}", total=event.total)
            bar.update(tasks[key], completed=event.done, total=event.total)

        result = run_bench(scales, backend=backend, progress=on_progress)
    path = output or _default_output()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = result.model_dump_json(indent=2)
    path.write_text(text + "\n", encoding="utf-8")
    if json_out:
        typer.echo(text)
        return
    console = Console()
    render_table(result, console)
    console.print(f"result written to {path}")


#: ``kg-memory bench``: with no sub-command the speed benchmark above, as it always ran;
#: ``kg-memory bench recall`` is recall's quality and speed on a dataset.
bench_app = typer.Typer(name="bench", add_completion=False)


@bench_app.callback(invoke_without_command=True)
def _bench(
    ctx: typer.Context,
    scale: ScaleOption = "1e4",
    backend: BackendOption = "embedded",
    json_out: JsonOutOption = False,
    output: OutputOption = None,
) -> None:
    """Measure ingest, as-of lookups, snapshots, open time, memory and file size against
    raw sqlite3 and an in-memory index run on the same rows, and check the targets (with
    no command); `bench recall`: recall's quality and speed on a dataset."""
    if ctx.invoked_subcommand is None:
        bench_command(scale=scale, backend=backend, json_out=json_out, output=output)


bench_app.command("recall")(recall_command)
