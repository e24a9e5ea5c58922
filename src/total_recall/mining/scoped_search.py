"""`do_android_dream_of_electric_sheep` (seed 004, the name kept for clients that bind by name): our
search (words, exact strings, meaning) restricted to the sessions of a scope, one hit a line."""

from __future__ import annotations

from total_recall.errors import ScopeError, SearchError
from total_recall.find.search import search
from total_recall.mining.flood import cap_text
from total_recall.mining.scope import (
    LIMIT_MAX,
    REPORT_MAX_BYTES,
    check_flag,
    check_harness,
    check_limit,
    check_max_bytes,
    select_sessions,
)
from total_recall.model import Hit, echoed
from total_recall.record.store import Store

DREAM_TOOL = "do_android_dream_of_electric_sheep"
# Seed 004: its search's window is two days.
DREAM_HOURS_DEFAULT = 48
DREAM_LIMIT_DEFAULT = 10
# A search header names at most this many of the sessions it searched; the count beside them is complete.
NAMED_SESSIONS = 20


def dream(
    store: Store,
    *,
    query: str,
    session_id: str | None = None,
    hours_back: float | None = None,
    all: bool | None = None,
    directory: str | None = None,
    harness: str | None = None,
    limit: int | None = None,
    max_bytes: int | None = None,
) -> str:
    """Search (`find.search.search`: words, exact strings, meaning) restricted to the sessions of a
    scope: one session (`session_id`), the sessions active in the last `hours_back` hours (default 48),
    those of a `directory`, or `all=true`. One hit a line, `address | score | timestamp | AUTHOR |
    snippet`, best first, under a header naming the scope and the sessions searched. Flood-capped at
    max_bytes (default 16384).

    A window is searched session by session, so every session of it is reached however much of the
    record lies outside; the hits are merged by score (the more recently active session first on a tie).

    Raises:
        ScopeError: an empty query, a window outside the scope contract, a bound out of range, a
            session_id that matches no session or several.
        SearchError: nothing searchable in the query.
    """
    tool = DREAM_TOOL
    if not isinstance(query, str) or not query.strip():
        raise ScopeError(f"{tool}: `query` is empty — give some words, a path, a hash or an error line")
    n = DREAM_LIMIT_DEFAULT if limit is None else check_limit(tool, limit)
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    only = check_harness(tool, harness)
    sessions, described = select_sessions(
        store, tool, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
        harness=only, default_hours=DREAM_HOURS_DEFAULT)
    recency = {c.session.number: rank for rank, c in enumerate(sessions)}
    hits: list[Hit] = []
    try:
        if check_flag(tool, "all", all):
            # The whole record: one search, kept to the newest generation of each session.
            wide = search(store, query, limit=LIMIT_MAX, harness=(only,) if only else (),
                          project=(directory or "").strip() or None)
            hits = [h for h in wide if h.session in recency]
        else:
            for c in sessions:
                hits.extend(search(store, query, limit=n, session=c.session.number))
    except SearchError as exc:
        raise SearchError(f"{tool}: {exc}") from exc
    hits.sort(key=lambda h: (-h.score, recency[h.session], h.seq))
    shown = hits[:n]
    named = ", ".join(c.address for c in sessions[:NAMED_SESSIONS])
    more = f", and {len(sessions) - NAMED_SESSIONS} more" if len(sessions) > NAMED_SESSIONS else ""
    head = (f"# {tool} · query {echoed(query)} · scope: {described} · sessions searched: {len(sessions)}"
            + (f" ({named}{more})" if sessions else "") + f" · hits: {len(shown)}"
            + (f" of {len(hits)} found (raise limit for more)" if len(hits) > len(shown) else ""))
    lines = [head]
    if not sessions:
        lines.append("no sessions in this scope — widen with hours_back=N or all=true")
    elif not shown:
        lines.append("no hits")
    else:
        lines.append("address | score | timestamp | AUTHOR | snippet")
        lines.extend(_hit_line(h) for h in shown)
    return cap_text(tool, query[:40], "\n".join(lines) + "\n", budget)


def _hit_line(h: Hit) -> str:
    who = h.author.upper() + ("" if h.kind == "message" else f" ({h.kind})")
    return f"{h.address} | {h.score:.4f} | {h.timestamp or '-'} | {who} | {h.snippet}"
