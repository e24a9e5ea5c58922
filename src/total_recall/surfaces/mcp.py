"""The MCP surface: `total-recall mcp`, a stdio server on the official `mcp` SDK, server key `total-recall`.

stdout is the wire; every log goes to stderr (the SDK also points fd 1 at stderr while it serves, so a
stray print cannot tear a frame). A tool is a typed function registered with `server.read_only`: its
type hints and `Field` bounds are the input schema (closed: `additionalProperties` false, as the server
refuses any other name), its docstring the description; the body calls one core function and returns
`reply(value)`, with the notes the CLI prints on stderr (why a listing is empty, which observer ran) in
its `notes`. A core error (`TotalRecallError`) reaches the client as a tool error carrying the core's
message, never a traceback.

The server serves the whole record unless it is bound to one harness (`--harness` or `HARNESS`); a
bound server refuses any session, filter or listing outside that harness.

Shutdown: the server ends at once, with 0, when its client closes stdin or on SIGTERM, whatever the
start-up sync is doing (see `_exit_now`).

Sync: serving never waits for one. On start the server runs one incremental sync of the harnesses it
serves in a background thread (`--no-sync` turns it off); tools answer from what the record holds
meanwhile (WAL: readers never wait for the writer), and `harness` reports the sync's state.
"""

from __future__ import annotations

import inspect
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BeforeValidator, Field, ValidationError

from total_recall import __version__
from total_recall.errors import ConfigError, TotalRecallError
from total_recall.mining.scope import (
    MAX_BYTES_CEILING,
    MAX_BYTES_MIN,
    REPORT_MAX_BYTES,
    reject_unknown,
)
from total_recall.model import HARNESSES
from total_recall.ops import OPERATIONS, Call, Effect, Operation, by_name
from total_recall.ops.operation import exact_type
from total_recall.record.database import Record
from total_recall.surfaces.words import defect, explain, in_mcp_words, named

SERVER_KEY = "total-recall"
HARNESS_ENV = "HARNESS"
# Claude Code moves a reply over 50,000 characters out to a file (and refuses one over 25k tokens): the
# default page stays under both; bytes >= characters, so 48 KiB is below 50,000 characters.
READ_MAX_BYTES = 49_152
READ_LIMIT = 100
# A reply carries this many of its notes (an asset rebuild may warn of many files), and says how many more.
NOTES_SHOWN = 20

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)
# Tools that add to the record's derived tables (markers, receipts, cues, summary blocks) but never change
# an entry; and the ones that also call an LLM endpoint.
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                       open_world_hint=False)
CALLS_OUT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                            open_world_hint=True)
DROPS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                        open_world_hint=False)

log = logging.getLogger("total_recall.mcp")

F = TypeVar("F", bound=Callable[..., Any])


# -- the binding --


