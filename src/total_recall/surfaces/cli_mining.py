"""CLI commands over the log-mining tools (seed 004): the same core functions the MCP tools call.

Registered on the `cli` group by importing this module (surfaces/cli.py does, once). Each command opens
the record, calls one core function with the flags as its keyword parameters, and prints the reply: JSON
(indented) where the reply is JSON, the text itself where the tool is line-oriented. Bounds and scope are
the core's: a rejected call exits 2 with the core's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from total_recall.errors import TotalRecallError
from total_recall.mining.scope import HOURS_MAX
from total_recall.model import HARNESSES
from total_recall.surfaces.cli import Settings, _dump, _fail, _store, cli

_harness = click.option("--harness", type=click.Choice(HARNESSES), default=None,
                        help="Only sessions of this harness.")
_max_bytes = click.option("--max-bytes", type=int, default=None,
                          help="The reply's byte budget (1024 to 8 MiB; default: the tool's).")
_session_arg = click.argument("session", required=False)


def _window(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--directory", default=None, help="Only sessions whose folder contains this.")(func)
    func = click.option("--all", "everything", is_flag=True,
                        help="The whole record, on purpose (not with --hours).")(func)
    # The flag states the core's bound, so a window too wide is refused naming --hours.
    return click.option("--hours", type=click.FloatRange(0, HOURS_MAX), default=None,
                        help=f"Sessions active in the last N hours, 0–{HOURS_MAX} (0 or omitted: the tool's "
                             "default).")(func)


def _paging(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--max-record-bytes", type=int, default=None,
                        help="Clamp each record to this many bytes (default: no clamp).")(func)
    func = click.option("--max-bytes", type=int, default=None,
                        help="The reply's byte budget (1024 to 8 MiB; default 131072).")(func)
    func = click.option("--offset", type=int, default=None,
                        help="First record, from 0 (default: the most recent --limit records).")(func)
    return click.option("--limit", type=int, default=None,
                        help="Records per page (1–1000; default 100).")(func)


def _text(reply: str) -> None:
    click.echo(reply, nl=not reply.endswith("\n"))


@cli.command("list")
@_window
@_harness
@_max_bytes
@click.pass_obj
def list_command(settings: Settings, hours: float | None, everything: bool, directory: str | None,
                 harness: str | None, max_bytes: int | None) -> None:
    """The sessions active in a window, most recent first (default: the last 240 hours), as many rows as
    --max-bytes holds, with the window's count and how many were held back."""
    from total_recall.mining.listing import list_sessions

    with _store(settings) as store:
        _dump(list_sessions(store, hours_back=hours, all=everything, directory=directory, harness=harness,
                            max_bytes=max_bytes))


@cli.command("profile")
@_session_arg
@_harness
@_max_bytes
@click.pass_obj
def profile_command(settings: Settings, session: str | None, harness: str | None,
                    max_bytes: int | None) -> None:
    """SESSION's profile (s3, a native id or a piece of one; default: the most recent session): counts,
    time span, and its compactions, todo edits, git commit/push/tag and owner messages, with addresses."""
    from total_recall.mining.profile import profile_session

    with _store(settings) as store:
        _dump(profile_session(store, session_id=session, harness=harness, max_bytes=max_bytes))


@cli.command("extract")
@_session_arg
@click.option("--full", is_flag=True, help="From the session's start (default: from its last compaction).")
@_paging
@_harness
@click.pass_obj
def extract_command(settings: Settings, session: str | None, full: bool, limit: int | None,
                    offset: int | None, max_bytes: int | None, max_record_bytes: int | None,
                    harness: str | None) -> None:
    """SESSION's messages as one bounded page (a JSON envelope whose `bounds` say what was cut and where
    the next page starts)."""
    from total_recall.mining.extraction import extract_messages

    with _store(settings) as store:
        _dump(extract_messages(store, session_id=session, full=full, limit=limit, offset=offset,
                               max_bytes=max_bytes, max_record_bytes=max_record_bytes, harness=harness))


@cli.command("user-messages")
@_session_arg
@_paging
@_harness
@click.pass_obj
def user_messages_command(settings: Settings, session: str | None, limit: int | None, offset: int | None,
                          max_bytes: int | None, max_record_bytes: int | None, harness: str | None) -> None:
    """The owner's own messages in SESSION (harness-injected ones skipped), as one bounded page."""
    from total_recall.mining.extraction import extract_user_messages

    with _store(settings) as store:
        _dump(extract_user_messages(store, session_id=session, limit=limit, offset=offset,
                                    max_bytes=max_bytes, max_record_bytes=max_record_bytes, harness=harness))


@cli.command("extract-by-type")
@_session_arg
@click.option("--type", "types", multiple=True,
              type=click.Choice(("user", "assistant", "tool", "thinking", "meta", "all")),
              help="Repeatable; default: all.")
@click.option("--since-compaction", is_flag=True, help="Only from the last compaction on (default: whole).")
@click.option("--include-injected", is_flag=True, help="Also harness-injected records.")
@click.option("--raw", is_flag=True, help="Add the source record each entry was cut from.")
@_paging
@_harness
@click.pass_obj
def extract_by_type_command(settings: Settings, session: str | None, types: tuple[str, ...],
                            since_compaction: bool, include_injected: bool, raw: bool, limit: int | None,
                            offset: int | None, max_bytes: int | None, max_record_bytes: int | None,
                            harness: str | None) -> None:
    """SESSION's entries as `type,timestamp,json` lines after a `# {header}` line, for awk, jq and sort."""
    from total_recall.mining.extraction import extract_by_type

    with _store(settings) as store:
        _text(extract_by_type(store, session_id=session, types=list(types) or None, full=not since_compaction,
                              include_injected=include_injected, raw=raw, limit=limit, offset=offset,
                              max_bytes=max_bytes, max_record_bytes=max_record_bytes, harness=harness))


