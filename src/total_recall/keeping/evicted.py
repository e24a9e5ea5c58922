"""The evicted range as the marker builder reads it: the entries that may be mined, lean.

A handful of queries (`record/queries.py`: entries, the quarantine log, the digested tool failures, the
text of the tool output the builder uses, spans, the parents outside the range; the tree only when the
session forks) and no per-entry work in SQL. Of a long tool output only the head and tail are kept, as
`indexes/strings.py` scans them. A marker Total Recall injected into a transcript is masked (blanked, offsets
kept), so no marker is built from an older one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from total_recall.errors import AddressError, MarkerError
from total_recall.indexes.failures import failed
from total_recall.indexes.strings import TOOL_HEAD, TOOL_TAIL
from total_recall.keeping.exact_strings import TOOL_OUTPUT_CHARS
from total_recall.keeping.items import error_lines
from total_recall.model import Address, Span
from total_recall.record import queries
from total_recall.record.branches import active_branch
from total_recall.record.database import Record
from total_recall.record.queries import LeanRow

# A marker Total Recall handed back to a harness, from its header line to its end line.
INJECTED = re.compile(
    r"\[total-recall marker (s\d+#\d+(?:-\d+)?)\].*?(?:\[end total-recall marker \1\]|\Z)", re.S
)

# Erased entries, harness and system text, summaries and metadata are never mined.
_MINED_AUTHORS = frozenset({"owner", "agent", "tool"})
_MINED_KINDS = frozenset({"message", "thinking", "tool_call", "tool_result"})


@dataclass(slots=True)
class MinedEntry:
    """What the builder needs of one entry. `text` has any injected marker blanked out (same offsets);
    `original` is the text as recorded, which every quote must still be found in."""

    id: int
    seq: int
    author: str
    kind: str
    text: str
    original: str
    tool: str | None
    masks: tuple[tuple[int, int], ...] = ()
    spans: tuple[Span, ...] = ()
    failed: bool = False
    errors: tuple[str, ...] = ()
    loaded: bool = True  # False: a tool output that did not fail, too old for the strings to read

    def holds(self, quoted: str) -> bool:
        """Whether `quoted` (… marks a shortened line) stands in the recorded text outside any mask."""
        core = quoted.removesuffix("…")
        return core in self.text and (not self.masks or core in self.original)


def read_range(record: Record, address: Address) -> tuple[Address, list[MinedEntry]]:
    """The entries of the range that may be mined, with the owner's spans.

    No per-entry work in SQL: `Record.entries` builds a full `Entry` per row (source path, two quarantine
    subqueries), which alone costs more than a 10k-entry range's budget of 200 ms.
    Erased, quarantined and side-branch entries, harness and system text, summaries and metadata are left
    out: none of them is the owner's or the agent's own record of this range.
    """
    info = record.session(address.session)
    if info.entries == 0:
        raise MarkerError(f"s{address.session} holds no entries: there is nothing to compact")
    first = address.first or 1
    last = address.last if address.last is not None else info.entries
    if last > info.entries:
        raise AddressError(f"{address}: outside s{address.session} (it has {info.entries} entries)")
    span = Address(address.session, first, last)
    # Tool results recorded since the failures digest are read without their text (a 10k-entry range
    # holds ~7 MB of it): only the failed ones and the newest, which the strings read, are loaded below.
    # The rest of the text comes back whole and long tool output is clipped here: clipping in SQL (substr
    # counts characters) costs more than reading all of it.
    digested = queries.failures_digested_from(record)
    rows = queries.lean_rows(record, address.session, first, last, digested)
    if not rows:
        return span, []
    ids = [r[0] for r in rows]
    low, high = min(ids), max(ids)
    state = queries.quarantine_actions(record, low, high)
    failures = queries.failed_outputs(record, max(low, digested), high)
    side: set[str] = set()
    if any(r[7] for r in rows) and _forks(record, address.session, rows, first, last):
        active = active_branch(record.tree_links(address.session))
        side = {r[6] for r in rows if r[6] is not None and r[6] not in active}
    kept: dict[int, MinedEntry] = {}
    hidden = {entry_id for entry_id, action in state.items() if action == "quarantine"}
    unread: list[MinedEntry] = []  # digested tool outputs, oldest first
    for entry_id, seq, author, kind, text, tool, native_id, _, erased_at in rows:
        if (erased_at is not None or author not in _MINED_AUTHORS or kind not in _MINED_KINDS
                or (hidden and entry_id in hidden) or (side and native_id in side)):
            continue
        if text is None:
            kept[entry_id] = placeholder = MinedEntry(entry_id, seq, author, kind, "", "", tool, loaded=False)
            unread.append(placeholder)
        else:
            kept[entry_id] = _mined(entry_id, seq, author, kind, text, tool, None)
    _load(record, unread, failures, kept)
    spans: dict[int, list[Span]] = {}
    for entry_id, start, end, tag in queries.spans_between(record, low, high):
        e = kept.get(entry_id)
        if e is None or e.author != "owner" or (e.masks and any(s < end and start < t for s, t in e.masks)):
            continue
        found = spans.get(entry_id)
        if found is None:
            spans[entry_id] = found = []
        found.append(Span(start, end, tag))
    for entry_id, found in spans.items():
        kept[entry_id].spans = tuple(found)
    return span, list(kept.values())


def _mined(entry_id: int, seq: int, author: str, kind: str, text: str, tool: str | None,
           failed_known: bool | None) -> MinedEntry:
    """The entry as the builder reads it: a long tool output clipped, injected markers masked, a tool
    output's failure (`failed_known`, or worked out here for one recorded before the digest)."""
    if kind == "tool_result" and len(text) > TOOL_HEAD + TOOL_TAIL:
        # Of a long tool output only the head and tail are ever read, as indexes/strings.py scans them.
        text = text[:TOOL_HEAD] + "\n" + text[-TOOL_TAIL:]
    if "[total-recall marker " in text:
        masks = tuple(_injected(text))
        e = MinedEntry(entry_id, seq, author, kind, _blank(text, masks), text, tool, masks)
    else:
        e = MinedEntry(entry_id, seq, author, kind, text, text, tool)
    if kind == "tool_result" and (failed(text) if failed_known is None else failed_known):
        e.failed = True
        e.errors = tuple(error_lines(text))
    return e


