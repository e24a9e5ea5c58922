"""The mining operations: seed 004's log-mining tools, their names and parameters kept for the clients
that bind by them.

Session tools (profile, extract, user-messages, extract-by-type, todo-history) name one session as every
operation does (`Call.session`: s7, its own id or a piece of it; empty: the most recently active), within
the binding. Window tools (list, qa-pairs, he-said-she-said, index-sessions, dream) work on the sessions
active in the last `hours_back` hours — by default the last `PERIOD_HOURS` (240), the same for every one —
narrowed by `directory`, or the whole record with `all`, or one `session_id` instead (the scope contract,
`mining/scope.py`). Where seed 004 answered text (qa pairs, he-said-she-said, dream, todo history,
extract-by-type, line histogram), the reply is the data and `text` writes seed 004's text from it, flood
capped at `max_bytes` with the whole in an overflow file; the CLI's `--json` prints the data whole.

What a reply says of itself (its scope, how to widen it, a report's header) names the tool and its
parameters as the surface that called does (`spelling`): `--hours N` on the CLI, `hours_back=N` over MCP.
On the bundled demo's record a window counts back from the demo's newest entry, not from now: its sessions
are fixed in time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from total_recall.mining import dialogue, extraction, histogram, listing, profile, scoped_search, todos
from total_recall.mining.indexing import INDEX_BUDGET_MAX, INDEX_TOOL, index_scope
from total_recall.mining.scope import LIMIT_DEFAULT, MCP, Selection, Spelling, check_period, demo_until
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import (
    EXTRACT_MAX_BYTES,
    PATH_MAX,
    PERIOD_HOURS,
    PRINTABLE,
    REPORT_MAX_BYTES,
    Directory,
    Everything,
    HoursBack,
    Limit,
    PageOffset,
    RecordBytes,
    ReplyBytes,
    SessionName,
    WindowSession,
)
from total_recall.record.database import Record
from total_recall.record.sync import DEFAULT_VECTOR_BUDGET

EntryType = Literal["user", "assistant", "tool", "thinking", "meta", "all"]
EntryTypes = Annotated[tuple[EntryType, ...], Field(description="Which records; default: all.")]
Whole = Annotated[bool, Field(description="The whole session (default); false: from its last compaction.")]
LineNumber = Annotated[int | None, Field(ge=1, description="A line number, from 1.")]
Word = Annotated[str, Field(max_length=dialogue.MAX_WORD_CHARS)]
_SCOPE = (f"Scope: one session, or the sessions active in the last N hours (default: the last {PERIOD_HOURS} "
          "hours), narrowed to a directory, or the whole record on purpose.")
_WINDOW_FLAGS = {"session_id": "session", "hours_back": "hours"}


def spelling(call: Call, op: Operation[Any]) -> Spelling:
    """How the surface that called names `op` and its parameters in a reply's own words: the CLI's command
    and flags on the CLI, MCP's names over MCP."""
    if call.surface != "cli":
        return MCP
    return Spelling({op.name: op.command, **{p: op.flag(p) for p in op.params.model_fields}})


def _spelling(call: Call, name: str) -> Spelling:
    return spelling(call, next(op for op in OPERATIONS if op.name == name))


def _scope(call: Call, record: Record, op: str, session_id: str, hours_back: float, everything: bool,
           directory: str) -> Selection:
    """The sessions a window operation works on: the one `session_id` names (within the binding), or
    those of the window (counted back from the demo's newest entry on the demo's record).

    Raises:
        ScopeError: a session with a window, or a session_id that matches no session or several.
        OutsideBinding: the session belongs to another harness than the bound one.
    """
    window = check_period(op, hours_back=hours_back, all=everything, directory=directory,
                          session_id=session_id, takes_session=True,
                          until=demo_until(record) if call.demo else None)
    spelled = _spelling(call, op)
    if window is None:
        return Selection.one(record, call.session(record, op, session_id), session_id, spelled)
    return Selection.of(record, window, call.harness, spelled)


