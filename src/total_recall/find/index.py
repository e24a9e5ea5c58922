"""Keeping the derived indexes current: called by the record as entries are appended or erased.

`entries_fts` is an external-content FTS5 index over entry text (the text lives once, in `entries`);
`strings` holds the lookup keys of each entry's exact strings (whole, and tails of paths and hosts).
Both are rebuildable from the record; the record never depends on them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from total_recall.find.exact import extract, keys_of

# Positions in the entry rows the sync appends (see Store.append_entries).
_ID, _KIND, _TEXT, _TOOL = 0, 4, 5, 14


def on_append(db: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> None:
    """Index freshly appended entries, in the sync's transaction."""
    if not rows:
        return
    db.executemany(
        "INSERT INTO entries_fts(rowid, text) VALUES (?, ?)", [(r[_ID], r[_TEXT]) for r in rows]
    )
    strings = [
        (r[_ID], kind, key)
        for r in rows
        for kind, value in extract(r[_KIND], r[_TEXT], r[_TOOL])
        for key in keys_of(kind, value)
    ]
    if strings:
        db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", strings)


def on_erase(db: sqlite3.Connection, entry_id: int) -> None:
    """Forget an entry in every index; runs before the text is replaced by the tombstone."""
    row = db.execute("SELECT text FROM entries WHERE id = ?", (entry_id,)).fetchone()
    if row is not None:
        db.execute(
            "INSERT INTO entries_fts(entries_fts, rowid, text) VALUES ('delete', ?, ?)", (entry_id, row[0])
        )
    db.execute("DELETE FROM strings WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM vectors WHERE entry = ?", (entry_id,))


def rebuild(db: sqlite3.Connection) -> None:
    """Rebuild both indexes from the record (after a crash of an older version, or by hand)."""
    db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')")
    db.execute("DELETE FROM strings")
    rows = db.execute("SELECT id, kind, text, tool FROM entries WHERE erased_at IS NULL")
    batch: list[tuple[int, str, str]] = []
    for entry_id, kind, text, tool in rows:
        batch.extend((entry_id, k, key) for k, v in extract(kind, text, tool) for key in keys_of(k, v))
        if len(batch) > 10_000:
            db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", batch)
            batch = []
    db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", batch)
