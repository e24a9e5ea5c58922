"""The window model: what of a session is in view, and in which order it leaves when room runs out.

A window is the session's record seen through its markers: an ordered list of items, each an entry
(pointing at its address) or a marker standing for a range. Every entry item carries a token estimate
and an **eviction class**, cheapest to recover first (seed 000, "What leaves first"):

1. tool output whose source is unchanged on disk at the version read (a file read that still matches
   its file: `on_disk.unchanged_on_disk`) — the file itself gives it back;
2. other tool output, and the tool calls that asked for it — the record holds both whole;
3. the agent's reasoning and replies (and a harness's model-written summary) — a pointer plus one line
   per decision, failure or open item stays in the marker;
4. the owner's messages, except the instructions in them — those move into the marker word for word;

and **never**: system text, harness-injected text (always-loaded files such as CLAUDE.md or AGENTS.md,
environment context, hook output), and the current task's statement (the latest owner message).
Within a class the oldest leaves first.

What is not in view at all: entries of kind `meta` and `compaction` (records about the session, not
context sent to the model), side branches of a rewound session, sidechain (subagent) lines, and
quarantined entries.

The window's state is derived from the record, never stored apart: a stored marker stands for every
evictable entry in its range (never-class entries in its range stay in view); a marker whose range lies
inside a newer marker's range is superseded by it (markers merge to make room).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Literal

from total_recall.errors import WindowError
from total_recall.keeping.marker import StoredMarker, markers_for
from total_recall.keeping.on_disk import read_path, unchanged_on_disk
from total_recall.keeping.price import PriceTerms
from total_recall.model import Address, Entry
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.tokens import estimate_tokens


class EvictionClass(IntEnum):
    """The order in which items leave the window (lower leaves first); NEVER stays."""

    UNCHANGED_SOURCE = 1
    TOOL_OUTPUT = 2
    AGENT = 3
    OWNER = 4
    NEVER = 9


ItemKind = Literal["entry", "marker"]
OUT_OF_VIEW_KINDS = frozenset({"meta", "compaction"})


@dataclass(frozen=True, slots=True)
class WindowItem:
    """One item in view: an entry at `address`, or a marker for the range `address`.

    `first`/`last` are the entry numbers it spans (equal for an entry); `why` says why it has its class;
    `instruction_tokens` counts the owner's instruction words in it (they move into a marker verbatim).
    A marker item's class is NEVER: markers are not evicted, they merge.
    """

    address: str
    first: int
    last: int
    kind: ItemKind
    eviction: EvictionClass
    tokens: int
    text: str
    why: str
    marker_id: int | None = None
    instruction_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Window:
    """The items in view, in order, for one session; `receipt_id` is set when building it wrote one."""

    session: int
    items: tuple[WindowItem, ...]
    receipt_id: int | None = None

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)

    @property
    def markers(self) -> tuple[WindowItem, ...]:
        return tuple(i for i in self.items if i.kind == "marker")


@dataclass(frozen=True, slots=True)
class ElectivePolicy:
    """The cache-price rule's inputs other than the span itself (`terms`, see `price.py`).

    `min_span_tokens`: below this, a span is not worth a decision (and no receipt is written).
    """

    terms: PriceTerms
    min_span_tokens: int = 2000


@dataclass(frozen=True, slots=True)
class WindowPolicy:
    """How the runtime keeps a window.

    - `headroom_share`, `headroom_min`: a forced compaction frees room until the window plus the next
      call fits under `limit − max(headroom_min, headroom_share · limit)`. The headroom absorbs the
      error of the token estimate (a documented heuristic, not the model's tokenizer) and lets a few
      turns pass before the next compaction, instead of compacting on every call.
    - `keep_exchanges`: the verbatim tail (whole owner–agent exchanges, both sides) that never leaves;
      0 lets every evictable item go by class alone.
    - `marker_budget`, `bo`: the marker's token budget and its instructions' budget Bo.
    - `notice_share`: when a call fits but the window then holds at least this share of `limit`, the
      runtime writes a receipt saying it kept everything (a decision point that did not compact).
    - `elective`: the cache-price rule's inputs; None (the default) turns elective compaction off.
    """

    headroom_share: float = 0.05
    headroom_min: int = 1024
    keep_exchanges: int = 2
    marker_budget: int = 1500
    bo: int | None = None
    notice_share: float = 0.8
    elective: ElectivePolicy | None = field(default=None)

    def headroom(self, limit: int) -> int:
        return max(self.headroom_min, math.ceil(self.headroom_share * limit))


def classify(entry: Entry, call: Entry | None, latest_owner: int | None, cwd: str | None
             ) -> tuple[EvictionClass, str]:
    """An entry's eviction class and why; `call` is the tool call a tool result answers."""
    if entry.author == "system":
        return EvictionClass.NEVER, "system text"
    if entry.author == "harness":
        if entry.kind == "summary":
            return EvictionClass.AGENT, "a harness's model-written summary"
        return EvictionClass.NEVER, "harness-injected text (always-loaded files, context, hook output)"
    if entry.author == "owner":
        if entry.seq == latest_owner:
            return EvictionClass.NEVER, "the current task's statement (the latest owner message)"
        kept = sum(1 for s in entry.spans if s.tag == "instruction")
        why = "owner message"
        if kept:
            why += f"; its {kept} instruction span(s) move into the marker"
        return EvictionClass.OWNER, why
    if entry.kind == "tool_result" or entry.author == "tool":
        if call is not None and read_path(call) is not None and unchanged_on_disk(call, entry, cwd):
            return EvictionClass.UNCHANGED_SOURCE, f"read of {read_path(call)}, unchanged on disk"
        return EvictionClass.TOOL_OUTPUT, "tool output"
    if entry.kind == "tool_call":
        return EvictionClass.TOOL_OUTPUT, "tool call"
    return EvictionClass.AGENT, "the agent's reasoning or reply"


def current_window(record: Record, session: int) -> Window:
    """The session's window as its record and stored markers make it now.

    Raises:
        AddressError: no such session.
    """
    info = record.session(session)
    if info.entries == 0:
        return Window(session, ())
    entries = [e for e in read(record, Address(session)) if _in_view(e)]
    calls = {e.group: e for e in entries if e.kind == "tool_call" and e.group}
    latest_owner = max((e.seq for e in entries if e.author == "owner"), default=None)
    markers = in_force(markers_for(record, session))
    items: list[WindowItem] = []
    for e in entries:
        eviction, why = classify(e, calls.get(e.group) if e.group else None, latest_owner, info.cwd)
        if eviction != EvictionClass.NEVER and _covered(e.seq, markers):
            continue
        instructions = sum(estimate_tokens(s.text_of(e.text)) for s in e.spans if s.tag == "instruction")
        items.append(WindowItem(e.address, e.seq, e.seq, "entry", eviction, estimate_tokens(e.text),
                                e.text, why, instruction_tokens=instructions if e.author == "owner" else 0))
    items.extend(marker_item(m) for m in markers)
    return Window(session, tuple(sorted(items, key=_order)))


def in_force(stored: Sequence[StoredMarker]) -> list[StoredMarker]:
    """The markers that stand in the window: newest first wins, older ones inside it are superseded."""
    kept: list[tuple[StoredMarker, Address]] = []
    for m in sorted(stored, key=lambda s: s.id, reverse=True):
        span = Address.parse(m.marker.range)
        if not any(_inside(span, other) for _, other in kept):
            kept.append((m, span))
    return [m for m, _ in kept]


def marker_item(stored: StoredMarker) -> WindowItem:
    span = Address.parse(stored.marker.range)
    first = span.first or 1
    return WindowItem(stored.marker.range, first, span.last or first, "marker", EvictionClass.NEVER,
                      stored.marker.tokens, stored.marker.text, f"marker {stored.id}", stored.id)


def eviction_order(window: Window, before: int | None = None) -> list[WindowItem]:
    """The entry items that may leave, in the order they leave: by class, oldest first within a class.

    `before`: only items whose entry number is below it (the verbatim tail starts there).
    """
    movable = [i for i in window.items if i.kind == "entry" and i.eviction != EvictionClass.NEVER
               and (before is None or i.first < before)]
    return sorted(movable, key=lambda i: (i.eviction, i.first))


@dataclass(frozen=True, slots=True)
class Run:
    """Evicted items that sit next to each other in the window: one marker stands for them."""

    span: Address
    items: tuple[WindowItem, ...]

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)


