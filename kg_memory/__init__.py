"""kg-memory: a bitemporal temporal knowledge graph that gives AI agents a memory they can trust.

Start with :class:`Memory`: ``Memory.open(path)`` on the embedded store, ``ingest`` episodes,
ask ``asof(valid_at, known_at)`` and read ``history``.
"""

from kg_memory.change import ChangePlan, Effect
from kg_memory.clock import Clock, parse_instant, system_clock
from kg_memory.errors import (
    ConcurrencyError,
    IdempotencyConflict,
    IngestError,
    IntervalError,
    KgMemoryError,
    NaiveDatetimeError,
    NotFound,
    PolicyError,
    StoreUnavailable,
    TimeError,
)
from kg_memory.gate import GateRule, WriterPolicy, admit
from kg_memory.ingestion import IngestReport
from kg_memory.interval import Interval
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
)
from kg_memory.record import IngestRecord, ingest_schema, parse_record, read_records
from kg_memory.result import AsOfAnswer, Fact, HistoryEntry
from kg_memory.store import AsOfQuery, SqliteStore, Store, Transaction, default_path

__version__ = "0.1.0"

__all__ = [
    "AsOfAnswer",
    "AsOfQuery",
    "Assertion",
    "ChangePlan",
    "Channel",
    "Clock",
    "ConcurrencyError",
    "Edge",
    "EdgeType",
    "Effect",
    "EndReason",
    "Entity",
    "Episode",
    "Fact",
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
    "NaiveDatetimeError",
    "NotFound",
    "PolicyError",
    "Qualifiers",
    "Refusal",
    "SqliteStore",
    "Store",
    "StoreUnavailable",
    "Support",
    "TimeError",
    "Transaction",
    "WriterPolicy",
    "__version__",
    "admit",
    "default_path",
    "ingest_schema",
    "parse_instant",
    "parse_record",
    "read_records",
    "system_clock",
]
