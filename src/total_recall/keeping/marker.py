"""The marker a compaction leaves in place of an evicted range: what to keep, within a token budget.

A marker carries the range's address, the owner's own words in it word for word (everything he typed that
is not a paste, a quote block, a command or a harness wrapper: what reads as an instruction first, but his
statements and questions too, since owners state rules as often as they order them), the exact strings
(paths, hashes, error lines, commands, URLs …) and one line per decision, failed attempt or open item,
each with the address of the entry that holds it. There is no narrative. Everything in it is cut from
the record, verbatim, so `verify` can check every line against the entry it names; and it is always
built from the record, never from an older marker (a marker Total Recall injected into a transcript is
masked out by its header and end lines), so the hundredth compaction is as detailed as the first.

Budget: the owner's words get their own budget Bo (default: half the marker's). When they overflow it, the
oldest of what does not read as an instruction leave the view first, then the oldest instructions (a line
that fits what Bo has left stays, however old: a long one never hides a short one): each becomes a one-line
pointer (address + first words), the oldest pointers fold into one directory line of addresses, and a
notice says so; every line of the owner's stays word for word at its address. Strings and
items share what is left, most useful first; what does not fit becomes a count and the addresses that
hold the rest, never dropped in silence. A recall cue (seed 003) stands in for the mechanical items of the
part it covers; instructions and strings stay.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from total_recall.errors import MarkerError
from total_recall.keeping.cues import Cue, cues_for
from total_recall.keeping.evicted import MinedEntry, read_range
from total_recall.keeping.exact_strings import find_strings
from total_recall.keeping.items import Item, ItemKind, find_items
from total_recall.model import Address, SpanTag
from total_recall.record import markers, queries
from total_recall.record.database import Record
from total_recall.tokens import SCALE, estimate_tokens, number_and_comma_weight, weight

__all__ = [
    "BO_SHARE", "Item", "ItemKind", "Marker", "Quote", "StoredMarker", "build_marker", "marker_dict",
    "marker_from_dict", "markers_for", "range_tokens", "render", "save_marker",
]

# The owner's words are what a summary loses first and what the owner has to repeat, so by default they
# get the largest single share of the budget; strings and items share the rest (and whatever Bo leaves).
BO_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Quote:
    """Text that occurs word for word in the entry at `address` (for a cue: the range it covers). A quote of
    the owner's words has the `tag` of what it holds: `instruction` when any of it reads as one, else
    `statement`, else `question`."""

    address: str
    text: str
    tag: SpanTag | None = None


@dataclass(frozen=True, slots=True)
class Marker:
    """A marker for the range `range` (`s3#10-200`) of session `session`; `text` is what a window shows.
    `instructions` are the owner's words kept in full (each tagged), as shown: instructions first."""

    session: int
    range: str
    instructions: tuple[Quote, ...]
    strings: tuple[Quote, ...]
    items: tuple[Item, ...]
    pointers: tuple[str, ...]
    cue: Quote | None
    notices: tuple[str, ...]
    tokens: int
    text: str


@dataclass(frozen=True, slots=True)
class StoredMarker:
    """A stored marker; `withdrawn` says why it may no longer be shown (its text is then a placeholder)."""

    id: int
    created: str
    marker: Marker
    withdrawn: str | None = None


# -- the rendered form (verify re-renders a marker from its fields and compares) --

HEADER = "[total-recall marker {range}]"
END = "[end total-recall marker {range}]"
GUIDE = ("Compacted out of the window. Every line names the entry that holds it word for word: "
         "`total-recall read ADDRESS` returns it exactly.")
INSTRUCTIONS_HEAD = "the owner's own words, verbatim (instructions first):"
STRINGS_HEAD = "exact strings:"
ITEMS_HEAD = "decisions, failures, open items:"
POINTER_WORDS = 4
INSTRUCTION_POINTER = re.compile(r'^→ (s\d+#\d+) "(.+)…"$')
DIRECTORY_LIST = re.compile(r"^→ (\d+) more messages? of the owner's, word for word at (s\d+#\d+(?:,\d+)*)$")
DIRECTORY_RANGE = re.compile(r"^→ (\d+) more messages? of the owner's, word for word in (s\d+#\d+(?:-\d+)?)$")
# "→ 3 more exact strings at …", "→ 3 more items, and entries not read for them, at …" (the agent's oldest
# messages or tool outputs the builder did not read), "→ entries not read for exact strings in …"; markers
# stored before session 14 wrote "3+ more" for the second.
UNREAD = ", and entries not read for them,"
OVERFLOW = re.compile(
    r"^→ (?:(?P<count>\d+)\+? more (?P<what>exact strings|items)(?:, and entries not read for them,)?"
    r"|entries not read for (?P<unread>exact strings|items)) "
    r"(?:at (?P<list>s\d+#\d+(?:,\d+)*)(?:, the rest in (?P<rest>s\d+#\d+(?:-\d+)?))?"
    r"|in (?P<range>s\d+#\d+(?:-\d+)?))$"
)


