"""Entry points for agents: adapters from agent frameworks (MCP, LangGraph's store) onto the
public API of :mod:`kg_memory`. Each integration is an optional extra, imported lazily, and
reaches memory only through ``kg_memory``'s public names (an import-linter contract holds it).
"""

__all__: list[str] = []
