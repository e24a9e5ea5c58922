"""Bounded envelopes: an extraction reply that can never exceed what its caller can hold, and says so.

A page is `limit` records from `offset` (omitted: the most recent `limit`), as many of them as `max_bytes`
holds, each clamped to `max_record_bytes` when that is set. The `bounds` block is computed on the exact
bytes returned — `dump(reply)` for a JSON reply, the UTF-8 text for a line reply — including its own
`bytes` field, so `len(dump(reply)) == reply["bounds"]["bytes"] <= max_bytes` always holds. When even one
record cannot fit, the call is an error naming both ways out, never a reply that breaks the cap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import orjson

from total_recall.errors import ScopeError
from total_recall.mining.scope import MAX_BYTES_CEILING

T = TypeVar("T")
R = TypeVar("R")

# `read` only: the one entry of the page is too long for max_bytes alone and came as a part of its text.
TEXT_PART = "text_part"
TRUNCATION_REASONS = ("record_limit", "byte_cap", "record_clamp", TEXT_PART)
# Digits the bounds block may still grow by between the estimate and the sealed reply.
_SLACK = 48


def dump(reply: Any) -> bytes:
    """The one serialization of a JSON reply: compact orjson. `bytes` fields are measured on it, so a
    surface must send exactly these bytes for the bound to hold."""
    return orjson.dumps(reply)


def seal(render: Callable[[], R], slot: dict[str, Any], measure: Callable[[R], int]) -> R:
    """Render a reply whose `slot["bytes"]` states the reply's own size, exactly.

    The size depends on the digits of the field that states it, so render until they agree; the size only
    grows with more digits, so two or three rounds settle it.
    """
    slot["bytes"] = 0
    reply = render()
    for _ in range(8):
        size = measure(reply)
        if slot["bytes"] == size:
            return reply
        slot["bytes"] = size
        reply = render()
    raise AssertionError("the bytes field did not settle")  # unreachable: sizes only grow with digits


def clamp_text(record: dict[str, Any], max_record_bytes: int, encode: Callable[[dict[str, Any]], bytes],
               droppable: Sequence[str] = ()) -> dict[str, Any]:
    """`record` with its `text` cut (and `droppable` fields emptied first) so it encodes to at most
    `max_record_bytes`, marked with how much there was and where the whole is."""
    whole = len(encode(record))
    out = dict(record)
    for name in droppable:
        if name in out and out[name] is not None:
            out[name] = None
            if len(encode({**out, "clamped": whole})) <= max_record_bytes:
                return {**out, "clamped": whole}
    text = out.get("text")
    if not isinstance(text, str):
        return {**out, "clamped": whole}
    note = f"… [clamped: {whole} bytes; read {out.get('address', 'the address')} for the whole]"
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if len(encode({**out, "text": text[:mid] + note, "clamped": whole})) <= max_record_bytes:
            lo = mid
        else:
            hi = mid - 1
    return {**out, "text": text[:lo] + note, "clamped": whole}


def paginate(
    tool: str,
    records: Sequence[T],
    *,
    limit: int,
    offset: int | None,
    max_bytes: int,
    max_record_bytes: int | None,
    encode: Callable[[T], bytes],
    clamp: Callable[[T, int], T],
    address: Callable[[T], str],
    render: Callable[[dict[str, Any], list[T]], R],
    measure: Callable[[R], int],
) -> R:
    """One bounded page of `records`, rendered by `render(bounds, kept)` and sealed.

    `limit`, `offset`, `max_bytes` and `max_record_bytes` must already be checked (see `scope`).

    Raises:
        ScopeError: a record cannot fit the budget even alone (or cannot be clamped to max_record_bytes).
    """
    total = len(records)
    tail = offset is None
    start = max(0, total - limit) if offset is None else offset
    end = min(total, start + limit)
    window = list(records[start:end]) if start < total else []
    clamped: set[str] = set()
    if max_record_bytes is not None:
        for i, rec in enumerate(window):
            if len(encode(rec)) > max_record_bytes:
                small = clamp(rec, max_record_bytes)
                if len(encode(small)) > max_record_bytes:
                    raise ScopeError(
                        f"{tool}: record {address(rec)} cannot be clamped to max_record_bytes="
                        f"{max_record_bytes} (its fixed fields alone are larger); raise max_record_bytes"
                    )
                window[i] = small
                clamped.add(address(rec))

    def build(n: int) -> R:
        kept = window[len(window) - n:] if tail else window[:n]
        first = start + (len(window) - n if tail else 0)
        bounds = _bounds(total, first, n, start, end, tail, limit, max_bytes, len(window),
                         [address(r) for r in kept if address(r) in clamped], offset)
        return seal(lambda: render(bounds, kept), bounds, measure)

    reply = build(len(window))
    if measure(reply) <= max_bytes:
        return reply
    sizes = [len(encode(r)) + 1 for r in (reversed(window) if tail else window)]
    budget = max_bytes - measure(build(0)) - _SLACK
    n = 0
    for size in sizes:
        if budget < size:
            break
        budget -= size
        n += 1
    reply = build(n)
    while n > 0 and measure(reply) > max_bytes:
        n -= 1
        reply = build(n)
    while n < len(window):
        bigger = build(n + 1)
        if measure(bigger) > max_bytes:
            break
        n, reply = n + 1, bigger
    if n == 0:
        one = window[-1] if tail else window[0]
        raise ScopeError(
            f"{tool}: even one record ({address(one)}, {len(encode(one))} bytes) does not fit "
            f"max_bytes={max_bytes} with its envelope — raise max_bytes (ceiling {MAX_BYTES_CEILING}), "
            "or set max_record_bytes to clamp each record"
        )
    if measure(reply) > max_bytes:
        raise ScopeError(f"{tool}: max_bytes={max_bytes} cannot hold even the envelope; raise max_bytes")
    return reply


def _bounds(total: int, first: int, n: int, start: int, end: int, tail: bool, limit: int, max_bytes: int,
            window: int, clamped: list[str], asked: int | None) -> dict[str, Any]:
    reasons = []
    if (tail and start > 0) or (not tail and end < total):
        reasons.append("record_limit")
    if n < window:
        reasons.append("byte_cap")
    if clamped:
        reasons.append("record_clamp")
    after = first + n
    next_offset = after if after < total and window else None
    if total == 0:
        notice = "no records"
    elif not window:
        notice = (f"offset {asked} is past the end: there are {total} records (offsets 0..{total - 1}); "
                  "page from offset 0")
    elif reasons:
        parts = [f"TRUNCATED ({', '.join(reasons)}): returned records {first}..{after} of {total}"]
        if next_offset is not None:
            parts.append(f"next page: offset={next_offset}")
        if first > 0 and tail:
            parts.append(f"earlier records: offset={max(0, first - limit)}")
        if "byte_cap" in reasons:
            parts.append(f"{window - n} records of this page did not fit max_bytes={max_bytes}; raise it "
                         f"(ceiling {MAX_BYTES_CEILING}) or page with a smaller limit")
        if clamped:
            parts.append(f"{len(clamped)} records clamped to max_record_bytes; read their addresses for "
                         "the whole text")
        notice = "; ".join(parts)
    else:
        notice = f"complete: records {first}..{after} of {total}"
    return {
        "total_records": total,
        "returned_records": n,
        "offset": first if window else (asked or 0),
        "limit": limit,
        "next_offset": next_offset,
        "truncated": bool(reasons) and bool(window),
        "truncation_reason": ",".join(reasons) if reasons and window else None,
        "max_bytes": max_bytes,
        "bytes": 0,
        "clamped_records": clamped,
        "notice": notice,
    }
