"""The stdio transport with JSON-RPC's answer to a line that is not a message.

The SDK's stdio reader hands a line it cannot parse to the session as an exception, which logs
it and answers nothing, so a client that sent it waits forever. JSON-RPC 2.0 answers such a
line with an error response whose ``id`` is null: ``-32700`` (parse error) for text that is not
JSON, ``-32600`` (invalid request) for JSON that is not a JSON-RPC message. :func:`run_stdio`
serves ``server`` over the SDK's own stdio streams and sends those answers itself.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

__all__ = ["rejection", "run_stdio"]


def rejection(exc: Exception) -> JSONRPCError:
    """The error response to a line the reader could not turn into a message."""
    not_json = isinstance(exc, ValidationError) and any(
        e["type"] == "json_invalid" for e in exc.errors(include_url=False))
    if not_json or not isinstance(exc, ValidationError):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
            code=PARSE_ERROR, message="Parse error: the line is not JSON"))
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
        code=INVALID_REQUEST, message="Invalid Request: the line is JSON but not a JSON-RPC "
        "2.0 message"))


async def run_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` over stdin and stdout until the client closes stdin."""
    lowlevel = server._lowlevel_server  # the SDK's own stdio runner uses it the same way
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def sift() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(rejection(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(sift)
            await lowlevel.run(receive, write_stream,
                               lowlevel.create_initialization_options())
