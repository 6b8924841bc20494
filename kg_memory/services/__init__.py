"""The service layer: one use case per module, each over the store protocol.

A use case opens a transaction on a :class:`~kg_memory.store.protocol.Store`, asks the domain
rules what to do, and applies their plan (ingestion, forgetting, consolidation, identity,
lineage, PROV export). :class:`~kg_memory.services.memory.Memory` is the facade that
:mod:`kg_memory` exports; it names no backend.
"""

__all__: list[str] = []