def resolve_binding(flag: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The harness a server is bound to: `--harness` wins over `HARNESS`; unset or empty means every harness.

    Raises:
        ConfigError: the name is not a harness.
    """
    name = (flag if flag is not None else (os.environ if env is None else env).get(HARNESS_ENV, "")).strip()
    if not name:
        return None
    if name not in HARNESSES:
        raise ConfigError(
            f"refusing to start the MCP server: unknown harness {name!r}. "
            f"Valid values: {'|'.join(HARNESSES)}. "
            f"Set {HARNESS_ENV}=<name> in the MCP config environment or pass --harness <name>; "
            "leave both unset to serve every harness."
        )
    return name


@dataclass(frozen=True)
class Binding:
    """What one server serves: the record, and the one harness it is bound to (None: every harness)."""

    record_path: Path
    harness: str | None = None
    demo: bool = False


# -- the background sync --


@dataclass
class SyncState:
    """The start-up sync as `harness` reports it: off, running, done or failed."""

    state: str = "off"
    report: dict[str, Any] | None = None
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def as_json(self) -> dict[str, Any]:
        with self.lock:
            return {"state": self.state, "report": self.report, "error": self.error}


def start_sync(binding: Binding, state: SyncState) -> threading.Thread:
    """One incremental sync of the served harnesses, in a daemon thread (a sync killed mid-way resumes at
    its last commit next time, so exiting under it is safe)."""

    def run() -> None:
        with state.lock:
            state.state = "running"
        try:
            op = by_name("sync")
            call = Call(binding.record_path, "mcp", harness=binding.harness, demo=binding.demo)
            summary = op.perform(call, op.params())
            summary.pop("warnings")  # can be thousands of lines; `status` lists the first of them
            with state.lock:
                state.state, state.report = "done", summary
        except Exception as exc:  # a failed sync must not take the server down; it is reported instead
            log.warning("background sync failed: %s", exc)
            with state.lock:
                state.state, state.error = "failed", str(exc)

    thread = threading.Thread(target=run, name="total-recall-sync", daemon=True)
    thread.start()
    return thread


# -- the server --


def reply(value: dict[str, Any]) -> CallToolResult:
    """A tool's answer: compact JSON text (what bounds measure) and the same value as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=orjson.dumps(value).decode())],
                          structured_content=value)


def reply_text(text: str, notes: list[str] | None = None) -> CallToolResult:
    """A tool's answer that is a report (markdown, JSONL lines), already flood-capped by the core; its
    notes, if any, in a second block (the report's own format stays as it is)."""
    said = [TextContent(type="text", text="\n".join(f"note: {n}" for n in notes))] if notes else []
    return CallToolResult(content=[TextContent(type="text", text=text), *said])


def noted(op: Operation[Any], notes: list[str], room: int | None = None) -> list[str]:
    """A call's notes in MCP's words, the first NOTES_SHOWN of them and how many more there were, within
    `room` bytes (what the reply's `max_bytes` leaves; None: no bound): a note never takes a reply past the
    bound its caller set, so what does not fit is counted instead."""
    shown = [in_mcp_words(op, n) for n in notes[:NOTES_SHOWN]]
    while shown and room is not None and _size(shown, len(notes) - len(shown)) > room:
        shown.pop()
    left = len(notes) - len(shown)
    if room is not None and _size(shown, left) > room:
        return []  # a reply filled to its bound by the core, which says itself what it held back
    return [*shown, f"and {left} more notes"] if left else shown


