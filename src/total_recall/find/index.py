"""Keeping the derived indexes current: called by the record as entries are appended or erased.

`entries_fts` is an external-content FTS5 index over entry text (the text lives once, in `entries`);
`strings` holds the lookup keys of each entry's exact strings (whole, and tails of paths and hosts);
`tool_failures` the tool results that say their call failed. All are rebuildable from the record; the
record never depends on them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from total_recall.find.exact import extract, failed, keys_of

# Positions in the entry rows the sync appends (see Store.append_entries).
_ID, _SESSION, _AUTHOR, _KIND, _TEXT, _TOOL = 0, 1, 3, 4, 5, 14
# What derive() reads of an entry, and what it gives back: (entry, kind, key) of each exact string, and
# (entry,) of each failed tool result.
Slim = tuple[int, str, str, "str | None"]
Derived = tuple[list[tuple[int, str, str]], list[tuple[int]]]


def tag(author: str, kind: str, harness: str, session: int) -> str:
    """The filter tokens of an entry, exactly as the entries_fts_content view writes them."""
    return f"a_{author} k_{kind} h_{harness.replace('-', '_')} s_{session}"


def on_append(
    db: sqlite3.Connection, rows: Sequence[tuple[Any, ...]], *, derived_later: bool = False
) -> None:
    """Index freshly appended entries, in the sync's transaction. With `derived_later`, only the word
    index: the caller works out `derive(slim(rows))` itself and writes it with `add_derived` before the
    transaction commits."""
    if not rows:
        return
    sessions = {r[_SESSION] for r in rows}
    harness = dict(db.execute(
        f"SELECT id, harness FROM sessions WHERE id IN ({','.join('?' * len(sessions))})", tuple(sessions)
    ).fetchall())
    db.executemany(
        "INSERT INTO entries_fts(rowid, text, tag) VALUES (?, ?, ?)",
        [(r[_ID], r[_TEXT], tag(r[_AUTHOR], r[_KIND], harness[r[_SESSION]], r[_SESSION])) for r in rows],
    )
    if not derived_later:
        add_derived(db, derive(slim(rows)))


def slim(rows: Sequence[tuple[Any, ...]]) -> list[Slim]:
    """What derive() needs of appended entry rows."""
    return [(r[_ID], r[_KIND], r[_TEXT], r[_TOOL]) for r in rows]


def derive(rows: Sequence[Slim]) -> Derived:
    """The exact-string keys (each once, in key order) and the failed tool results of entries given as
    (id, kind, text, tool). Pure, and a fifth of a sync's time: a second process can do it meanwhile."""
    strings = {
        (entry_id, kind, key)
        for entry_id, entry_kind, text, tool in rows
        for kind, value in extract(entry_kind, text, tool)
        for key in keys_of(kind, value)
    }
    failures = [(r[0],) for r in rows if r[1] == "tool_result" and failed(r[2])]
    return _in_key_order(strings), failures


def add_derived(db: sqlite3.Connection, derived: Derived) -> None:
    """Write what derive() worked out."""
    strings, failures = derived
    if strings:
        db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", strings)
    if failures:
        db.executemany("INSERT INTO tool_failures(entry) VALUES (?)", failures)


def _in_key_order(strings: set[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """Each (entry, kind, key) once (paths in one entry share their tails: a seventh of the keys), in key
    order, so the key index is written a page at a time instead of at random across millions of keys."""
    return sorted(strings, key=lambda r: (r[2].lower(), r[0]))


def on_erase(db: sqlite3.Connection, entry_id: int) -> None:
    """Forget an entry in every index; runs before the text is replaced by the tombstone."""
    db.execute(
        "INSERT INTO entries_fts(entries_fts, rowid, text, tag) "
        "SELECT 'delete', id, text, tag FROM entries_fts_content WHERE id = ?",
        (entry_id,),
    )
    db.execute("DELETE FROM strings WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM tool_failures WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM vectors WHERE entry = ?", (entry_id,))


def rebuild(db: sqlite3.Connection) -> None:
    """Rebuild every index from the record (after a crash of an older version, or by hand)."""
    db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')")
    db.execute("DELETE FROM strings")
    db.execute("DELETE FROM tool_failures")
    rows = db.execute("SELECT id, kind, text, tool FROM entries WHERE erased_at IS NULL")
    batch: set[tuple[int, str, str]] = set()
    for entry_id, kind, text, tool in rows:
        batch.update((entry_id, k, key) for k, v in extract(kind, text, tool) for key in keys_of(k, v))
        if kind == "tool_result" and failed(text):
            db.execute("INSERT INTO tool_failures(entry) VALUES (?)", (entry_id,))
        if len(batch) > 10_000:
            db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", _in_key_order(batch))
            batch = set()
    db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", _in_key_order(batch))
    db.execute("UPDATE digests SET from_entry = 1 WHERE name = 'tool_failures'")
