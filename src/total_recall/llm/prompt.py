"""Prompts held to a byte budget, with every cut visible.

What goes in to a model is bounded the way what comes out is: pieces (entries, earlier summaries) are
kept whole or dropped whole, and a dropped run is replaced by one marker line that names how many
pieces, how many bytes and which addresses went, so neither the model nor the reader mistakes the
gap for silence. The newest pieces are kept first; a small share of the budget keeps the oldest ones
too, because a session's opening usually states the task everything after it serves. What is dropped
is therefore the middle — the oldest work after the opening.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Room for the drop marker itself, so a fitted prompt never passes its budget.
MARKER_RESERVE = 400
MAX_NAMED_RANGES = 6


@dataclass(frozen=True, slots=True)
class Piece:
    """A unit of prompt text that is kept or dropped whole; `session`/`first`/`last` name what it shows."""

    text: str
    session: int | None = None
    first: int | None = None
    last: int | None = None

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Fitted:
    """The pieces that fit, in order, with the marker where the dropped ones were."""

    text: str
    kept: tuple[Piece, ...]
    dropped: int
    dropped_bytes: int
    dropped_ranges: tuple[str, ...]
    budget: int

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    def report(self) -> dict[str, object]:
        return {"bytes": self.size, "budget": self.budget, "kept": len(self.kept),
                "dropped": self.dropped, "dropped_bytes": self.dropped_bytes,
                "dropped_ranges": list(self.dropped_ranges)}


def fit(pieces: Sequence[Piece], budget: int, noun: str = "entries", head_share: float = 0.15,
        transform: Callable[[str], str] | None = None) -> Fitted:
    """The pieces joined, dropping from the middle (oldest after the opening) until they fit `budget`.

    `transform` (redaction) runs only on the pieces that are kept — the rest never needs it — and the
    choice is made again on the transformed sizes until every kept piece is transformed, so the result
    still fits.
    """
    texts = [p.text for p in pieces]
    sizes = [len(t.encode("utf-8")) for t in texts]
    done = [transform is None] * len(pieces)
    while True:
        keep_head, keep_tail = _choose(sizes, budget, head_share)
        chosen = [*range(keep_head), *range(len(pieces) - keep_tail, len(pieces))]
        pending = [i for i in chosen if not done[i]]
        if not pending:
            break
        assert transform is not None
        for i in pending:
            texts[i] = transform(texts[i])
            sizes[i] = len(texts[i].encode("utf-8"))
            done[i] = True
    kept = tuple(Piece(texts[i], pieces[i].session, pieces[i].first, pieces[i].last) for i in chosen)
    if len(chosen) == len(pieces):
        return Fitted("".join(p.text for p in kept), kept, 0, 0, (), budget)
    dropped = list(pieces[keep_head:len(pieces) - keep_tail])
    dropped_bytes = sum(sizes[keep_head:len(pieces) - keep_tail])
    ranges = ranges_of(dropped)
    named = ", ".join(ranges[:MAX_NAMED_RANGES])
    if len(ranges) > MAX_NAMED_RANGES:
        named += f" and {len(ranges) - MAX_NAMED_RANGES} more ranges"
    where = f": {named}" if named else ""
    marker = (f"[… {len(dropped):,} {noun} ({dropped_bytes:,} bytes{where}) dropped to fit the "
              f"{budget:,}-byte prompt budget …]\n")
    text = ("".join(p.text for p in kept[:keep_head]) + marker
            + "".join(p.text for p in kept[keep_head:]))
    return Fitted(text, kept, len(dropped), dropped_bytes, tuple(ranges), budget)


def _choose(sizes: Sequence[int], budget: int, head_share: float) -> tuple[int, int]:
    """How many pieces to keep from the start and from the end."""
    if sum(sizes) <= budget:
        return len(sizes), 0
    room = max(budget - MARKER_RESERVE, 0)
    head = used = 0
    for size in sizes:
        if used + size > room * head_share:
            break
        head += 1
        used += size
    tail = 0
    for size in reversed(sizes[head:]):
        if used + size > room:
            break
        tail += 1
        used += size
    return head, tail


def ranges_of(pieces: Sequence[Piece]) -> list[str]:
    """Addresses covering the pieces, one range per session in order of first appearance."""
    spans: dict[int, list[int]] = {}
    for p in pieces:
        if p.session is None or p.first is None:
            continue
        lo, hi = p.first, p.last if p.last is not None else p.first
        if p.session in spans:
            spans[p.session][0] = min(spans[p.session][0], lo)
            spans[p.session][1] = max(spans[p.session][1], hi)
        else:
            spans[p.session] = [lo, hi]
    return [f"s{s}#{lo}" if lo == hi else f"s{s}#{lo}-{hi}" for s, (lo, hi) in spans.items()]


def clip(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, keeping its head and tail, with the cut named.

    The cuts fall on whitespace where there is some nearby, so a token (a key, a hash, a path) is kept
    whole or left out whole — never half of it, which redaction could no longer recognise.
    """
    if len(text) <= limit:
        return text
    head_end = _space_before(text, limit * 7 // 10)
    tail_start = _space_after(text, len(text) - (limit - limit * 7 // 10))
    if tail_start <= head_end:
        return text
    cut = tail_start - head_end
    return f"{text[:head_end]}\n[… {cut:,} characters cut …]\n{text[tail_start:]}"


def _space_before(text: str, at: int, reach: int = 80) -> int:
    for i in range(at, max(at - reach, 0), -1):
        if text[i - 1].isspace():
            return i
    return at


def _space_after(text: str, at: int, reach: int = 80) -> int:
    for i in range(at, min(at + reach, len(text))):
        if text[i].isspace():
            return i + 1
    return at
