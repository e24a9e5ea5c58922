"""The indexes derived from the record, kept current by the record in its own transaction.

`record/` calls `on_append` as the sync appends entries and `on_erase` before an erase replaces a text, so
derived rows commit with their entries or not at all; `find/` only reads them. This layer takes a
`sqlite3.Connection` and imports neither `record/` nor `find/`. The indexes: the word index
(`words.py`), the exact strings (`strings.py`), the tool results that failed (`failures.py`), meaning
vectors (`vectors.py`, the optional extra, made after the sync's commits), and `entry_facts`: what search
ranks and filters by (session, seq, author, kind, time) of each entry not erased, in rows small enough to
stay cached. All are rebuildable from the record; the record never depends on them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from total_recall.indexes import failures, strings, words

# Positions in the entry rows the sync appends (see Record.append_entries).
_ID, _SESSION, _SEQ, _AUTHOR, _KIND, _TEXT, _TS, _TOOL = 0, 1, 2, 3, 4, 5, 6, 14
# What derive() reads of an entry, and what it gives back: (entry, kind, key) of each exact string, and
# (entry,) of each failed tool result.
Slim = tuple[int, str, str, "str | None"]
Derived = tuple[list[tuple[int, str, str]], list[tuple[int]]]


def on_append(
    db: sqlite3.Connection, rows: Sequence[tuple[Any, ...]], *, derived_later: bool = False
) -> None:
    """Index freshly appended entries, in the sync's transaction. With `derived_later`, only the word
    index and the entry facts: the caller works out `derive(slim(rows))` itself and writes it with
    `add_derived` before the transaction commits."""
    if not rows:
        return
    sessions = {r[_SESSION] for r in rows}
    harness = dict(db.execute(
        f"SELECT id, harness FROM sessions WHERE id IN ({','.join('?' * len(sessions))})", tuple(sessions)
    ).fetchall())
    words.add(db, sorted(
        (r[_ID], r[_TEXT], words.tag(r[_AUTHOR], r[_KIND], harness[r[_SESSION]], r[_SESSION], r[_TS]))
        for r in rows
    ), (r[_TS][:7] for r in rows if r[_TS] is not None))
    db.executemany(
        "INSERT INTO entry_facts(id, session, seq, author, kind, ts) VALUES (?, ?, ?, ?, ?, ?)",
        [(r[_ID], r[_SESSION], r[_SEQ], r[_AUTHOR], r[_KIND], r[_TS]) for r in rows],
    )
    if not derived_later:
        add_derived(db, derive(slim(rows)))


def slim(rows: Sequence[tuple[Any, ...]]) -> list[Slim]:
    """What derive() needs of appended entry rows."""
    return [(r[_ID], r[_KIND], r[_TEXT], r[_TOOL]) for r in rows]


def derive(rows: Sequence[Slim]) -> Derived:
    """The exact-string keys (each once per entry: paths in one entry share their tails, a seventh of the
    keys) and the failed tool results of entries given as (id, kind, text, tool), in no set order. Pure,
    and a fifth of a sync's time: a second process can do it meanwhile (see record/read_ahead.py)."""
    found = list({
        (entry_id, kind, key)
        for entry_id, entry_kind, text, tool in rows
        for kind, value in strings.extract(entry_kind, text, tool)
        for key in strings.keys_of(kind, value)
    })
    failed = [(r[0],) for r in rows if r[1] == "tool_result" and failures.failed(r[2])]
    return found, failed


def add_derived(db: sqlite3.Connection, derived: Derived, *, key_order: bool = True) -> None:
    """Write what derive() worked out; `key_order`: see strings.add."""
    found, failed = derived
    strings.add(db, found, key_order=key_order)
    failures.add(db, failed)


def on_erase(db: sqlite3.Connection, entry_id: int) -> str:
    """Forget an entry in every index; runs before the text is replaced by the tombstone. Returns the
    word-index shard that held it, which `words.purge` must then merge."""
    shard = words.forget(db, entry_id)
    strings.forget(db, entry_id)
    failures.forget(db, entry_id)
    db.execute("DELETE FROM vectors WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM entry_facts WHERE id = ?", (entry_id,))
    return shard


def rebuild(db: sqlite3.Connection) -> None:
    """Rebuild every index but the vectors from the record (after a crash of an older version, or by
    hand); the word index is cut into shards afresh (a record from before shards holds one)."""
    words.rebuild(db)
    db.execute("DELETE FROM entry_facts")
    db.execute("INSERT INTO entry_facts SELECT id, session, seq, author, kind, ts FROM entries "
               "WHERE erased_at IS NULL")
    db.execute("DELETE FROM strings")
    db.execute("DELETE FROM tool_failures")
    rows = db.execute("SELECT id, kind, text, tool FROM entries WHERE erased_at IS NULL")
    batch: set[tuple[int, str, str]] = set()
    for entry_id, kind, text, tool in rows:
        batch.update((entry_id, k, key)
                     for k, v in strings.extract(kind, text, tool) for key in strings.keys_of(k, v))
        if kind == "tool_result" and failures.failed(text):
            failures.add(db, [(entry_id,)])
        if len(batch) > 10_000:
            strings.add(db, list(batch))
            batch = set()
    strings.add(db, list(batch))
    db.execute("UPDATE digests SET from_entry = 1 WHERE name = 'tool_failures'")
