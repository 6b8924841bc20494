"""kg-memory: a bitemporal temporal knowledge graph that gives AI agents a memory they can trust.

Start with :class:`Memory`: ``Memory.open(path)`` on the embedded store, ``ingest`` episodes,
ask ``asof(valid_at, known_at)`` and read ``history``.
"""

from kg_memory.change import ChangePlan, Effect
from kg_memory.clock import Clock, parse_instant, system_clock
from kg_memory.consolidation import Evidence
from kg_memory.errors import (
    ConcurrencyError,
    ConsolidationRefused,
    ForgottenError,
    IdempotencyConflict,
    IngestError,
    IntervalError,
    KgMemoryError,
    MissingExtra,
    NaiveDatetimeError,
    NotFound,
    PolicyError,
    QueryError,
    StoreUnavailable,
    TimeError,
    WriteRefused,
)
from kg_memory.forget_run import ForgetReport
from kg_memory.forgetting import ForgetPlan, Selector
from kg_memory.gate import GateRule, WriterPolicy, admit
from kg_memory.identity import Resolved
from kg_memory.ingestion import IngestReport
from kg_memory.interval import Interval
from kg_memory.lineage import to_tree as lineage_tree
from kg_memory.memory import Memory
from kg_memory.model import (
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
from kg_memory.publication import Basis, Published
from kg_memory.record import IngestRecord, ingest_schema, parse_record, read_records
from kg_memory.resolution import EntityProfile
from kg_memory.result import AsOfAnswer, Fact, HistoryEntry
from kg_memory.store import (
    AsOfQuery,
    SqliteStore,
    Store,
    Transaction,
    default_path,
    open_store,
)

__version__ = "0.1.0"

__all__ = [
    "AsOfAnswer",
    "AsOfQuery",
    "Assertion",
    "Basis",
    "ChangePlan",
    "Channel",
    "Clock",
    "ConcurrencyError",
    "ConsolidationRefused",
    "Edge",
    "EdgeType",
    "Effect",
    "EndReason",
    "Entity",
    "EntityProfile",
    "Episode",
    "Evidence",
    "Fact",
    "ForgetPlan",
    "ForgetReport",
    "ForgottenError",
    "GateRule",
    "HistoryEntry",
    "IdempotencyConflict",
    "IngestError",
    "IngestRecord",
    "IngestReport",
    "Interval",
    "IntervalError",
    "KgMemoryError",
    "Kind",
    "Memory",
    "MissingExtra",
    "NaiveDatetimeError",
    "NotFound",
    "PolicyError",
    "Published",
    "Qualifiers",
    "QueryError",
    "Refusal",
    "Resolved",
    "Selector",
    "SqliteStore",
    "Store",
    "StoreUnavailable",
    "Support",
    "TimeError",
    "Tombstone",
    "Transaction",
    "WriteRefused",
    "WriterPolicy",
    "__version__",
    "admit",
    "default_path",
    "ingest_schema",
    "lineage_tree",
    "open_store",
    "parse_instant",
    "parse_record",
    "read_records",
    "system_clock",
]