# -- list_sessions --


class ListParams(Params):
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def list_sessions(call: Call, p: ListParams) -> Reply:
    with call.record() as record:
        listed = listing.list_sessions(record, hours_back=p.hours_back, all=p.all, directory=p.directory,
                                       harness=call.harness, max_bytes=p.max_bytes, demo=call.demo,
                                       spelling=_spelling(call, "list_sessions"))
        if not listed["window_count"] and not record.holds_sessions():
            from total_recall.ops.record import empty_record

            call.notes.append(empty_record(call))
    return listed


# -- the session tools --


class ProfileParams(Params):
    session_id: SessionName = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def profile_session(call: Call, p: ProfileParams) -> Reply:
    with call.record() as record:
        session = call.session(record, "profile_session", p.session_id)
        return profile.profile_session(record, session, max_bytes=p.max_bytes)


class PageParams(Params):
    """A session's records, one bounded page at a time (the extraction operations)."""

    session_id: SessionName = ""
    limit: Limit = LIMIT_DEFAULT
    offset: PageOffset = None
    max_bytes: ReplyBytes = EXTRACT_MAX_BYTES
    max_record_bytes: RecordBytes = None


class ExtractParams(PageParams):
    full: Annotated[bool, Field(description=(
        "From the session's start; default: from its last compaction."))] = False


def extract_messages(call: Call, p: ExtractParams) -> Reply:
    with call.record() as record:
        session = call.session(record, "extract_messages", p.session_id)
        return extraction.extract_messages(record, session, full=p.full, limit=p.limit, offset=p.offset,
                                           max_bytes=p.max_bytes, max_record_bytes=p.max_record_bytes)


class UserMessagesParams(PageParams):
    pass


def extract_user_messages(call: Call, p: UserMessagesParams) -> Reply:
    with call.record() as record:
        session = call.session(record, "extract_user_messages", p.session_id)
        return extraction.extract_user_messages(record, session, limit=p.limit, offset=p.offset,
                                                max_bytes=p.max_bytes, max_record_bytes=p.max_record_bytes)


class ByTypeParams(PageParams):
    types: EntryTypes = ()
    full: Whole = True
    include_injected: Annotated[bool, Field(description="Also harness-injected records.")] = False
    raw: Annotated[bool, Field(description="Add the source record each entry was cut from.")] = False


def extract_by_type(call: Call, p: ByTypeParams) -> Reply:
    with call.record() as record:
        session = call.session(record, "extract_by_type", p.session_id)
        return extraction.extract_by_type(record, session, types=p.types, full=p.full,
                                          include_injected=p.include_injected, raw=p.raw, limit=p.limit,
                                          offset=p.offset, max_bytes=p.max_bytes,
                                          max_record_bytes=p.max_record_bytes)


class TodoParams(Params):
    session_id: SessionName = ""
    full: Whole = True
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def todo_history(call: Call, p: TodoParams) -> Reply:
    with call.record() as record:
        session = call.session(record, todos.TODO_TOOL, p.session_id)
        return todos.todo_history(record, session, full=p.full, max_bytes=p.max_bytes)


# -- the window tools --


class QAParams(Params):
    session_id: WindowSession = ""
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def extract_qa_pairs(call: Call, p: QAParams) -> Reply:
    with call.record() as record:
        scope = _scope(call, record, dialogue.QA_TOOL, p.session_id, p.hours_back, p.all, p.directory)
        return dialogue.extract_qa_pairs(record, scope, max_bytes=p.max_bytes)


class SaidParams(Params):
    words: Annotated[list[Word], Field(min_length=1, max_length=dialogue.MAX_WORDS, description=(
        f"Words to match (each at most {dialogue.MAX_WORD_CHARS} characters), whole words, case-insensitive "
        "('tag' is not in 'staging'; a phrase matches as written); any of them matches."))]
    session_id: WindowSession = ""
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def she_said_he_said_action(call: Call, p: SaidParams) -> Reply:
    with call.record() as record:
        scope = _scope(call, record, dialogue.SAID_TOOL, p.session_id, p.hours_back, p.all, p.directory)
        return dialogue.she_said_he_said_action(record, p.words, scope, max_bytes=p.max_bytes,
                                                spelling=_spelling(call, dialogue.SAID_TOOL))