def _with_notes(value: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """`value` with its notes, its `bytes` (the reply's own size, where it states one) counting them."""
    if not notes:
        return value
    out = {**value, "notes": notes}
    if isinstance(value.get("bytes"), int):
        for _ in range(3):  # the count's own digits may lengthen it once
            size = len(orjson.dumps(out))
            if out["bytes"] == size:
                break
            out["bytes"] = size
    return out


def _size(notes: list[str], left: int) -> int:
    """The bytes `notes` (and the count of those left out) add to a JSON reply."""
    more = [f"and {left} more notes"] if left else []
    return len(orjson.dumps({"notes": [*notes, *more]})) + 1  # the comma before the key


class RecallServer(MCPServer[Any]):
    """The SDK's server, plus unknown-parameter rejection and core errors turned into tool errors."""

    def __init__(self, binding: Binding) -> None:
        super().__init__(
            SERVER_KEY,
            version=__version__,
            instructions=(
                "Total Recall: the exact record of the coding-agent sessions on this machine. Every hit "
                "is an address (s7 a session, s7#12 an entry, s7#10-20 a range) that `read` opens word "
                "for word. "
                "`harness` shows what this server serves."
            ),
            log_level="WARNING",
        )
        self.binding = binding
        self._accepted: dict[str, tuple[str, ...]] = {}

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport, answering the frames it cannot read (`mcp_wire`)."""
        from total_recall.surfaces import mcp_wire

        await mcp_wire.serve(self._lowlevel_server)

    def read_only(self, fn: F) -> F:
        """Register `fn` as a read-only tool: its signature is the schema, its docstring the description."""
        return self.tool_with(READ_ONLY)(fn)

    def tool_with(self, annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register a tool with these annotations (for the tools that write to the record, or call out)."""

        def register(fn: F) -> F:
            params = inspect.signature(fn, eval_str=True).parameters
            # A Context parameter is filled in by the SDK, never by the caller.
            self._accepted[fn.__name__] = tuple(n for n, p in params.items() if not _is_context(p.annotation))
            self.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations,
                          structured_output=False)
            if (tool := self._tool_manager.get_tool(fn.__name__)) is not None:
                tool.parameters["additionalProperties"] = False
            return fn

        return register

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        # A refusal is a reply too: it stays within the call's max_bytes (values it echoes are cut short
        # where they are named; this is the last guard).
        bound = _error_bound(arguments)
        try:
            if (accepted := self._accepted.get(name)) is not None:
                # Checked before the SDK's argument model, which would silently drop an unknown name.
                reject_unknown(name, arguments, accepted)
        except TotalRecallError as exc:
            raise ToolError(_within(str(exc), bound)) from exc
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            if isinstance(exc.__cause__, TotalRecallError):
                message = str(exc.__cause__)  # the mining tools' errors already start with the tool's name
                message = named(name, message)
                raise ToolError(_within(message, bound)) from exc.__cause__
            # A defect of ours, not the caller's: still named, so the agent can say what failed (the SDK's
            # own text is only "Error executing tool X"), and its traceback goes to the server's log.
            cause = exc.__cause__ or exc
            log.error("%s failed unexpectedly", name, exc_info=cause)
            raise ToolError(_within(defect(name, cause, "the server's log holds its traceback"), bound)
                            ) from cause
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(_within(explain(by_name(name), exc.__cause__), bound)) from exc.__cause__
            raise ToolError(_within(str(exc), bound)) from exc


def _error_bound(arguments: dict[str, Any]) -> int:
    """The bytes a refusal may take: the call's max_bytes when it is a valid one, else the smallest
    default budget a tool has (a refusal never needs more)."""
    given = arguments.get("max_bytes")
    if isinstance(given, int) and not isinstance(given, bool) and MAX_BYTES_MIN <= given <= MAX_BYTES_CEILING:
        return given
    return REPORT_MAX_BYTES


def _within(message: str, bound: int) -> str:
    """`message`, cut to `bound` bytes (at a character boundary) with a note saying so when it is longer."""
    size = len(message.encode())
    if size <= bound:
        return message
    note = f"… (refusal cut to {bound} bytes of {size})"
    keep = message.encode()[:bound - len(note.encode())].decode(errors="ignore")
    return keep + note


def _is_context(annotation: Any) -> bool:
    return inspect.isclass(annotation) and issubclass(annotation, Context)


def build_server(binding: Binding, sync_state: SyncState | None = None) -> RecallServer:
    """The server with every tool registered; `sync_state` is what `harness` reports about the sync."""
    server = RecallServer(binding)
    syncing = sync_state or SyncState()

    for op in OPERATIONS:
        for name in (op.name, *op.aliases):
            server.tool_with(EFFECTS[op.effect])(_tool(op, name, binding, syncing))
    return server


# -- the operations as tools --

EFFECTS = {Effect.READS: READ_ONLY, Effect.ADDS: ADDS, Effect.CALLS_OUT: CALLS_OUT, Effect.DROPS: DROPS}


