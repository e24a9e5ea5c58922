"""The log-mining tools of seed 004 on the MCP server: thin typed wrappers over the mining core.

Each tool calls one core function with the caller's parameters and the server's harness; the core checks
its own parameters and returns exactly the reply — a dict sent by `reply` (whose `bytes` fields are
measured on `bounds.dump`, the very bytes sent) or flood-capped text sent by `reply_text`. The schemas
state every bound as minimum/maximum, from the constants of `mining/scope.py`. A bound server passes its
harness to every core call, and a session of another harness is refused as outside the binding.

The names are seed 004's, for clients that bind by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from total_recall.config import demo_roots
from total_recall.errors import OutsideBinding, ScopeError
from total_recall.mining import dialogue, extraction, histogram, listing, profile, todos
from total_recall.mining.indexing import INDEX_BUDGET_MAX, INDEX_TOOL, index_scope
from total_recall.mining.scope import (
    EXTRACT_MAX_BYTES,
    HOURS_MAX,
    HOURS_MIN,
    LIMIT_DEFAULT,
    MAX_BYTES_CEILING,
    MAX_BYTES_MIN,
    MAX_RECORD_BYTES_MIN,
    OFFSET_MIN,
    REPORT_MAX_BYTES,
    resolve_session,
)
from total_recall.mining.scoped_search import DREAM_LIMIT_DEFAULT, DREAM_TOOL, dream
from total_recall.model import NUMBER_MAX
from total_recall.record.store import Store
from total_recall.record.sync import DEFAULT_VECTOR_BUDGET
from total_recall.surfaces.mcp import Binding, Limit, RecallServer, reply, reply_text

# -- parameter types: the Field bounds are stated as minimum/maximum in each tool's schema --

SessionId = Annotated[str, Field(description=(
    "s7, a native session id, or a prefix or piece of one; empty: the most recently active session."))]
WindowSessionId = Annotated[str, Field(description=(
    "One session (s7, a native id or a piece of one) instead of a window; not with hours_back/all."))]
# The core rejects a window out of range itself, naming the cheap forms; the schema states the bounds.
HoursBack = Annotated[float, Field(
    json_schema_extra={"minimum": HOURS_MIN, "maximum": HOURS_MAX}, description=(
        f"Sessions active in the last N hours (at most {HOURS_MAX}, 100 years); 0 or omitted: the tool's "
        "default window, never unbounded."))]
Everything = Annotated[bool, Field(description="The whole record, on purpose; not with hours_back.")]
Folder = Annotated[str, Field(description="Only sessions whose working directory contains this.")]
ReplyBytes = Annotated[int, Field(ge=MAX_BYTES_MIN, le=MAX_BYTES_CEILING, description=(
    f"Reply budget in bytes ({MAX_BYTES_MIN}-{MAX_BYTES_CEILING}); what does not fit goes whole to a "
    "private file the reply names."))]
PageOffset = Annotated[int | None, Field(ge=OFFSET_MIN, le=NUMBER_MAX, description=(
    "First record, from 0; omitted: the most recent `limit` records. Page with bounds.next_offset."))]
RecordBytes = Annotated[int | None, Field(ge=MAX_RECORD_BYTES_MIN, le=MAX_BYTES_CEILING, description=(
    f"Clamp each record to this many bytes ({MAX_RECORD_BYTES_MIN}-{MAX_BYTES_CEILING}); omitted: no "
    "clamp."))]
EntryType = Literal["user", "assistant", "tool", "thinking", "meta", "all"]
LineNumber = Annotated[int | None, Field(ge=1, description="A line number, from 1.")]

Reply = dict[str, Any] | str


def register(server: RecallServer, binding: Binding) -> None:
    """Add the log-mining tools to `server`, each answering within `binding`."""

    def answer(tool: str, session_id: str, call: Callable[[Store, str | None], Reply]) -> CallToolResult:
        with binding.store() as store:
            try:
                got = call(store, binding.harness)
            except ScopeError as exc:
                refuse_outside(store, binding, tool, session_id, exc)
                raise
        return reply(got) if isinstance(got, dict) else reply_text(got)

    @server.read_only
    def list_sessions(
        hours_back: HoursBack = 0,
        all: Everything = False,
        directory: Folder = "",
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """The sessions active in a window, most recently active first, each with its address (s7) for
        `read`, `search` and the session tools: counts per author, children, last activity. Scope:
        hours_back (default 240), directory, or all=true on purpose. As many rows as max_bytes holds (at
        most 200); `window_count` is the window's size, `held_back` how many were not listed."""
        return answer("list_sessions", "", lambda store, harness: listing.list_sessions(
            store, hours_back=hours_back, all=all, directory=directory, harness=harness, max_bytes=max_bytes))

    @server.read_only
    def profile_session(session_id: SessionId = "", max_bytes: ReplyBytes = REPORT_MAX_BYTES
                        ) -> CallToolResult:
        """One session's shape: counts per author and kind, time span, and its interesting events with
        addresses — compactions, todo edits, git commit/push/tag, owner messages. Default: the most
        recent session."""
        return answer("profile_session", session_id, lambda store, harness: profile.profile_session(
            store, session_id=session_id, max_bytes=max_bytes, harness=harness))

    @server.read_only
    def extract_messages(
        session_id: SessionId = "",
        full: Annotated[bool, Field(description="From the session's start; default: from its last "
                                    "compaction.")] = False,
        limit: Limit = LIMIT_DEFAULT,
        offset: PageOffset = None,
        max_bytes: ReplyBytes = EXTRACT_MAX_BYTES,
        max_record_bytes: RecordBytes = None,
    ) -> CallToolResult:
        """One session's conversation (owner, agent, tools, harness) as one bounded page, each record
        with its address; default: the most recent session, from its last compaction. `bounds` say what
        was returned and cut, and the next_offset to page on."""
        return answer("extract_messages", session_id, lambda store, harness: extraction.extract_messages(
            store, session_id=session_id, full=full, limit=limit, offset=offset, max_bytes=max_bytes,
            max_record_bytes=max_record_bytes, harness=harness))

    @server.read_only
    def extract_user_messages(
        session_id: SessionId = "",
        limit: Limit = LIMIT_DEFAULT,
        offset: PageOffset = None,
        max_bytes: ReplyBytes = EXTRACT_MAX_BYTES,
        max_record_bytes: RecordBytes = None,
    ) -> CallToolResult:
        """The owner's own messages in one session (default: the most recent), as one bounded page with
        addresses; harness-injected messages are skipped and wrappers cut out (`wrapped`; `read` gives
        the verbatim entry)."""
        return answer("extract_user_messages", session_id, lambda store, harness:
                      extraction.extract_user_messages(
                          store, session_id=session_id, limit=limit, offset=offset, max_bytes=max_bytes,
                          max_record_bytes=max_record_bytes, harness=harness))

    @server.read_only
    def extract_by_type(
        session_id: SessionId = "",
        types: Annotated[tuple[EntryType, ...], Field(description="Which records; default: all.")] = (),
        full: Annotated[bool, Field(description="The whole session (default); false: from its last "
                                    "compaction.")] = True,
        include_injected: Annotated[bool, Field(description="Also harness-injected records.")] = False,
        raw: Annotated[bool, Field(description="Add the source record each entry was cut from.")] = False,
        limit: Limit = LIMIT_DEFAULT,
        offset: PageOffset = None,
        max_bytes: ReplyBytes = EXTRACT_MAX_BYTES,
        max_record_bytes: RecordBytes = None,
    ) -> CallToolResult:
        """One session's records (default: the most recent session) as `type,timestamp,json` lines for
        awk, jq and sort, after a `# {header}` line carrying the bounds; one record is always one line."""
        return answer("extract_by_type", session_id, lambda store, harness: extraction.extract_by_type(
            store, session_id=session_id, types=list(types) or None, full=full,
            include_injected=include_injected, raw=raw, limit=limit, offset=offset, max_bytes=max_bytes,
            max_record_bytes=max_record_bytes, harness=harness))

    @server.read_only
    def extract_qa_pairs(
        session_id: WindowSessionId = "",
        hours_back: HoursBack = 0,
        all: Everything = False,
        directory: Folder = "",
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Questions and their answers, both addresses on each pair: the owner's questions with the
        agent's reply, and question-tool prompts with what the owner picked. Scope: session_id, or
        hours_back (default 48), directory, or all=true on purpose."""
        return answer("extract_qa_pairs", session_id, lambda store, harness: dialogue.extract_qa_pairs(
            store, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
            harness=harness, max_bytes=max_bytes))

    @server.read_only
    def todo_history(
        session_id: SessionId = "",
        full: Annotated[bool, Field(description="The whole session (default); false: from its last "
                                    "compaction.")] = True,
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """One session's todo-list edits (default: the most recent session) — added, updated, removed, or
        the new status — one JSON line each with its address, from every harness's todo tool."""
        return answer("todo_history", session_id, lambda store, harness: todos.todo_history(
            store, session_id=session_id, full=full, max_bytes=max_bytes, harness=harness))

    @server.read_only
    def she_said_he_said_action(
        words: Annotated[list[Annotated[str, Field(max_length=dialogue.MAX_WORD_CHARS)]], Field(
            min_length=1, max_length=dialogue.MAX_WORDS, description=(
                f"Words to match (each at most {dialogue.MAX_WORD_CHARS} characters), case-insensitive; any "
                "of them matches."))],
        session_id: WindowSessionId = "",
        hours_back: HoursBack = 0,
        all: Everything = False,
        directory: Folder = "",
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Per session, what the owner said (HE SAID), the agent said (SHE SAID) and the tools did (THEY
        DID) mentioning any of `words`, with addresses and times. Scope: session_id, or hours_back
        (default 48), directory, or all=true on purpose."""
        return answer("she_said_he_said_action", session_id, lambda store, harness:
                      dialogue.she_said_he_said_action(
                          store, words=words, session_id=session_id, hours_back=hours_back, all=all,
                          directory=directory, harness=harness, max_bytes=max_bytes))

    @server.read_only
    def line_histogram(
        file_path: Annotated[str, Field(description="An overflow file a capped reply named (only the files "
                                        "of this record's overflow folder are read).")],
        mode: Annotated[Literal["histogram", "extract"], Field(description=(
            "histogram: where the bytes are by line range; extract: the lines line=N, or start=A to "
            "end=B."))] = "histogram",
        line: LineNumber = None,
        start: LineNumber = None,
        end: LineNumber = None,
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Where an overflow file's bytes are, by line range (ten buckets and its longest line), or some of
        its lines (1-based, inclusive). Reads only the overflow files capped replies wrote (the folder is
        named in the refusal of any other path)."""
        return reply_text(histogram.line_histogram(file_path, mode=mode, line=line, start=start, end=end,
                                                   max_bytes=max_bytes))

    @server.read_only
    def index_sessions(
        session_id: WindowSessionId = "",
        hours_back: HoursBack = 0,
        all: Everything = False,
        directory: Folder = "",
        budget_seconds: Annotated[float, Field(ge=0, le=INDEX_BUDGET_MAX, description=(
            f"Seconds to spend making meaning vectors (0-{INDEX_BUDGET_MAX:g}); 0: report only."))]
        = DEFAULT_VECTOR_BUDGET,
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Bring the indexes up to date: an incremental sync of the served harnesses (words and exact
        strings are indexed as entries arrive), then meaning vectors within budget_seconds; reports per
        session of the scope what is indexed and pending. Scope: session_id, or hours_back (default 24),
        directory, or all=true on purpose."""
        roots = demo_roots() if binding.demo else None
        return answer(INDEX_TOOL, session_id, lambda store, harness: index_scope(
            store, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
            harness=harness, budget_seconds=budget_seconds, max_bytes=max_bytes, roots=roots))

    @server.read_only
    def do_android_dream_of_electric_sheep(
        query: Annotated[str, Field(description="Words, an exact string (path, hash, error line) or a "
                                    "question.")],
        session_id: WindowSessionId = "",
        hours_back: HoursBack = 0,
        all: Everything = False,
        directory: Folder = "",
        limit: Limit = DREAM_LIMIT_DEFAULT,
        max_bytes: ReplyBytes = REPORT_MAX_BYTES,
    ) -> CallToolResult:
        """Search the sessions of a scope (words, exact strings, meaning), one hit a line:
        `address | score | timestamp | AUTHOR | snippet`, under a header naming the sessions searched.
        Scope: session_id, or hours_back (default 48), directory, or all=true on purpose."""
        return answer(DREAM_TOOL, session_id, lambda store, harness: dream(
            store, query=query, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
            harness=harness, limit=limit, max_bytes=max_bytes))


def refuse_outside(store: Store, binding: Binding, tool: str, session_id: str, exc: ScopeError) -> None:
    """Raise OutsideBinding when a call the core refused names a session of another harness than the
    server's: the core, asked within the harness, can only say it found no such session."""
    if binding.harness is None or not session_id.strip():
        return
    try:
        found = resolve_session(store, tool, session_id)
    except ScopeError:
        return
    if found.session.harness != binding.harness:
        raise OutsideBinding(f"{tool}: {found.address} is a {found.session.harness} session; this server is "
                             f"bound to {binding.harness}") from exc
