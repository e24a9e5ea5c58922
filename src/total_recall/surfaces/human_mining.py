"""How the CLI shows the mining operations' replies without --json (see surfaces/human.py).

The JSON replies (list, profile, extract, user-messages, index-sessions) are shown as tables and pages,
their notices on stderr in the CLI's words (`--hours 24`, not `hours_back=24`); the text operations (qa
pairs, he-said-she-said, dream, todo history, extract-by-type, line histogram) print seed 004's text, as
the MCP server answers it (`op.text`), so they have no rendering here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from total_recall.ops.operation import Reply

# A profile lists at most this many events without --json; the counts above them are complete.
EVENTS_LISTED = 40


def _note(op: str, message: str) -> None:
    """`message` (worded for MCP's parameters) on stderr, in the words of `op`'s command."""
    from total_recall.ops import by_name
    from total_recall.surfaces.words import in_cli_words

    click.echo(f"note: {in_cli_words(by_name(op), message)}", err=True)


def _list(reply: Reply, settings: Any) -> str:
    """The sessions of the window as `sessions` shows them, and on stderr what the window held."""
    from total_recall.surfaces.human import _sessions, counted

    rows = [{**r, "read_error": r.get("read_error")} for r in reply["sessions"]]
    table = _sessions({"sessions": rows}, settings)
    shown = f"{counted(reply['returned'], 'session')} of {reply['window_count']}"
    _note("list_sessions", f"{shown} in {reply['window']}: {reply['notice']}")
    return table


def _profile(reply: Reply, settings: Any) -> str:
    from total_recall.surfaces.human import counted

    title = f" · {reply['title']!r}" if reply["title"] else ""
    cwd = f" · {reply['cwd']}" if reply["cwd"] else ""
    parent = f" · child of {reply['parent']}" if reply["parent"] else ""
    lines = [f"{reply['session']} · {reply['harness']}{title}{cwd}{parent}",
             f"native id {reply['native_id']} · {reply['source']}"]
    by = ", ".join(f"{author} {n}" for author, n in reply["role_counts"].items())
    lines.append(f"{counted(reply['entries'], 'entry')}" + (f": {by}" if by else ""))
    if reply["first_ts"]:
        span = reply["span_seconds"] or 0
        lines.append(f"{reply['first_ts']} → {reply['last_ts']} ({_duration(span)}), last active "
                     f"{reply['last_active']}")
    for n, what in ((reply["quarantined"], "quarantined"), (reply["erased"], "erased")):
        if n:
            lines.append(f"{counted(n, 'entry')} {what}")
    if reply["read_error"]:
        lines.append(click.style(f"read error: {reply['read_error']}", fg="red"))
    counts = ", ".join(f"{kind} {n}" for kind, n in reply["event_counts"].items())
    lines.append(f"events: {counts or 'none'}")
    events = reply["interesting_events"]
    for e in events[-EVENTS_LISTED:]:
        when = (e["timestamp"] or "no time")[:19].replace("T", " ")
        lines.append(f"  {e['address']:<10} {e['event_type']:<11} {when:<19}  {e['summary']}")
    if len(events) > EVENTS_LISTED:
        click.echo(f"note: the last {EVENTS_LISTED} of {len(events)} events shown; --json lists them all",
                   err=True)
    if reply.get("held_back"):
        _note("profile_session", reply["notice"])
    return "\n".join(lines)


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"


def _page(op: str, key: str) -> Callable[[Reply, Any], str]:
    """A page of records as `read` shows entries: a line naming each, then its text; where the page was
    cut and how to go on, on stderr."""

    def render(reply: Reply, settings: Any) -> str:
        lines = []
        for r in reply[key]:
            flags = [str(f) for f in (r.get("tool"), r.get("injected") and "injected",
                                      r.get("branch") == "side" and "side branch",
                                      r.get("wrapped") and "wrappers cut out",
                                      "quarantined" in r and "quarantined",
                                      r.get("clamped") and f"clamped from {r['clamped']} bytes") if f]
            extra = f" · {' · '.join(flags)}" if flags else ""
            when = r.get("timestamp") or "no time"
            lines.append(f"── {r['address']} · {r['author']} · {r['kind']} · {when}{extra} ──")
            lines.append(r["text"])
        if reply.get("since"):
            click.echo(f"note: from the last compaction, {reply['since']} (--full for the whole session)",
                       err=True)
        bounds = reply["bounds"]
        if bounds["truncated"] or not reply[key]:
            _note(op, bounds["notice"])
        return "\n".join(lines)

    return render


def _index_sessions(reply: Reply, settings: Any) -> str:
    from total_recall.surfaces.human import counted

    lines = [f"{'session':<8} {'harness':<11} {'entries':>7} {'vectors':>7} {'pending':>7}  title"]
    for r in reply["sessions"]:
        lines.append(f"{r['session']:<8} {r['harness']:<11} {r['entries']:>7} {r['vectors']:>7} "
                     f"{r['pending']:>7}  {' '.join((r['title'] or '').split())[:60]}")
    synced = reply["sync"]
    click.echo(f"synced: {counted(synced['entries_added'], 'entry')} added from "
               f"{counted(synced['sources_read'], 'source')} read ({synced['sources_unchanged']} unchanged)",
               err=True)
    for error in synced["errors"]:
        click.echo(f"error: {error}", err=True)
    _note("index_sessions", f"{reply['scope']}: {reply['notice']}")
    return "\n".join(lines) if reply["sessions"] else ""


RENDERINGS: dict[str, Callable[[Reply, Any], str]] = {
    "list_sessions": _list,
    "profile_session": _profile,
    "extract_messages": _page("extract_messages", "messages"),
    "extract_user_messages": _page("extract_user_messages", "user_messages"),
    "index_sessions": _index_sessions,
}
