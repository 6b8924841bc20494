"""Entry points for agent frameworks: an MCP server and a LangGraph store.

Each integration is an optional extra, imported only when used:

* ``kg-memory[mcp]``: :mod:`kg_memory.integrations.mcp`, the ``kg-memory mcp`` server;
* ``kg-memory[langgraph]``: :mod:`kg_memory.integrations.langgraph`, ``KgMemoryStore``.

Integrations talk to kg-memory through its public API (``from kg_memory import ...``) only, so
the writer gate, supersession and forgetting apply to an agent exactly as to any other caller.
"""

__all__: list[str] = []
