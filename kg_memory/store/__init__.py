"""Store protocol and adapters."""

from kg_memory.store.protocol import AsOfQuery, Slot, Store, Transaction
from kg_memory.store.sqlite import SqliteStore, default_path

__all__ = ["AsOfQuery", "Slot", "SqliteStore", "Store", "Transaction", "default_path"]
