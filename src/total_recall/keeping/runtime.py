"""The runtime controller: the next window for an agent built on this package.

`next_window` is the one call such an agent makes before each model call. It reads the session's window
from the record (`window.current_window`), and then, in order:

1. **forced** — when the window plus the next call would pass `limit − headroom`, items leave by class
   and age (`window.eviction_order`), never from the verbatim tail: the shortest prefix of that order
   that fits goes (see `_forced`). Each run of evicted items becomes one marker, built from the record,
   verified and saved; at most `MAX_NEW_MARKERS` per compaction, the closest runs merging beyond that
   (`plan`). When every evictable item is gone and it still does not fit, all markers merge into one
   for the whole evicted span; when even that does not fit, `WindowError` names the numbers.
2. **elective** (only with `policy.elective`) — the cache-price rule (`price.py`) weighs the evictable
   span before the tail against the suffix it would make the cache write again; it compacts when
   eviction pays back within the turns ahead.
3. otherwise, when the window holds at least `policy.notice_share` of the limit, a receipt records
   that the runtime looked and kept everything.

Every compaction and every such decision writes one receipt (controller `runtime`, knowledge
`known input`); the returned window carries its id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from total_recall.errors import MarkerError, WindowError
from total_recall.keeping.controllers import RUNTIME, CompactionEvent
from total_recall.keeping.marker import Marker, build_marker, save_marker
from total_recall.keeping.price import PriceInputs, price
from total_recall.keeping.tail import evictable_range
from total_recall.keeping.verify import verify
from total_recall.keeping.window import (
    EvictionClass,
    Run,
    Window,
    WindowItem,
    WindowPolicy,
    check_limits,
    current_window,
    eviction_order,
    runs,
)
from total_recall.model import Address
from total_recall.record.database import Record

DEFAULT_POLICY = WindowPolicy()
# A marker's fixed lines (header, guide, end) take about 58 estimated tokens.
MIN_RUN_BUDGET = 64
# At most this many new markers per compaction; beyond, the closest runs merge (see `plan`).
MAX_NEW_MARKERS = 16


def next_window(record: Record, session: int, *, limit: int, next_call_tokens: int,
                policy: WindowPolicy = DEFAULT_POLICY) -> Window:
    """The window (markers and kept items, in order) for the next call of `session`.

    Raises:
        AddressError: no such session.
        WindowError: the limit is unusable, or the next call cannot fit even after evicting everything
            that may leave (the message names the tokens that must stay).
        MarkerRejected: a marker failed verification (nothing was stored for it; the window is
            unchanged).
    """
    check_limits(limit, next_call_tokens)
    window = current_window(record, session)
    tail = _tail_start(record, session, policy.keep_exchanges)
    room = limit - next_call_tokens - policy.headroom(limit)
    if window.tokens > room:
        return _forced(record, window, room, tail, policy, limit, next_call_tokens)
    if policy.elective is not None:
        decided = _elective(record, window, tail, policy)
        if decided is not None:
            return decided
    share = (window.tokens + next_call_tokens) / limit
    if share >= policy.notice_share:
        receipt = RUNTIME.on_compaction(record, CompactionEvent(
            session, "forced", "kept", tokens_before=window.tokens, tokens_after=window.tokens,
            note=f"fits: {window.tokens} + {next_call_tokens} of {limit} tokens ({share:.0%}, at or over "
                 f"the {policy.notice_share:.0%} notice share); nothing evicted"))
        return replace(window, receipt_id=receipt.id)
    return window


def next_pointers(record: Record, session: int | None, message: str, *, cwd: str | None = None) -> list[str]:
    """The push for the next call: up to five lines pointing at what the owner already owns that
    `message` (the owner's, about to be sent) needs, or none. Place them after the cached prefix, beside
    the owner's message — inside the prefix, a block that changes every turn would rewrite the cache.
    Empty when the push is off (`total-recall mute --all`).

    Raises:
        AddressError: `session` names no session.
    """
    from total_recall.assets.pointers import push

    return [p.line for p in push(record, message, session=session, cwd=cwd).pointers]


def _forced(record: Record, window: Window, room: int, tail: int | None, policy: WindowPolicy,
            limit: int, next_call: int) -> Window:
    """Evict the shortest prefix of the eviction order that fits with its markers; merge as a last resort.

    Markers cost tokens, so a prefix is first judged by a bound: the items that stay plus each marker's
    budget (a marker never passes its budget). The search starts at the shortest prefix whose entries
    alone free enough room, gallops (1, 2, 4, … more items) to a prefix whose bound fits, and bisects
    back to the shortest such prefix; only then are its markers built, once. Should a marker need more
    than its share of the budget (its instructions must fit), the real window is measured and the search
    goes on with longer prefixes.
    """
    order = eviction_order(window, before=tail)
    built: dict[str, Marker] = {}
    k: int | None = _shortest_prefix(window, order, room, policy)
    while k is not None:
        result = _with_markers(record, window, plan(window, order[:k]), built, policy)
        if result.tokens <= room:
            return _commit(record, window, result, built, "forced")
        k = None if k >= len(order) else _shortest_prefix(window, order, room, policy, start=k + 1)
    result = _merged(record, window, order, built, policy) if order else window
    if result.tokens > room:
        raise WindowError(
            f"s{window.session}: the next call ({next_call} tokens) cannot fit the limit ({limit}): "
            f"{result.tokens} tokens must stay in view (never-class items, the verbatim tail, markers) and "
            f"{limit - room - next_call} are kept as headroom")
    return _commit(record, window, result, built, "forced")


def _shortest_prefix(window: Window, order: Sequence[WindowItem], room: int, policy: WindowPolicy,
                     start: int = 0) -> int | None:
    """The shortest prefix of `order` (at least `start` long) whose bound fits `room`; None if none does."""
    def fits(n: int) -> bool:
        return _bound(window, plan(window, order[:n]), policy) <= room

    left, k = window.tokens, 0
    while k < len(order) and (k < start or left > room):
        left -= order[k].tokens
        k += 1
    if not order or k == 0:
        return None
    failed, step = k - 1, 1
    while not fits(k):
        if k == len(order):
            return None
        failed, k, step = k, min(len(order), k + step), step * 2
    lo, hi = failed + 1, k
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid + 1, hi)
    return hi


def plan(window: Window, evicted: Sequence[WindowItem]) -> list[Run]:
    """The runs one compaction turns into markers: at most `MAX_NEW_MARKERS`.

    Beyond that, the runs closest together merge — across the gaps whose evictable items weigh least —
    and those items leave with them (into the merged marker, built from the record: an owner's
    instructions in a gap still move into it word for word). Never-class items in a gap stay in view.
    """
    found = runs(window, evicted)
    if len(found) <= MAX_NEW_MARKERS:
        return found
    position = {id(item): n for n, item in enumerate(window.items)}
    gaps: list[tuple[int, int, list[WindowItem]]] = []
    for n in range(len(found) - 1):
        between = window.items[position[id(found[n].items[-1])] + 1:position[id(found[n + 1].items[0])]]
        going = [i for i in between if i.kind == "entry" and i.eviction != EvictionClass.NEVER]
        gaps.append((sum(i.tokens for i in going), n, going))
    joined = {n for _, n, _ in sorted(gaps)[:len(found) - MAX_NEW_MARKERS]}
    merged: list[Run] = []
    items: list[WindowItem] = list(found[0].items)
    for n in range(1, len(found)):
        if n - 1 in joined:
            items += gaps[n - 1][2] + list(found[n].items)
            continue
        merged.append(_run(window.session, items))
        items = list(found[n].items)
    merged.append(_run(window.session, items))
    return merged


def _run(session: int, items: list[WindowItem]) -> Run:
    return Run(Address(session, items[0].first, items[-1].last), tuple(items))


def _bound(window: Window, runs_: Sequence[Run], policy: WindowPolicy) -> int:
    """The most the window can hold with these runs gone: what stays plus each marker's budget."""
    return _kept_tokens(window, runs_) + sum(_budget(r, policy) for r in runs_)


def _kept_tokens(window: Window, runs_: Sequence[Run]) -> int:
    gone = {i.first for r in runs_ for i in r.items}
    spans = [r.span for r in runs_]
    return sum(i.tokens for i in window.items
               if not (i.kind == "entry" and i.first in gone) and not _superseded(i, spans))


def _superseded(item: WindowItem, spans: Sequence[Address]) -> bool:
    """An old marker inside a new marker's range leaves with it (the new one is built from the record)."""
    return item.kind == "marker" and any(
        (s.first or 1) <= item.first and item.last <= (s.last or item.last) for s in spans)


def _with_markers(record: Record, window: Window, runs_: Sequence[Run], built: dict[str, Marker],
                  policy: WindowPolicy) -> Window:
    """The window with each run replaced by its (unsaved) marker."""
    gone = {i.first for r in runs_ for i in r.items}
    spans = [r.span for r in runs_]
    items = [i for i in window.items
             if not (i.kind == "entry" and i.first in gone) and not _superseded(i, spans)]
    for run in runs_:
        marker = _marker(record, run.span, _budget(run, policy), built, policy)
        items.append(WindowItem(marker.range, run.span.first or 1, run.span.last or 1, "marker",
                                EvictionClass.NEVER, marker.tokens, marker.text, "marker (new)"))
    return Window(window.session, tuple(sorted(items, key=_order)))


def _merged(record: Record, window: Window, evicted: Sequence[WindowItem], built: dict[str, Marker],
            policy: WindowPolicy) -> Window:
    """Last resort: one marker for the whole span from the first to the last item gone, old markers
    included (it is built from the record, never from them)."""
    olds = [i for i in window.items if i.kind == "marker"]
    first = min([i.first for i in evicted] + [i.first for i in olds])
    last = max([i.last for i in evicted] + [i.last for i in olds])
    inside = [i for i in window.items if i.kind == "entry" and first <= i.first <= last
              and i.eviction != EvictionClass.NEVER]
    return _with_markers(record, window, [Run(Address(window.session, first, last), tuple(inside))], built,
                         policy)


def _budget(run: Run, policy: WindowPolicy) -> int:
    """A marker's budget: a quarter of the tokens it stands for (a marker as large as its range frees
    nothing), never below the marker's fixed lines, plus room for the owner's instructions in the run
    (they move in word for word), never above `policy.marker_budget`."""
    instructions = sum(i.instruction_tokens for i in run.items)
    wanted = max(MIN_RUN_BUDGET, run.tokens // 4) + 2 * instructions
    return min(policy.marker_budget, wanted)


def _marker(record: Record, span: Address, budget: int, built: dict[str, Marker],
            policy: WindowPolicy) -> Marker:
    key = f"{span}@{budget}"
    if key not in built:
        bo = policy.bo if budget == policy.marker_budget else None
        try:
            built[key] = build_marker(record, span, budget, bo)
        except MarkerError:
            if budget >= policy.marker_budget:
                raise
            built[key] = _marker(record, span, policy.marker_budget, built, policy)  # pointers need room
    return built[key]


def _order(item: WindowItem) -> tuple[int, int]:
    return item.first, 0 if item.kind == "marker" else 1


def _commit(record: Record, before: Window, after: Window, built: dict[str, Marker], trigger: str,
            note: str | None = None) -> Window:
    """Save the new markers, write the receipt, return the window as it stands.

    Every new marker is verified before any is saved, so a rejected one leaves nothing half done (no
    stored marker without its receipt); `save_marker` verifies again in its own transaction.
    """
    new = [i for i in after.items if i.kind == "marker" and i.marker_id is None]
    markers = [_built_for(built, i) for i in new]
    for marker in markers:
        verify(record, marker)
    ids = [save_marker(record, marker) for marker in markers]
    spans = [Address.parse(i.address) for i in new]
    overall = (str(Address(before.session, min(s.first or 1 for s in spans), max(s.last or 1 for s in spans)))
               if spans else None)
    listed = ", ".join(f"marker {n} for {i.address}" for n, i in zip(ids, new, strict=True))
    receipt = RUNTIME.on_compaction(record, CompactionEvent(
        before.session, trigger, "compacted", range=overall, tokens_before=before.tokens,
        tokens_after=after.tokens, marker_id=ids[-1] if ids else None,
        note="; ".join(p for p in (note, listed) if p) or None))
    saved = {item.address: n for n, item in zip(ids, new, strict=True)}
    items = tuple(replace(i, marker_id=saved[i.address], why=f"marker {saved[i.address]}")
                  if i.kind == "marker" and i.marker_id is None else i for i in after.items)
    return Window(before.session, items, receipt.id)


def _built_for(built: dict[str, Marker], item: WindowItem) -> Marker:
    """The built marker a new window item shows (it carries the marker's text)."""
    return next(m for m in built.values() if m.range == item.address and m.text == item.text)


def _elective(record: Record, window: Window, tail: int | None, policy: WindowPolicy) -> Window | None:
    """Apply the cache-price rule to the evictable span before the tail; None when there is no span
    worth a decision."""
    rule = policy.elective
    assert rule is not None
    span = eviction_order(window, before=tail)
    span_tokens = sum(i.tokens for i in span)
    if not span or span_tokens < rule.min_span_tokens:
        return None
    start = min(i.first for i in span)
    after = sum(i.tokens for i in window.items if i.first >= start) - span_tokens
    planned = plan(window, span)
    marker_guess = sum(_budget(r, policy) for r in planned)  # at most; the real markers are smaller
    verdict = price(PriceInputs(span_tokens=span_tokens, tokens_after=after, terms=rule.terms,
                                marker_tokens=marker_guess))
    payback = "never" if verdict.payback_turns is None else f"{verdict.payback_turns:.1f} turns"
    note = (f"cache-price rule: span {span_tokens} tokens, {after} after it, payback {payback}, "
            f"{rule.terms.turns_ahead:g} turns ahead; keep {verdict.keep_cost:.6g} "
            f"vs evict {verdict.evict_cost:.6g}")
    spans = [r.span for r in planned]
    overall = str(Address(window.session, spans[0].first, spans[-1].last))
    if not verdict.evict:
        receipt = RUNTIME.on_compaction(record, CompactionEvent(
            window.session, "elective", "kept", range=overall, tokens_before=window.tokens,
            tokens_after=window.tokens, note=note))
        return replace(window, receipt_id=receipt.id)
    built: dict[str, Marker] = {}
    return _commit(record, window, _with_markers(record, window, planned, built, policy), built, "elective",
                   note)


def _tail_start(record: Record, session: int, keep_exchanges: int) -> int | None:
    """The first entry number of the verbatim tail (nothing at or after it leaves); None: no tail."""
    if keep_exchanges <= 0:
        return None
    span = evictable_range(record, session, keep_exchanges)
    if span is None:
        return 0  # the whole session is tail: nothing may leave
    return (span.last or span.first or 0) + 1

