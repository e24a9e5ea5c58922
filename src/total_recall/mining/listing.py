"""What the record holds: the harnesses it covers, and its sessions listed most recently active first.

A listing is bounded twice: by its window (the last `hours_back` hours, 240 by default; `directory`; or
`all=true`), then by `max_bytes` — as many of the window's most recent rows as the budget holds, at most
200 — and it says how many rows the window held and how many it did not print. Counts are computed only
for the rows that are printed, so a listing costs what it shows, not what the record holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from total_recall.errors import ScopeError
from total_recall.mining.bounds import dump, seal
from total_recall.mining.flood import fit_json, largest_fit
from total_recall.mining.scope import (
    LISTING_ROW_CAP,
    MCP,
    REPORT_MAX_BYTES,
    Scoped,
    Spelling,
    check_harness,
    check_max_bytes,
    check_period,
    demo_until,
    iso,
    parse_time,
    sessions_by_activity,
    sessions_in_window,
)
from total_recall.model import HARNESSES, Session
from total_recall.record.database import Record
from total_recall.record.queries import harness_counts, kind_counts, last_entry_times

# A row names at most this many children and older generations; the counts beside them are the truth.
IDS_PER_ROW = 10


def harness_status(record: Record, bound_harness: str | None = None) -> dict[str, Any]:
    """Which harnesses the record (or a server bound to one harness) covers: sessions, entries, readable
    sources and last sync per harness, where the record is, and the newest logged sync with its warnings.

    Raises:
        ScopeError: `bound_harness` is not a harness Total Recall knows.
    """
    bound = check_harness("harness", bound_harness)
    active: dict[str, str | None] = {}
    for c in sessions_by_activity(record):
        active.setdefault(c.session.harness, iso(c.last_active))
    counts = {hc.harness: hc for hc in harness_counts(record)}
    serves = [bound] if bound else list(HARNESSES)
    rows: list[dict[str, Any]] = []
    for h in serves:
        hc = counts.get(h)
        rows.append({
            "harness": h,
            "sessions": hc.sessions if hc else 0,
            "entries": hc.entries if hc else 0,
            "sources": hc.sources if hc else 0,
            "unreadable_sources": hc.unreadable_sources if hc else 0,
            "last_sync": hc.last_sync if hc else None,
            "last_active": active.get(h),
        })
    others = sorted(h for h in counts if h not in serves)
    if bound:
        # Said alike on both surfaces (`status` over MCP, `status --harness` on the CLI): no tool, no flag.
        notice = f"bound to {bound}: every answer comes from its sessions only"
        if others:
            notice += f"; the record also holds {', '.join(others)}"
    else:
        notice = "serving the whole record: every harness"
    empty = [str(r["harness"]) for r in rows if not r["sessions"]]
    if empty:
        notice += f"; no sessions yet from {', '.join(empty)} (a `sync` reads them)"
    return {
        "record": str(record.path),
        "bound_harness": bound,
        "serves": serves,
        "harnesses": rows,
        "totals": {"sessions": sum(r["sessions"] for r in rows), "entries": sum(r["entries"] for r in rows)},
        "last_sync": _last_sync(record),
        "notice": notice,
    }


def _last_sync(record: Record) -> dict[str, Any] | None:
    """The newest sync that read anything (the record's log): its counts and the lines it skipped, kept
    here once the terminal scrolled them away (the first 200 of them, and how many there were)."""
    last = record.last_sync()
    if last is None:
        return None
    return {
        "at": last.at,
        "sources_read": last.sources_read,
        "entries_added": last.entries_added,
        "warning_count": last.warnings,
        "warnings": [str(w) for w in last.kept],
        "warnings_not_listed": last.warnings - len(last.kept),
        "earlier_warnings": last.earlier_warnings,
    }


@dataclass(frozen=True, slots=True)
class Active:
    """A session with the time it was last active (None: no time at all)."""

    session: Session
    last_active: datetime | None


def sessions_newest_first(
    record: Record,
    harnesses: Sequence[str] = (),
    *,
    project: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
) -> list[Active]:
    """Every session of the record, each generation its own row (`total-recall sessions`), most recently
    active first — the latest of its last timed entry, its end and its start; a session with no time at
    all last, newest number first among equals. `project`: only sessions whose folder contains it
    (case-blind); `since`: only those active at or after it (a session with no time is not); `limit`:
    the first so many."""
    times = last_entry_times(record)
    folder = project.casefold() if project else None
    found = []
    for s in record.sessions(harnesses):
        if folder is not None and folder not in (s.cwd or "").casefold():
            continue
        stamps = [t for t in (parse_time(times.get(s.number)), parse_time(s.ended), parse_time(s.started))
                  if t]
        last = max(stamps) if stamps else None
        if since is not None and (last is None or last < since):
            continue
        found.append(Active(s, last))
    floor = datetime.min.replace(tzinfo=UTC)
    found.sort(key=lambda a: (a.last_active or floor, a.session.number), reverse=True)
    return found if limit is None else found[:limit]


def _row(record: Record, c: Scoped, children: Sequence[Scoped]) -> dict[str, Any]:
    s = c.session
    kinds = kind_counts(record, s.number)
    row: dict[str, Any] = {
        "session": s.address,
        "harness": s.harness,
        "native_id": s.native_id,
        "title": s.title,
        "cwd": s.cwd,
        "started": s.started,
        "last_active": iso(c.last_active),
        "entries": s.entries,
        "owner_count": kinds.get(("owner", "message"), 0),
        "agent_count": kinds.get(("agent", "message"), 0),
        # Seed 004's names for the same two counts, for the clients that read them.
        "user_count": kinds.get(("owner", "message"), 0),
        "assistant_count": kinds.get(("agent", "message"), 0),
        "tool_count": sum(n for (_, kind), n in kinds.items() if kind == "tool_call"),
        "compactions": sum(n for (_, kind), n in kinds.items() if kind == "compaction"),
        "parent": f"s{s.parent}" if s.parent else None,
        "relation": s.relation,
        "children": [k.address for k in children[:IDS_PER_ROW]],
        "child_count": len(children),
        "older_generations": [f"s{n}" for n in c.older[:IDS_PER_ROW]],
        "older_count": len(c.older),
    }
    held = []
    if len(children) > IDS_PER_ROW:
        held.append(f"{len(children) - IDS_PER_ROW} older children")
    if len(c.older) > IDS_PER_ROW:
        held.append(f"{len(c.older) - IDS_PER_ROW} older generations")
    if held:
        row["notice"] = f"not named here: {', '.join(held)} (the counts are complete)"
    if s.read_error:
        row["read_error"] = s.read_error
    return row


def list_sessions(
    record: Record,
    *,
    hours_back: float | None = None,
    all: bool | None = None,
    directory: str | None = None,
    harness: str | None = None,
    max_bytes: int | None = None,
    demo: bool = False,
    spelling: Spelling = MCP,
) -> dict[str, Any]:
    """The sessions active in a window, most recently active first, as many rows as max_bytes holds (at
    most 200), with `window_count` (rows the window holds) and `held_back` (rows it did not print). The
    window counts back from now, or on the demo's record (`demo`) from its newest entry; its description
    and notice name the parameters as `spelling` does.

    Raises:
        ScopeError: a window outside the scope contract, or max_bytes out of range.
    """
    tool = "list_sessions"
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    window = check_period(tool, hours_back=hours_back, all=all, directory=directory,
                          until=demo_until(record) if demo else None)
    assert window is not None  # list_sessions takes no session_id
    only = check_harness(tool, harness)
    ranked = sessions_by_activity(record)
    found = sessions_in_window(record, window, only, ranked=ranked)
    children: dict[int, list[Scoped]] = {}
    for c in ranked:
        if c.session.parent is not None:
            children.setdefault(c.session.parent, []).append(c)
    described = window.describe(spelling) + (f", harness {only}" if only else "")
    candidates = found[:LISTING_ROW_CAP]
    rows: list[dict[str, Any]] = []
    spent = 0
    for c in candidates:
        rows.append(_row(record, c, children.get(c.session.number, [])))
        spent += len(dump(rows[-1])) + 1
        if spent > budget:
            break  # the rows after this one cannot be printed either: their counts are never computed

    def build(n: int) -> dict[str, Any]:
        body = {"window": described, "harness": only, "sessions": rows[:n], "window_count": len(found),
                "returned": n, "held_back": len(found) - n, "max_bytes": budget, "bytes": 0,
                "notice": _notice(len(found), n, budget, window.everything, spelling)}
        return seal(lambda: body, body, lambda r: len(dump(r)))

    n, reply = largest_fit(build, len(rows), budget)
    if n < 0:
        raise ScopeError(f"{tool}: max_bytes={budget} cannot hold even an empty listing; raise max_bytes")
    if n == 0 and rows:
        # One row is larger than the whole budget: the listing goes to flood control whole.
        rows = [_row(record, c, children.get(c.session.number, [])) for c in candidates]
        whole = {"window": described, "harness": only, "sessions": rows, "window_count": len(found),
                 "returned": len(rows), "held_back": len(found) - len(rows)}
        return fit_json(tool, "listing", whole, "sessions", budget)
    return reply


def _notice(window_count: int, n: int, budget: int, everything: bool, spelling: Spelling) -> str:
    widen = "" if everything else f"; {spelling.widen()}"
    if window_count == 0:
        return "no sessions in this window" + widen
    if n == window_count:
        return f"all {window_count} sessions of the window listed{widen}"
    parts = [f"{window_count - n} of the {window_count} sessions in the window not listed"]
    if n < min(window_count, LISTING_ROW_CAP):
        parts.append(f"raise {spelling.name('max_bytes')} (now {budget}) for more rows")
    if window_count > LISTING_ROW_CAP:
        parts.append(f"a listing shows at most the {LISTING_ROW_CAP} most recent")
    parts.append(f"narrow with {spelling.name('hours_back')} or {spelling.name('directory')}")
    return "; ".join(parts)
