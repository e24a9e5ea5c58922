"""The MCP server's stdio wire: the SDK's transport, plus an answer to every frame it cannot read.

The SDK's stdio reader hands a frame that fails to parse (a lone surrogate escape, a number past its
limit, nesting past its depth, text that is no JSON) to the session as an exception, which drops it: the
client then waits for ever for an answer to that request. Here each such frame is answered with a JSON-RPC
error naming what was wrong, under the request's own id when the frame shows one — its top-level `id`, read
as JSON — else `null`, as JSON-RPC has it for a frame whose id cannot be read. A blank line is no frame.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# How much of a frame that does not parse is looked through for its id (a scan in Python: bounded).
_SCAN = 1 << 20


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
                        if (answer := refusal(item)) is not None:
                            await wire_out.send(SessionMessage(answer))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_bad_frames)
            await server.run(receive, wire_out, server.create_initialization_options())


def refusal(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error answering a frame the transport could not read; None for a blank line (no frame)."""
    why, code, ident = str(exc), types.PARSE_ERROR, None
    if isinstance(exc, ValidationError) and exc.errors():
        errors = exc.errors()
        why = str(errors[0].get("msg", why))
        if errors[0].get("type") == "json_invalid":
            frame = errors[0].get("input")
            if isinstance(frame, str) and not frame.strip():
                return None
            ident = _top_level_id(frame) if isinstance(frame, str) else None
        else:  # JSON, but no JSON-RPC message: the SDK's errors hold the object it read
            code = types.INVALID_REQUEST
            whole: dict[str, Any] = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), {})
            ident = whole.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        ident = None
    message = f"the frame could not be read: {why[:300]}"
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message))


def _top_level_id(frame: str) -> object:
    """The value of the frame's own `id` (not one inside its params), read as JSON, from a frame the strict
    parser refused; None when it shows none (or not within `_SCAN` characters)."""
    decoder = json.JSONDecoder()
    depth, at, end = 0, 0, min(len(frame), _SCAN)
    while at < end:
        char = frame[at]
        if char == '"':
            try:
                key, at = decoder.raw_decode(frame, at)
            except ValueError:
                return None
            if depth == 1 and key == "id":
                value = frame[at:].lstrip(" \t\r\n")
                if value.startswith(":"):
                    try:
                        return decoder.raw_decode(value[1:].lstrip(" \t\r\n"))[0]
                    except ValueError:
                        return None
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        at += 1
    return None