def runs(window: Window, evicted: Iterable[WindowItem]) -> list[Run]:
    """The evicted items as runs: a run breaks wherever an item that stays sits between two that go."""
    going = {i.first for i in evicted}
    out: list[Run] = []
    current: list[WindowItem] = []
    for item in window.items:
        if item.kind == "entry" and item.first in going:
            current.append(item)
        elif current:
            out.append(Run(Address(window.session, current[0].first, current[-1].last), tuple(current)))
            current = []
    if current:
        out.append(Run(Address(window.session, current[0].first, current[-1].last), tuple(current)))
    return out


def check_limits(limit: int, next_call_tokens: int) -> None:
    """Raises: WindowError when the limit or the next call's size is not usable."""
    if limit <= 0:
        raise WindowError(f"limit must be a positive number of tokens, not {limit}")
    if next_call_tokens < 0:
        raise WindowError(f"next_call_tokens must be ≥ 0, not {next_call_tokens}")
    if next_call_tokens >= limit:
        raise WindowError(f"the next call alone ({next_call_tokens} tokens) does not fit the limit ({limit})")


def _in_view(e: Entry) -> bool:
    return (e.kind not in OUT_OF_VIEW_KINDS and not e.sidechain and e.branch != "side"
            and e.quarantined is None)


def _covered(seq: int, markers: Sequence[StoredMarker]) -> bool:
    for m in markers:
        span = Address.parse(m.marker.range)
        if (span.first or 1) <= seq <= (span.last if span.last is not None else seq):
            return True
    return False


def _inside(inner: Address, outer: Address) -> bool:
    lo, hi = inner.first or 1, inner.last or inner.first or 1
    return (outer.first or 1) <= lo and hi <= (outer.last if outer.last is not None else hi)


def _order(item: WindowItem) -> tuple[int, int]:
    # A marker sits where its range starts, before an entry of the same number that stays in view.
    return item.first, 0 if item.kind == "marker" else 1
