"""A session's profile: its shape in counts and time, and its interesting events with their addresses —
compactions, todo edits, git commits, pushes and tags the agent ran, and what the owner said.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from total_recall.mining.flood import fit_json
from total_recall.mining.scope import REPORT_MAX_BYTES, check_max_bytes, iso, parse_time, scoped
from total_recall.mining.timeline import load, one_line, owner_words, snip
from total_recall.mining.todos import todo_calls
from total_recall.model import Entry, Session
from total_recall.record.database import Record

EVENT_TYPES = ("Compaction", "TodoCreate", "TodoUpdate", "TodoDelete", "GitCommit", "GitPush", "GitTag",
               "UserMessage")
SUMMARY_CHARS = 200
# `git` at a command's start (after ; && | ( or a newline), its global options, then the subcommand.
_GIT = re.compile(
    r"(?:^|[;&|(\n]\s*|\s)git(?:\s+(?:-C\s+\S+|-c\s+\S+|--[\w-]+(?:=\S+)?|-[pP]))*\s+(commit|push|tag)\b"
)
SHELL_TOOLS = ("bash", "shell", "exec_command", "run_command", "terminal", "run_shell_command", "sh")
_GIT_EVENT = {"commit": "GitCommit", "push": "GitPush", "tag": "GitTag"}


@dataclass(frozen=True, slots=True)
class Event:
    entry: Entry
    event_type: str
    summary: str


def command_text(e: Entry) -> str | None:
    """The shell command a tool call ran (`command`/`cmd`/`script`, a string or an argv list); None
    when it ran none — a prompt that mentions `git commit` is not a commit."""
    try:
        args = orjson.loads(e.text)
    except orjson.JSONDecodeError:
        # Input that is not JSON is a command only for a shell tool.
        return e.text if (e.tool or "").casefold() in SHELL_TOOLS else None
    if isinstance(args, dict):
        for key in ("command", "cmd", "script"):
            value = args.get(key)
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            if isinstance(value, str):
                return value
    return None


def git_events(e: Entry) -> list[Event]:
    """GitCommit / GitPush / GitTag for each git subcommand a tool call's command ran."""
    if e.kind != "tool_call" or e.quarantined is not None or e.erased:
        return []
    command = command_text(e)
    if command is None:
        return []
    found: list[Event] = []
    for m in _GIT.finditer(command):
        kind = _GIT_EVENT[m.group(1)]
        if kind not in {ev.event_type for ev in found}:
            found.append(Event(e, kind, one_line(command)[:SUMMARY_CHARS]))
    return found


def _todo_events(entries: list[Entry]) -> list[Event]:
    out = []
    for call in todo_calls(entries):
        if not call.edits:
            continue
        actions = Counter(edit.action for edit in call.edits)
        if "added" in actions:
            kind = "TodoCreate"
        elif set(actions) == {"removed"}:
            kind = "TodoDelete"
        else:
            kind = "TodoUpdate"
        said = ", ".join(f"{n} {action}" for action, n in actions.items())
        first = call.edits[0].todo
        out.append(Event(call.entry, kind, snip(f"{call.entry.tool}: {said} — {first}", SUMMARY_CHARS,
                                                call.entry.address)))
    return out


def events_of(entries: list[Entry]) -> list[Event]:
    """The interesting events of a timeline, in order."""
    found: list[Event] = []
    for e in entries:
        if e.quarantined is not None:
            continue  # withheld: not even its summary comes back
        if e.kind == "compaction":
            found.append(Event(e, "Compaction", one_line(e.text)[:SUMMARY_CHARS]))
        elif e.author == "owner" and e.kind == "message":
            words, _ = owner_words(e)
            found.append(Event(e, "UserMessage", one_line(words)[:SUMMARY_CHARS]))
        found.extend(git_events(e))
    found.extend(_todo_events(entries))
    found.sort(key=lambda ev: ev.entry.seq)
    return found


def profile_session(record: Record, session: Session, *, max_bytes: int = REPORT_MAX_BYTES) -> dict[str, Any]:
    """One session's profile: who said how much, when it ran, and its interesting events — compactions,
    todo edits, git commit/push/tag, owner messages — each with its address and the entries since the one
    before (`gap_entries`). Flood-capped at max_bytes (default 16384): the most recent events that fit
    are kept.

    Raises:
        ScopeError: max_bytes out of range.
    """
    tool = "profile_session"
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    s = session
    entries = load(record, s.number)
    events = events_of(entries)
    times = [t for t in (parse_time(e.timestamp) for e in entries) if t is not None]
    first, last = (min(times), max(times)) if times else (None, None)
    rows = []
    previous = 0
    for ev in events:
        row: dict[str, Any] = {"address": ev.entry.address, "event_type": ev.event_type,
                               "timestamp": ev.entry.timestamp,
                               "gap_entries": max(ev.entry.seq - previous - 1, 0), "summary": ev.summary}
        if ev.entry.erased:
            row["erased"] = ev.entry.erased
        rows.append(row)
        previous = ev.entry.seq
    profile = {
        "session": s.address,
        "native_id": s.native_id,
        "harness": s.harness,
        "title": s.title,
        "cwd": s.cwd,
        "source": s.source,
        "parent": f"s{s.parent}" if s.parent else None,
        "read_error": s.read_error,
        "entries": len(entries),
        "first_ts": iso(first),
        "last_ts": iso(last),
        "span_seconds": int((last - first).total_seconds()) if first and last else None,
        "last_active": iso(scoped(record, s).last_active),
        "role_counts": dict(Counter(e.author for e in entries)),
        "kind_counts": dict(Counter(e.kind for e in entries)),
        "event_counts": {t: n for t in EVENT_TYPES if (n := sum(ev.event_type == t for ev in events))},
        "quarantined": sum(e.quarantined is not None for e in entries),
        "erased": sum(bool(e.erased) for e in entries),
        "interesting_events": rows,
    }
    return fit_json(tool, s.address, profile, "interesting_events", budget, keep="tail")
