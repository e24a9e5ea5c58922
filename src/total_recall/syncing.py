"""A sync as every surface runs it (the CLI, the MCP server, the hooks, `index_sessions`): the record's
sync (`record/sync.py`), then what is kept of it.

After the stores are read, two things the record would otherwise lose: a receipt for each Codex compaction
the record now holds that no receipt accounts for (Codex versions without hooks give no other moment to
get one; written here so that listing receipts never writes), and the sync in the record's log (m016) with
its warnings — the first WARNINGS_KEPT of them and their count — so `status` still shows the lines a sync
skipped after they scrolled off the terminal. A library caller of `record.sync.sync` skips both; the next
sync run here catches up, looking for compactions from the newest entry the log names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from total_recall.keeping.compaction import receipt_compactions
from total_recall.model import SyncReport
from total_recall.record.database import Record
from total_recall.record.sync import sync as record_sync

P = ParamSpec("P")

WARNINGS_KEPT = 200
HARNESS_COUNTS = ("sessions", "entries", "sessions_added", "entries_added")


def _then_settle(fn: Callable[Concatenate[Record, P], SyncReport]
                 ) -> Callable[Concatenate[Record, P], SyncReport]:
    @functools.wraps(fn)
    def run(record: Record, /, *args: P.args, **kwargs: P.kwargs) -> SyncReport:
        report = fn(record, *args, **kwargs)
        settle(record, report)
        return report

    return run


# `record.sync.sync` (the same parameters and errors), then `settle`.
sync = _then_settle(record_sync)


def settle(record: Record, report: SyncReport) -> None:
    """Write the receipts of Codex compactions recorded since the last logged sync, and log this one
    when it read anything, met a warning or finds entries the log has not seen (a sync with nothing to
    read leaves the last sync's warnings in view)."""
    last = record.last_sync()
    seen = last.last_entry if last is not None else 0
    newest = record.newest_entry()
    if newest > seen:
        receipt_compactions(record, after=seen)
    if report.sources_read or report.warnings or newest > seen:
        record.log_sync(report.sources_read, report.entries_added, report.warnings, WARNINGS_KEPT, newest)


def sync_json(r: SyncReport, record: str, demo: bool) -> dict[str, Any]:
    """The JSON form of a sync's report (`sync --json`, the MCP sync, `index_sessions`): scripts read it."""
    return {
        "record": record,
        "demo": demo,
        "sessions_added": r.sessions_added,
        "sessions_updated": r.sessions_updated,
        "entries_added": r.entries_added,
        "sources_read": r.sources_read,
        "sources_unchanged": r.sources_skipped,
        "generations": r.generations,
        # Every key present for every harness, zero included: scripts read them without a default.
        "harnesses": {name: {key: counts.get(key, 0) for key in HARNESS_COUNTS}
                      for name, counts in r.per_harness.items()},
        "warnings": [str(w) for w in r.warnings],
        "errors": r.errors,
        "notices": r.notices,
        "vectors": r.vectors,
        "processes": r.processes,
    }
