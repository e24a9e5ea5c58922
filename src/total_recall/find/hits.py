"""What a search hands back besides addresses: a snippet of where the query's words meet, and hits
gathered into per-session ranges ("retrieve coarse, address fine")."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from total_recall.find.verbatim import plain
from total_recall.model import Hit


def snippet(text: str, words: Sequence[str], exact: Sequence[str] = (), width: int = 160) -> str:
    """A one-line window of `text`, as plain text (JSON escapes undone), "…" where it is cut: centred on
    the first of the `exact` strings (lower case, white space collapsed) it holds, else where the most
    distinct query words meet."""
    text = plain(text)
    lower = text.lower()
    for wanted in exact:
        found = _find(text, lower, wanted)
        if found:
            return _centred(text, *found, width)
    spots = sorted((at, w) for w in words if w for at in _occurrences(lower, w))
    positions = [at for at, _ in spots]
    best, best_count = 0, 0
    for at in positions:
        start = max(0, at - width // 3)
        inside = spots[bisect.bisect_left(positions, start) : bisect.bisect_left(positions, start + width)]
        count = len({w for _, w in inside})
        if count > best_count:
            best, best_count = start, count
    # Chosen in the raw text, and only the window flattened: a tool output can hold 50 KB.
    reach = best + 4 * width
    window = " ".join(text[best:reach].split())
    cut_before = bool(text[:best].strip())
    cut_after = len(window) > width or bool(text[reach:].strip())
    return ("…" if cut_before else "") + window[:width] + ("…" if cut_after else "")


def _find(text: str, lower: str, wanted: str, most: int = 20) -> tuple[int, int] | None:
    """Where `text` holds `wanted` (white space aside): the pattern is tried only around the places its
    longest piece occurs (a case-blind pattern over a 50 KB output is slow; a plain find is not)."""
    anchor = _anchor(wanted)
    at = lower.find(anchor)
    if at < 0:
        return None
    pattern = _pattern(wanted)
    if len(lower) != len(text):  # lower case changed some lengths: positions differ, search it all
        found = pattern.search(text)
        return (found.start(), found.end()) if found else None
    for _ in range(most):
        if at < 0:
            break
        reach = 4 * len(wanted) + 16
        found = pattern.search(text, max(0, at - reach), at + reach)
        if found:
            return found.start(), found.end()
        at = lower.find(anchor, at + 1)
    return None


def _centred(text: str, at: int, end: int, width: int) -> str:
    """The window of `width` flattened characters with text[at:end] in its middle (its start, when longer)."""
    pad = max(0, (width - len(" ".join(text[at:end].split()))) // 2)
    lo = max(0, at - 4 * pad)
    raw = text[lo:at]
    before = " ".join(raw.split()) + (" " if raw[-1:].isspace() else "")
    reach = at + 4 * width
    window = (before[-pad:] if pad else "").lstrip() + " ".join(text[at:reach].split())
    cut_before = len(before) > pad or bool(text[:lo].strip())
    cut_after = len(window) > width or bool(text[reach:].strip())
    return ("…" if cut_before else "") + window[:width] + ("…" if cut_after else "")


@functools.lru_cache(maxsize=256)
def _anchor(wanted: str) -> str:
    """The longest piece of `wanted` without white space: a text lacking it cannot hold `wanted`."""
    return max(wanted.split(" "), key=len)


@functools.lru_cache(maxsize=256)
def _pattern(wanted: str) -> re.Pattern[str]:
    """`wanted` found case-blind, any run of white space standing for each of its spaces."""
    return re.compile(r"\s+".join(re.escape(w) for w in wanted.split(" ")), re.I)


def _occurrences(lower: str, word: str, most: int = 50) -> list[int]:
    found: list[int] = []
    at = lower.find(word)
    while at >= 0 and len(found) < most:
        found.append(at)
        at = lower.find(word, at + 1)
    return found


@dataclass(frozen=True, slots=True)
class Group:
    """Hits of one session gathered into the range that spans them: read coarse, address fine."""

    session: int
    range: str
    score: float
    hits: tuple[Hit, ...]


def group(hits: Sequence[Hit], gap: int = 3) -> list[Group]:
    """Hits gathered per session into ranges (hits at most `gap` entries apart join), best first."""
    by_session: dict[int, list[Hit]] = {}
    for h in hits:
        by_session.setdefault(h.session, []).append(h)
    groups: list[Group] = []
    for session, members in by_session.items():
        members.sort(key=lambda h: h.seq)
        run: list[Hit] = [members[0]]
        for h in members[1:]:
            if h.seq - run[-1].seq <= gap:
                run.append(h)
            else:
                groups.append(_group(session, run))
                run = [h]
        groups.append(_group(session, run))
    return sorted(groups, key=lambda g: -g.score)


def _group(session: int, run: list[Hit]) -> Group:
    first, last = run[0].seq, run[-1].seq
    address = f"s{session}#{first}" if first == last else f"s{session}#{first}-{last}"
    return Group(session, address, round(sum(h.score for h in run), 6), tuple(run))
