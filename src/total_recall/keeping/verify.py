"""The verifier: a marker may name only what the record can return, and quote only what it holds.

Every address in a marker must be an entry of its range that the record returns (not erased, not
quarantined: quarantined text must not come back into a window); every quote of the owner's words must
stand word for word inside the owner's own prose spans of its entry (so a paste, a quote block or a command
can never pass as his words) and carry the tag those spans give it (so a question never passes as an
instruction);
every string, item line and pointer opening must stand word for word in its entry; a cue must be one the
agent left for that range; and the text must be exactly the rendering of those fields, so nothing
unverified can ride along in it.
"""

from __future__ import annotations

import re

from total_recall.errors import AddressError, MarkerRejected
from total_recall.keeping.exact_strings import stands
from total_recall.keeping.items import ITEM_KINDS
from total_recall.keeping.marker import (
    DIRECTORY_LIST,
    DIRECTORY_RANGE,
    INSTRUCTION_POINTER,
    OVERFLOW,
    OWN_TAGS,
    Marker,
    render,
    stronger,
)
from total_recall.model import Address, Entry, SpanTag
from total_recall.record import cues
from total_recall.record.database import Record
from total_recall.tokens import estimate_tokens


def verify(record: Record, marker: Marker) -> None:
    """Check `marker` against the record.

    Raises:
        MarkerRejected: naming the address and what is wrong with it.
    """
    span = _range(record, marker)
    entries = _Entries(record, span)
    for q in marker.instructions:
        e = entries.get(q.address, "owner's words")
        if e.author != "owner":
            raise MarkerRejected(f"{q.address}: quoted as the owner's words, but {e.author} wrote it")
        tag = _owner_tag(e, q.text)
        if tag is None:
            raise MarkerRejected(f"{q.address}: {_clip(q.text)!r} is not the owner's own words there (not in "
                                 "that entry, or in a paste, a quote block or a command)")
        claimed = q.tag or "instruction"
        if tag != claimed:
            raise MarkerRejected(f"{q.address}: {_clip(q.text)!r} is tagged {claimed}, but the owner's words "
                                 f"there read as {tag}")
    for q in marker.strings:
        e = entries.get(q.address, "string")
        if not q.text or not stands(e.text, q.text):
            raise MarkerRejected(f"{q.address}: the string {_clip(q.text)!r} is not in that entry")
    for item in marker.items:
        if item.kind not in ITEM_KINDS:
            raise MarkerRejected(f"{item.address}: {item.kind!r} is not an item kind "
                                 f"({', '.join(ITEM_KINDS)})")
        e = entries.get(item.address, item.kind)
        core = item.line.removesuffix("…")
        if not core.strip() or core not in e.text:
            raise MarkerRejected(f"{item.address}: the {item.kind} line {_clip(item.line)!r} is not in "
                                 "that entry")
    for pointer in marker.pointers:
        _check_pointer(pointer, span, entries)
    if marker.cue is not None and not cues.left(record, marker.session, marker.cue.address, marker.cue.text):
        raise MarkerRejected(f"{marker.cue.address}: no cue with the text {_clip(marker.cue.text)!r} "
                             f"was left for s{marker.session}")
    expected = render(marker.range, marker.instructions, marker.strings, marker.items, marker.pointers,
                      marker.cue, marker.notices)
    if marker.text != expected:
        raise MarkerRejected(f"{marker.range}: the marker's text is not the rendering of its verified lines")
    if marker.tokens != estimate_tokens(marker.text):
        raise MarkerRejected(f"{marker.range}: the marker says {marker.tokens} tokens, its text has "
                             f"{estimate_tokens(marker.text)}")


def _range(record: Record, marker: Marker) -> Address:
    try:
        span = Address.parse(marker.range)
    except AddressError as exc:
        raise MarkerRejected(f"the marker's range {marker.range!r} is not an address") from exc
    if span.first is None:
        raise MarkerRejected(f"the marker's range {marker.range} names no entries (expected s3#10-200)")
    if span.session != marker.session:
        raise MarkerRejected(f"the marker's range {marker.range} is not in its session s{marker.session}")
    try:
        info = record.session(span.session)
    except AddressError as exc:
        raise MarkerRejected(f"{marker.range}: the record has no session s{span.session}") from exc
    if (span.last or span.first) > info.entries:
        raise MarkerRejected(f"{marker.range}: runs past the last entry of s{span.session} ({info.entries})")
    return span


