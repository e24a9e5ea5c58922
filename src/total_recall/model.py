"""Pure domain values shared by readers, the record and the surfaces.

Readers produce drafts (`SessionDraft`, `EntryDraft`, `ReadWarning`); the record turns drafts into
numbered sessions and addressed entries. Nothing here touches a file or a database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, get_args

from total_recall.errors import AddressError

Author = Literal["owner", "agent", "tool", "harness", "system"]
Kind = Literal["message", "thinking", "tool_call", "tool_result", "compaction", "summary", "meta"]
SpanTag = Literal["instruction", "question", "paste", "command", "statement"]
Harness = Literal["claude-code", "codex", "opencode", "vibe", "openclaw"]

AUTHORS: tuple[str, ...] = get_args(Author)
KINDS: tuple[str, ...] = get_args(Kind)
SPAN_TAGS: tuple[str, ...] = get_args(SpanTag)
# The tools through which an agent runs a shell command, lower-cased (Claude Code's Bash, Codex's
# exec_command and local_shell, Gemini-style run_shell_command, OpenCode's bash …).
# Words after a slash command from which they are a request in the owner's prose ("/create-beads websearch
# how to set up credo …"), as much his words as a prompt; fewer are the command's own ("opus", "../lib").
ARGS_PROSE_WORDS = 3
SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "run_command", "run_shell_command",
                         "terminal"})
HARNESSES: tuple[str, ...] = get_args(Harness)


@dataclass(slots=True)
class SessionDraft:
    """What a reader knows about one session. Fields left None keep what the record already has."""

    native_id: str
    title: str | None = None
    cwd: str | None = None
    parent_native: str | None = None
    # How this session relates to its parent: "subagent", "compaction", "fork", "continuation".
    relation: str | None = None
    started: str | None = None
    ended: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(slots=True)
class EntryDraft:
    """One unit of conversation as read from a store, before it gets an address.

    `key` identifies the entry within its session across re-reads (a uuid, a part id, a hash of a
    content block): the record never stores the same key twice, which makes sync idempotent.
    `raw` is the source record (the JSONL line, the row as JSON); several entries cut from one line
    may share it, and the record keeps it once.
    """

    session: str
    author: Author
    kind: Kind
    text: str
    key: str
    raw: bytes
    timestamp: str | None = None
    line: int | None = None
    row: str | None = None
    native_id: str | None = None
    native_parent: str | None = None
    group: str | None = None
    tool: str | None = None
    sidechain: bool = False


@dataclass(frozen=True, slots=True)
class ReadWarning:
    """A part of a source that was skipped; `line` is 1-based when the source is a text file."""

    path: str
    why: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.why}" if self.line is not None else f"{self.path}: {self.why}"


class Span(NamedTuple):
    """A tagged piece of the owner's own words, as offsets into the entry's text. A named tuple, not a
    frozen dataclass: reads and the marker builder make thousands per range, at a third of the cost."""

    start: int
    end: int
    tag: SpanTag

    def text_of(self, text: str) -> str:
        return text[self.start : self.end]


# ASCII digits only: `\d` would read `s١` (an Arabic-Indic one) as s1. `S7#12` is typed too (caps lock, a
# sentence's start), and no native id is `S` and digits alone, so it means s7#12.
_ADDRESS = re.compile(r"^[sS]([0-9]+)(?:#([0-9]+)(?:-([0-9]+))?)?$")
# SQLite's INTEGER is signed 64-bit: a larger number could name nothing and would not even bind.
NUMBER_MAX = 2**63 - 1
# How much of a value a caller gave an error message echoes: enough to recognise it, never a flood.
ECHO_CHARS = 80


def echoed(value: object, limit: int = ECHO_CHARS) -> str:
    """`value` as an error message echoes it: its repr when that is short, else the repr's first `limit`
    characters and how large the value was — a 1 MB argument must not come back whole in the refusal."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value.encode()) if isinstance(value, str) else len(text.encode())
    return f"{text[:limit]}… ({size} bytes)"


@dataclass(frozen=True, slots=True)
class Address:
    """`s7` (a whole session), `s7#12` (one entry) or `s7#10-20` (an inclusive range)."""

    session: int
    first: int | None = None
    last: int | None = None

    @classmethod
    def parse(cls, text: str) -> Address:
        if not isinstance(text, str):
            raise AddressError(f"not an address: {echoed(text)} (expected s7, s7#12 or s7#10-20)")
        m = _ADDRESS.match(text.strip())
        if not m:
            raise AddressError(f"not an address: {echoed(text)} (expected s7, s7#12 or s7#10-20)")
        for group, what in ((1, "session"), (2, "entry"), (3, "entry")):
            # Checked on the digits: int() of a huge run of them is slow, and nothing that long is held.
            digits = (m.group(group) or "").lstrip("0")
            if digits and (len(digits) > 19 or int(digits) > NUMBER_MAX):
                raise AddressError(f"{echoed(text.strip(), 40)}: {what} number too large "
                                   f"(at most {NUMBER_MAX})")
        session = int(m.group(1))
        first = int(m.group(2)) if m.group(2) else None
        last = int(m.group(3)) if m.group(3) else first
        if session < 1 or (first is not None and first < 1):
            raise AddressError(f"not an address: {echoed(text)} (sessions and entries count from 1)")
        if first is not None and last is not None and last < first:
            raise AddressError(f"not an address: {echoed(text)} (range ends before it starts)")
        return cls(session, first, last)

    def __str__(self) -> str:
        if self.first is None:
            return f"s{self.session}"
        if self.last is None or self.last == self.first:
            return f"s{self.session}#{self.first}"
        return f"s{self.session}#{self.first}-{self.last}"


@dataclass(frozen=True, slots=True)
class Session:
    """A session as the record holds it."""

    number: int
    harness: str
    native_id: str
    source: str
    generation: int
    title: str | None
    cwd: str | None
    parent: int | None
    relation: str | None
    entries: int
    started: str | None
    ended: str | None
    read_error: str | None

    @property
    def address(self) -> str:
        return f"s{self.number}"


@dataclass(frozen=True, slots=True)
class Entry:
    """An entry as the record holds it; `erased` is set when the text is a tombstone."""

    session: int
    seq: int
    author: Author
    kind: Kind
    text: str
    timestamp: str | None
    source_path: str
    line: int | None
    row: str | None
    native_id: str | None
    native_parent: str | None
    group: str | None
    tool: str | None
    sidechain: bool
    spans: tuple[Span, ...] = ()
    erased: str | None = None
    quarantined: str | None = None
    branch: Literal["active", "side"] | None = None

    @property
    def address(self) -> str:
        return f"s{self.session}#{self.seq}"


@dataclass(slots=True)
class SyncReport:
    """What one sync did: the surfaces render it, scripts read its JSON form."""

    sessions_added: int = 0
    sessions_updated: int = 0
    entries_added: int = 0
    sources_read: int = 0
    sources_skipped: int = 0
    generations: int = 0
    per_harness: dict[str, dict[str, int]] = field(default_factory=dict)
    warnings: list[ReadWarning] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    vectors: dict[str, int] = field(default_factory=dict)
    # 2 when a second process extracted exact strings (a large sync), else 1.
    processes: int = 1


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: always an address `read` opens exactly."""

    address: str
    session: int
    seq: int
    harness: str
    author: str
    kind: str
    timestamp: str | None
    score: float
    snippet: str
    matched: tuple[str, ...] = ()
