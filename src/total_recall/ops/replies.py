"""The JSON forms of domain values: what `--json` prints and what MCP returns. Scripts depend on them."""

from __future__ import annotations

from typing import Any

from total_recall.find.hits import Group
from total_recall.keeping.audit import HarnessCompaction
from total_recall.keeping.compaction import Account, Compaction
from total_recall.keeping.cues import Cue
from total_recall.keeping.marker import StoredMarker, marker_dict
from total_recall.keeping.receipts import Receipt
from total_recall.model import Entry, Hit, Session
from total_recall.syncing import sync_json as sync_json  # the sync report's JSON form lives with the sync


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


def compaction_json(c: Compaction) -> dict[str, Any]:
    """`compact --json` and the MCP `compact` tool: the stored marker, its id and its receipt's id."""
    return {"id": c.marker_id, **marker_dict(c.marker), "receipt": c.receipt_id}


def stored_marker_json(m: StoredMarker) -> dict[str, Any]:
    return {"id": m.id, "created": m.created, "withdrawn": m.withdrawn, **marker_dict(m.marker)}


def cue_json(c: Cue) -> dict[str, Any]:
    return {"id": c.id, "session": f"s{c.session}", "text": c.text, "covers": c.covers, "created": c.created}


def receipt_json(r: Receipt) -> dict[str, Any]:
    return {
        "id": r.id,
        "created": r.created,
        "controller": r.controller,
        "trigger": r.trigger,
        "decision": r.decision,
        "knowledge": r.knowledge,
        "session": f"s{r.session}" if r.session is not None else None,
        "range": r.range,
        "tokens_before": r.tokens_before,
        "tokens_after": r.tokens_after,
        "marker": r.marker_id,
        "source": r.source,
        "note": r.note,
    }


def account_json(a: Account) -> dict[str, Any]:
    """`receipts --json` and the MCP `receipts` tool."""
    return {"receipts": [receipt_json(r) for r in a.receipts],
            "unreceipted": [unreceipted_json(c) for c in a.unreceipted]}


def unreceipted_json(c: HarnessCompaction) -> dict[str, Any]:
    return {"address": c.address, "harness": c.harness, "session": f"s{c.session}", "timestamp": c.timestamp}