def _load(record: Record, unread: Sequence[MinedEntry], failures: set[int],
          kept: dict[int, MinedEntry]) -> None:
    """Read the text of the digested tool outputs the builder uses: every failed one, and the newest of
    the others until they hold more than the strings ever read of them (TOOL_OUTPUT_CHARS)."""
    wanted = [e for e in unread if e.id in failures]
    newest = [e for e in reversed(unread) if e.id not in failures]
    chars, batch = 0, 16
    while newest and chars <= TOOL_OUTPUT_CHARS:
        chunk, newest = newest[:batch], newest[batch:]
        for e in _texts(record, chunk):
            kept[e.id] = e
            if chars <= TOOL_OUTPUT_CHARS:
                chars += len(e.text)
        batch *= 2
    for e in _texts(record, wanted, failed=True):
        kept[e.id] = e


def _texts(record: Record, entries: Sequence[MinedEntry], failed: bool = False) -> list[MinedEntry]:
    by_id = {e.id: e for e in entries}
    out = []
    for entry_id, text in queries.entry_texts(record, list(by_id)):
        e = by_id[entry_id]
        out.append(_mined(e.id, e.seq, e.author, e.kind, text, e.tool, failed))
    return out


def _forks(record: Record, session: int, rows: Sequence[LeanRow], first: int, last: int) -> bool:
    """Whether any entry of the session has two children, or the session two roots (a rewind to its first
    prompt): only then can an entry be on a side branch (working out the active branch of a 10k-entry
    session costs a fifth of the builder's time). The range's own links are in `rows`; only the rest of the
    session's are read (a later rewind to a point inside the range puts part of it on a side branch).
    Entries cut from one line share its link, so each node counts once."""
    nodes = {(r[6], r[7]) for r in rows if r[6] is not None}
    nodes |= set(queries.links_outside(record, session, first, last))
    parents = [parent for _, parent in nodes]
    return len(parents) != len(set(parents))


def _injected(text: str) -> list[tuple[int, int]]:
    """Where markers Total Recall injected stand in `text`, header to end line."""
    return [(m.start(), m.end()) for m in INJECTED.finditer(text)]


def _blank(text: str, masks: Sequence[tuple[int, int]]) -> str:
    """The text with the masked parts turned to spaces (newlines kept), so offsets stay true."""
    for start, end in masks:
        text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    return text
