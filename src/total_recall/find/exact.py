"""The strings a person later asks for verbatim, pulled out of entries at ingest.

Paths, commit hashes, URLs, hostnames, versions, error lines, commands and times are kept whole in
their own index, so a hash fragment or a path finds its entries even where word tokenization would
split it (`/etc/ssl/private/`, `3f9c2e1`, `v1.18.33`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import orjson

MAX_PER_ENTRY = 64
MAX_LEN = 300
# Only so much of an entry is scanned: the strings worth quoting sit near the start and end of a tool
# output, and scanning all of every output would cost more than the rest of the sync together. The
# word index still covers every byte (search turns an exact-looking token into a phrase or prefix query).
SCAN_HEAD = 8_192
SCAN_TAIL = 4_096
TOOL_HEAD = 4_096
TOOL_TAIL = 2_048

_VERSION = r"(?:\bv?\d+\.\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?\b)"
_TIME = (
    r"(?:\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b"
    r"|\b\d{1,2}:\d\d(?::\d\d)?(?:\s?[ap]\.?m\.?)?\b)"
)
# Found with str.find, then widened to the whole line: regexes over whole outputs are too slow.
_ERROR_WORDS = ("error", "failed", "failure", "exception", "fatal", "denied", "refused", "unauthorized",
                "forbidden", "not found", "traceback", "panic", "timed out", "cannot", "unable to")
# A candidate starts after white space, a quote or an opening bracket: that character is matched (the
# search skips ahead to one in C) rather than looked behind at every position; group 1 is the candidate.
_CANDIDATE = re.compile(r"[\s\"'`=(\[{<,]((?=[^\s\"'`]*?[/:.])[^\s\"'`]{3,})")
_TIME_RX = re.compile(_TIME, re.I)
_VERSION_RX = re.compile(_VERSION)
_HOST_RX = re.compile(r"(?:[a-z0-9-]+\.)+[a-z]{2,}")
_TLDS = frozenset(
    "com org net io dev app ai co uk de fr local internal lan example test cloud sh me us eu".split()
)
_HEX_RUN = re.compile(r"[^0-9A-Za-z_./:]([0-9a-fA-F]{7,64})(?![0-9A-Za-z_/:])")  # as _CANDIDATE: group 1
_EDGE = "\"'`()[]{}<>,;"
_FAILED_EXIT = re.compile(r"^(?:exit code|process exited with code|exit status)[: ]*([1-9]\d*)", re.I | re.M)
_JSON_EXIT = re.compile(r'"exit_code"\s*:\s*([1-9]\d*)')
_REJECTED = "The user doesn't want to proceed with this tool use"
_COMMAND_LINE = re.compile(r"^\s*\$ (.+)$", re.M)
_ABBREVIATION = re.compile(r"(?=[a-f]*\d)[0-9a-f]{5}", re.I)
_SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "run_shell_command", "terminal"})


def extract(kind: str, text: str, tool: str | None = None) -> list[tuple[str, str]]:
    """The exact strings of one entry as (kind, value), in order of first appearance, deduplicated."""
    if kind == "meta" or not text:
        return []
    head, tail = (TOOL_HEAD, TOOL_TAIL) if kind == "tool_result" else (SCAN_HEAD, SCAN_TAIL)
    body = text if len(text) <= head + tail else text[:head] + "\n" + text[-tail:]
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
    if "$ " in body:
        for m in _COMMAND_LINE.finditer(body):
            yield "command", m.group(1)
    # Cheap regexes pick the tokens that could be strings worth quoting; the full patterns run on those
    # alone (running them over whole texts is several times slower).
    for token in _CANDIDATE.findall("\n" + body):
        found = classify(token.strip(_EDGE))
        if found is not None:
            yield found
    for word in _HEX_RUN.findall("\n" + body):
        if not word.isdigit() and not word.isalpha():
            yield "hash", word
    if kind in ("tool_result", "message", "summary", "thinking"):
        yield from _error_lines(body)


# Five of six tokens an agent's sessions hold were seen before (the same paths, hosts and versions again
# and again): remembering the answers takes a tenth off a sync.
@functools.lru_cache(maxsize=1 << 16)
def classify(token: str) -> tuple[str, str] | None:
    """What kind of exact string a token is, by cheap tests first (a regex per token is slow)."""
    if len(token) < 3:
        return None
    low = token.lower()
    if low.startswith(("http://", "https://")):
        return "url", token
    if "/" in token:
        if token[0] in "/~." or token.count("/") >= 2:
            return "path", token
        return None
    first = token[0]
    if first.isdigit() or (first in "vV" and token[1:2].isdigit()):
        if ":" in token or "-" in token[:10]:
            m = _TIME_RX.match(token)
            if m:
                return "time", m.group(0)
        m = _VERSION_RX.match(token)
        return ("version", m.group(0)) if m else None
    if "." in token:
        tld = low.rsplit(".", 1)[1]
        if tld in _TLDS and _HOST_RX.fullmatch(low):
            return "host", token
    return None


def _error_lines(body: str) -> Iterator[tuple[str, str]]:
    lower = body.lower()
    starts: set[int] = set()
    for word in _ERROR_WORDS:
        at = lower.find(word)
        while at >= 0 and len(starts) < MAX_PER_ENTRY:
            starts.add(lower.rfind("\n", 0, at) + 1)
            nxt = lower.find("\n", at)
            if nxt < 0:
                break
            at = lower.find(word, nxt)
    for start in sorted(starts):
        end = body.find("\n", start)
        line = body[start : len(body) if end < 0 else end].strip()
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


def failed(tool_output: str) -> bool:
    """Whether a tool result says its call failed: a non-zero exit, a traceback, a refusal, an error first.
    Of a long output only the head and tail count (TOOL_HEAD, TOOL_TAIL), as everywhere else: the sync's
    digest and the marker builder, which holds only those, must agree."""
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
            or _starts_with_error(head))


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


def _starts_with_error(head: str) -> bool:
    first = head.lstrip()[:6].lower()
    return first[:5] in ("error", "fatal") and (len(first) == 5 or not first[5].isalnum())


@functools.lru_cache(maxsize=1 << 16)
def keys_of(kind: str, value: str) -> tuple[str, ...]:
    """The lookup keys of one exact string: itself, and for paths, URLs and hosts its tails at
    separators, so `ssl/private` or `example.com` finds `/etc/ssl/private/` and `shop.example.com`."""
    keys = [value]
    if kind in ("path", "url", "host"):
        sep = "." if kind == "host" else "/"
        body = value.split("://", 1)[-1]
        parts = [p for p in body.split(sep) if p]
        for i in range(1, min(len(parts), 6)):
            tail = sep.join(parts[i:])
            if len(tail) >= 3:
                keys.append(tail)
    return tuple(keys)


def looks_exact(token: str) -> bool:
    """Whether a query token is better looked up whole than as words (a hash, a path, a URL …)."""
    # Five hex characters with a digit are git's shortest abbreviation of a hash ("added" is a word).
    return len(token) >= 3 and bool(
        re.search(r"[/:@]|\.\w|^[0-9a-f]{6,}$|^\d+\.\d+", token, re.I) or _ABBREVIATION.fullmatch(token))
