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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

import networkx as nx
from prov.model import ProvDocument

from kg_memory.domain.authority import arbitrate
from kg_memory.domain.channel import ChannelPolicy
from kg_memory.domain.errors import ConcurrencyError, ForgottenError, IngestError, NotFound
from kg_memory.domain.forgetting import Selector
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.instant import Clock, ensure_utc
from kg_memory.domain.model import Block, Channel, Entity, Qualifiers, Refusal, Value, trusted
from kg_memory.domain.record import IngestRecord, read_records
from kg_memory.domain.resolution import RESOLVER, EntityProfile, Outcome
from kg_memory.domain.result import AsOfAnswer, Fact, HistoryEntry
from kg_memory.services.forget_run import ForgetReport, forget
from kg_memory.services.identity import (
    SAME_AS,
    Resolved,
    keep_apart,
    load_decisions,
    load_profile,
    merge_entities,
    unmerge_decision,
    unmerge_entities,
)
from kg_memory.services.ingestion import IngestReport, ingest_record
from kg_memory.services.inlet import Inlet
from kg_memory.services.lineage import Direction, lineage_graph
from kg_memory.services.provenance import add_tombstones, export_prov
from kg_memory.services.publication import Basis, Published, publish_derived, read_basis
from kg_memory.store import open_store
from kg_memory.store.clock import system_clock
from kg_memory.store.protocol import AsOfQuery, Slot, Store

__all__ = ["Memory"]


