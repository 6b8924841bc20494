"""How a kg-memory error reaches an MCP client: a tool error any client can show as printed.

The text is ``ClassName: message``, kg-memory's own message. The result carries no
``structuredContent``: the MCP specification has a tool's structured content conform to its
output schema, and clients check it even on an error (the TypeScript SDK, hence the MCP
Inspector, rejects the whole result when it does not fit, hiding the message). The class name
and message go in ``_meta`` under ``kg-memory/error`` instead, for programs that branch on it.
"""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent

from kg_memory import KgMemoryError

__all__ = ["ERROR_META", "tool_error"]

#: The ``_meta`` key of a tool error's class name and message.
ERROR_META = "kg-memory/error"


def tool_error(exc: KgMemoryError) -> CallToolResult:
    """The tool error for ``exc``; see the module docstring."""
    name = type(exc).__name__
    return CallToolResult(
        content=[TextContent(type="text", text=f"{name}: {exc}")],
        is_error=True,
        meta={ERROR_META: {"error": name, "message": str(exc)}},
    )
