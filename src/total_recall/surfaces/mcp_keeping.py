"""The keeping tools on the MCP server: compact, markers, cue, receipts — thin wrappers over `keeping/`.

A session is named the way every session tool names it (`mining/scope.py`: s7, a native id or a piece of
one; empty: the most recently active session), within the server's binding. `compact` and `cue` add to the
record's derived tables (a marker with its receipt, a cue) and never change an entry; `receipts` only
reads (the receipts of Codex compactions are written at sync).
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from total_recall.keeping.compaction import account
from total_recall.keeping.compaction import compact as compact_range
from total_recall.keeping.cues import MAX_CUE_CHARS, leave_cue
from total_recall.keeping.marker import markers_for
from total_recall.keeping.tail import DEFAULT_KEEP_EXCHANGES
from total_recall.mining.flood import fit_json
from total_recall.mining.scope import REPORT_MAX_BYTES, resolve_session
from total_recall.model import Address
from total_recall.surfaces.mcp import ADDS, READ_ONLY, Binding, MaxBytes, RecallServer, reply
from total_recall.surfaces.wire import account_json, compaction_json, cue_json, stored_marker_json

SessionId = Annotated[str, Field(description=(
    "s7, a native session id, or a prefix or piece of one; empty: the most recently active session."))]
MARKER_BUDGET_MAX = 100_000


def register(server: RecallServer, binding: Binding) -> None:
    """Add the keeping tools to `server`, each answering within `binding`."""

    @server.tool_with(ADDS)
    def compact(
        budget: Annotated[int, Field(ge=1, le=MARKER_BUDGET_MAX, description=(
            "Tokens for the whole marker (an estimate calibrated on cl100k; treat it as ±20%)."))],
        session_id: SessionId = "",
        range: Annotated[str, Field(description=(
            "The range to compact (s7#10-200), inside the session; empty: everything before the verbatim "
            "tail of the last keep_exchanges whole exchanges."))] = "",
        bo: Annotated[int | None, Field(ge=0, le=MARKER_BUDGET_MAX, description=(
            "Tokens for the owner's instructions (default: half the budget); when they overflow, the "
            "oldest become pointers, then one directory line, and a notice says so."))] = None,
        keep_exchanges: Annotated[int, Field(ge=0, le=1000, description=(
            "Whole exchanges (an owner message and all that follows it) kept verbatim after the range."))]
        = DEFAULT_KEEP_EXCHANGES,
    ) -> CallToolResult:
        """Compact a range of a session into a verified marker built from the record: the owner's
        instructions word for word, the exact strings (paths, hashes, error lines, commands, URLs) and one
        line per decision, failure or open item, each with the address `read` opens. Stores the marker and
        its receipt; never changes an entry."""
        with binding.store() as store:
            number = resolve_session(store, "compact", session_id, binding.harness).session.number
            span = Address.parse(range) if range else None
            return reply(compaction_json(compact_range(store, number, budget=budget, span=span, bo=bo,
                                                       keep_exchanges=keep_exchanges, controller="mcp")))

    @server.read_only
    def markers(session_id: SessionId = "", max_bytes: MaxBytes = REPORT_MAX_BYTES) -> CallToolResult:
        """The markers stored for a session, newest last, each with its range, quotes and addresses (a
        withdrawn one says why, never its words)."""
        with binding.store() as store:
            found = resolve_session(store, "markers", session_id, binding.harness)
            stored = markers_for(store, found.session.number, include_withdrawn=True)
            whole = {"session": found.address, "markers": [stored_marker_json(m) for m in stored]}
            return reply(fit_json("markers", found.address, whole, "markers", max_bytes))

    @server.tool_with(ADDS)
    def cue(
        text: Annotated[str, Field(min_length=1, max_length=MAX_CUE_CHARS, description=(
            "One present-tense line for your future self: what this thread is and when to come back to "
            "it (not a summary: the record holds the content)."))],
        session_id: SessionId = "",
    ) -> CallToolResult:
        """Leave a recall cue for a session, covering it up to its newest entry. Compaction keeps the newest
        cue in place of the mechanical decision/failure/open lines it covers; the owner's instructions
        and the exact strings are kept regardless."""
        with binding.store() as store:
            number = resolve_session(store, "cue", session_id, binding.harness).session.number
            return reply(cue_json(leave_cue(store, number, text)))

    @server.tool_with(READ_ONLY)
    def receipts(
        session_id: Annotated[str, Field(description=(
            "One session (s7, a native id or a piece of one); empty: every session."))] = "",
        max_bytes: MaxBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Every compaction and every decision not to compact has a receipt (controller, trigger, range,
        tokens before/after, marker, and whether its input is known or only sent); `unreceipted` lists the
        compactions seen in harness stores that no receipt accounts for — the alarm."""
        with binding.store() as store:
            number = (resolve_session(store, "receipts", session_id, binding.harness).session.number
                      if session_id.strip() else None)
            whole = account_json(account(store, number, binding.harness))
            return reply(fit_json("receipts", session_id or "all", whole, "receipts", max_bytes))