def render(marker_range: str, instructions: Sequence[Quote], strings: Sequence[Quote], items: Sequence[Item],
           pointers: Sequence[str], cue: Quote | None, notices: Sequence[str]) -> str:
    """The text of a marker: a pure function of its fields, so a verified marker shows only verified lines."""
    lines = [HEADER.format(range=marker_range), GUIDE]
    lines.extend(f"notice: {n}" for n in notices)
    own = [p for p in pointers if not OVERFLOW.match(p)]
    if instructions or own:
        lines.append(INSTRUCTIONS_HEAD)
        lines.extend(own)
        lines.extend(_instruction_line(q) for q in instructions)
    if cue is not None:
        lines.append(_cue_line(cue))
    more = {m.group("what") or m.group("unread"): p for p in pointers if (m := OVERFLOW.match(p))}
    if strings or "exact strings" in more:
        lines.append(STRINGS_HEAD)
        lines.extend(_string_line(q) for q in strings)
        lines.extend([more["exact strings"]] if "exact strings" in more else [])
    if items or "items" in more:
        lines.append(ITEMS_HEAD)
        lines.extend(_item_line(i) for i in items)
        lines.extend([more["items"]] if "items" in more else [])
    lines.append(END.format(range=marker_range))
    return "\n".join(lines)


def _instruction_line(q: Quote) -> str:
    return f'{q.address} "{q.text}"'


def _string_line(q: Quote) -> str:
    return f"{q.address} {q.text}"


def _item_line(i: Item) -> str:
    return f"{i.address} {i.kind}: {i.line}"


def _cue_line(q: Quote) -> str:
    return f'cue for {q.address} (the agent\'s own note; it stands in for the items it covers): "{q.text}"'


