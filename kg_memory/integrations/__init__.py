"""Entry points for agents: adapters from agent frameworks onto the public API of
:mod:`kg_memory`. Each integration is an optional extra, imported lazily, and reaches memory only
through ``kg_memory``'s public names (an import-linter contract holds it):

* ``kg-memory-bitemporal[mcp]``: :mod:`kg_memory.integrations.mcp`, the ``kg-memory mcp`` server;
* ``kg-memory-bitemporal[langgraph]``: :mod:`kg_memory.integrations.langgraph`, ``KgMemoryStore``.

So the writer gate, supersession and forgetting apply to an agent exactly as to any other caller.
"""

__all__: list[str] = []
