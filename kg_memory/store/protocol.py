"""The store protocol: the only thing the service layer knows about persistence.

Two adapters implement it: :class:`~kg_memory.store.sqlite.SqliteStore` (the embedded default, one
local file) and the Neo4j adapter. The contract test suite runs the same expectations on both.

Writes happen in a :class:`Transaction`, one per episode. A transaction is bound to one scope
(a tenant): every name it looks up or writes (an operation id, an entity id, an edge's endpoints,
a dependency key, a document key, a block) is read and written in that scope only, so no rule
applied inside it can cross into another tenant. The store, not the caller, assigns
system time: ``Transaction.now`` is strictly greater than every earlier transaction's, even when
the clock has not moved. Revision numbers are assigned by the store too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import ChangePlan, Closure, Draft, PlannedEdge
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.integrity import Snapshot
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Edge,
    Entity,
    Episode,
    Refusal,
    Support,
    Tombstone,
)
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.result import Fact
from kg_memory.store.link_reads import LinkReads
from kg_memory.store.pipeline import Pipeline
from kg_memory.store.recall_reads import (
    ConversationQuery,
    RecallCandidates,
    RecallProbe,
    RecallReads,
    VectorCandidates,
    VectorDoc,
    VectorProbe,
)

__all__ = [
    "AsOfQuery",
    "AsOfRows",
    "ConversationQuery",
    "RecallCandidates",
    "RecallProbe",
    "Slot",
    "Store",
    "Transaction",
    "VectorCandidates",
    "VectorDoc",
    "VectorProbe",
    "apply_plan",
    "asof_rows_by_parts",
]


class Slot(BaseModel):
    """Where values of one fact compete: a newer value here supersedes an older one."""

    model_config = ConfigDict(frozen=True)

    scope: str
    subject: str
    predicate: str
    project: str | None = None


class AsOfQuery(BaseModel):
    """What held at ``valid_at`` in the world, as the store believed at ``known_at``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    valid_at: UtcDatetime
    known_at: UtcDatetime
    subject: str | None = None
    predicate: str | None = None
    scope: str | None = None


class AsOfRows(NamedTuple):
    """What :meth:`Store.asof_rows` read in one go: the facts an :class:`AsOfQuery` finds, each
    with its supporting episodes as recorded by the query's known time (in the order of
    :meth:`Store.asof`), and the subject's revisions of the merge predicate at the same times
    (empty unless one was asked for)."""

    facts: list[Fact]
    merges: list[Assertion]