class _Entries:
    """The entries a marker names, each read once through the record's own reads."""

    def __init__(self, record: Record, span: Address) -> None:
        self.record = record
        self.span = span
        self.cache: dict[int, Entry] = {}

    def get(self, address: str, what: str) -> Entry:
        """The entry at a single-entry address inside the marker's range, still shown.

        Raises:
            MarkerRejected: the address is malformed, outside the range, or names nothing returnable.
        """
        try:
            addr = Address.parse(address)
        except AddressError as exc:
            raise MarkerRejected(f"{address!r}: not an address (in a {what} line)") from exc
        if addr.first is None or addr.last != addr.first:
            raise MarkerRejected(f"{address}: a {what} must name one entry")
        return self.seq(addr.session, addr.first, what)

    def seq(self, session: int, seq: int, what: str) -> Entry:
        address = f"s{session}#{seq}"
        if session != self.span.session or not (self.span.first or 1) <= seq <= (self.span.last or seq):
            raise MarkerRejected(f"{address}: outside the marker's range {self.span} (in a {what} line)")
        if seq not in self.cache:
            try:
                found = self.record.entries(Address(session, seq, seq))
            except AddressError as exc:
                raise MarkerRejected(f"{address}: the record cannot return it (in a {what} line)") from exc
            if not found:
                raise MarkerRejected(f"{address}: the record cannot return it (in a {what} line)")
            self.cache[seq] = found[0]
        e = self.cache[seq]
        if e.erased:
            raise MarkerRejected(f"{address}: erased ({e.erased}); a marker may not show it")
        if e.quarantined:
            raise MarkerRejected(f"{address}: quarantined ({e.quarantined}); its text must not come back "
                                 "into a window")
        return e


def _owner_tag(e: Entry, quoted: str) -> SpanTag | None:
    """The tag of `quoted` where it stands in the entry inside one stretch of the owner's prose spans
    (spans joined by white space only count as one stretch): the strongest of the spans it covers. None
    when it stands in no such stretch."""
    if not quoted.strip():
        return None
    stretches: list[list[int]] = []
    for s in e.spans:
        if s.tag not in OWN_TAGS:
            continue
        if stretches and not e.text[stretches[-1][1]:s.start].strip():
            stretches[-1][1] = s.end
        else:
            stretches.append([s.start, s.end])
    at = e.text.find(quoted)
    while at >= 0:
        end = at + len(quoted)
        if any(start <= at and end <= stop for start, stop in stretches):
            tag: SpanTag | None = None
            for s in e.spans:
                if s.tag in OWN_TAGS and s.start < end and at < s.end:
                    tag = s.tag if tag is None else stronger(tag, s.tag)
            return tag
        at = e.text.find(quoted, at + 1)
    return None


def _check_pointer(pointer: str, span: Address, entries: _Entries) -> None:
    if m := INSTRUCTION_POINTER.match(pointer):
        e = entries.get(m.group(1), "pointer")
        if e.author != "owner" or m.group(2) not in e.text:
            raise MarkerRejected(f"{m.group(1)}: the pointer's opening {_clip(m.group(2))!r} is not the "
                                 "owner's words there")
        return
    if m := DIRECTORY_LIST.match(pointer):
        session, listed = m.group(2).split("#")
        seqs = [int(s) for s in listed.split(",")]
        if int(m.group(1)) != len(seqs):
            raise MarkerRejected(f"{m.group(2)}: the directory line counts {m.group(1)} but lists "
                                 f"{len(seqs)}")
        for seq in seqs:
            e = entries.seq(int(session.lstrip("s")), seq, "directory")
            if e.author != "owner":
                raise MarkerRejected(f"{e.address}: listed as the owner's words, but {e.author} wrote it")
        return
    if m := DIRECTORY_RANGE.match(pointer):
        _check_addresses(m.group(2), span, entries)
        return
    if m := OVERFLOW.match(pointer):
        for named in (m.group("list"), m.group("rest"), m.group("range")):
            if named:
                _check_addresses(named, span, entries)
        return
    raise MarkerRejected(f"pointer {_clip(pointer)!r} is not a pointer line a marker writes")


def _check_addresses(named: str, span: Address, entries: _Entries) -> None:
    """A list (`s3#4,9,12`) of entries the record returns, or a range (`s3#4-90`), inside the marker's
    range."""
    session, rest = named.split("#")
    number = int(session.lstrip("s"))
    if "," in rest or "-" not in rest:
        for seq in re.split(",", rest):
            entries.seq(number, int(seq), "pointer")
        return
    first, last = (int(x) for x in rest.split("-"))
    if number != span.session or first < (span.first or 1) or last > (span.last or last) or last < first:
        raise MarkerRejected(f"{named}: outside the marker's range {span}")


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"
