"""The embedded adapter: one SQLite file in WAL mode (the default store)."""

from kg_memory.store.sqlite.store import SqliteStore, default_path

__all__ = ["SqliteStore", "default_path"]
