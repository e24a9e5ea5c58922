"""Naming a session as a person knows it: our address (`s3`), or the harness's own id — whole, a unique
prefix, or a unique piece of one (Claude Code users know their session UUIDs). One resolver for every
surface: the CLI's `read`, `compact`, `markers`, `receipts`, `cue` and `search --session`, and the
session_id of the MCP tools (mining/scope.py), which share its tiers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from total_recall.errors import AddressError
from total_recall.model import Address, Session, echoed
from total_recall.record.database import Record

T = TypeVar("T")
# Tried in this order; the first that matches anything decides (an exact id never loses to a longer one it
# is a prefix of). Case-blind: ids are hex or lower-case words, and people type them either way.
TIERS: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("the native id exactly", lambda native, query: native == query),
    ("a prefix of the native id", lambda native, query: native.startswith(query)),
    ("a piece of the native id", lambda native, query: query in native),
)
SHOWN = 5  # candidates an ambiguous name lists
_LOOKS_LIKE_ADDRESS = re.compile(r"[sS][0-9]|[0-9]+#")  # s3…, 3#4: meant as our address, not as an id
_ENTRY_PART = re.compile(r"[0-9]+(?:-[0-9]+)?")


def matching(candidates: Iterable[T], query: str, native: Callable[[T], str]) -> list[T]:
    """The candidates whose native id (`native(c)`) the first tier that matches anything picks, in the order
    given; empty when no tier matches."""
    pool = list(candidates)
    needle = query.casefold()
    for _, test in TIERS:
        found = [c for c in pool if test(native(c).casefold(), needle)]
        if found:
            return found
    return []


def newest_generations(sessions: Sequence[Session]) -> list[Session]:
    """One session per (harness, native id): its newest generation (a source rewritten under bytes already
    read starts a new one; the older stay reachable by their own sN). Newest session first."""
    newest: dict[tuple[str, str], Session] = {}
    for s in sessions:
        kept = newest.get((s.harness, s.native_id))
        if kept is None or s.generation > kept.generation:
            newest[(s.harness, s.native_id)] = s
    return sorted(newest.values(), key=lambda s: s.number, reverse=True)


def label(s: Session) -> str:
    title = f" {s.title[:40]!r}" if s.title else ""
    return f"{s.address} ({s.harness}, {s.native_id}{title})"


def resolve_session(record: Record, text: str) -> Session:
    """The session `text` names: `s3` (or `s3#12`, for its session), a native id, or a unique prefix or
    piece of one.

    Raises:
        AddressError: an address naming no session, a name matching no session (saying what was tried), or
            one matching several (listing up to five, newest first).
    """
    query = text.strip() if isinstance(text, str) else ""
    if not query:
        raise AddressError("no session given (expected s3, a native session id, or a unique prefix of one)")
    try:
        number = Address.parse(query).session
    except AddressError as exc:
        not_an_address: AddressError | None = exc
    else:
        return record.session(number)
    found = matching(newest_generations(record.sessions()), query, lambda s: s.native_id)
    if len(found) == 1:
        return found[0]
    if found:
        shown = "; ".join(label(s) for s in found[:SHOWN])
        more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise AddressError(f"{echoed(query)} is ambiguous — it matches {len(found)} sessions: {shown}{more}. "
                           "Give more of the id, or the address (s3)")
    if not_an_address is not None and _LOOKS_LIKE_ADDRESS.match(query):
        raise not_an_address
    raise AddressError(f"{echoed(query)} names no session: not an address (s3, s3#12, s3#10-20), nor "
                       "a session's own id, a prefix or a piece of one — the `sessions` tool lists them")


def resolve_address(record: Record, text: str) -> Address:
    """`s3`, `s3#12`, `s3#10-20`, or any of them with a native id (or a unique prefix or piece of one) in
    place of `s3`: `ef958aa1#12`.

    Raises:
        AddressError: as `resolve_session`, or entry numbers out of range for an address.
    """
    query = text.strip() if isinstance(text, str) else ""
    try:
        return Address.parse(query)
    except AddressError as exc:
        if query.count("#") > 1:  # `s1#99#2`: no session id holds a `#`, and the entries are named once
            raise AddressError(f"{exc} — it names entries more than once") from None
    head, sep, tail = query.rpartition("#")
    name, entries = (head, tail) if sep and head and _ENTRY_PART.fullmatch(tail) else (query, "")
    session = resolve_session(record, name)
    return Address.parse(session.address + (f"#{entries}" if entries else ""))
