"""The JSON forms of domain values: what `--json` prints and what MCP returns. Scripts depend on them."""

from __future__ import annotations

from typing import Any

from total_recall.find.search import Group
from total_recall.model import Entry, Hit, Session, SyncReport


def session_json(s: Session) -> dict[str, Any]:
    return {
        "session": s.address,
        "harness": s.harness,
        "native_id": s.native_id,
        "title": s.title,
        "cwd": s.cwd,
        "parent": f"s{s.parent}" if s.parent else None,
        "relation": s.relation,
        "entries": s.entries,
        "started": s.started,
        "ended": s.ended,
        "read_error": s.read_error,
        "source": s.source,
        "generation": s.generation,
    }


def entry_json(e: Entry) -> dict[str, Any]:
    source: dict[str, Any] = {"path": e.source_path}
    if e.line is not None:
        source["line"] = e.line
    if e.row is not None:
        source["row"] = e.row
    return {
        "address": e.address,
        "author": e.author,
        "kind": e.kind,
        "text": e.text,
        "timestamp": e.timestamp,
        "source": source,
        "spans": [
            {"tag": s.tag, "start": s.start, "end": s.end, "text": s.text_of(e.text)} for s in e.spans
        ],
        "tool": e.tool,
        "group": e.group,
        "native_id": e.native_id,
        "branch": e.branch,
        "sidechain": e.sidechain,
        "erased": e.erased,
        "quarantined": e.quarantined,
    }


def sync_json(r: SyncReport, record: str, demo: bool) -> dict[str, Any]:
    return {
        "record": record,
        "demo": demo,
        "sessions_added": r.sessions_added,
        "sessions_updated": r.sessions_updated,
        "entries_added": r.entries_added,
        "sources_read": r.sources_read,
        "sources_unchanged": r.sources_skipped,
        "generations": r.generations,
        "harnesses": r.per_harness,
        "warnings": [str(w) for w in r.warnings],
        "errors": r.errors,
        "notices": r.notices,
        "vectors": r.vectors,
    }


def hit_json(h: Hit) -> dict[str, Any]:
    return {
        "address": h.address,
        "session": f"s{h.session}",
        "harness": h.harness,
        "author": h.author,
        "kind": h.kind,
        "timestamp": h.timestamp,
        "score": h.score,
        "snippet": h.snippet,
    }


def group_json(g: Group) -> dict[str, Any]:
    return {"session": f"s{g.session}", "range": g.range, "score": g.score,
            "hits": [hit_json(h) for h in g.hits]}
