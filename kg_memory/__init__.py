"""kg-memory: a bitemporal temporal knowledge graph that gives AI agents a memory they can trust.

Start with :class:`Memory`: ``Memory.open(path)`` on the embedded store, ``ingest`` episodes,
ask ``asof(valid_at, known_at)`` and read ``history``.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from kg_memory.domain.authority import DEFAULT_AUTHORITY, AuthorityTier
from kg_memory.domain.backoff import Backoff
from kg_memory.domain.change import ChangePlan, Effect
from kg_memory.domain.channel import ChannelPolicy, ChannelRule
from kg_memory.domain.consolidation import Evidence
from kg_memory.domain.corroboration import Corroboration, corroboration, mentioned
from kg_memory.domain.eligibility import EligibilityRule
from kg_memory.domain.embedding import Embedder, HashingEmbedder
from kg_memory.domain.errors import (
    EXIT_CODES,
    EXIT_MEANINGS,
    INCOMPLETE_EXIT,
    INTEGRITY_EXIT,
    STORE_BUSY_EXIT,
    ConcurrencyError,
    ConsolidationRefused,
    EmbedderMismatch,
    ExtraMissing,
    ForgottenError,
    IdempotencyConflict,
    ImportOrderError,
    IngestError,
    IntervalError,
    InvalidArgument,
    KgMemoryError,
    NaiveDatetimeError,
    NotFound,
    PolicyError,
    QueryError,
    RecallError,
    RecallUnavailable,
    ResolutionError,
    ScopeError,
    StoreBusy,
    StoreFull,
    StoreNeedsMigration,
    StoreReadOnly,
    StoreUnavailable,
    TimeError,
    WriteCancelled,
    WriteRefused,
)
from kg_memory.domain.forgetting import ForgetPlan, Selector
from kg_memory.domain.gate import GateRule, OwnerGrant, WriterPolicy, admit
from kg_memory.domain.instant import Clock, parse_instant
from kg_memory.domain.integrity import IntegrityReport, Violation
from kg_memory.domain.interval import Interval
from kg_memory.domain.layers import Outcome, PromotionPolicy, Rule, RuleType, Tier
from kg_memory.domain.model import (
    Assertion,
    Channel,
    Edge,
    EdgeType,
    EndReason,
    Entity,
    Episode,
    Kind,
    Qualifiers,
    Refusal,
    Support,
    Tombstone,
)
from kg_memory.domain.pending import AdmissionDecision, PendingCandidate
from kg_memory.domain.ranking import RankingWeights
from kg_memory.domain.recall_answer import RecallAnswer, RecalledEpisode, RecallHit, ScoreComponents
from kg_memory.domain.record import (
    IngestRecord,
    MentionCandidate,
    count_records,
    ingest_schema,
    parse_mention,
    parse_record,
    read_records,
)
from kg_memory.domain.result import AsOfAnswer, Conflict, Fact, HistoryEntry
from kg_memory.domain.write_policy import (
    Mode,
    PredicateRule,
    Retention,
    ScopeLabel,
    WritePolicy,
)
from kg_memory.embedders import (
    EMBEDDER_ENV,
    FastEmbedEmbedder,
    MiniLMEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
    resolve_embedder,
)
from kg_memory.services.decayed_recall import Recalled, recall_value
from kg_memory.services.forget_run import ForgetReport
from kg_memory.services.identity import Resolved, preview_resolution
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.inlet import Inlet
from kg_memory.services.lineage import Direction, lineage_graph, lineage_tree, node_about
from kg_memory.services.memory import Memory
from kg_memory.services.provenance import serialize_prov
from kg_memory.services.publication import Basis, Published
from kg_memory.services.review_queue import ReviewPair
from kg_memory.services.rules import RuleBook
from kg_memory.services.scoped import ScopedMemory
from kg_memory.services.scoped_rules import ScopedRuleBook
from kg_memory.services.sweep import SweepReport
from kg_memory.store import (
    AsOfQuery,
    SqliteStore,
    Store,
    Transaction,
    default_path,
    open_store,
)
from kg_memory.store.cancellation import cancellable
from kg_memory.store.clock import system_clock

if TYPE_CHECKING:
    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.neo4j.migrate import MigrationReport
    from kg_memory.store.neo4j.mirror import SyncReport
    from kg_memory.store.neo4j.mirror import sync as sync_mirror

__version__ = "0.1.0"

# The Neo4j adapter loads the driver: resolved on first use, so `import kg_memory` and every
# embedded command stay as fast as they were.
_LAZY = {
    "MigrationReport": ("kg_memory.store.neo4j.migrate", "MigrationReport"),
    "Neo4jStore": ("kg_memory.store.neo4j", "Neo4jStore"),
    "SyncReport": ("kg_memory.store.neo4j.mirror", "SyncReport"),
    "sync_mirror": ("kg_memory.store.neo4j.mirror", "sync"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg_memory' has no attribute {name!r}")


__all__ = [
    "DEFAULT_AUTHORITY",
    "EMBEDDER_ENV",
    "EXIT_CODES",
    "EXIT_MEANINGS",
    "INCOMPLETE_EXIT",
    "INTEGRITY_EXIT",
    "STORE_BUSY_EXIT",
    "AdmissionDecision",
    "AsOfAnswer",
    "AsOfQuery",
    "Assertion",
    "AuthorityTier",
    "Backoff",
    "Basis",
    "ChangePlan",
    "Channel",
    "ChannelPolicy",
    "ChannelRule",
    "Clock",
    "ConcurrencyError",
    "Conflict",
    "ConsolidationRefused",
    "Corroboration",
    "Direction",
    "Edge",
    "EdgeType",
    "Effect",
    "EligibilityRule",
    "Embedder",
    "EmbedderMismatch",
    "EndReason",
    "Entity",
    "Episode",
    "Evidence",
    "ExtraMissing",
    "Fact",
    "FastEmbedEmbedder",
    "ForgetPlan",
    "ForgetReport",
    "ForgottenError",
    "GateRule",
    "HashingEmbedder",
    "HistoryEntry",
    "IdempotencyConflict",
    "ImportOrderError",
    "IngestError",
    "IngestRecord",
    "IngestReport",
    "Inlet",
    "IntegrityReport",
    "Interval",
    "IntervalError",
    "InvalidArgument",
    "KgMemoryError",
    "Kind",
    "Memory",
    "MentionCandidate",
    "MigrationReport",
    "MiniLMEmbedder",
    "Mode",
    "NaiveDatetimeError",
    "Neo4jStore",
    "NotFound",
    "OpenAIEmbedder",
    "Outcome",
    "OwnerGrant",
    "PendingCandidate",
    "PolicyError",
    "PredicateRule",
    "PromotionPolicy",
    "Published",
    "Qualifiers",
    "QueryError",
    "RankingWeights",
    "RecallAnswer",
    "RecallError",
    "RecallHit",
    "RecallUnavailable",
    "Recalled",
    "RecalledEpisode",
    "Refusal",
    "ResolutionError",
    "Resolved",
    "Retention",
    "ReviewPair",
    "Rule",
    "RuleBook",
    "RuleType",
    "ScopeError",
    "ScopeLabel",
    "ScopedMemory",
    "ScopedRuleBook",
    "ScoreComponents",
    "Selector",
    "SentenceTransformersEmbedder",
    "SqliteStore",
    "Store",
    "StoreBusy",
    "StoreFull",
    "StoreNeedsMigration",
    "StoreReadOnly",
    "StoreUnavailable",
    "Support",
    "SweepReport",
    "SyncReport",
    "Tier",
    "TimeError",
    "Tombstone",
    "Transaction",
    "Violation",
    "WriteCancelled",
    "WritePolicy",
    "WriteRefused",
    "WriterPolicy",
    "__version__",
    "admit",
    "cancellable",
    "corroboration",
    "count_records",
    "default_path",
    "ingest_schema",
    "lineage_graph",
    "lineage_tree",
    "mentioned",
    "node_about",
    "open_store",
    "parse_instant",
    "parse_mention",
    "parse_record",
    "preview_resolution",
    "read_records",
    "recall_value",
    "resolve_embedder",
    "serialize_prov",
    "sync_mirror",
    "system_clock",
]
