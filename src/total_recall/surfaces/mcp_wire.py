"""The MCP server's stdio wire: the SDK's transport, plus an answer to every frame it cannot read.

The SDK's stdio reader hands a frame that fails to parse (a lone surrogate escape, a number past its
limit, nesting past its depth, text that is no JSON) to the session as an exception, which drops it: the
client then waits for ever for an answer to that request. Here each such frame is answered with a JSON-RPC
error naming what was wrong, under the request's own id when the frame shows one (else `null`, as
JSON-RPC has it for a frame whose id cannot be read).
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# A request's id as a client writes it, near the start of its frame: an integer or a short string.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_HEAD = 4096  # how much of a bad frame is looked at for its id


async def serve(server: Any) -> None:
    """Run `server` (the SDK's low-level server) on stdio until the client closes the stream."""
    async with stdio_server() as (wire_in, wire_out):
        # The streams the SDK's own transport makes (they carry each request's context to its handler);
        # private to the SDK, whose tested range pyproject pins (2.3 up to 3).
        send, receive = create_context_streams[SessionMessage | Exception](0)

        async def answer_bad_frames() -> None:
            async with send:
                async for item in wire_in:
                    if isinstance(item, Exception):
                        await wire_out.send(SessionMessage(refusal(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_bad_frames)
            await server.run(receive, wire_out, server.create_initialization_options())


def refusal(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a frame the transport could not read."""
    frame, why, code = "", str(exc), types.PARSE_ERROR
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        frame = first.get("input") if isinstance(first.get("input"), str) else ""
        why = str(first.get("msg", why))
        code = types.PARSE_ERROR if first.get("type") == "json_invalid" else types.INVALID_REQUEST
    found = _ID.search(frame[:_HEAD])
    ident: int | str | None = None
    if found is not None:
        raw = found.group(1)
        ident = int(raw) if raw[0] != '"' else raw[1:-1]
    message = f"the frame could not be read: {why[:300]}"
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message))
