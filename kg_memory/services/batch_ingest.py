"""Batch ingestion: many episodes, committed in batches, acknowledged only once durable.

The use case behind ``Memory.ingest_many``, ``ingest_file`` and ``kg-memory ingest``. A batch is
one :meth:`~kg_memory.store.protocol.Store.batch` (on SQLite one transaction and one disk sync;
each episode succeeds or fails alone). Reports are held back until the
batch has committed and only then handed to ``on_report`` and the result, so an
acknowledgement always means durable: a crash loses the batch in flight whole, and no one was
told about any of it.

A store that plans its batches (the embedded one, Neo4j) is told what the batch holds
(:meth:`~kg_memory.store.protocol.Store.prepare`) and reads it in a few set-based statements;
an episode its planner does not plan (:class:`~kg_memory.domain.errors.Unplanned`) is run
again at once and the store runs it on its own. One episode (``Memory.ingest``) is a batch of
one: :func:`ingest_one`, the same code.

The batches run in the store's :meth:`~kg_memory.store.protocol.Store.pipeline`: a store that
can (Neo4j) plans the next batch while the previous one commits, so leaving a batch is not the
durability point there; the pipeline counts the batches whose commit returned, and only those
are acknowledged, in order. A batch it refuses (:class:`~kg_memory.store.pipeline.Replan`:
another writer committed while it was planned, or an episode needs the lock the batch was
planned without) wrote nothing and is run again; ``Replan`` is a ``BaseException``, so no
episode's error handling takes it for that episode's failure.

A store another writer holds (:class:`~kg_memory.domain.errors.StoreBusy`) is retried on the
schedule of a :class:`~kg_memory.domain.backoff.Backoff`; nothing of a refused batch was
written, so retrying is always safe.

Each record travels with the line it was read from (``None`` for records built in code): the
batch reads its records ahead of running them, so the reader's position is the batch's last
line, never the failing one. An episode's error is placed on its own line, and an episode a
forget request erased (:class:`~kg_memory.domain.errors.ForgottenError`: its operation, or
evidence of content forgotten since) is reported ``forgotten``, not applied, and the batch goes
on: re-running a file after a forget is how the rest of it gets in.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from functools import partial
from typing import TypeVar

from kg_memory.domain.backoff import Backoff
from kg_memory.domain.change import Effect
from kg_memory.domain.channel import ChannelPolicy, Sender
from kg_memory.domain.errors import (
    ForgottenError,
    KgMemoryError,
    StoreBusy,
    StoreUnavailable,
    Unplanned,
)
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.ids import episode_id_for
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.ingestion import IngestReport, ingest_record
from kg_memory.store.cancellation import raise_if_cancelled
from kg_memory.store.pipeline import Pipeline, Replan
from kg_memory.store.protocol import Store

__all__ = ["Numbered", "ingest_batches", "ingest_one", "noting_scopes", "retrying"]

_T = TypeVar("_T")

#: A record and the 1-based line it was read from (``None``: built in code, no line).
Numbered = tuple[int | None, IngestRecord]


def noting_scopes(records: Iterable[Numbered], scopes: dict[str, None]) -> Iterator[Numbered]:
    """``records`` as they stream, each one's scope noted in ``scopes`` (first seen first):
    what a lazy input wrote is known once the batches are done, without reading it twice."""
    for numbered in records:
        scopes[numbered[1].scope] = None
        yield numbered


def retrying(attempt: Callable[[], _T], retry: Backoff, rng: random.Random) -> _T:
    """``attempt()``, tried again after each of ``retry``'s waits while the store is busy.

    The waits are drawn only once the store was found busy: this runs once per episode, and
    an idle store should cost nothing here."""
    waits: list[float] | None = None
    tried = 0
    while True:
        try:
            return attempt()
        except StoreBusy:
            if waits is None:
                waits = list(retry.delays(rng))
            if tried == len(waits):
                raise
            time.sleep(waits[tried])
            tried += 1


def _unit(store: Store, record: IngestRecord, policy: WriterPolicy, secret: bytes,
          channels: ChannelPolicy | None, write_policy: WritePolicy | None,
          sender: Sender | None = None) -> IngestReport:
    """One episode's unit of work, run a second time, at once, when the store's planner gave
    it back (nothing of it was written; the store then runs it on its own)."""
    for attempt in (1, 2):
        try:
            with store.transaction(record.scope) as tx:
                report = ingest_record(tx, record, policy, secret, channels, write_policy,
                                       sender)
                # Inside the unit: a write cancelled by now is rolled back whole, not committed.
                raise_if_cancelled()
                return report
        except Unplanned:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def ingest_one(
    store: Store,
    record: IngestRecord,
    *,
    policy: WriterPolicy,
    secret: bytes,
    channels: ChannelPolicy | None = None,
    write_policy: WritePolicy | None = None,
    sender: Sender | None = None,
) -> IngestReport:
    """One episode as a batch of one: durable when this returns. Not retried: a store another
    writer holds raises :class:`~kg_memory.domain.errors.StoreBusy`, nothing written.
    ``sender``: who the ingest channel established sent it (an inlet's own envelope)."""
    with store.batch():
        store.prepare([record], secret)
        return _unit(store, record, policy, secret, channels, write_policy, sender)


def _forgotten(record: IngestRecord, refusal: ForgottenError) -> IngestReport:
    """The report of an episode a forget request erased: nothing of it written, said so."""
    return IngestReport(
        operation_id=record.operation_id,
        episode_id=episode_id_for(record.scope, record.operation_id), status="forgotten",
        effects=(Effect(action="forgotten", key=record.operation_id, detail=str(refusal)),))


def ingest_batches(
    store: Store,
    records: Iterable[Numbered],
    *,
    policy: WriterPolicy,
    secret: bytes,
    batch_size: int,
    on_report: Callable[[IngestReport], None] | None,
    retry: Backoff,
    rng: random.Random,
    channels: ChannelPolicy | None = None,
    write_policy: WritePolicy | None = None,
    unit: Callable[[IngestRecord], IngestReport] | None = None,
) -> list[IngestReport]:
    """Ingest ``records`` in batches of ``batch_size``; see the module docstring. ``unit``
    writes one record instead of the live unit (an import: kg_memory.services.history_import)."""

    def one(line: int | None, record: IngestRecord) -> IngestReport:
        try:
            if unit is not None:
                return retrying(partial(unit, record), retry, rng)
            return retrying(partial(_unit, store, record, policy, secret, channels,
                                    write_policy), retry, rng)
        except ForgottenError as exc:
            return _forgotten(record, exc)
        except StoreUnavailable:
            raise  # the store's state, not this line's
        except KgMemoryError as exc:
            if line is None or exc.line is not None:
                raise
            raise exc.at_line(line) from None

    def planned(pipe: Pipeline, chunk: list[Numbered]) -> tuple[list[IngestReport],
                                                              Exception | None]:
        """One batch of ``chunk``: its reports and the error that ended it, if any."""
        pending: list[IngestReport] = []
        failure: Exception | None = None
        with ExitStack() as stack:
            retrying(lambda: stack.enter_context(pipe.batch()), retry, rng)
            try:
                store.prepare([record for _, record in chunk], secret)
                for line, record in chunk:
                    pending.append(one(line, record))
            except Exception as exc:  # re-raised by the caller, once the batch has committed
                failure = exc
        return pending, failure

    reports: list[IngestReport] = []
    # Each batch's reports until its commit returned (a pipelined store may still be
    # committing one batch while the next is planned), oldest first.
    unacknowledged: list[list[IngestReport]] = []
    acknowledged = 0  # batches acknowledged so far

    def acknowledge(durable: int) -> None:
        nonlocal acknowledged
        while acknowledged < durable:
            for report in unacknowledged.pop(0):
                reports.append(report)
                if on_report is not None:
                    on_report(report)
            acknowledged += 1

    iterator = iter(records)
    with store.pipeline() as pipe:
        try:
            while True:
                read_failure: Exception | None = None
                # Read the batch's records first, so the store can prefetch what they touch;
                # a bad line ends the batch there: the lines before it are still written, and
                # the batch commits them before the error is raised.
                chunk: list[Numbered] = []
                try:
                    for numbered in itertools.islice(iterator, batch_size):
                        chunk.append(numbered)
                except Exception as exc:  # re-raised below, once the batch has committed
                    read_failure = exc
                try:
                    pending, failure = planned(pipe, chunk)
                except Replan:
                    # Nothing of it was written: the store plans it again under its lock.
                    pending, failure = planned(pipe, chunk)
                unacknowledged.append(pending)
                acknowledge(pipe.durable())
                failure = failure or read_failure
                if failure is not None:
                    raise failure
                if len(chunk) < batch_size:
                    break
        finally:
            # Leaving committed every batch (or raised the failure of the first that did
            # not): acknowledge what is durable, and only that.
            try:
                pipe.drain()
            finally:
                acknowledge(pipe.durable())
    return reports
