"""The service layer: :class:`Memory` is what applications and the CLI talk to.

>>> from datetime import UTC, datetime
>>> from kg_memory import Memory, IngestRecord
>>> memory = Memory.open(":memory:")
>>> report = memory.ingest(IngestRecord.model_validate({
...     "operation_id": "op-1", "source": "user", "channel": "chat",
...     "occurred_at": "2026-01-05T09:00:00Z", "content": "Ana is vegetarian",
...     "assertions": [{"subject": "ana", "predicate": "diet", "value": "vegetarian",
...                     "kind": "stated"}]}))
>>> memory.asof(subject="ana").values()
['vegetarian']

A :class:`Memory` is the operator's handle: a read without ``scope`` spans every tenant, and
a forget across tenants needs ``all_scopes=True``. An application serving one tenant holds
``memory.scoped("u1")`` instead (:class:`~kg_memory.services.scoped.ScopedMemory`), through
which nothing of another scope can be read or changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path

from kg_memory.domain.authority import arbitrate
from kg_memory.domain.backoff import Backoff
from kg_memory.domain.channel import ChannelPolicy
from kg_memory.domain.errors import (
    IngestError,
    NotFound,
    ScopeError,
)
from kg_memory.domain.forgetting import Selector
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.instant import Clock, ensure_utc
from kg_memory.domain.integrity import IntegrityReport
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Assertion, Block, Channel, Refusal, every_field, trusted
from kg_memory.domain.precondition import slot_tag
from kg_memory.domain.record import IngestRecord, read_numbered
from kg_memory.domain.result import AsOfAnswer, HistoryEntry
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.embedders import EmbedderChoice
from kg_memory.services.batch_ingest import Numbered, ingest_batches, ingest_one, noting_scopes
from kg_memory.services.check import check as check_store
from kg_memory.services.derivations import Derivations
from kg_memory.services.entities import EntityMethods
from kg_memory.services.forget_run import ForgetReport, forget
from kg_memory.services.history_import import HistoryImports
from kg_memory.services.identity import (
    SAME_AS,
    identity_link,
)
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.inlet import Inlet
from kg_memory.services.lifecycle import Lifecycle, opened_embedder
from kg_memory.services.policy_views import PolicyViews
from kg_memory.services.recall import Recalling
from kg_memory.services.scoped import ScopedMemory
from kg_memory.services.vector_worker import VectorWorker
from kg_memory.store import open_store
from kg_memory.store.clock import system_clock
from kg_memory.store.protocol import AsOfQuery, Store

__all__ = ["Memory"]

# Every field of the lookup's query and answer, one set each shared by every lookup's models.
_QUERY_FIELDS, _ANSWER_FIELDS = every_field(AsOfQuery), every_field(AsOfAnswer)


class Memory(Lifecycle, Recalling, PolicyViews, EntityMethods, HistoryImports, Derivations):
    """A bitemporal memory over any :class:`~kg_memory.store.protocol.Store`."""

    def __init__(
        self,
        store: Store,
        *,
        policy: WriterPolicy | None = None,
        channels: ChannelPolicy | None = None,
        clock: Clock = system_clock,
        write_policy: WritePolicy | None = None,
        retry: Backoff | None = None,
        embedder: EmbedderChoice = None,
    ) -> None:
        self.store = store
        self._vectors = VectorWorker(store)
        self.use_embedder(embedder)  # a name or an Embedder; None: lexical only
        self.policy = policy or WriterPolicy.default()
        #: Which sources may arrive over which channel. The application that calls
        #: :meth:`ingest` establishes ``source`` and ``channel`` from how the input arrived
        #: (the authenticated session, the signed webhook); this policy refuses combinations
        #: that channel cannot vouch for.
        self.channels = channels or ChannelPolicy.default()
        self.write_policy = write_policy
        self._clock = clock
        #: How the batch ingest path retries a store another writer holds (StoreBusy).
        self.retry = retry or Backoff()
        self._rng = random.Random()
        self._secret_key: bytes | None = None

    @property
    def _secret(self) -> bytes:
        # Read on the first write, not at open: opening for reading must not write, and the
        # key may have to be created. Always outside any transaction, so a rolled-back episode
        # cannot take the key of every tombstone with it.
        if self._secret_key is None:
            self._secret_key = self.store.secret
        return self._secret_key

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        policy: WriterPolicy | None = None,
        channels: ChannelPolicy | None = None,
        clock: Clock = system_clock,
        create: bool = True,
        busy_timeout: float | None = None,
        retry: Backoff | None = None,
        write_policy: WritePolicy | None = None,
        embedder: EmbedderChoice = None,
    ) -> Memory:
        """Open the store at ``path``: an embedded store file (default
        :func:`~kg_memory.store.default_path`) or a Neo4j Bolt URI.

        Opening never writes to an existing store, so readers open beside a running writer.
        ``busy_timeout`` (seconds, default ``$KG_MEMORY_BUSY_TIMEOUT`` or 10) is how long a
        write waits for another writer's lock before :class:`~kg_memory.domain.errors.StoreBusy`;
        ``retry`` is how often the batch path tries again (default :class:`Backoff`).
        ``embedder`` is what recall uses when a call passes none: a name or an
        :class:`~kg_memory.domain.embedding.Embedder`, default ``$KG_MEMORY_EMBEDDER``, else
        the shipped model when the ``embed`` extra is installed (docs/recall.md, "Vectors").
        """
        chosen = opened_embedder(embedder)
        store = open_store(path, clock=clock, create=create, busy_timeout=busy_timeout)
        return cls(store, policy=policy, channels=channels, clock=clock, retry=retry,
                   write_policy=write_policy, embedder=chosen)

    # -- writes ----------------------------------------------------------------------------

    def ingest(self, record: IngestRecord) -> IngestReport:
        """Write one episode in its own transaction; durable when this returns (a batch of
        one: the same code as :meth:`ingest_many`).

        Raises :class:`~kg_memory.domain.errors.StoreBusy` (nothing written) when another
        writer held the lock past the busy timeout, and
        :class:`~kg_memory.domain.errors.ConcurrencyError` (nothing written) when an
        ``if_match`` precondition no longer holds.
        """
        report = ingest_one(self.store, record, policy=self.policy, secret=self._secret,
                            channels=self.channels, write_policy=self.write_policy)
        self._embed_written([record.scope])
        return report

    def inlet(self, source: str, channel: Channel | str, *, scope: str | None = None) -> Inlet:
        """An authenticated channel into this memory: records ingested through it are from
        ``source`` over ``channel``, and in ``scope`` when given (see
        :mod:`kg_memory.services.inlet`)."""
        return Inlet(self.store, source=source, channel=Channel(channel), policy=self.policy,
                     channels=self.channels, secret=self._secret, scope=scope,
                     write_policy=self.write_policy)

    def etag(self, subject: str, predicate: str, *, scope: str = "default",
             project: str | None = None) -> str:
        """The If-Match tag of a slot now: its current revision's ``ASSERTION_ID#REVISION``,
        or ``"absent"``. Write with ``if_match=`` this tag to update only what you read."""
        live = [v for v in self.store.history(subject, predicate, scope)
                if v.system.end is None and v.qualifiers.project == project]
        return slot_tag(live)

    def ingest_many(
        self,
        records: Iterable[IngestRecord],
        *,
        batch_size: int = 500,
        on_report: Callable[[IngestReport], None] | None = None,
    ) -> list[IngestReport]:
        """Write many episodes, each atomic on its own, committed durably every ``batch_size``.

        **The batching contract.** Episodes are written in batches of ``batch_size``, one
        transaction (on the embedded store one disk sync) each. The store plans a batch: it
        reads what the batch touches in a few set-based statements, runs each episode's rules
        in memory in order (a later episode sees the earlier ones' effects) and writes each
        table once at the end; each episode still succeeds or fails alone. On Neo4j the next
        batch is planned while the previous one commits (at most one in flight). An
        episode is *acknowledged*, meaning passed to ``on_report`` and put in the returned
        list, only after the commit that made it durable returned. So a crash can lose only
        episodes nobody was told about; the batch in flight is lost whole, never in part, and
        re-running the same input reports every acknowledged episode as a duplicate.

        If an episode fails (bad input from a lazy reader, an idempotency conflict, a failed
        ``if_match``), the ones before it are committed and acknowledged, then the error
        propagates. An episode a forget request erased is reported ``forgotten`` (not applied)
        and the rest goes on. A store that another writer holds is tried again with backoff
        (:attr:`retry`) before :class:`~kg_memory.domain.errors.StoreBusy` propagates, with
        nothing of the refused batch written. See :mod:`kg_memory.services.batch_ingest`.
        """
        return self._batches(((None, r) for r in records), batch_size, on_report)

    def _batches(self, records: Iterable[Numbered], batch_size: int,
                 on_report: Callable[[IngestReport], None] | None) -> list[IngestReport]:
        scopes: dict[str, None] = {}
        reports = ingest_batches(self.store, noting_scopes(records, scopes), policy=self.policy,
                                 secret=self._secret,
                                 batch_size=batch_size, on_report=on_report, retry=self.retry,
                                 rng=self._rng, channels=self.channels,
                                 write_policy=self.write_policy)
        self._embed_written(scopes)
        return reports

    def ingest_file(
        self,
        path: Path,
        *,
        on_report: Callable[[IngestReport], None] | None = None,
        batch_size: int = 500,
        scope: str | None = None,
    ) -> list[IngestReport]:
        """Ingest a JSONL file as :meth:`ingest_many` does. On a bad line, every line before
        it stays accepted and the error names its line (and field); with ``scope``, a line of
        another scope is such a line (:class:`~kg_memory.domain.errors.ScopeError`)."""

        def records() -> Iterator[Numbered]:
            for line, record in read_numbered(path):
                if scope is not None and record.scope != scope:
                    raise ScopeError(f"episode {record.operation_id!r} is for scope "
                                     f"{record.scope!r}, not {scope!r}").at_line(line)
                yield line, record

        try:
            return self._batches(records(), batch_size, on_report)
        except IsADirectoryError:
            raise IngestError(f"{path} is a directory, not a JSONL file") from None
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror}") from exc

    # -- reads -----------------------------------------------------------------------------

    def asof(
        self,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        scope: str | None = None,
    ) -> AsOfAnswer:
        """What held at ``valid_at`` (default now) as the store believed at ``known_at``
        (default now). Both axes are independent: "what did we believe on day 2 about day 1"
        is ``asof(valid_at=day1, known_at=day2)``."""
        check_text(subject=subject, predicate=predicate, scope=scope)
        if valid_at is None or known_at is None:
            now = self._clock()
            valid_at = now if valid_at is None else valid_at
            known_at = now if known_at is None else known_at
        # Every field is checked just above (text) or here (instants, converted to UTC): the
        # query is built without validating it a second time (the lookup hot path).
        query = trusted(AsOfQuery, {
            "valid_at": ensure_utc(valid_at, what="valid_at"),
            "known_at": ensure_utc(known_at, what="known_at"),
            "subject": subject, "predicate": predicate, "scope": scope,
        }, _QUERY_FIELDS)
        pooled = subject is not None and predicate != SAME_AS
        # One round trip for a subject with no merges: its facts, their supports, and the
        # probe for merges (see Store.asof_rows).
        rows = self.store.asof_rows(query, SAME_AS if pooled else None)
        facts = rows.facts
        if subject is not None and rows.merges:
            # A person's merge pools facts across the group, as of the times asked; a merge
            # is a fact of one scope, so it pools within that scope only.
            for group_scope, other in sorted(self._same_as_group(subject, query, rows.merges)):
                facts = facts + self.store.asof_rows(
                    query.model_copy(update={"subject": other, "scope": group_scope})).facts
        # A single fact (a lookup's usual answer) has nothing to weigh, nor to alias.
        merged = ({f.subject: subject for f in facts}
                  if subject is not None and len(facts) > 1 else None)
        served, conflicts = arbitrate(tuple(facts), self.policy.authority, merged)
        # Every part was validated already (the query above, the facts on their way in).
        return trusted(AsOfAnswer, {
            "status": "ok", "valid_at": query.valid_at, "known_at": query.known_at,
            "subject": subject, "predicate": predicate, "scope": scope,
            "facts": served, "conflicts": conflicts,
        }, _ANSWER_FIELDS)

    def _same_as_group(self, subject: str, query: AsOfQuery,
                       first: list[Assertion] | None = None) -> set[tuple[str, str]]:
        """``(scope, entity)`` pairs merged with ``subject``, not counting itself; ``first``
        is the subject's own ``same_as`` revisions when the caller read them already."""
        seen: set[tuple[str | None, str]] = {(query.scope, subject)}
        frontier: list[tuple[str | None, str]] = [(query.scope, subject)]
        group: set[tuple[str, str]] = set()
        while frontier:
            scope, current = frontier.pop()
            probe = query.model_copy(
                update={"subject": current, "predicate": SAME_AS, "scope": scope})
            mine = first is not None and (scope, current) == (query.scope, subject)
            found = first if mine and first is not None else self.store.asof(probe)
            for version in found:
                if not identity_link(self.policy, version):
                    continue  # a claim the gate would refuse pools nothing
                other = (version.scope, str(version.value))
                if other not in seen and (version.scope, subject) != other:
                    seen.add(other)
                    group.add(other)
                    frontier.append(other)
        return group

    def history(
        self, subject: str, predicate: str | None = None, *, scope: str | None = None
    ) -> list[HistoryEntry]:
        """Every revision about ``subject`` with both intervals and what closed it."""
        check_text(subject=subject, predicate=predicate, scope=scope)
        return [HistoryEntry.of(v) for v in self.store.history(subject, predicate, scope)]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        """The writer gate's audit: every candidate it refused, and why."""
        check_text(scope=scope)
        return self.store.refusals(scope)

    # -- forgetting ---------------------------------------------------------------------

    def forget(self, selector: str | Selector, *, dry_run: bool = False,
               block: bool = False, all_scopes: bool = False,
               keep_residues: bool = False) -> ForgetReport:
        """Forget what ``selector`` names and everything derived only from it; see
        :mod:`kg_memory.services.forget_run`. Run with ``dry_run=True`` first. A selector acts
        within its scope (``entity:ana@u1``); one without a scope is refused with
        :class:`~kg_memory.domain.errors.ScopeError` unless ``all_scopes=True``. Unlinked
        copies of the erased text are cut out of what is kept unless ``keep_residues``."""
        if not isinstance(selector, Selector):
            check_text(selector=selector)
        chosen = selector if isinstance(selector, Selector) else Selector.parse(selector)
        return forget(self.store, chosen, dry_run=dry_run, block=block, all_scopes=all_scopes,
                      keep_residues=keep_residues)

    def check(self, *, mirror: bool = False) -> IntegrityReport:
        """Check the store's invariants (see :mod:`kg_memory.domain.integrity`): intervals,
        no overlapping believed revisions, revision numbering, dangling edges, dependencies,
        tombstones, acyclic lineage, the outbox (and with ``mirror``, the mirror's cursor).
        Reads one consistent view and never waits for a writer."""
        return check_store(self.store, mirror=mirror)

    def blocks(self, scope: str | None = None) -> list[Block]:
        """Collection blocks left by forget requests (active and revoked)."""
        check_text(scope=scope)
        return self.store.blocks(scope)

    def revoke_block(self, block_id: str, *, scope: str | None = None) -> None:
        """Re-enable collection for a blocked category (of ``scope``, when given)."""
        check_text(block_id=block_id)
        known = [b for b in self.store.blocks(scope) if b.block_id == block_id]
        if not known:
            raise NotFound(f"no active block {block_id!r}")
        with self.store.transaction(known[0].scope) as tx:
            if not tx.revoke_block(block_id):
                raise NotFound(f"no active block {block_id!r}")

    def scoped(self, scope: str) -> ScopedMemory:
        """A handle on this memory limited to one tenant: see
        :class:`~kg_memory.services.scoped.ScopedMemory`."""
        return ScopedMemory(self, scope)