def _tool(op: Operation[Any], name: str, binding: Binding,
          syncing: SyncState) -> Callable[..., CallToolResult]:
    """`op` as a tool function: its signature (what the SDK builds the input schema from) is the parameter
    model's fields, each with its bounds and description. It publishes no output schema: a reply is the
    operation's JSON object (the README lists its keys), and `notes` when the call has any."""

    def tool(**given: Any) -> CallToolResult:
        serving = {"server": SERVER_KEY, "version": __version__, "sync": syncing.as_json()}
        call = Call(binding.record_path, "mcp", harness=binding.harness, demo=binding.demo, serving=serving)
        params = op.params.model_validate(given)
        got = op.perform(call, params)
        budget = getattr(params, "max_bytes", None)
        used = len(op.text(got).encode()) if op.text is not None else len(orjson.dumps(got))
        # (4: what notes may add to the digits of the reply's own `bytes`)
        notes = noted(op, call.notes, budget - used - 4 if isinstance(budget, int) else None)
        if op.text is not None:
            return reply_text(op.text(got), notes)
        return reply(_with_notes(got, notes))

    parameters = []
    for field_name, info in op.params.model_fields.items():
        described = Field(description=info.description, json_schema_extra=info.json_schema_extra)
        # The SDK's own argument model would coerce "yes" to true before the parameter model sees it.
        exact = BeforeValidator(partial(exact_type, info.annotation))
        annotation: Any = Annotated[(info.annotation, *info.metadata, exact, described)]
        default = (inspect.Parameter.empty if info.is_required()
                   else info.get_default(call_default_factory=True))
        parameters.append(inspect.Parameter(field_name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=annotation))
    tool.__signature__ = inspect.Signature(parameters,  # type: ignore[attr-defined]
                                           return_annotation=CallToolResult)
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = op.doc
    return tool


def serve(binding: Binding, sync: bool = True) -> None:
    """Serve over stdio until the client closes the stream.

    Raises:
        RecordError: the record file is not usable (before anything is served).
    """
    # Created and migrated once, here, so per-call opens and the sync thread never race on a new file.
    with Record(binding.record_path):
        pass
    syncing = SyncState()
    scope = f"bound to {binding.harness}" if binding.harness else "every harness"
    print(f"total-recall mcp {__version__}: serving {binding.record_path} ({scope}); "
          f"{'syncing in the background' if sync else 'no start-up sync'}", file=sys.stderr, flush=True)
    if sync:
        start_sync(binding, syncing)
    server = build_server(binding, syncing)
    _listen_for_pushes(binding)
    _stop_on_signals()
    try:
        server.run("stdio")  # returns when the client closes stdin
    except Exception as exc:  # the loop itself failed: say so in one line, never a traceback
        print(f"total-recall mcp: stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
        _exit_now(1)
    _exit_now(0)


def _listen_for_pushes(binding: Binding) -> None:
    """The push socket the per-prompt hook asks (assets/channel.py); a server that cannot make one serves
    on without it (the hook then pushes by words)."""
    from total_recall.assets.channel import Listener
    from total_recall.keeping.prompt import answerer

    home = binding.record_path.parent
    try:
        Listener(home, answerer(binding.record_path)).start()
    except OSError as exc:
        print(f"total-recall mcp: no push socket in {home}: {exc}", file=sys.stderr, flush=True)


def _exit_now(code: int) -> None:
    """End the process at once, skipping the interpreter's shutdown.

    The start-up sync may still be inside SQLite or onnxruntime in its thread, and an interpreter shutting
    down under it aborts ("terminate called without an active exception", exit -6). Ending outright is
    what a kill does to a sync, which the record is built for: every commit kept, the transaction under
    way rolled back on the next open.
    """
    from total_recall.assets.channel import close_all

    with suppress(Exception):
        close_all()  # the push socket: os._exit runs no other clean-up
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    os._exit(code)


def _stop_on_signals() -> None:
    """SIGTERM (a client or a supervisor stopping the server) ends it with 0, Ctrl-C with 130: quietly."""
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set handlers; a server run elsewhere keeps the defaults
    signal.signal(signal.SIGTERM, lambda *_: _exit_now(0))
    signal.signal(signal.SIGINT, lambda *_: _exit_now(130))
