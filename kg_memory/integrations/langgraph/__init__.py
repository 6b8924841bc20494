"""kg-memory as LangGraph's long-term store (extra ``kg-memory-bitemporal[langgraph]``).

>>> from kg_memory import Memory
>>> from kg_memory.integrations.langgraph import KgMemoryStore
>>> store = KgMemoryStore(Memory.open(":memory:"), source="agent")
>>> store.put(("u1", "ana"), "diet", {"value": "vegetarian"})
>>> item = store.get(("u1", "ana"), "diet")
>>> item.value, item.writer, item.kind.value
({'value': 'vegetarian'}, 'agent', 'stated')

Compile a graph with it (``builder.compile(store=store)``) and nodes read and write memory
through ``store`` as with any LangGraph store; see :mod:`.store` for what a put, a delete and a
search mean here, and ``docs/agents.md`` for the mapping.
"""

from kg_memory.integrations.extras import require

require("langgraph.store.base", extra="langgraph", feature="kg-memory's LangGraph store")

from kg_memory.integrations.langgraph.attributed import (  # noqa: E402
    AttributedItem,
    AttributedSearchItem,
)
from kg_memory.integrations.langgraph.store import ItemRevision, KgMemoryStore  # noqa: E402

__all__ = ["AttributedItem", "AttributedSearchItem", "ItemRevision", "KgMemoryStore"]
