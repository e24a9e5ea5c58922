"""Whether a file-read tool output still matches its file on disk (eviction class 1: cheapest to recover).

A read tool's output is recoverable without the record when the file it read still holds exactly what
was shown. Read tools show a file in one of two ways, and both are compared line by line:

- **numbered**: each line carries its number, `   12→text` (Claude Code ≤ 2.0), `12\ttext` (Claude Code
  2.1), `00012| text` (OpenCode). The numbers say where the shown lines sit, so an offset/limit read
  is compared with just those lines of the file. The numbers must run consecutively; a line the tool
  cut at its length cap (2,000 characters) matches when the file's line starts with it. Wrapping
  lines the tools add around the content (`<file>`, `(End of file …)`, `<system-reminder>` blocks,
  blank lines) are ignored; any other unnumbered line means the output is not a plain read.
- **plain**: the output is the text itself; it matches when it equals the file, or a run of whole
  lines of it (line endings normalised, trailing white space at the end ignored).

Anything else is "changed": the file is gone or unreadable, not UTF-8, larger than `MAX_FILE_BYTES`
(comparing costs more than the pointer saves), the output was an error or truncated, or a line
differs. A relative path is taken from the session's working directory (when that is absolute).
Nothing here writes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from total_recall.model import Entry

# The tools that show a file as it is (names compared case-insensitively).
READ_TOOLS = frozenset({"read", "read_file", "readfile", "view", "view_file", "open_file"})
PATH_KEYS = ("file_path", "filePath", "path", "absolute_path", "target_file", "filename", "file")
MAX_FILE_BYTES = 8 << 20
LINE_CAP = 2000

_NUMBERED = re.compile(r"^ *(\d+)(?:\t|→|\| ?)(.*)$")
_WRAPPER = re.compile(r"^\s*(?:</?file>|\((?:End of file|File has more lines)[^\n]*\))\s*$")
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def read_path(call: Entry) -> str | None:
    """The file a read tool call asked for, or None when the call is not a plain file read."""
    if (call.tool or "").lower() not in READ_TOOLS and not _is_view_command(call):
        return None
    args = _json_object(call.text)
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def unchanged_on_disk(call: Entry, result: Entry, cwd: str | None) -> bool:
    """Whether `result` (the output of the read `call`) still matches the file it read."""
    if result.erased:
        return False
    path_text = read_path(call)
    if path_text is None:
        return False
    path = Path(path_text).expanduser()
    if not path.is_absolute():
        if not cwd or not Path(cwd).is_absolute():
            return False  # a relative path against a relative cwd would resolve against ours
        path = Path(cwd) / path
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return False
        disk = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return shown_matches(result.text, disk)


def shown_matches(shown: str, disk: str) -> bool:
    """Whether a read tool's output `shown` is exactly (a numbered or plain slice of) `disk`."""
    shown = _REMINDER.sub("", shown.replace("\r\n", "\n"))
    disk_lines = disk.replace("\r\n", "\n").split("\n")
    numbered = _numbered(shown)
    if numbered is not None:
        first, lines = numbered
        if first < 1 or first - 1 + len(lines) > len(disk_lines):
            return False
        return all(_same_line(s, d) for s, d in zip(lines, disk_lines[first - 1:], strict=False))
    body = shown.rstrip()
    if not body.strip():
        return False
    whole = "\n".join(disk_lines)
    return body == whole.rstrip() or f"\n{body}\n" in f"\n{whole}\n"


def _numbered(shown: str) -> tuple[int, list[str]] | None:
    """(first line number, the lines) when every content line carries consecutive numbers."""
    first: int | None = None
    lines: list[str] = []
    for raw in shown.split("\n"):
        m = _NUMBERED.match(raw)
        if m is None:
            if not raw.strip() or _WRAPPER.match(raw):
                continue
            return None
        number = int(m.group(1))
        if first is None:
            first = number
        elif number != first + len(lines):
            return None
        lines.append(m.group(2))
    return None if first is None else (first, lines)


def _same_line(shown: str, disk: str) -> bool:
    disk = disk.rstrip("\r")
    return shown == disk or (len(shown) >= LINE_CAP and disk.startswith(shown))


def _is_view_command(call: Entry) -> bool:
    # The text-editor tool family reads with {"command": "view", "path": …}.
    return "edit" in (call.tool or "").lower() and _json_object(call.text).get("command") == "view"


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
