"""A session's timeline as the mining tools see it: its entries in order, what was injected, where it was
last compacted, and the compact record each tool returns for an entry — always with its address.

Quarantined text never comes back from a mining tool (the record keeps it; the tools withhold it), and an
erased entry comes back as the tombstone it is.
"""

from __future__ import annotations

import re
from typing import Any

from total_recall.model import Address, Entry
from total_recall.record.database import Record
from total_recall.record.reading import read

WITHHELD = "[quarantined: withheld]"
INJECTED_AUTHORS = ("harness", "system")
# Between two spans of the owner's words, anything with a tag in it is a harness wrapper, not theirs.
_WRAPPER = re.compile(r"<")


def load(record: Record, session: int) -> list[Entry]:
    """Every entry of a session, in order, with owner spans and (for tree sessions) its branch."""
    return read(record, Address(session))


def is_injected(e: Entry) -> bool:
    """Put there by the harness (reminders, context, summaries, bookkeeping), not said by anyone."""
    return e.author in INJECTED_AUTHORS or e.kind == "meta"


def last_compaction(entries: list[Entry]) -> int | None:
    """The index of the session's last compaction, if it had one."""
    for i in range(len(entries) - 1, -1, -1):
        if entries[i].kind == "compaction":
            return i
    return None


def since_last_compaction(entries: list[Entry]) -> tuple[list[Entry], Entry | None]:
    """The entries from the last compaction on (the compaction included), and that compaction."""
    at = last_compaction(entries)
    return (entries, None) if at is None else (entries[at:], entries[at])


def visible_text(e: Entry) -> str:
    """The text a tool may show: withheld when quarantined, the tombstone when erased."""
    return WITHHELD if e.quarantined is not None else e.text


def owner_words(e: Entry) -> tuple[str, bool]:
    """The owner's own words in an owner entry, and whether harness wrappers were cut out of it.

    Spans are offsets into the verbatim text; the text between two of them is kept when it is only
    spacing and replaced by a line break when it holds a wrapper.
    """
    if e.quarantined is not None:
        return WITHHELD, False
    if e.erased or not e.spans:
        return e.text, False
    parts: list[str] = []
    cut = e.spans[0].start > 0 and e.text[: e.spans[0].start].strip() != ""
    previous = None
    for span in e.spans:
        if previous is not None:
            gap = e.text[previous:span.start]
            if _WRAPPER.search(gap) or len(gap.strip()) > 3:
                parts.append("\n")
                cut = True
            else:
                parts.append(gap)
        parts.append(e.text[span.start:span.end])
        previous = span.end
    if previous is not None and e.text[previous:].strip():
        cut = True
    return "".join(parts), cut


def entry_record(e: Entry, *, text: str | None = None, injected_flag: bool = False) -> dict[str, Any]:
    """The compact JSON form of an entry in a mining reply: address first, nulls left out."""
    out: dict[str, Any] = {"address": e.address, "author": e.author, "kind": e.kind}
    if e.tool:
        out["tool"] = e.tool
    if e.timestamp:
        out["timestamp"] = e.timestamp
    out["text"] = visible_text(e) if text is None else text
    if injected_flag or is_injected(e):
        out["injected"] = is_injected(e)
    if e.branch == "side":
        out["branch"] = "side"
    if e.erased:
        out["erased"] = e.erased
    if e.quarantined is not None:
        out["quarantined"] = e.quarantined
    return out


def snip(text: str, limit: int, address: str) -> str:
    """`text` up to `limit` characters, saying how much was left and where the whole is."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters: read {address}]"


def one_line(text: str) -> str:
    """`text` on one line (line breaks shown as ⏎), for reports that keep one item per line."""
    return " ⏎ ".join(part.strip() for part in text.strip().splitlines() if part.strip())
