"""What a search hands back besides addresses: a snippet of where the query's words meet, and hits
gathered into per-session ranges ("retrieve coarse, address fine")."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from total_recall.model import Hit


def snippet(text: str, words: Sequence[str], width: int = 160) -> str:
    """A one-line window of `text` where the most distinct query words meet, "…" where it is cut."""
    lower = text.lower()
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