@runtime_checkable
class Transaction(Protocol):
    """One atomic unit of writes. Everything in it shares the system time :attr:`now`."""

    @property
    def now(self) -> datetime: ...

    @property
    def scope(self) -> str:
        """The one scope this transaction reads and writes."""

    def episode_by_operation(self, operation_id: str) -> tuple[Episode, str] | None:
        """The episode recorded under ``operation_id`` in this scope, and its payload hash."""

    def add_episode(self, episode: Episode, payload_hash: str) -> None: ...

    def entity(self, entity_id: str) -> Entity | None:
        """The entity ``entity_id`` of this scope (another scope's entity of that id is
        a different entity, and invisible here)."""

    def put_entity(self, entity: Entity) -> None:
        """Insert, or widen an existing entity's owners; never drop what was known."""

    def live_versions(self, slot: Slot) -> list[Assertion]:
        """Revisions of ``slot`` the store currently believes (open system interval)."""

    def live_versions_of(self, assertion_id: str) -> list[Assertion]:
        """Currently believed revisions of one assertion."""

    def live_dependents(self, key: str) -> list[Assertion]:
        """Currently believed revisions of this scope whose ``depends_on`` names ``key``."""

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """:meth:`live_dependents` of each key (every key present), in one read where the
        backend can: a forget run erasing 1,000 facts asks for all of theirs at once."""

    def close_version(self, closure: Closure) -> None: ...

    def insert_version(self, draft: Draft) -> Assertion: ...

    def add_edge(self, edge: PlannedEdge) -> None:
        """Record an edge once, in this scope; a repeat is a no-op (repeated delivery is not
        new evidence)."""

    def add_edges(self, edges: list[PlannedEdge]) -> None:
        """:meth:`add_edge` of each, in one statement where the backend can."""

    def add_refusal(self, refusal: Refusal) -> None: ...

    # Forgetting: erasure, tombstones and collection blocks, inside the same transaction as
    # every other write so that a racing write is checked against them atomically.
    def delete_assertion(self, assertion_id: str) -> None:
        """Erase every revision of an assertion and every edge touching it."""

    def delete_assertions(self, assertion_ids: list[str]) -> None:
        """:meth:`delete_assertion` of each, set-based where the backend can."""

    def delete_entity(self, entity_id: str) -> None: ...

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """:meth:`delete_entity` of each, set-based where the backend can."""

    def rename_entity(self, entity_id: str, name: str | None,
                      type_: str | None = None) -> None:
        """Change an entity's display name (a forgotten mention had given it), and its type
        when ``type_`` is given (the forgotten input had given that too)."""

    def rewrite_dependencies(self, renames: Mapping[str, str]) -> None:
        """Replace each dependency reference ``old`` (a forgotten entity's id, a key of
        ``renames``) with ``renames[old]`` (its tombstone's content-free reference) in every
        revision of this scope, open or closed, and in the dependency index: the one sanctioned
        change to a stored revision besides its closure (the id is user-chosen text, a
        person's name, and must not outlive the forget in its dependents' history; the
        embedded store's immutability guard and the Neo4j revision digest stay exact for the
        rewritten revisions). Set-based: a forget of 1,000 entities asks once."""

    def erase_episode(self, episode_id: str) -> None: ...

    def redact_episode(self, episode_id: str, supports_to_drop: list[str]) -> None: ...

    def replace_content(self, episode_id: str, content: str) -> None:
        """Rewrite a retained episode's content (a residual copy of forgotten text cut out),
        keeping its payload hash, so a redelivery of the original is still a duplicate."""

    def rewrite_refusal(self, episode_id: str, what: str, new_what: str) -> None:
        """Rewrite the text of an episode's refusals that read ``what``."""

    def forget_keys(self, keys: list[str]) -> None:
        """Mark change-log entries naming erased user-chosen ids (entity ids) for removal by the
        next scrub, once any mirror has applied them. A store without such a log ignores it."""

    def next_generation(self) -> int:
        """Advance and return this scope's removal generation."""

    def add_tombstone(self, tombstone: Tombstone) -> None:
        """Record it (a key already there keeps its row) and that ``tomb_<key[:20]>`` was
        INVALIDATED_BY its activity: :meth:`Store.edges` reports it (stored or derived)."""

    def add_tombstones(self, keys: Sequence[tuple[str, str]], generation: int,
                       activity_id: str, created_at: datetime) -> None:
        """:meth:`add_tombstone` of one run's tombstones, given as ``(kind, key)`` pairs that
        share the rest of the row (no model per key: a run leaves thousands), in one statement
        where the backend can."""

    def tombstones(self, keys: list[str]) -> dict[str, datetime]:
        """Which of ``keys`` are tombstoned, and since when."""

    def operation_key(self, secret: bytes, operation_id: str) -> str:
        """The tombstone key of ``operation_id`` in this scope
        (:func:`~kg_memory.domain.forgetting.operation_key`; a planned batch hashed it already)."""

    def add_activity(self, activity: Activity) -> None: ...

    def add_block(self, block: Block) -> None: ...

    def revoke_block(self, block_id: str) -> bool: ...

    def active_blocks(self, scope: str) -> list[Block]: ...

    # Identity: entity profiles and resolution decisions as JSON documents with lookup keys.
    def put_document(self, kind: str, key: str, scope: str, body: str,
                     lookup: list[str] | None = None) -> None: ...

    def documents_by(self, kind: str, scope: str, lookup: list[str]) -> list[str]:
        """Bodies of ``kind`` documents in ``scope`` reachable from any ``lookup`` key."""

    def delete_document(self, kind: str, key: str) -> None:
        """Delete this scope's ``kind`` document ``key``."""