def pointer_opening(text: str) -> str:
    """The first words of a quote of the owner's, as its pointer shows them."""
    words = text.split(" ")
    return " ".join(words[:POINTER_WORDS] if len(words) > POINTER_WORDS else words[: max(1, len(words) // 2)])


def _instruction_pointer(q: Quote) -> str:
    return f'→ {q.address} "{pointer_opening(q.text)}…"'


def _address_list(session: int, seqs: Sequence[int]) -> str:
    return f"s{session}#" + ",".join(str(s) for s in seqs)


# -- the owner's words --

# The tags of the owner's own prose (a paste or a command is not his words), weakest claim first: which
# tag a quote holding several gets, and which leave the view first when Bo fills.
OWN_TAGS: tuple[SpanTag, ...] = ("question", "statement", "instruction")


def stronger(a: SpanTag, b: SpanTag) -> SpanTag:
    """The tag of a quote holding spans tagged `a` and `b`."""
    return a if OWN_TAGS.index(a) >= OWN_TAGS.index(b) else b


def _owner_words(session: int, entries: Sequence[MinedEntry]) -> list[Quote]:
    """The owner's own prose spans, oldest first; neighbours on one line are quoted as one line.

    Every sentence of his counts, not only those that open with a directive word: "Deploys wait for the
    Friday freeze" is as much a rule as "Never deploy before Friday". What is left out is what someone
    else wrote (pastes, quote blocks) or what is not prose (commands), as `record/spans.py` cut them."""
    out: list[Quote] = []
    for e in entries:
        if e.author != "owner":
            continue
        address = f"s{session}#{e.seq}"
        run: tuple[int, int, SpanTag] | None = None
        for s in e.spans:
            if s.tag not in OWN_TAGS:
                if run is not None:
                    out.append(Quote(address, e.text[run[0]:run[1]], run[2]))
                run = None
                continue
            if run is not None and _same_line_gap(e.text[run[1]:s.start]):
                run = (run[0], s.end, stronger(run[2], s.tag))
                continue
            if run is not None:
                out.append(Quote(address, e.text[run[0]:run[1]], run[2]))
            run = (s.start, s.end, s.tag)
        if run is not None:
            out.append(Quote(address, e.text[run[0]:run[1]], run[2]))
    return [q for q in out if any(c.isalnum() for c in q.text)]  # a "-----" line says nothing


def _keep_order(quotes: Sequence[Quote]) -> list[Quote]:
    """The order in which the owner's words leave the view when Bo fills, first to leave first: what does
    not read as an instruction before what does, the oldest first within each."""
    return sorted(quotes, key=lambda q: OWN_TAGS.index(q.tag or "instruction"))  # stable: oldest first


def _shown_order(full: Sequence[Quote], chronological: Sequence[Quote]) -> list[Quote]:
    """The lines kept in full as the marker shows them: instructions first, then the rest, oldest first."""
    when = {id(q): n for n, q in enumerate(chronological)}
    return sorted(full, key=lambda q: (q.tag != "instruction", when[id(q)]))


def _same_line_gap(gap: str) -> bool:
    return gap.strip() == "" and "\n" not in gap


# -- exact strings and items, as candidates for the budget --


@dataclass(slots=True)
class _Candidate:
    """A line that may go into the marker: an exact string (`kind` None) or an item, `text` verbatim from
    the entry `seq`. Its line and cost (twentieths, newline included) are worked out only when the budget
    gets to it: a 10k-entry range has thousands of candidates and shows a few hundred."""

    score: float
    order: int
    seq: int
    session: int
    text: str
    kind: ItemKind | None = None
    known: int = -1

    @property
    def address(self) -> str:
        return f"s{self.session}#{self.seq}"

    @property
    def quote(self) -> Quote | None:
        return Quote(self.address, self.text) if self.kind is None else None

    @property
    def item(self) -> Item | None:
        return None if self.kind is None else Item(self.kind, self.address, self.text)

    @property
    def line(self) -> str:
        if self.kind is None:
            return _string_line(Quote(self.address, self.text))
        return _item_line(Item(self.kind, self.address, self.text))

    @property
    def cost(self) -> int:
        if self.known < 0:
            self.known = _cost(self.line)
        return self.known


def _strings(record: Record, session: int,
             entries: Sequence[MinedEntry]) -> tuple[list[_Candidate], list[int]]:
    scan = find_strings(entries)
    out = []
    for order, found in enumerate(scan.found):
        out.append(_Candidate(found.score, order, found.seq, session, found.text))
    return out, _holding_strings(record, session, scan.unscanned)


_HOLDING_CHECK_MOST = 2_000


def _holding_strings(record: Record, session: int, seqs: Sequence[int]) -> list[int]:
    """Of the tool outputs too long to scan here, those the exact index (filled at sync) holds strings
    for: the marker points at these, and not at the many outputs that hold none."""
    if len(seqs) > _HOLDING_CHECK_MOST:
        return list(seqs)  # more than any overflow line lists one by one: not worth the lookups
    holding = queries.holding_strings(record, session, seqs)
    return [q for q in seqs if q in holding]


# -- items --


def _items(session: int, span: Address, entries: Sequence[MinedEntry]) -> tuple[list[_Candidate], list[int]]:
    """The items of the range, best first: hard failures and the owner's words, then the most recent;
    and the agent messages left unread."""
    first = span.first or 1
    size = max(1, (span.last or first) - first + 1)
    out = []
    scan = find_items(entries)
    for order, found in enumerate(scan.found):
        score = found.score + 2.0 * (found.seq - first) / size
        out.append(_Candidate(score, order, found.seq, session, found.line, found.kind))
    out.sort(key=lambda c: (-c.score, c.order))
    return out, scan.unscanned


# -- the budget --


def _cost(line: str) -> int:
    """A line's tokens in twentieths, with the newline that joins it to the next."""
    return weight(line) + SCALE


@dataclass(slots=True)
class _Fold:
    full: list[Quote]
    pointers: list[str]
    cost: int
    notices: list[str]


def _fold(session: int, quotes: Sequence[Quote], bo: int) -> _Fold:
    """Fit the owner's words into Bo (twentieths of a token). `quotes` come in keep order (`_keep_order`:
    the first to leave the view first). From the last back, every line that fits in what Bo has left stays
    in full and one that does not is passed over, so a long line never hides a short one behind it; the
    lines out of view become pointers (the last of them, while they fit) and one directory line listing
    their messages (or, when even that is too long, naming their range). Room for the directory line of
    what is out of view is kept at every step.
    """
    n = len(quotes)
    if n == 0:
        return _Fold([], [], 0, [])
    head = _cost(INSTRUCTIONS_HEAD)
    costs = [_cost(_instruction_line(q)) for q in quotes]
    if head + sum(costs) <= bo:
        return _Fold(list(quotes), [], head + sum(costs), [])
    seqs = [int(q.address.split("#")[1]) for q in quotes]
    for ranged in (False, True):
        directory = _Directory(session, seqs, ranged)
        if head + directory.cost() > bo:
            continue
        used = head
        out = []  # out of view, last first
        for i in range(n - 1, -1, -1):
            if used + costs[i] <= bo and used + costs[i] + directory.cost(without=seqs[i]) <= bo:
                used += costs[i]
                directory.remove(seqs[i])
            else:
                out.append(i)
        pointers: list[int] = []
        for i in out:
            more = _cost(_instruction_pointer(quotes[i]))
            if used + more + directory.cost(without=seqs[i]) > bo:
                break
            used += more
            directory.remove(seqs[i])
            pointers.append(i)
        return _folded(quotes, out, pointers[::-1], directory, used, bo)
    # Not even one directory line fits Bo: the owner's words take what they need from the rest.
    everything = list(range(n - 1, -1, -1))
    return _folded(quotes, everything, [], _Directory(session, seqs, ranged=True), head, bo)


_COMMA = weight(",")


class _Directory:
    """The directory line of the owner's lines out of view: their messages listed, or their range. Its cost
    is kept up to date as lines leave it (for the view or a pointer), and is 0 once it lists none."""

    def __init__(self, session: int, seqs: Sequence[int], ranged: bool) -> None:
        self.session, self.ranged = session, ranged
        self.count: dict[int, int] = {}
        for seq in seqs:
            self.count[seq] = self.count.get(seq, 0) + 1
        self.order = sorted(self.count)
        self.held = len(self.order)
        self.parts = sum(number_and_comma_weight(seq) for seq in self.order)
        self.low, self.high = 0, len(self.order) - 1  # where the first and last messages held are in order

    def _after(self, seq: int | None) -> tuple[int, int, int, int]:
        """(messages, their ",seq" weights, first, last) once one line of message `seq` has left."""
        if seq is None or self.count[seq] > 1:
            return self.held, self.parts, self.low, self.high
        held, parts, low, high = self.held - 1, self.parts - number_and_comma_weight(seq), self.low, self.high
        if held and self.order[low] == seq:
            low += 1
            while self.count[self.order[low]] == 0:
                low += 1
        if held and self.order[high] == seq:
            high -= 1
            while self.count[self.order[high]] == 0:
                high -= 1
        return held, parts, low, high

    def cost(self, without: int | None = None) -> int:
        """What the line costs, or would once one line of message `without` has left it."""
        held, parts, low, high = self._after(without)
        if held == 0:
            return 0
        if self.ranged:
            return _cost(self._ranged(held, low, high))
        # One comma fewer than addresses: the list's cost is additive (see tokens.py).
        return _cost(f"{self._opening(held)} at s{self.session}#") + parts - _COMMA

    def remove(self, seq: int) -> None:
        self.held, self.parts, self.low, self.high = self._after(seq)
        self.count[seq] -= 1

    def line(self) -> str | None:
        if self.held == 0:
            return None
        if self.ranged:
            return self._ranged(self.held, self.low, self.high)
        listed = [seq for seq in self.order if self.count[seq]]
        return f"{self._opening(self.held)} at {_address_list(self.session, listed)}"

    def _ranged(self, held: int, low: int, high: int) -> str:
        return f"{self._opening(held)} in {Address(self.session, self.order[low], self.order[high])}"

    @staticmethod
    def _opening(held: int) -> str:
        return f"→ {held} more message{'s' if held > 1 else ''} of the owner's, word for word"


def _folded(quotes: Sequence[Quote], out: Sequence[int], pointers: Sequence[int], directory: _Directory,
            kept: int, bo: int) -> _Fold:
    """The lines at the indexes `out` out of view: those at `pointers` as pointers (in keep order), the rest
    in the directory line; `kept` is what the header, the lines in full and the pointers cost."""
    gone = set(out)
    line = directory.line()
    lines = ([line] if line is not None else []) + [_instruction_pointer(quotes[i]) for i in pointers]
    cost = kept + (_cost(line) if line is not None else 0)
    needed = -(-cost // SCALE) if cost > bo else None
    notice = _fold_notice(bo // SCALE, len(quotes), len(out), len(pointers), len(out) - len(pointers), needed)
    return _Fold([q for i, q in enumerate(quotes) if i not in gone], lines, cost, [notice])


def _fold_notice(bo: int, n: int, k: int, pointers: int, folded: int, needed: int | None) -> str:
    """What the owner is told when Bo fills."""
    text = (f"Bo full ({bo} tokens): {k} of the owner's {n} lines out of view, instructions last ({pointers} "
            f"as pointers, {folded} in the directory line), each word for word at its address")
    return text + (f"; even that needs {needed} tokens" if needed is not None else "")


def _longest_notice(n: int, budget: int) -> str:
    """A fold notice at least as long as the real one can be, to keep room for it."""
    return _fold_notice(budget, n, n, n, n, budget)


def _fill(cands: Sequence[_Candidate], budget: int, what: str, session: int,
          unscanned: Sequence[int] = ()) -> tuple[list[_Candidate], str | None, int]:
    """Take candidates in rank order while they fit `budget` (twentieths, header included), keeping room
    for the line that counts the rest and names the entries that hold them."""
    if not cands and not unscanned:
        return [], None, 0
    head = _cost(_head(what))
    if not unscanned and _need(cands, head, budget) <= budget:
        return list(cands), None, head + sum(c.cost for c in cands)
    # When the addresses of every candidate fit in one list, keep room for that list first: a string
    # one read away at its own address is recoverable, one lost in a range of thousands is not. When they
    # do not, half the room goes to as many addresses as fit (an address costs a few tokens, a quoted
    # line four times that) and the rest is named as a range.
    every = sorted({c.seq for c in cands} | set(unscanned))
    bound = _cost(_overflow_bound(what, len(cands), session, [c.seq for c in cands] + list(unscanned),
                                  bool(unscanned)))
    # An address costs two tokens at the least: a list longer than the budget allows is not written out.
    fits = head + _ADDRESS_LEAST * len(every) + _SHORTEST_LINE <= budget
    whole_list = (f"→ {_more(len(cands), bool(unscanned), what)} at {_address_list(session, every)}"
                  if fits else "")
    if fits and head + _cost(whole_list) + _SHORTEST_LINE <= budget:
        reserve = _cost(whole_list)
    else:
        reserve = max(bound + _cost(_REST.format(range=Address(session, 1, every[-1]))),
                      (budget - head) // 2)
    used = head
    taken: list[_Candidate] = []
    misses = 0
    for c in cands:
        room = budget - used - reserve
        if room < _SHORTEST_LINE or misses > _MISSES:
            break
        if c.cost <= room:
            taken.append(c)
            used += c.cost
            misses = 0
        else:
            misses += 1
    chosen = {id(c) for c in taken}
    rest = [c.seq for c in cands if id(c) not in chosen]
    if not rest and not unscanned:
        return taken, None, used
    count = _more(len(rest), bool(unscanned), what)
    held = sorted(set(rest) | set(unscanned))
    if used + _ADDRESS_LEAST * len(held) <= budget:
        listed = f"→ {count} at {_address_list(session, held)}"
        if used + _cost(listed) <= budget:
            return taken, listed, used + _cost(listed)
    line = _partial_list(count, session, list(dict.fromkeys([*rest, *unscanned])), budget - used)
    return taken, line, used + _cost(line)


_REST = ", the rest in {range}"
_ADDRESS_LEAST = 2 * SCALE


def _more(count: int, unread: bool, what: str) -> str:
    """How an overflow line opens: how many more lines there are, and whether entries went unread."""
    if not count:
        return f"entries not read for {what}"
    return f"{count} more {what}{UNREAD if unread else ''}"


def _partial_list(count: str, session: int, ranked: list[int], room: int) -> str:
    """The overflow line within `room` (`count`: its opening, `_more`): the entries of the best-ranked
    left-over lines by address, the rest as one range (or only the range, when not even one address fits
    beside it)."""
    ordered = sorted(ranked)
    whole = f"→ {count} in {Address(session, ordered[0], ordered[-1])}"
    # An upper bound for the range part, whichever entries end up in it.
    tail = _cost(_REST.format(range=Address(session, ordered[0], ordered[-1]))) - SCALE
    base = _cost(f"→ {count} at s{session}#")
    listed: list[int] = []
    cost = base + tail
    for seq in ranked:
        step = number_and_comma_weight(seq)
        if cost + step > room:
            break
        listed.append(seq)
        cost += step
    if not listed:
        return whole
    left = sorted(set(ranked) - set(listed))
    line = f"→ {count} at {_address_list(session, sorted(listed))}"
    return line + (_REST.format(range=Address(session, left[0], left[-1])) if left else "")


# A line shorter than this does not exist; after this many misfits in a row the rest will not fit either.
_SHORTEST_LINE = 4 * SCALE
_MISSES = 50


def _need(cands: Sequence[_Candidate], head: int, cap: int) -> int:
    """The cost of showing every candidate, counted only until it passes `cap`."""
    total = head
    for c in cands:
        total += c.cost
        if total > cap:
            break
    return total


def _head(what: str) -> str:
    return STRINGS_HEAD if what == "exact strings" else ITEMS_HEAD


def _overflow_bound(what: str, count: int, session: int, seqs: Sequence[int], unread: bool) -> str:
    """A line at least as long as the shortest overflow line for these candidates can be."""
    widest = max(seqs) if seqs else 1
    return f"→ {_more(max(count, 1), unread, what)} in {Address(session, widest, widest + 1)}"


# -- building --


def build_marker(record: Record, address: Address, budget: int, bo: int | None = None) -> Marker:
    """The marker for the range `address` (a whole-session address means the whole session), built from
    the record only, within `budget` tokens, instructions within `bo` (default: BO_SHARE of the budget,
    and never more than the budget leaves once the header and the sections' pointers are counted).

    Raises:
        AddressError: no such session, or the range runs past its last entry.
        MarkerError: the budget or Bo is unusable, or too small for the header, the instructions' directory
            line and the pointers that say where the rest is (the message names the minimum).
    """
    if budget < 1:
        raise MarkerError(f"--budget must be a positive number of tokens (got {budget})")
    if bo is not None and not 0 <= bo <= budget:
        raise MarkerError(f"--bo must be between 0 and the budget ({budget}); got {bo}")
    with _without_collector_pauses():
        return _build(record, address, budget, bo)


@contextmanager
def _without_collector_pauses() -> Iterator[None]:
    """A 10k-entry range makes ~100k short-lived objects and no cycles worth collecting: the cyclic
    collector's passes over them cost a tenth of the builder's time, so it waits until the marker is built."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build(record: Record, address: Address, budget: int, bo: int | None) -> Marker:
    span, entries = read_range(record, address)
    session = span.session
    marker_range = f"s{session}#{span.first}-{span.last}"  # always a range: never named like an entry
    capacity = budget * SCALE + SCALE  # the last line has no newline after it
    fixed = _cost(HEADER.format(range=marker_range)) + _cost(GUIDE) + _cost(END.format(range=marker_range))
    if fixed > capacity:
        raise MarkerError(f"budget {budget} is too small: the marker's header alone takes "
                          f"{_tokens(fixed)} tokens")
    strings, unscanned = _strings(record, session, entries)
    items, items_unscanned = _items(session, span, entries)
    cue, covered = _cue(cues_for(record, session), span)
    chronological = _owner_words(session, entries)
    instructions = _keep_order(chronological)
    notices: list[str] = []
    if cue is not None:
        cue_items = [c for c in items if not covered[0] <= c.seq <= covered[1]]
        cue_unscanned = [n for n in items_unscanned if not covered[0] <= n <= covered[1]]
        with_cue = (fixed + _cost(_cue_line(cue)) + _least_instructions(session, instructions)
                    + _floor(strings, unscanned, cue_items, cue_unscanned, session))
        if with_cue <= capacity:
            items, items_unscanned = cue_items, cue_unscanned
        else:
            notices.append(f"the cue for {cue.address} did not fit the budget; the mechanical items stand in")
            cue = None
    rest = fixed + _floor(strings, unscanned, items, items_unscanned, session)
    rest += _cost(_cue_line(cue)) if cue is not None else 0
    rest += sum(_cost(f"notice: {n}") for n in notices)
    wanted = (bo if bo is not None else int(budget * BO_SHARE)) * SCALE
    reserve = _cost(f"notice: {_longest_notice(len(instructions), budget)}") if instructions else 0
    room = capacity - rest - reserve
    fold = _fold(session, instructions, max(0, min(wanted, room)))
    notices = fold.notices + notices
    used = rest + fold.cost + sum(_cost(f"notice: {n}") for n in fold.notices)
    if used > capacity:
        raise MarkerError(f"budget {budget} is too small to keep this range's owner's words and pointers "
                          f"recoverable: it needs at least {_tokens(used)} tokens")
    left = capacity - fixed - fold.cost - (_cost(_cue_line(cue)) if cue is not None else 0)
    left -= sum(_cost(f"notice: {n}") for n in notices)
    shown_strings, more_strings, shown_items, more_items = _share(strings, unscanned, items, items_unscanned,
                                                                  left, session)
    pointers = tuple(fold.pointers) + tuple(x for x in (more_strings, more_items) if x is not None)
    quotes = tuple(c.quote for c in shown_strings if c.quote is not None)
    in_order = sorted(shown_items, key=lambda c: (c.seq, c.order))
    item_list = tuple(c.item for c in in_order if c.item is not None)
    shown = tuple(_shown_order(fold.full, chronological))
    text = render(marker_range, shown, quotes, item_list, pointers, cue, notices)
    tokens = estimate_tokens(text)
    if tokens > budget:  # the line costs add up exactly (see tokens.py); this would be a bug, never shown
        raise MarkerError(f"the marker for {marker_range} came to {tokens} tokens, over its budget of "
                          f"{budget}")
    return Marker(session, marker_range, shown, quotes, item_list, pointers, cue, tuple(notices), tokens,
                  text)


def _tokens(twentieths: int) -> int:
    """Whole tokens of a sum of line costs (the last line has no newline)."""
    return -(-(twentieths - SCALE) // SCALE)


def _floor(strings: Sequence[_Candidate], unscanned: Sequence[int], items: Sequence[_Candidate],
           items_unscanned: Sequence[int], session: int) -> int:
    """What the strings and items sections cost at the least: a heading and the line saying where they are."""
    total = 0
    for what, found, unread in (("exact strings", strings, unscanned), ("items", items, items_unscanned)):
        seqs = [c.seq for c in found] + list(unread)
        if seqs:
            line = _overflow_bound(what, len(found), session, seqs, bool(unread))
            total += _cost(_head(what)) + _cost(line)
    return total


def _least_instructions(session: int, instructions: Sequence[Quote]) -> int:
    """What the owner's words cost at the least: a heading, one directory line of their range, the notice."""
    if not instructions:
        return 0
    least = _fold(session, instructions, 0)
    return least.cost + sum(_cost(f"notice: {n}") for n in least.notices)


def _share(strings: Sequence[_Candidate], unscanned: Sequence[int], items: Sequence[_Candidate],
           items_unscanned: Sequence[int], left: int,
           session: int) -> tuple[list[_Candidate], str | None, list[_Candidate], str | None]:
    """Strings and items split what is left evenly; what one does not need, the other may use."""
    half = left // 2
    need_strings = _need(strings, _cost(STRINGS_HEAD), left) if strings else 0
    need_items = _need(items, _cost(ITEMS_HEAD), left) if items else 0
    if need_strings <= half and not unscanned:
        string_budget = need_strings
    elif need_items <= half and not items_unscanned:
        string_budget = left - need_items
    else:
        string_budget = half
    # Each section keeps at least the room to say where its lines are (build_marker checked both fit).
    least_strings = _floor(strings, unscanned, [], [], session)
    least_items = _floor([], [], items, items_unscanned, session)
    string_budget = min(max(string_budget, least_strings), left - least_items)
    shown_strings, more_strings, used = _fill(strings, string_budget, "exact strings", session, unscanned)
    shown_items, more_items, _ = _fill(items, left - used, "items", session, items_unscanned)
    return shown_strings, more_strings, shown_items, more_items


def _cue(cues: Sequence[Cue], span: Address) -> tuple[Quote | None, tuple[int, int]]:
    """The newest cue whose range overlaps `span`, and the part of `span` it covers."""
    for c in reversed(cues):
        covers = Address.parse(c.covers)
        first, last = covers.first or 1, covers.last or covers.first or 1
        if first <= (span.last or 0) and last >= (span.first or 1):
            return Quote(c.covers, c.text), (max(first, span.first or 1), min(last, span.last or 0))
    return None, (0, -1)


def range_tokens(record: Record, address: Address) -> int:
    """The estimated tokens of every entry's text at `address`: what the range held before compaction.

    Raises:
        AddressError: no such session.
    """
    info = record.session(address.session)
    first = address.first or 1
    last = address.last if address.last is not None else info.entries
    return sum(estimate_tokens(text) for text in queries.texts(record, address.session, first, last))


# -- storing --


def save_marker(record: Record, marker: Marker) -> int:
    """Verify the marker against the record and store it; returns its id.

    Verification and the write share one transaction, so an erase cannot slip between them.

    Raises:
        MarkerRejected: the marker names or quotes something the record does not hold (nothing is stored).
    """
    from total_recall.keeping.verify import verify  # verify reads this module's formats

    record.begin()
    try:
        verify(record, marker)
        marker_id = markers.add(record, marker.session, marker.range, marker_dict(marker), marker.tokens,
                                _quoted_seqs(marker))
        record.commit()
    except BaseException:
        record.rollback()
        raise
    return marker_id


def _quoted_seqs(marker: Marker) -> set[int]:
    """The entries whose words the marker shows (pointer openings included)."""
    addresses = [q.address for q in (*marker.instructions, *marker.strings)]
    addresses += [i.address for i in marker.items]
    addresses += [m.group(1) for p in marker.pointers if (m := INSTRUCTION_POINTER.match(p))]
    return {int(a.split("#")[1]) for a in addresses}


def markers_for(record: Record, session: int, include_withdrawn: bool = False) -> list[StoredMarker]:
    """The session's stored markers, newest last.

    A marker that quotes an entry erased or quarantined since is withdrawn: left out, or with
    `include_withdrawn` returned with a placeholder text and the reason, never with the words.
    """
    rows = markers.of_session(record, session)
    if not rows:
        return []
    hidden = {marker_id: f"it quotes s{session}#{seq}, which is quarantined"
              for marker_id, seq in markers.quarantined_quotes(record, session).items()}
    out = []
    for r in rows:
        why = f"an entry it quoted was erased at {r.erased_at}" if r.erased_at else hidden.get(r.id)
        if why is not None and not include_withdrawn:
            continue
        if why is None and r.body is not None:
            marker = marker_from_dict(r.body)
        else:
            text = f"[total-recall marker {r.range} withdrawn: {why}]"
            marker = Marker(session, r.range, (), (), (), (), None, (), estimate_tokens(text), text)
        out.append(StoredMarker(r.id, r.created, marker, why))
    return out


def marker_dict(m: Marker) -> dict[str, Any]:
    """The JSON form of a marker (what `compact --json` prints and what the record stores)."""
    return {
        "session": f"s{m.session}",
        "range": m.range,
        "instructions": [{"address": q.address, "text": q.text, "tag": q.tag} for q in m.instructions],
        "strings": [{"address": q.address, "text": q.text} for q in m.strings],
        "items": [{"kind": i.kind, "address": i.address, "line": i.line} for i in m.items],
        "pointers": list(m.pointers),
        "cue": None if m.cue is None else {"address": m.cue.address, "text": m.cue.text},
        "notices": list(m.notices),
        "tokens": m.tokens,
        "text": m.text,
    }


def marker_from_dict(d: dict[str, Any]) -> Marker:
    cue = d.get("cue")
    return Marker(
        session=int(str(d["session"]).lstrip("s")),
        range=d["range"],
        # A marker stored before the owner's words were all kept quoted instructions only.
        instructions=tuple(Quote(q["address"], q["text"], q.get("tag", "instruction"))
                           for q in d["instructions"]),
        strings=tuple(Quote(q["address"], q["text"]) for q in d["strings"]),
        items=tuple(Item(cast(ItemKind, i["kind"]), i["address"], i["line"]) for i in d["items"]),
        pointers=tuple(d["pointers"]),
        cue=None if cue is None else Quote(cue["address"], cue["text"]),
        notices=tuple(d["notices"]),
        tokens=int(d["tokens"]),
        text=d["text"],
    )
