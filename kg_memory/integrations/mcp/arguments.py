"""Tool arguments checked by kg-memory, so a wrong one is a typed error an agent can act on.

The SDK validates a call's arguments against the tool's signature before any of kg-memory's
code runs, and a failure reaches the client as pydantic's raw report (with a documentation
link). :class:`TypedArguments` runs the same validation first, as a ``tools/call``
interceptor, and answers a failure with :class:`~kg_memory.InvalidArgument` naming each field:
``InvalidArgument: remember: field 'facts.0.writer': unknown field ...``. Nothing is written.

:meth:`TypedArguments.tool` registers a tool on the server and remembers its signature; its
description is the docstring without the source's indentation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata, func_metadata
from mcp.types import CallToolRequestParams, ToolAnnotations
from pydantic import ValidationError

from kg_memory import InvalidArgument
from kg_memory.integrations.mcp.results import tool_error

__all__ = ["TypedArguments", "argument_error"]

_F = TypeVar("_F", bound=Callable[..., Any])
#: Who writes and where is the server's configuration, never an argument.
_CHANNEL_FIELDS = {"writer", "source", "scope", "channel"}
_SHOWN = 5


def _problem(error: Any) -> str:
    kind, name = error["type"], str(error["loc"][-1]) if error["loc"] else ""
    if kind == "extra_forbidden":
        if name in _CHANNEL_FIELDS:
            return (f"unknown field: the {name} is this server's configuration, never an "
                    "argument")
        return "unknown field"
    if kind == "missing":
        return "required"
    return str(error["msg"])


def argument_error(tool: str, exc: ValidationError) -> InvalidArgument:
    """``exc`` as kg-memory's error: each failing field by its path, at most five of them."""
    errors = exc.errors(include_url=False)
    parts = [f"field '{'.'.join(str(p) for p in e['loc'])}': {_problem(e)}"
             for e in errors[:_SHOWN]]
    if len(errors) > _SHOWN:
        parts.append(f"and {len(errors) - _SHOWN} more")
    first = ".".join(str(p) for p in errors[0]["loc"]) if errors else None
    return InvalidArgument(f"{tool}: {'; '.join(parts)}", field=first)


class TypedArguments(Extension):
    """The ``tools/call`` interceptor of the module docstring."""

    identifier = "io.github.kg-memory/typed-arguments"

    def __init__(self) -> None:
        self._signatures: dict[str, FuncMetadata] = {}

    def tool(self, server: MCPServer[Any], *, annotations: ToolAnnotations
             ) -> Callable[[_F], _F]:
        """Register the decorated function as a tool of ``server`` whose arguments this checks."""

        def register(fn: _F) -> _F:
            self._signatures[fn.__name__] = func_metadata(fn)
            return server.tool(annotations=annotations,
                               description=inspect.cleandoc(fn.__doc__ or ""))(fn)

        return register

    async def intercept_tool_call(self, params: CallToolRequestParams,
                                  ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        signature = self._signatures.get(params.name)
        if signature is not None:
            try:
                signature.validate_arguments(params.arguments or {})
            except ValidationError as exc:
                return tool_error(argument_error(params.name, exc))
        return await call_next(ctx)