@cli.command("todo-history")
@_session_arg
@click.option("--no-full", is_flag=True, help="Only from the last compaction on (default: whole session).")
@_harness
@_max_bytes
@click.pass_obj
def todo_history_command(settings: Settings, session: str | None, no_full: bool, harness: str | None,
                         max_bytes: int | None) -> None:
    """SESSION's todo-list edits, one JSON object per line, in every harness's spelling of the todo tool."""
    from total_recall.mining.todos import todo_history

    with _store(settings) as store:
        _text(todo_history(store, session_id=session, full=not no_full, harness=harness, max_bytes=max_bytes))


@cli.command("he-said-she-said")
@click.option("--words", default=None, help="Comma-separated words to match (case-insensitive).")
@click.option("--session", default=None, help="One session (s3, or a native id) instead of a window.")
@_window
@_harness
@_max_bytes
@click.pass_obj
def he_said_she_said_command(settings: Settings, words: str | None, session: str | None, hours: float | None,
                             everything: bool, directory: str | None, harness: str | None,
                             max_bytes: int | None) -> None:
    """HE SAID (owner), SHE SAID (agent) and THEY DID (tool calls) mentioning any of --words, per session
    (default window: the last 48 hours)."""
    from total_recall.mining.dialogue import she_said_he_said_action

    with _store(settings) as store:
        _text(she_said_he_said_action(store, words=words, session_id=session, hours_back=hours,
                                      all=everything, directory=directory, harness=harness,
                                      max_bytes=max_bytes))


@cli.command("qa-pairs")
@click.option("--session", default=None, help="One session (s3, or a native id) instead of a window.")
@_window
@_harness
@_max_bytes
@click.pass_obj
def qa_pairs_command(settings: Settings, session: str | None, hours: float | None, everything: bool,
                     directory: str | None, harness: str | None, max_bytes: int | None) -> None:
    """Questions and their answers with both addresses: the owner's questions and the agent's replies, and
    question-tool prompts and the owner's picks (default window: the last 48 hours)."""
    from total_recall.mining.dialogue import extract_qa_pairs

    with _store(settings) as store:
        _text(extract_qa_pairs(store, session_id=session, hours_back=hours, all=everything,
                               directory=directory, harness=harness, max_bytes=max_bytes))


@cli.command("line-histogram")
@click.argument("file", type=str)
@click.option("--extract", is_flag=True, help="Print lines instead of the histogram.")
@click.option("--line", type=int, default=None, help="With --extract: this line (1-based).")
@click.option("--start", type=int, default=None, help="With --extract: from this line (1-based)…")
@click.option("--end", type=int, default=None, help="…to this line, inclusive.")
@_max_bytes
def line_histogram_command(file: str, extract: bool, line: int | None, start: int | None, end: int | None,
                           max_bytes: int | None) -> None:
    """Where FILE's bytes are, by line range (ten buckets, and its longest line), or --extract some lines.
    Made for the overflow files of capped replies; works on any large dump."""
    from total_recall.mining.histogram import line_histogram

    mode = "extract" if extract else None
    try:
        _text(line_histogram(file, mode=mode, line=line, start=start, end=end, max_bytes=max_bytes))
    except TotalRecallError as exc:
        _fail(str(exc))


@cli.command("index-sessions")
@click.option("--session", default=None, help="One session (s3, or a native id) instead of a window.")
@_window
@_harness
@click.option("--budget", type=float, default=None,
              help="Seconds to spend making meaning vectors (0–600; 0: report only; default 20).")
@_max_bytes
@click.pass_obj
def index_sessions_command(settings: Settings, session: str | None, hours: float | None, everything: bool,
                           directory: str | None, harness: str | None, budget: float | None,
                           max_bytes: int | None) -> None:
    """Bring the indexes up to date (an incremental sync, then meaning vectors within --budget) and report
    per session of the scope what is indexed and pending (default window: the last 24 hours)."""
    from total_recall.config import demo_roots
    from total_recall.mining.indexing import index_scope

    with _store(settings, creates=True) as store:  # it syncs: a new record is what it fills
        _dump(index_scope(store, session_id=session, hours_back=hours, all=everything, directory=directory,
                          harness=harness, budget_seconds=budget, max_bytes=max_bytes,
                          roots=demo_roots() if settings.demo else None))


@cli.command("dream")
@click.argument("query")
@click.option("--session", default=None, help="One session (s3, or a native id) instead of a window.")
@_window
@_harness
@click.option("--limit", type=int, default=None, help="Hits at most (1–1000; default 10).")
@_max_bytes
@click.pass_obj
def dream_command(settings: Settings, query: str, session: str | None, hours: float | None,
                  everything: bool, directory: str | None, harness: str | None, limit: int | None,
                  max_bytes: int | None) -> None:
    """Search the sessions of a scope, one hit a line: address | score | timestamp | AUTHOR | snippet
    (MCP: do_android_dream_of_electric_sheep; default window: the last 48 hours)."""
    from total_recall.mining.scoped_search import dream

    with _store(settings) as store:
        _text(dream(store, query=query, session_id=session, hours_back=hours, all=everything,
                    directory=directory, harness=harness, limit=limit, max_bytes=max_bytes))
