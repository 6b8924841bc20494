"""kg-memory as an MCP server: ``kg-memory mcp --store PATH --scope S`` (extra
``kg-memory-bitemporal[mcp]``).

>>> from kg_memory import Memory
>>> from kg_memory.integrations.mcp import build_server
>>> server = build_server(Memory.open(":memory:"), scope="u1", source="user")
>>> server.name
'kg-memory'

Test or embed it in-process with the SDK's client, ``mcp.Client(server)``. See
``docs/agents.md`` for the tools, the channel binding and a client configuration.
"""

from kg_memory.integrations.extras import require

require("mcp", extra="mcp", feature="kg-memory's MCP server")

from kg_memory.integrations.mcp.server import INSTRUCTIONS, build_server, serve  # noqa: E402
from kg_memory.integrations.mcp.session import BoundMemory, plan_id  # noqa: E402

__all__ = ["INSTRUCTIONS", "BoundMemory", "build_server", "plan_id", "serve"]