class IndexSessionsParams(Params):
    session_id: WindowSession = ""
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""
    budget_seconds: Annotated[float, Field(ge=0, le=INDEX_BUDGET_MAX, description=(
        f"Seconds to spend making meaning vectors (0-{INDEX_BUDGET_MAX:g}); 0: report only."))] = (
        DEFAULT_VECTOR_BUDGET)
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def index_sessions(call: Call, p: IndexSessionsParams) -> Reply:
    with call.record() as record:
        # The scope, and the session against the binding, are checked before the sync does any work.
        if check_period(INDEX_TOOL, hours_back=p.hours_back, all=p.all, directory=p.directory,
                        session_id=p.session_id, takes_session=True) is None:
            call.session(record, INDEX_TOOL, p.session_id)
        return index_scope(record, session_id=p.session_id, hours_back=p.hours_back, all=p.all,
                           directory=p.directory, harness=call.harness, budget_seconds=p.budget_seconds,
                           max_bytes=p.max_bytes, roots=call.roots, demo=call.demo,
                           spelling=_spelling(call, INDEX_TOOL))


class DreamParams(Params):
    query: Annotated[str, Field(max_length=10_000, description=(
        "Words, an exact string (path, hash, error line) or a question."))]
    session_id: WindowSession = ""
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""
    limit: Limit = scoped_search.DREAM_LIMIT_DEFAULT
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def dream(call: Call, p: DreamParams) -> Reply:
    scoped_search.check_query(p.query)
    with call.record() as record:
        scope = _scope(call, record, scoped_search.DREAM_TOOL, p.session_id, p.hours_back, p.all, p.directory)
        return scoped_search.dream(record, p.query, scope, harness=call.harness, limit=p.limit,
                                   max_bytes=p.max_bytes, spelling=_spelling(call, scoped_search.DREAM_TOOL))


# -- line_histogram --


