"""The exact strings of a range (paths, hashes, URLs, hosts, versions, times, commands, error lines),
found fast enough for a 10k-entry range, each once at its first entry, scored by how often a person asks
for its kind.

Why not `indexes/strings.extract` per entry or the `strings` index: extract costs ~40 µs per entry even on a
short message, and reading the index back costs several µs per row (a grep-heavy 10k range holds ~400k
keys), either of which alone spends the builder's 200 ms. So the candidate tokens of all the texts are
found in one regex pass over them joined, and classified by `indexes/strings.classify` (the same kinds the
index holds). What the owner wrote and the error lines of failed calls are always read; the agent's
messages, thinking and tool calls newest first up to AGENT_TEXT_CHARS; tool output (which a person rarely
asks for string by string) newest first up to TOOL_OUTPUT_CHARS, a failed call's output before the rest.
The entries left unread are returned and the marker names them in its pointer, so nothing is lost in
silence. Error lines count only in a failed call's output or in what the owner pasted: in prose a line
saying "error" is a sentence, and the items already say what failed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import orjson

from total_recall.indexes.strings import (
    MAX_LEN,
    SCAN_HEAD,
    SCAN_TAIL,
    TOOL_HEAD,
    TOOL_TAIL,
    bare_line,
    classify,
    unnumbered,
    untagged,
)
from total_recall.keeping import items
from total_recall.keeping.items import AGENT_TEXT_CHARS, ERROR_HEAD, error_lines
from total_recall.model import SHELL_TOOLS

# Tool output is read for strings newest first up to this much (the agent's own text and commands up to
# AGENT_TEXT_CHARS): a person asks for the strings in output far less than for the ones the agent used.
TOOL_OUTPUT_CHARS = 30_000

# A token worth classifying starts after white space, a quote or an opening bracket (as in indexes/strings),
# and either holds / : . (paths, URLs, hosts, versions, times) or is a run of hex digits (a hash). The
# character before it is matched, not looked behind at, so the search skips ahead to those characters in C
# (a quarter faster over a 10k-entry range); group 1 is the token.
_TOKEN = re.compile(
    r"[\s\"'`=(\[{<,]([^\s\"'`/:.]*+[/:.](?=[^\s\"'`])[^\s\"'`]*+|[0-9a-fA-F]{7,64}+(?![0-9A-Za-z_/:]))"
)
_HEX = re.compile(r"[0-9a-fA-F]{7,64}")
_PARTS = re.compile(r"\\[ntr\"]|\]\(")
_EDGE = "\"'`()[]{}<>,;"
_COMMAND_LINE = re.compile(r"^\s*\$ (.+)$", re.M)
_SEPARATOR = "\n\x00\n"  # no token crosses it: a token never spans white space

_KIND_VALUE = {"hash": 4, "error": 4, "command": 4, "path": 4, "url": 4, "host": 2, "version": 2, "time": 1}
_AUTHOR_VALUE = {("owner", "message"): 4, ("agent", "message"): 2, ("agent", "tool_call"): 1}


class Scanned(items.Scanned, Protocol):
    """What string finding reads of an entry: what item finding reads, and whether its text was read."""

    loaded: bool  # False: a tool output whose text was not read (older than any scan reaches)


@dataclass(slots=True)  # not frozen: thousands are made per range, and frozen ones cost 3× to make
class FoundString:
    """A string as it stands, word for word, in the entry numbered `seq`."""

    seq: int
    text: str
    kind: str
    score: float


@dataclass(frozen=True, slots=True)
class StringScan:
    """The strings found, best first, and the tool outputs left unscanned (their entry numbers)."""

    found: list[FoundString]
    unscanned: list[int]


def find_strings(entries: Sequence[Scanned]) -> StringScan:
    """Every exact string of the entries, once (at its first entry), best first."""
    pieces: list[tuple[int, str]] = []  # (index into entries, text to scan)
    direct: list[tuple[int, str, str]] = []  # (index, kind, value) found without the scan
    own: list[int] = []  # the agent's text and commands, read newest first up to a bound
    outputs: list[int] = []
    failures: list[int] = []
    for i, e in enumerate(entries):
        if e.author == "owner":
            for s in e.spans:
                if s.tag == "command" and e.text.startswith("/", s.start):
                    continue  # a slash command (/exit, /compact) is not a path
                pieces.append((i, e.text[s.start:s.end]))
                if s.tag == "paste":  # a pasted log's error lines, found as in a tool output
                    pasted = error_lines(e.text[s.start:s.end])
                    direct.extend((i, "error", bare_line(line)) for line in pasted)
        elif e.kind != "tool_result":
            own.append(i)
        elif e.failed:
            failures.append(i)
            direct.extend((i, "error", bare_line(line)) for line in e.errors)
        else:
            outputs.append(i)
    unscanned: list[int] = []
    # Read from the end: the newest is the likeliest to be asked about, and a failed call's output first.
    outputs += failures
    for group, bound, head, tail in ((own, AGENT_TEXT_CHARS, SCAN_HEAD, SCAN_TAIL),
                                     (outputs, TOOL_OUTPUT_CHARS, TOOL_HEAD, TOOL_TAIL)):
        for n in range(len(group) - 1, -1, -1):
            e = entries[group[n]]
            text = _arguments(e.text) if e.kind == "tool_call" else e.text
            body = text if len(text) <= head + tail else text[:head] + "\n" + text[-tail:]
            if len(body) > bound or not e.loaded:
                unscanned.extend(entries[i].seq for i in group[: n + 1])
                break
            pieces.append((group[n], body))
            bound -= len(body)
            if e.kind == "tool_call" and e.tool and e.tool.lower() in SHELL_TOOLS:
                direct.extend((group[n], "command", c) for c in _commands(e.text))
    found = sorted(_scan(pieces) + [(i, -1, k, v) for i, k, v in direct])
    return StringScan(_ranked(entries, found, set(failures)), sorted(unscanned))


def _arguments(text: str) -> str:
    """A tool call's arguments as the values it was given, one to a line: its JSON escapes (`\\"`, `\\n`)
    are how the record stores them, not what the agent ran or wrote."""
    if not text.startswith(("{", "[")):
        return text
    try:
        args = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    values: list[str] = []
    stack = [args]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            values.append(node)
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return "\n".join(values)


def stands(text: str, value: str) -> bool:
    """Whether `value` stands word for word in `text`: as it is, or as a tool call's JSON arguments hold it
    (escaped)."""
    return value in text or orjson.dumps(value).decode()[1:-1] in text


def _commands(text: str) -> Iterator[str]:
    """The command of a shell tool call (its JSON arguments), whole and, for an argv, its script."""
    try:
        args = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    command = args.get("command") or args.get("cmd") if isinstance(args, dict) else None
    if isinstance(command, str):
        yield command
    elif isinstance(command, list) and command:
        yield " ".join(str(c) for c in command)
        yield str(command[-1])


def _scan(pieces: Sequence[tuple[int, str]]) -> list[tuple[int, int, str, str]]:
    """(index, position, kind, value) of every string in the pieces, from one pass over them joined."""
    if not pieces:
        return []
    texts = [unnumbered(text) for _, text in pieces]  # a Read output's `12→` is the tool's, not the file's
    starts = []
    at = 0
    for text in texts:
        starts.append(at)
        at += len(text) + len(_SEPARATOR)
    joined = _SEPARATOR.join(texts)
    out: list[tuple[int, int, str, str]] = []
    # The leading newline stands before the first token; positions are 1 past the joined text's.
    for m in _TOKEN.finditer("\n" + joined):
        whole = m.group(1)
        # A token from JSON-escaped output or a Markdown link holds several strings: `\n` and `](` part
        # them; markup it runs into (`</div>`, `<code>`) is none of them.
        pieces_of = untagged(m.group(0) if m.group(0)[0] == "<" else whole)
        parts = [p for u in pieces_of for p in (_PARTS.split(u) if "\\" in u or "](" in u else (u,))]
        for part in parts:
            token = part.strip(_EDGE).rstrip(".,;:")
            if len(token) < 3:
                continue
            found = classify(token)
            if found is None and _HEX.fullmatch(token) and not token.isdigit() and not token.isalpha():
                found = ("hash", token)
            if found is not None:
                at = m.start(1) - 1
                out.append((pieces[bisect_right(starts, at) - 1][0], at, found[0], found[1]))
    if "$ " in joined:
        for m in _COMMAND_LINE.finditer(joined):
            out.append((pieces[bisect_right(starts, m.start()) - 1][0], m.start(), "command", m.group(1)))
    return out


def _ranked(entries: Sequence[Scanned], found: Sequence[tuple[int, int, str, str]],
            failures: set[int]) -> list[FoundString]:
    """The strings once each, at their first entry, best first; `found` is in entry order."""
    first: dict[str, tuple[int, str, int]] = {}  # string -> (entry index, kind, bonus)
    last_in: dict[str, int] = {}  # the last entry a string was seen in
    mentions: dict[str, int] = {}  # how many entries hold it
    per_kind: dict[tuple[int, str], int] = {}
    for i, at, kind, value in found:
        # A string the scan cut from the entry's own text stands there by construction; only those parsed
        # out of it (a command from JSON, an error line) are looked for.
        quoted = _cut(value) if at >= 0 else _verbatim(entries[i], value)
        if quoted is None:
            continue
        seen = last_in.get(quoted)
        if seen is not None:
            if seen != i:
                last_in[quoted] = i
                mentions[quoted] += 1
            continue
        last_in[quoted] = i
        mentions[quoted] = 1
        n = per_kind.get((i, kind), 0)
        per_kind[(i, kind)] = n + 1
        # The fifth error line of one log is worth less than the first; the telling error line of a call
        # that failed is what a person asks for ("what exactly did it say?").
        telling = kind == "error" and bool(ERROR_HEAD.search(quoted))
        first[quoted] = (i, kind, (3 if i in failures and kind == "error" else 0) + (3 if telling else 0)
                         - min(n, 6) // 2)
    out = []
    for quoted, (i, kind, bonus) in first.items():
        e = entries[i]
        score = (_KIND_VALUE.get(kind, 1) + _AUTHOR_VALUE.get((e.author, e.kind), 0)
                 + min(3, mentions[quoted] - 1) + bonus)
        out.append(FoundString(e.seq, quoted, kind, score))
    out.sort(key=lambda f: -f.score)  # stable: equal scores keep the order of first appearance
    return _uncontained(out)


def _uncontained(ranked: list[FoundString]) -> list[FoundString]:
    """Without the strings that stand inside another of the same entry (the path inside a command, the
    `2>/dev/null` after it, the file name inside its path): the longer one quotes them word for word, and
    each line of a marker costs its address again. The longer one takes the better rank of the two."""
    by_entry: dict[int, list[FoundString]] = {}
    for f in ranked:
        by_entry.setdefault(f.seq, []).append(f)
    dropped: set[int] = set()
    for found in by_entry.values():
        if len(found) < 2:
            continue
        for f in found:
            holders = [g for g in found if g is not f and f.text in g.text and id(g) not in dropped
                       and (len(g.text) > len(f.text))]
            if holders:
                dropped.add(id(f))
                holders[0].score = max(holders[0].score, f.score)
    out = [f for f in ranked if id(f) not in dropped]
    out.sort(key=lambda f: -f.score)  # stable, as above
    return out


def _cut(value: str) -> str | None:
    value = _trimmed(value)
    return value if len(value) >= 3 else None


def _trimmed(value: str) -> str:
    """A string without the punctuation that ends the sentence around it, nor the backslash of an escaped
    quote after it (JSON inside a tool's output: `href=\\"/assets/app.js\\"`; a POSIX path never ends so)."""
    value = value.strip().rstrip(".,;:")[:MAX_LEN]
    return value[:-1] if value.endswith("\\") and "\\" not in value[:-1] else value


def _verbatim(e: Scanned, value: str) -> str | None:
    """The string as the agent ran or wrote it, cut to its first line, or None when it does not stand in the
    entry's text as it is or JSON-escaped (a tool call's arguments; see `stands`)."""
    value = _trimmed(value)
    if len(value) < 3:
        return None
    if not e.holds(value) and not e.holds(orjson.dumps(value).decode()[1:-1]):
        return None
    if "\n" in value:
        value = value.split("\n", 1)[0].strip()
        if len(value) < 3:
            return None
    return value
