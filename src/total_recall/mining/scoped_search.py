"""`do_android_dream_of_electric_sheep` (seed 004, the name kept for clients that bind by name): our
search (words, exact strings, meaning) restricted to the sessions of a scope, one hit a line."""

from __future__ import annotations

from typing import Any

from total_recall.errors import ScopeError, SearchError
from total_recall.find.search import search
from total_recall.mining.flood import cap_text
from total_recall.mining.scope import (
    LIMIT_MAX,
    MCP,
    REPORT_MAX_BYTES,
    Selection,
    Spelling,
    check_limit,
    check_max_bytes,
)
from total_recall.model import Hit, echoed
from total_recall.record.database import Record

DREAM_TOOL = "do_android_dream_of_electric_sheep"
DREAM_LIMIT_DEFAULT = 10
# A search header names at most this many of the sessions it searched; the count beside them is complete.
NAMED_SESSIONS = 20


def dream(
    record: Record,
    query: str,
    scope: Selection,
    *,
    harness: str | None = None,
    limit: int = DREAM_LIMIT_DEFAULT,
    max_bytes: int = REPORT_MAX_BYTES,
    spelling: Spelling = MCP,
) -> dict[str, Any]:
    """Search (`find.search.search`: words, exact strings, meaning) restricted to the sessions of `scope`,
    best first: the `hits`, how many were `found` in all, and the sessions searched (the first 20 named,
    `sessions_searched` counts them all). `dream_text` writes it as one hit a line under a header naming
    the `tool` as the surface calls it; `notice` says how to widen a scope that held no session (in the
    words `spelling` gives).

    A window is searched session by session, so every session of it is reached however much of the
    record lies outside; the hits are merged by score (the more recently active session first on a tie).
    The whole record (`all=true`) is one search, kept to the newest generation of each session.

    Raises:
        ScopeError: an empty query, a bound out of range.
        SearchError: nothing searchable in the query.
    """
    tool = DREAM_TOOL
    check_query(query)
    n = check_limit(tool, limit)
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    sessions = scope.sessions
    recency = {c.session.number: rank for rank, c in enumerate(sessions)}
    hits: list[Hit] = []
    try:
        if scope.window is not None and scope.window.everything:
            wide = search(record, query, limit=LIMIT_MAX, harness=(harness,) if harness else (),
                          project=scope.window.directory)
            hits = [h for h in wide if h.session in recency]
        else:
            for c in sessions:
                hits.extend(search(record, query, limit=n, session=c.session.number))
    except SearchError as exc:
        raise SearchError(f"{tool}: {exc}") from exc
    hits.sort(key=lambda h: (-h.score, recency[h.session], h.seq))
    return {"tool": spelling.name(tool), "query": query, "scope": scope.described,
            "sessions_searched": len(sessions), "sessions": [c.address for c in sessions[:NAMED_SESSIONS]],
            "found": len(hits), "hits": [_hit(h) for h in hits[:n]], "max_bytes": budget,
            "notice": None if sessions else f"no sessions in this scope — {spelling.widen()}"}


def check_query(query: str) -> None:
    """Raises: ScopeError: the query is empty (checked before the scope is worked out)."""
    if not query.strip():
        raise ScopeError(f"{DREAM_TOOL}: `query` is empty — give some words, a path, a hash or an error line")


def _hit(h: Hit) -> dict[str, Any]:
    return {"address": h.address, "session": f"s{h.session}", "harness": h.harness, "author": h.author,
            "kind": h.kind, "timestamp": h.timestamp, "score": h.score, "snippet": h.snippet}


def dream_text(reply: dict[str, Any]) -> str:
    """A scoped search as seed 004 answers it: a header naming the scope and the sessions searched, then
    `address | score | timestamp | AUTHOR | snippet`, one hit a line; flood-capped at its max_bytes."""
    searched, named, shown = reply["sessions_searched"], reply["sessions"], reply["hits"]
    more = f", and {searched - len(named)} more" if searched > len(named) else ""
    head = (f"# {reply['tool']} · query {echoed(reply['query'])} · scope: {reply['scope']} · sessions "
            f"searched: {searched}" + (f" ({', '.join(named)}{more})" if searched else "")
            + f" · hits: {len(shown)}"
            + (f" of {reply['found']} found (raise limit for more)" if reply["found"] > len(shown) else ""))
    lines = [head]
    if not searched:
        lines.append(reply["notice"])
    elif not shown:
        lines.append("no hits")
    else:
        lines.append("address | score | timestamp | AUTHOR | snippet")
        lines.extend(_hit_line(h) for h in shown)
    return cap_text(DREAM_TOOL, reply["query"][:40], "\n".join(lines) + "\n", reply["max_bytes"])


def _hit_line(h: dict[str, Any]) -> str:
    who = h["author"].upper() + ("" if h["kind"] == "message" else f" ({h['kind']})")
    return f"{h['address']} | {h['score']:.4f} | {h['timestamp'] or '-'} | {who} | {h['snippet']}"
