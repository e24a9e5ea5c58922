"""The strings a person later asks for verbatim, pulled out of entries at ingest.

Paths, commit hashes, URLs, hostnames, versions, error lines, commands and times are kept whole in
their own index, so a hash fragment or a path finds its entries even where word tokenization would
split it (`/etc/ssl/private/`, `3f9c2e1`, `v1.18.33`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import orjson

MAX_PER_ENTRY = 64
MAX_LEN = 300
# Only so much of a huge tool output is scanned: the strings worth quoting sit near its start and end.
SCAN_HEAD = 32_768
SCAN_TAIL = 8_192

_URL = r"(?P<url>\bhttps?://[^\s'\"<>`)\]}]+)"
_PATH = (
    r"(?P<path>(?<![\w/.:])(?:~|\.{1,2})?/(?:[\w.@+-]+/)+[\w.@+-]*"
    r"|(?<![\w/.:])/(?:etc|var|usr|opt|srv|home|tmp|root|proc|dev|mnt)/?(?![\w/]))"
)
_HASH = r"(?P<hash>\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b)"
_VERSION = r"(?P<version>\bv?\d+\.\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?\b)"
_TIME = (
    r"(?P<time>\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b"
    r"|\b\d{1,2}:\d\d(?::\d\d)?\s?(?:[ap]\.?m\.?)?\b)"
)
_HOST = (
    r"(?P<host>\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
    r"(?:com|org|net|io|dev|app|ai|co|uk|de|fr|local|internal|lan|example|test|cloud|sh|me|us|eu)\b)"
)
_STRING = re.compile("|".join((_URL, _PATH, _HASH, _VERSION, _TIME, _HOST)), re.I)
_ERROR_LINE = re.compile(
    r"^.*\b(?:error|failed|failure|exception|fatal|denied|refused|unauthorized|forbidden|not found|"
    r"traceback|panic|timed? ?out|cannot|can't|unable to)\b.*$",
    re.I | re.M,
)
_COMMAND_LINE = re.compile(r"^\s*\$ (.+)$", re.M)
_SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "run_shell_command", "terminal"})


def extract(kind: str, text: str, tool: str | None = None) -> list[tuple[str, str]]:
    """The exact strings of one entry as (kind, value), in order of first appearance, deduplicated."""
    if kind == "meta" or not text:
        return []
    body = text if len(text) <= SCAN_HEAD + SCAN_TAIL else text[:SCAN_HEAD] + "\n" + text[-SCAN_TAIL:]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for found in _candidates(kind, body, tool):
        value = found[1].strip().rstrip(".,;:")
        if len(value) < 3 or value in seen:
            continue
        seen.add(value)
        out.append((found[0], value[:MAX_LEN]))
        if len(out) >= MAX_PER_ENTRY:
            break
    return out


def _candidates(kind: str, body: str, tool: str | None) -> Iterator[tuple[str, str]]:
    if kind == "tool_call" and tool and tool.lower() in _SHELL_TOOLS:
        command = _command_of(body)
        if command:
            yield "command", command
    for m in _COMMAND_LINE.finditer(body):
        yield "command", m.group(1)
    for m in _STRING.finditer(body):
        name = m.lastgroup or "string"
        yield name, m.group(0)
    if kind in ("tool_result", "message", "summary", "thinking"):
        for m in _ERROR_LINE.finditer(body):
            line = m.group(0).strip()
            if 8 <= len(line) <= MAX_LEN:
                yield "error", line


def _command_of(body: str) -> str | None:
    try:
        args = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body if "\n" not in body.strip() else None
    if isinstance(args, dict):
        cmd = args.get("command") or args.get("cmd")
        if isinstance(cmd, list):
            return " ".join(str(c) for c in cmd)
        if isinstance(cmd, str):
            return cmd
    return None


def looks_exact(token: str) -> bool:
    """Whether a query token is better looked up whole than as words (a hash, a path, a URL …)."""
    return bool(re.search(r"[/:@]|\.\w|^[0-9a-f]{6,}$|^\d+\.\d+", token, re.I)) and len(token) >= 3
