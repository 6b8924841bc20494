"""``kg-memory ingest``: a JSONL file of episodes into the store, each atomic on its own.

A file is not an authenticated channel, so the command asks the operator who it came from
before it trusts any line's envelope (see docs/security.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from kg_memory import (
    Channel,
    ChannelPolicy,
    ChannelRule,
    IngestError,
    IngestReport,
    InvalidArgument,
    count_records,
)
from kg_memory.cli import render
from kg_memory.cli.options import JsonOption, StoreOption, login_name, open_memory
from kg_memory.cli.policies import WritePolicyOption, load_write_policy

__all__ = ["ingest"]


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
