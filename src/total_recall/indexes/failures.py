"""The tool results that say their call failed, worked out at ingest and kept in `tool_failures`.

The marker builder then reads the text of a range's tool output only where it needs it; `digests` says
from which entry on the table is kept (older records are judged at read time).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from total_recall.indexes.strings import TOOL_HEAD, TOOL_TAIL

_FAILED_EXIT = re.compile(r"^(?:exit code|process exited with code|exit status)[: ]*([1-9]\d*)", re.I | re.M)
_JSON_EXIT = re.compile(r'"exit_code"\s*:\s*([1-9]\d*)')
_REJECTED = "The user doesn't want to proceed with this tool use"
# Claude Code's record of what a command the owner ran in bash mode printed.
_BASH_MODE = ("<bash-stdout>", "<bash-stderr>")
# An error's head at a line's start (or where stderr starts, after stdout with no newline): `error:`,
# `error[E0308]:`, `fatal:`, `ValueError:`. The colon is what tells it from a file named error.log or a log
# line about "error handling".
_ERROR_LINE = re.compile(
    r"(?:^|<bash-stderr>)(?:[ \t]*</?bash-std(?:out|err)>)*[ \t]*"
    r"(?:(?i:error|fatal)(?:\[[^\]\n]{1,60}\])?[ \t]*:|[A-Za-z_][\w.]*(?:Error|Exception):)", re.M)


def failed(tool_output: str) -> bool:
    """Whether a tool result says its call failed: a non-zero exit, a traceback, a refusal, an error first
    (a harness's own flag too: a reader opens a result the harness flagged failed with a line `Error`,
    `readers.base.flagged_failed`), and for a command the owner ran in Claude Code's bash mode, which records
    no exit code, a line of its output opening with an error. Of a long output only the head and tail count
    (TOOL_HEAD, TOOL_TAIL), as everywhere else: the sync's digest and the marker builder, which holds only
    those, must agree."""
    head = tool_output[:400]
    tail = tool_output[-600:]
    # Plain substring tests first: this runs on every tool output of a range.
    traceback = "Traceback (most recent call last)"
    if len(tool_output) <= TOOL_HEAD + TOOL_TAIL:
        traced = traceback in tool_output
    else:
        traced = tool_output.find(traceback, 0, TOOL_HEAD) >= 0 or traceback in tool_output[-TOOL_TAIL:]
    return (("xit" in head and _exit_line(head))
            or ('"exit_code"' in tail and bool(_JSON_EXIT.search(tail)))
            or traced or "<tool_use_error>" in head
            or tool_output.startswith(_REJECTED)
            or _starts_with_error(head)
            or (tool_output.startswith(_BASH_MODE) and _error_line(tool_output)))


def _error_line(output: str) -> bool:
    """Whether a line of the output's head or tail opens with an error ("error[E0308]: …", "fatal: …",
    "ValueError: …")."""
    if len(output) > TOOL_HEAD + TOOL_TAIL:
        output = output[:TOOL_HEAD] + "\n" + output[-TOOL_TAIL:]
    return _ERROR_LINE.search(output) is not None


def _exit_line(head: str) -> bool:
    """Whether a line of `head` reports a non-zero exit: only the lines that hold "xit" are tried, since a
    case-blind search from every line start costs more than the rest of `failed` together."""
    at = head.find("xit")
    while at >= 0:
        if _FAILED_EXIT.match(head, head.rfind("\n", 0, at) + 1):
            return True
        end = head.find("\n", at)
        if end < 0:
            return False
        at = head.find("xit", end)
    return False


# A first line that names what failed before a colon: "Pre-commit validation failed:", "Build error:" (a
# hook or a tool refusing), not a line of output that only holds the word (a path or a quote comes first).
_FAILED_HEAD = re.compile(r"[A-Za-z][\w .-]{0,60}\b(?:failed|error|errors|failure)\s*:", re.I)


def _starts_with_error(head: str) -> bool:
    first = head.lstrip()[:6].lower()
    if first[:5] in ("error", "fatal") and (len(first) == 5 or not first[5].isalnum()):
        return True
    return _FAILED_HEAD.match(head.lstrip()) is not None


def add(db: sqlite3.Connection, rows: Sequence[tuple[int]]) -> None:
    """Write (entry,) rows of failed tool results."""
    if rows:
        db.executemany("INSERT INTO tool_failures(entry) VALUES (?)", rows)


def forget(db: sqlite3.Connection, entry_id: int) -> None:
    db.execute("DELETE FROM tool_failures WHERE entry = ?", (entry_id,))
