"""``kg-memory bench recall``: recall's quality and speed on LoCoMo, beside raw FTS5 BM25 and
brute-force cosine over the same turns in the same run, per split; tables or JSON.

:func:`recall_command` is a plain function with typer annotations (the CLI registers it under
the ``bench`` group); the work is :func:`~kg_memory.bench.locomo_run.run_recall_bench`. The
progress bar goes to stderr, so ``--json`` leaves stdout to the JSON alone.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TimeElapsedColumn
from rich.table import Table

from kg_memory.bench.locomo_data import Conversation, choose, load
from kg_memory.bench.locomo_result import RecallBenchResult
from kg_memory.bench.locomo_run import MODES, run_recall_bench
from kg_memory.bench.locomo_scores import KS
from kg_memory.domain.embedding import Embedder
from kg_memory.domain.errors import EXIT_CODES, InvalidArgument, KgMemoryError
from kg_memory.embedders.choice import resolve_embedder
from kg_memory.store import is_neo4j_uri

__all__ = ["DATASETS", "exit_on_error", "recall_command", "recall_tables"]

#: The datasets the command reads.
DATASETS = ("locomo",)


@contextmanager
def exit_on_error() -> Iterator[None]:
    """A kg-memory error as one line on stderr and its exit code (docs/cli.md#exit-codes)."""
    try:
        yield
    except KgMemoryError as exc:
        code = next(c for cls, c in EXIT_CODES if isinstance(exc, cls))
        Console(stderr=True).print(f"[bold red]error[/]: {type(exc).__name__}: "
                                   f"{escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code) from None


def _pct(rate: float) -> str:
    # One decimal below 100 % keeps a triple of rates within 14 characters.
    return "100" if rate >= 0.9995 else f"{rate * 100:.1f}"


def _triple(rates: dict[str, float], kind: str) -> str:
    return "/".join(_pct(rates[f"{kind}@{k}"]) for k in KS)


def _table(title: str, *headers: str) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True, padding=(0, 1), title_justify="left")
    for n, header in enumerate(headers):
        table.add_column(header, no_wrap=True, justify="left" if n == 0 else "right")
    return table


def _rates(rates: dict[str, float]) -> list[str]:
    return [_pct(rates[f"{kind}@{k}"]) for kind in ("any", "all") for k in KS]


def recall_tables(result: RecallBenchResult) -> list[Table]:
    """Quality by turn and by session per split and system; latency and its ratios; the
    as-of questions. Every row is one line in 80 columns; rates are percentages."""
    rates = [f"{kind}@{k}" for kind in ("any", "all") for k in KS]
    by_turn = _table(f"recall by turn (%), top {result.limit}", "split / system", *rates,
                     "MRR")
    by_session = _table("recall by session (%): a turn stands for its session",
                        "split / system", *rates)
    latency = _table("latency per question (ms)", "split / system", "median", "p95",
                     "ratio", "against")
    ks = "/".join(str(k) for k in KS)
    as_of = _table(f"as of before the last evidence session (any@{ks} by turn, %)",
                   "split / mode", "asked", "known", "leaks", "as of", "at end")
    against = {"lexical": ("lexical_vs_fts5", "raw FTS5"),
               "hybrid": ("hybrid_vs_fts5_cosine", "FTS5+cosine"),
               "vector": ("vector_vs_cosine", "cosine")}
    for split in result.splits:
        label = f"{split.name}, {split.questions} q"
        for table in (by_turn, by_session, latency):
            table.add_row(label, style="bold")
        for name, system in split.systems.items():
            q = system.quality
            by_turn.add_row(f"  {name}", *_rates(q.turn), f"{q.mrr:.3f}")
            by_session.add_row(f"  {name}", *_rates(q.session))
            ratio, versus = against.get(name, ("", ""))
            latency.add_row(f"  {name}", f"{system.latency.median_ms:.2f}",
                            f"{system.latency.p95_ms:.2f}",
                            f"{split.ratios[ratio]:.1f}x" if ratio in split.ratios else "",
                            versus)
        if split.as_of:
            as_of.add_row(label, style="bold")
        for mode, figures in split.as_of.items():
            as_of.add_row(f"  {mode}", str(figures.questions), str(figures.answerable),
                          str(figures.leaks), _triple(figures.as_of.turn, "any"),
                          _triple(figures.at_end.turn, "any"),
                          style=None if figures.leaks == 0 else "red")
    return [by_turn, by_session, latency, as_of]


def _summary(result: RecallBenchResult) -> list[str]:
    ingest = result.ingest
    vectors = (f", {ingest.embedding_seconds:.1f} s of it embedding with {ingest.embedder}"
               if ingest.embedder else ", no embedder")
    lines = [f"{result.dataset}: {ingest.turns:,} turns imported in {ingest.seconds:.1f} s "
             f"({ingest.turns_per_second:,.0f} turns/s{vectors})"]
    for split in result.splits:
        if split.name != "all":
            lines.append(f"  {split.name}: {', '.join(split.conversations)}")
    return lines


def recall_command(
    data: Annotated[Path, typer.Option(
        "--data", help="The dataset's file or folder (LoCoMo: locomo10.zip, its JSON, or "
        "a folder of it); read, never copied.")],
    dataset: Annotated[str, typer.Option(
        "--dataset", help="The benchmark's dataset: locomo.")] = "locomo",
    embedder: Annotated[str, typer.Option(
        "--embedder", help="Vectors for vector, hybrid and brute-force cosine: default (the "
        "shipped model), minilm, hashing, none (lexical only), fastembed:MODEL, "
        "sentence-transformers:MODEL, openai:MODEL.")] = "default",
    modes: Annotated[str | None, typer.Option(
        "--modes", help="Recall's modes, comma-separated: lexical, vector, hybrid "
        "(default: all three with an embedder, lexical without).")] = None,
    conversations: Annotated[str, typer.Option(
        "--conversations", help="all, tune, held-out, or sample ids (conv-26 or 26), "
        "comma-separated.")] = "all",
    store: Annotated[Path | None, typer.Option(
        "--store", help="The new store file to write (default: a temporary one).")] = None,
    neo4j: Annotated[str | None, typer.Option(
        "--neo4j", help="Recall on this Neo4j (bolt://HOST:PORT, a database without the "
        "benchmark's scopes; $NEO4J_PASSWORD as for --store) instead of the embedded "
        "store; the raw FTS5 reference still reads an embedded copy.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Also write the result as JSON to this file.")] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print the result as JSON instead of tables.")] = False,
) -> None:
    """Recall on a benchmark dataset beside raw FTS5 BM25 and brute-force cosine over the
    same turns: recall any/all@1,5,10 by turn and session, MRR, median and p95 latency,
    ingest rate, and as-of questions (0 leaks), the tune and held-out splits apart.

    Every turn is imported as history (known from when it was said) into a new store; each
    question (LoCoMo categories 1-4 with evidence) is asked in each mode and of each
    reference, top 10, then again as of just before the session of its last evidence turn
    began. Prints the ingest rate and four tables, a section per split (tune: 26, 30, 41,
    42, 43; held-out: 44, 47, 48, 49, 50, the figure that counts; all): recall by turn, by
    session, latency (median, p95, and the ratio to raw FTS5 for lexical, to raw FTS5 plus
    brute-force cosine for hybrid), and the as-of questions (asked, answerable then, leaks,
    any@1/5/10 as of then and at the end). --json prints the same figures: splits[].systems
    (lexical, vector, hybrid, fts5, cosine) with quality (turn and session any@k and all@k,
    mrr) and latency (median_ms, p95_ms), splits[].ratios, splits[].as_of per mode, and
    ingest. How to reproduce the published figures: docs/recall.md, "LoCoMo"."""
    with exit_on_error():
        if dataset.strip().lower() not in DATASETS:
            raise InvalidArgument(f"datasets are {', '.join(DATASETS)}, not {dataset!r}",
                                  field="dataset")
        if store is not None and store.exists():
            raise InvalidArgument(f"{store} exists: the benchmark writes a new store",
                                  field="store")
        chosen_embedder = resolve_embedder(embedder)
        wanted: list[str] = (modes.split(",") if modes else
                  list(MODES) if chosen_embedder else ["lexical"])
        chosen = choose(load(data), conversations)
        if neo4j is not None and not is_neo4j_uri(neo4j):
            raise InvalidArgument(f"--neo4j takes a bolt:// or neo4j:// URI, not {neo4j!r}",
                                  field="neo4j")
        result = _run(chosen, store, chosen_embedder, wanted, json_out, neo4j)
    text = result.model_dump_json(indent=2)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text + "\n", encoding="utf-8")
    if json_out:
        typer.echo(text)
        return
    console = Console()
    for line in _summary(result):
        console.print(line, highlight=False, soft_wrap=True)
    for table in recall_tables(result):
        console.print()
        console.print(table)


def _run(chosen: list[Conversation], store: Path | None, embedder: Embedder | None,
         modes: list[str], quiet: bool, neo4j: str | None = None) -> RecallBenchResult:
    """The run with a progress bar on stderr (gone when it ends under ``--json``)."""
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True),
                  transient=quiet) as bar, \
            tempfile.TemporaryDirectory(prefix="kg-bench-recall-") as tmp:
        tasks: dict[str, TaskID] = {}

        def on_progress(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bar.add_task(what, total=total)
            bar.update(tasks[what], completed=done, total=total)

        return run_recall_bench(chosen, store or Path(tmp) / "locomo.db", embedder=embedder,
                                modes=modes, progress=on_progress, neo4j=neo4j)