@runtime_checkable
class Store(LinkReads, RecallReads, Protocol):
    """A bitemporal memory store."""

    @property
    def location(self) -> str:
        """Where the store lives: a file path or a server URI (never a secret)."""

    def transaction(self, scope: str) -> AbstractContextManager[Transaction]:
        """A unit of work bound to ``scope``."""

    def batch(self) -> AbstractContextManager[None]:
        """Group transactions into one durable commit; each still succeeds or fails alone."""

    def pipeline(self) -> AbstractContextManager[Pipeline]:
        """Batches whose commit may still run while the next is planned (see
        :mod:`kg_memory.store.pipeline`); a store that cannot overlap them gives
        :class:`~kg_memory.store.pipeline.SyncPipeline`."""

    def importing(self, at: datetime) -> AbstractContextManager[None]:
        """Units this thread begins inside ask for system time ``at`` (an imported record's
        instant) instead of the clock: the store gives ``at``, or 1 µs after its latest
        system time when that is not earlier; it never goes back."""

    def prepare(self, records: Sequence[IngestRecord], secret: bytes) -> None:
        """Inside :meth:`batch`: the records about to be written, so a store that plans its
        batch can read what they touch in a few set-based queries first. A hint only: the
        answers never depend on it (a store may do nothing)."""

    def asof(self, query: AsOfQuery) -> list[Assertion]: ...

    def asof_rows(self, query: AsOfQuery, merge_predicate: str | None = None) -> AsOfRows:
        """``asof(query)`` with each revision's supports, and, when ``merge_predicate`` is set
        and the query names a subject, ``asof`` of that subject's ``merge_predicate`` at the
        same times and scope: the lookup path, in as few round trips as the backend can."""

    def history(
        self, subject: str, predicate: str | None = None, scope: str | None = None
    ) -> list[Assertion]:
        """Every revision about ``subject``, in system-time order."""

    def supports(
        self, assertion_ids: Iterable[str], known_at: datetime | None = None
    ) -> dict[str, tuple[Support, ...]]:
        """The episodes supporting each assertion, as recorded by ``known_at``."""

    def episodes(self, episode_ids: Sequence[str]) -> list[Episode]: ...

    def edges(self, node_id: str, scope: str | None = None) -> list[Edge]:
        """Every edge into or out of ``node_id`` drawn in ``scope`` (every scope when
        ``None``: an operator's view, in which an entity id may name several nodes)."""

    def edges_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Edge]]:
        """:meth:`edges` of every id (each present, ``[]`` when it has none), in one read
        where the backend can: a forget plan's lineage walk reads a whole level at once."""

    def subject_assertions(self, subjects: Sequence[str], scope: str | None = None
                           ) -> dict[str, frozenset[str]]:
        """The ids of the assertions with any revision about each subject (each present), in
        ``scope`` (every scope when ``None``): :meth:`history`'s ids without its revisions."""

    def refusals(self, scope: str | None = None) -> list[Refusal]: ...

    def versions(self, assertion_ids: Sequence[str]) -> list[Assertion]:
        """Every revision of each assertion, in system-time order."""

    def find_episodes(self, source: str, scope: str | None = None) -> list[str]: ...

    def scope_episodes(self, scope: str) -> list[Episode]:
        """Every episode of ``scope``, oldest first."""

    def episode_texts(self, scope: str) -> list[tuple[str, str]]:
        """``(episode_id, content)`` of every episode of ``scope``, in :meth:`scope_episodes`'
        order: a forget run's residue search reads the text of the whole tenant, so it reads
        no more than that."""

    def find_assertions(
        self,
        scope: str | None = None,
        subject: str | None = None,
        predicates: str = "*",
        project: str | None = None,
    ) -> list[str]:
        """Ids of assertions with any revision matching (``predicates`` is a glob)."""

    @property
    def secret(self) -> bytes:
        """The store-local key of its tombstone hashes."""

    def blocks(self, scope: str | None = None) -> list[Block]: ...

    def activities(self, type_: str | None = None, scope: str | None = None,
                   activity_id: str | None = None) -> list[Activity]: ...  # None: any

    def entities(self, scope: str | None = None) -> list[Entity]: ...

    def entity_names(self, entity_ids: Sequence[str], scope: str) -> dict[str, str]:
        """The name of each of ``entity_ids`` that is an entity of ``scope`` and has one: a
        forget reads the names it erases without reading every entity of the tenant."""

    def live_derived(self, scope: str) -> list[Assertion]:
        """The current revisions (no system end) of the derived records of ``scope``: a
        forget's residue search reads these, not every assertion of the tenant."""

    def documents(self, kind: str, scope: str | None = None, key: str | None = None
                  ) -> list[str]:
        """JSON bodies of stored documents of ``kind``, oldest first."""

    def scrub(self) -> list[dict[str, Any]]:
        """Make erasures physical where the backend keeps copies; one report per destination
        (``destination``, ``location``, ``status``: complete or incomplete, ``reason``)."""

    def integrity_snapshot(self, *, mirror: bool = False) -> Snapshot:
        """Every revision, typed edge, episode mark, activity id, tombstone key and dependency
        row, with the system-time high-water mark (and the outbox where there is one), read
        as one consistent view without blocking writers; see
        :mod:`kg_memory.domain.integrity`. ``mirror``: read a mirror's cursor too."""

    def close(self) -> None: ...


def apply_plan(tx: Transaction, plan: ChangePlan) -> None:
    """Carry out a plan inside ``tx``: closures first, so a slot never holds overlapping
    live revisions, then the new revisions, then the edges."""
    for closure in plan.closures:
        tx.close_version(closure)
    for draft in plan.drafts:
        tx.insert_version(draft)
    for edge in plan.edges:
        tx.add_edge(edge)


def asof_rows_by_parts(store: Store, query: AsOfQuery, merge_predicate: str | None = None
                       ) -> AsOfRows:
    """:meth:`Store.asof_rows` from ``asof`` and ``supports``, for a backend that has no
    single query for it (the answer is the same, in up to three round trips)."""
    versions = store.asof(query)
    supports = store.supports((v.assertion_id for v in versions), query.known_at)
    merges: list[Assertion] = []
    if merge_predicate is not None and query.subject is not None:
        merges = store.asof(query.model_copy(update={"predicate": merge_predicate}))
    return AsOfRows(facts=[Fact.of(v, supports.get(v.assertion_id, ())) for v in versions],
                    merges=merges)