class Memory:
    """A bitemporal memory over any :class:`~kg_memory.store.protocol.Store`."""

    def __init__(
        self,
        store: Store,
        *,
        policy: WriterPolicy | None = None,
        channels: ChannelPolicy | None = None,
        clock: Clock = system_clock,
    ) -> None:
        self.store = store
        self.policy = policy or WriterPolicy.default()
        #: Which sources may arrive over which channel. The application that calls
        #: :meth:`ingest` establishes ``source`` and ``channel`` from how the input arrived
        #: (the authenticated session, the signed webhook); this policy refuses combinations
        #: that channel cannot vouch for.
        self.channels = channels or ChannelPolicy.default()
        self._clock = clock
        # Read once, outside any transaction: a rolled-back episode must not take the key
        # of every tombstone with it.
        self._secret = store.secret

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        policy: WriterPolicy | None = None,
        channels: ChannelPolicy | None = None,
        clock: Clock = system_clock,
        create: bool = True,
    ) -> Memory:
        """Open the store at ``path``: an embedded store file (default
        :func:`~kg_memory.store.default_path`) or a Neo4j Bolt URI."""
        return cls(open_store(path, clock=clock, create=create), policy=policy,
                   channels=channels, clock=clock)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    # -- writes ----------------------------------------------------------------------------

    def ingest(self, record: IngestRecord) -> IngestReport:
        """Write one episode in its own transaction; durable when this returns."""
        with self.store.transaction() as tx:
            return ingest_record(tx, record, self.policy, self._secret, self.channels)

    def inlet(self, source: str, channel: Channel | str) -> Inlet:
        """An authenticated channel into this memory: records ingested through it are from
        ``source`` over ``channel`` (see :mod:`kg_memory.services.inlet`)."""
        return Inlet(self.store, source=source, channel=Channel(channel), policy=self.policy,
                     channels=self.channels, secret=self._secret)

    def ingest_many(
        self,
        records: Iterable[IngestRecord],
        *,
        batch_size: int = 500,
        on_report: Callable[[IngestReport], None] | None = None,
    ) -> list[IngestReport]:
        """Write many episodes, each atomic on its own, committed durably every ``batch_size``.

        If an episode fails (bad input from a lazy reader, an idempotency conflict), the ones
        before it are committed and stay accepted, and the error propagates.
        """
        reports: list[IngestReport] = []
        iterator = iter(records)
        while True:
            before = len(reports)
            with self.store.batch():
                # islice stays lazy: a bad line raises here, after the lines before it were
                # written, and the batch still commits them on the way out.
                for record in itertools.islice(iterator, batch_size):
                    with self.store.transaction() as tx:
                        report = ingest_record(tx, record, self.policy, self._secret,
                                               self.channels)
                    reports.append(report)
                    if on_report is not None:
                        on_report(report)
            if len(reports) - before < batch_size:
                return reports

    def ingest_file(
        self, path: Path, *, on_report: Callable[[IngestReport], None] | None = None
    ) -> list[IngestReport]:
        """Ingest a JSONL file. On a bad line, every line before it stays accepted and
        :class:`~kg_memory.domain.errors.IngestError` names the line and field."""
        try:
            return self.ingest_many(read_records(path), on_report=on_report)
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
        now = self._clock()
        query = AsOfQuery(
            valid_at=ensure_utc(valid_at, what="valid_at") if valid_at else now,
            known_at=ensure_utc(known_at, what="known_at") if known_at else now,
            subject=subject,
            predicate=predicate,
            scope=scope,
        )
        versions = self.store.asof(query)
        if subject is not None and predicate != SAME_AS:
            # A person's merge pools facts across the group, as of the times asked.
            for other in sorted(self._same_as_group(subject, query) - {subject}):
                versions += self.store.asof(query.model_copy(update={"subject": other}))
        supports = self.store.supports((v.assertion_id for v in versions), query.known_at)
        facts = tuple(Fact.of(v, supports.get(v.assertion_id, ())) for v in versions)
        served, conflicts = arbitrate(facts, self.policy.authority)
        # Every part was validated already (the query above, the facts on their way in).
        return trusted(AsOfAnswer, {
            "status": "ok", "valid_at": query.valid_at, "known_at": query.known_at,
            "subject": subject, "predicate": predicate, "scope": scope,
            "facts": served, "conflicts": conflicts,
        })

    def _same_as_group(self, subject: str, query: AsOfQuery) -> set[str]:
        group, frontier = {subject}, [subject]
        while frontier:
            probe = query.model_copy(update={"subject": frontier.pop(), "predicate": SAME_AS})
            for version in self.store.asof(probe):
                other = str(version.value)
                if other not in group:
                    group.add(other)
                    frontier.append(other)
        return group

    def history(
        self, subject: str, predicate: str | None = None, *, scope: str | None = None
    ) -> list[HistoryEntry]:
        """Every revision about ``subject`` with both intervals and what closed it."""
        return [HistoryEntry.of(v) for v in self.store.history(subject, predicate, scope)]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        """The writer gate's audit: every candidate it refused, and why."""
        return self.store.refusals(scope)

    # -- lineage, consolidation, forgetting -------------------------------------------------

    def lineage(
        self, node_id: str, direction: Direction = "both", depth: int | None = None
    ) -> nx.MultiDiGraph[str]:
        """Where ``node_id`` came from ("up") and what derives from it ("down"), as a
        read-only networkx graph whose edges point from a derivative to its source."""
        return lineage_graph(self.store, node_id, direction, depth)

    def read_basis(
        self, subject: str, predicate: str, evidence: list[str], *, scope: str = "default",
        project: str | None = None,
    ) -> Basis:
        """What a consolidation worker reads before deriving: the record's tag and the current
        revision of each evidence assertion."""
        slot = Slot(scope=scope, subject=subject, predicate=predicate, project=project)
        return read_basis(self.store, slot, evidence)

    def publish(
        self, basis: Basis, *, value: Value | None = None, qualifiers: Qualifiers | None = None
    ) -> Published:
        """Publish a derived record if ``basis`` still holds (If-Match); see
        :mod:`kg_memory.services.publication`."""
        return publish_derived(self.store, basis, policy=self.policy, value=value,
                               qualifiers=qualifiers)

    def consolidate(
        self, subject: str, predicate: str, evidence: list[str], *, scope: str = "default",
        project: str | None = None, attempts: int = 3,
    ) -> Published:
        """Read, derive and publish, re-reading when a concurrent change wins the race.

        A forgotten source or a record that would drop a scope or an exception is not retried.
        """
        for attempt in range(attempts):
            basis = self.read_basis(subject, predicate, evidence, scope=scope, project=project)
            try:
                return self.publish(basis)
            except ForgottenError:
                raise
            except ConcurrencyError:
                if attempt == attempts - 1:
                    raise
        raise ConcurrencyError("consolidation needs at least one attempt")

    def forget(self, selector: str | Selector, *, dry_run: bool = False,
               block: bool = False) -> ForgetReport:
        """Forget what ``selector`` names and everything derived only from it; see
        :mod:`kg_memory.services.forget_run`. Run with ``dry_run=True`` first."""
        chosen = selector if isinstance(selector, Selector) else Selector.parse(selector)
        return forget(self.store, chosen, dry_run=dry_run, block=block)

    def blocks(self, scope: str | None = None) -> list[Block]:
        """Collection blocks left by forget requests (active and revoked)."""
        return self.store.blocks(scope)

    def revoke_block(self, block_id: str) -> None:
        """Re-enable collection for a blocked category."""
        with self.store.transaction() as tx:
            if not tx.revoke_block(block_id):
                raise NotFound(f"no active block {block_id!r}")

    def prov(self, node_ids: list[str] | None = None) -> ProvDocument:
        """A W3C PROV document of the lineage of ``node_ids`` (of everything when ``None``)."""
        doc = export_prov(self.store, node_ids)
        add_tombstones(doc, self.store)
        return doc

    # -- identity ----------------------------------------------------------------------------

    def entities(self, scope: str | None = None) -> list[Entity]:
        return self.store.entities(scope)

    def profile(self, entity_id: str) -> EntityProfile | None:
        """What identity resolution knows of an entity: names, identifiers, context."""
        return load_profile(self.store, entity_id)

    def decisions(self, scope: str | None = None, entity_id: str | None = None
                  ) -> list[Resolved]:
        """Every resolution decision with its evidence, oldest first."""
        found = load_decisions(self.store, scope)
        if entity_id is None:
            return found
        return [r for r in found if entity_id in (
            r.entity_id, r.decision.entity_id, *r.decision.possible_same_as,
            *r.decision.kept_apart_from)]

    def review(self, scope: str | None = None) -> list[Resolved]:
        """REVIEW decisions no person has settled yet."""
        decided = {r.decision.mention.mention_id for r in self.decisions(scope)
                   if r.decision.decided_by != RESOLVER}
        return [r for r in self.decisions(scope) if r.decision.outcome is Outcome.REVIEW
                and f"entity:{r.entity_id}" not in decided]

    def merge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """A person's merge: ``other`` is the same as ``keep`` from now on (reversible)."""
        return merge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge(self, keep: str, other: str, *, by: str, reason: str, scope: str) -> Resolved:
        """Undo a merge; every fact stays with the entity it was written for."""
        return unmerge_entities(self.store, keep, other, by=by, reason=reason, scope=scope)

    def unmerge_decision(self, decision_id: str, *, by: str, reason: str) -> Resolved:
        """Undo the resolver's merge of one mention, splitting its facts back by lineage."""
        return unmerge_decision(self.store, decision_id, by=by, reason=reason)

    def keep_apart(self, provisional: str, candidate: str, *, by: str, reason: str,
                   scope: str) -> Resolved:
        """A person settles a REVIEW: these are different entities."""
        return keep_apart(self.store, provisional, candidate, by=by, reason=reason, scope=scope)
