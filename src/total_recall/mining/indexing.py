"""`index_sessions` (seed 004): bring the indexes up to date for a scope and say what is indexed.

Words and exact strings need no step of their own: sync indexes each entry in the transaction that records
it. So this is an incremental sync of the served harnesses, then meaning vectors within a time budget,
reported per session of the scope (the scope contract of `mining/scope.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from total_recall.errors import ScopeError
from total_recall.indexes import vectors
from total_recall.mining.flood import fit_json
from total_recall.mining.scope import (
    MCP,
    REPORT_MAX_BYTES,
    Scoped,
    Spelling,
    check_harness,
    check_max_bytes,
    check_period,
    demo_until,
    iso,
    select_sessions,
)
from total_recall.model import echoed
from total_recall.record.database import Record
from total_recall.record.queries import vector_coverage
from total_recall.record.sync import DEFAULT_VECTOR_BUDGET, VECTOR_BUDGET_ENV
from total_recall.syncing import sync as run_sync
from total_recall.syncing import sync_json

INDEX_TOOL = "index_sessions"
INDEX_BUDGET_MAX = 600.0


def index_scope(
    record: Record,
    *,
    session_id: str | None = None,
    hours_back: float | None = None,
    all: bool | None = None,
    directory: str | None = None,
    harness: str | None = None,
    budget_seconds: float | None = None,
    max_bytes: int | None = None,
    roots: Mapping[str, Path] | None = None,
    demo: bool = False,
    spelling: Spelling = MCP,
) -> dict[str, Any]:
    """Sync the harnesses (`harness`, else every one, or those of `roots`), then make meaning vectors for
    up to `budget_seconds` (default 20), and report per session of the scope how many of its entries
    have one and how many wait. Words and exact strings need no step: sync indexes them in the
    transaction that records each entry. Flood-capped at max_bytes (default 16384). A window counts back
    from now, or on the demo's record (`demo`) from its newest entry once synced; the scope is said in the
    words `spelling` gives.

    Vectors are made in entry order across the record (the index keeps one high-water mark), so a scope's
    recent entries wait behind older ones elsewhere; the reply says so when they do.

    Raises:
        ScopeError: a window outside the scope contract, a bound out of range, a session_id that matches
            no session or several.
    """
    tool = INDEX_TOOL
    budget = check_max_bytes(tool, max_bytes, REPORT_MAX_BYTES)
    seconds = _check_seconds(tool, budget_seconds)
    only = check_harness(tool, harness)
    # Checked before the sync: a rejected call does no work.
    check_period(tool, hours_back=hours_back, all=all, directory=directory, session_id=session_id,
                 takes_session=True)
    harnesses = [only] if only else (list(roots) if roots else None)
    # The vectors are made below, within this call's budget, not the sync's own.
    report = run_sync(record, harnesses, env={**os.environ, VECTOR_BUDGET_ENV: "0"}, roots=roots)
    synced = sync_json(report, str(record.path), False)
    synced["warnings"] = len(report.warnings)  # can be thousands; `total-recall sync --json` lists them
    del synced["record"], synced["demo"], synced["vectors"]
    sessions, described = select_sessions(
        record, tool, session_id=session_id, hours_back=hours_back, all=all, directory=directory,
        harness=only, until=demo_until(record) if demo else None, spelling=spelling)
    waiting = record.vectors_waiting()
    # `done`: no entry of the record waits for a vector; `available` is asked only when one would be made.
    made: dict[str, Any] = {"available": None, "embedded": 0, "done": not waiting, "budget_seconds": seconds}
    if seconds > 0 and waiting:
        made["available"] = vectors.available()
        if made["available"]:
            made["embedded"], made["done"] = record.make_vectors(seconds)
    counts = vector_coverage(record, [c.session.number for c in sessions])
    rows = [_index_row(c, *counts.get(c.session.number, (0, 0))) for c in sessions]
    totals = {"sessions": len(rows), "entries": sum(r["entries"] for r in rows),
              "embeddable": sum(r["embeddable"] for r in rows), "vectors": sum(r["vectors"] for r in rows),
              "pending": sum(r["pending"] for r in rows)}
    whole = {"scope": described, "harness": only, "sync": synced, "meaning_vectors": made, "totals": totals,
             "notice": _index_notice(totals, made, spelling), "sessions": rows}
    return fit_json(tool, "index", whole, "sessions", budget)


def _check_seconds(tool: str, seconds: float | None) -> float:
    if seconds is None:
        return DEFAULT_VECTOR_BUDGET
    number = not isinstance(seconds, bool) and isinstance(seconds, int | float)
    if not number or not 0 <= seconds <= INDEX_BUDGET_MAX:
        raise ScopeError(f"{tool}: `budget_seconds` is out of range: {echoed(seconds)} — it runs 0–"
                         f"{INDEX_BUDGET_MAX:g} (0: report only); omit it for {DEFAULT_VECTOR_BUDGET:g}")
    return float(seconds)


def _index_row(c: Scoped, embeddable: int, embedded: int) -> dict[str, Any]:
    s = c.session
    row: dict[str, Any] = {"session": s.address, "harness": s.harness, "native_id": s.native_id,
                           "title": s.title, "last_active": iso(c.last_active),
                           "entries": s.entries, "embeddable": embeddable, "vectors": embedded,
                           "pending": embeddable - embedded}
    if s.read_error:
        row["read_error"] = s.read_error
    return row


def _index_notice(totals: dict[str, int], made: dict[str, Any], spelling: Spelling) -> str:
    parts = [f"words and exact strings: all {totals['entries']} entries of the scope's "
             f"{totals['sessions']} sessions are indexed (sync indexes each entry as it records it)"]
    if made["available"] is False:
        parts.append("meaning vectors: the vectors extra is not installed (pip install "
                     "'total-recall[vectors]'); search uses words and exact strings")
    elif totals["pending"]:
        why = (f"{spelling.name('budget_seconds')} is 0" if not made["budget_seconds"]
               else "the budget ran out; vectors are made in entry order across the record")
        parts.append(f"meaning vectors: {totals['vectors']} of {totals['embeddable']} made, "
                     f"{totals['pending']} pending ({why}) — call again, or run `total-recall index`")
    else:
        parts.append(f"meaning vectors: all {totals['embeddable']} made")
    return "; ".join(parts)