class HistogramParams(Params):
    file_path: Annotated[str, Field(max_length=PATH_MAX, description=(
        "An overflow file a capped reply named (only the files of this record's overflow folder are "
        "read).")), PRINTABLE]
    mode: Annotated[Literal["histogram", "extract"], Field(description=(
        "histogram: where the bytes are by line range; extract: the lines line=N, or start=A to end=B."))] = (
        "histogram")
    line: LineNumber = None
    start: LineNumber = None
    end: LineNumber = None
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def line_histogram(call: Call, p: HistogramParams) -> Reply:
    return histogram.line_histogram(p.file_path, mode=p.mode, line=p.line, start=p.start, end=p.end,
                                    max_bytes=p.max_bytes)


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "list_sessions", "mining", Effect.READS, ListParams, list_sessions, cli="list",
        flags={"hours_back": "hours"}, example="total-recall list --hours 48 --directory webshop",
        doc="The sessions active in a window, most recently active first, each with its address (s7) for "
            "`read`, `search` and the session tools: counts per author, children, last activity. Scope: the "
            f"sessions active in the last N hours (default: the last {PERIOD_HOURS} hours), narrowed to a "
            "directory, or the whole record on purpose. As many rows as max_bytes holds (at most 200); "
            "`window_count` is the window's size, `held_back` how many were not listed."),
    Operation(
        "profile_session", "mining", Effect.READS, ProfileParams, profile_session, cli="profile",
        argument=("session_id",), example="total-recall profile s3",
        doc="One session's shape: counts per author and kind, time span, and its interesting events with "
            "addresses — compactions, todo edits, git commit/push/tag, owner messages. Default: the most "
            "recent session."),
    Operation(
        "extract_messages", "mining", Effect.READS, ExtractParams, extract_messages, cli="extract",
        argument=("session_id",), example="total-recall extract s3 --full --limit 50",
        doc="One session's conversation (owner, agent, tools, harness) as one bounded page, each record "
            "with its address; default: the most recent session, from its last compaction. `bounds` say "
            "what was returned and cut, and the next_offset to page on."),
    Operation(
        "extract_user_messages", "mining", Effect.READS, UserMessagesParams, extract_user_messages,
        cli="user-messages", argument=("session_id",), example="total-recall user-messages s3",
        doc="The owner's own messages in one session (default: the most recent), as one bounded page with "
            "addresses; harness-injected messages are skipped and wrappers cut out (`wrapped`; `read` "
            "gives the verbatim entry)."),
    Operation(
        "extract_by_type", "mining", Effect.READS, ByTypeParams, extract_by_type, argument=("session_id",),
        flags={"types": "type"}, text=extraction.by_type_text,
        example="total-recall extract-by-type s3 --type tool --raw | cut -d, -f1 | sort | uniq -c",
        doc="One session's records (default: the most recent session) as `type,timestamp,json` lines for "
            "awk, jq and sort, after a `# {header}` line carrying the bounds; one record is always one "
            "line."),
    Operation(
        "todo_history", "mining", Effect.READS, TodoParams, todo_history, argument=("session_id",),
        text=todos.todo_text, example="total-recall todo-history s3 --no-full",
        doc="One session's todo-list edits (default: the most recent session) — added, updated, removed, "
            "or the new status — one JSON line each with its address, from every harness's todo tool."),
    Operation(
        "extract_qa_pairs", "mining", Effect.READS, QAParams, extract_qa_pairs, cli="qa-pairs",
        flags=_WINDOW_FLAGS, text=dialogue.qa_text, example="total-recall qa-pairs --hours 48",
        doc="Questions and their answers, both addresses on each pair: the owner's questions with the "
            f"agent's reply, and question-tool prompts with what the owner picked. {_SCOPE}"),
    Operation(
        "she_said_he_said_action", "mining", Effect.READS, SaidParams, she_said_he_said_action,
        cli="he-said-she-said", flags=_WINDOW_FLAGS, text=dialogue.said_text,
        example="total-recall he-said-she-said --words database,restart --all",
        doc="Per session, what the owner said (HE SAID), the agent said (SHE SAID) and the tools did (THEY "
            f"DID) mentioning any of `words`, with addresses and times. {_SCOPE}"),
    Operation(
        "line_histogram", "mining", Effect.READS, HistogramParams, line_histogram, binds=False,
        argument=("file_path",),
        text=histogram.histogram_text,
        example="total-recall line-histogram FILE --mode extract --start 1 --end 200",
        doc="Where an overflow file's bytes are, by line range (ten buckets and its longest line), or some "
            "of its lines (1-based, inclusive). Reads only the overflow files capped replies wrote (the "
            "folder is named in the refusal of any other path)."),
    Operation(
        INDEX_TOOL, "mining", Effect.ADDS, IndexSessionsParams, index_sessions, creates=True,
        flags={**_WINDOW_FLAGS, "budget_seconds": "budget"},
        example="total-recall index-sessions --budget 60",
        doc="Bring the indexes up to date: an incremental sync of the served harnesses (words and exact "
            "strings are indexed as entries arrive), then meaning vectors within budget_seconds; reports "
            f"per session of the scope what is indexed and pending. {_SCOPE}"),
    Operation(
        scoped_search.DREAM_TOOL, "mining", Effect.READS, DreamParams, dream, cli="dream",
        argument=("query",), flags=_WINDOW_FLAGS, text=scoped_search.dream_text,
        example="total-recall dream 'connection refused' --hours 48",
        doc="Search the sessions of a scope (words, exact strings, meaning), one hit a line: `address | "
            "score | timestamp | AUTHOR | snippet`, under a header naming the sessions searched. "
            f"{_SCOPE}"),
)
