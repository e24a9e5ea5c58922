"""Keeping the derived indexes current: called by the record as entries are appended or erased.

The word index is external-content FTS5 over entry text (the text lives once, in `entries`), cut into
shards of consecutive entries (`fts_shards`: `entries_fts` from entry 0, then `entries_fts_2`, … each
opened once the newest holds SHARD_ENTRIES): FTS5's bm25 counts every entry holding a word before it
scores any, so a common word costs what its list in one shard costs, not in the whole record. Its tag
column holds each entry's filter tokens (author, kind, harness, session, month and day of its time);
`strings` holds the lookup keys of each entry's exact strings (whole, and tails of paths and hosts);
`tool_failures` the tool results that say their call failed; `entry_facts` what search ranks and filters
by (session, seq, author, kind, time) of each entry not erased, in rows small enough to stay cached. All
are rebuildable from the record; the record never depends on them.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from total_recall.find.exact import extract, failed, keys_of

# Positions in the entry rows the sync appends (see Store.append_entries).
_ID, _SESSION, _SEQ, _AUTHOR, _KIND, _TEXT, _TS, _TOOL = 0, 1, 2, 3, 4, 5, 6, 14
# What derive() reads of an entry, and what it gives back: (entry, kind, key) of each exact string, and
# (entry,) of each failed tool result.
Slim = tuple[int, str, str, "str | None"]
Derived = tuple[list[tuple[int, str, str]], list[tuple[int]]]
# Entries per word-index shard: on a million entries bm25 for "commit" took 10.7 ms over one index and
# 5.5 ms over the newest 131,072 entries; the per-match scoring left (~4 µs) does not shrink with it.
SHARD_ENTRIES = 1 << 17
# FTS5 writes its term table out as a segment each time it holds this many bytes (see migration m008).
HASHSIZE = 16 << 20
TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
# A sync reading this much or more may build the indexes of the exact strings at its end (bulk_strings);
# sessions hold about one key per BYTES_PER_KEY bytes (1.1 M keys in 200 MB of the benchmark's store).
BULK_BYTES = 64 << 20
BYTES_PER_KEY = 200
SORT_CACHE_KB = 8 << 10
STRING_INDEXES = {
    "strings_key": "CREATE INDEX strings_key ON strings(key, entry)",
    "strings_entry": "CREATE INDEX strings_entry ON strings(entry)",
}


@dataclass(frozen=True, slots=True)
class Shard:
    """A word-index table and the entry ids it holds: from `first` up to `end` (None: the newest)."""

    name: str
    first: int
    end: int | None = None

    def holds(self, first_id: int, last_id: int) -> bool:
        """Whether entries with ids from first_id to last_id can be in this shard."""
        return last_id >= self.first and (self.end is None or first_id < self.end)


def shards(db: sqlite3.Connection) -> list[Shard]:
    """The word-index shards, newest first."""
    found: list[Shard] = []
    for name, first in db.execute("SELECT name, first_entry FROM fts_shards ORDER BY first_entry DESC"):
        found.append(Shard(name, first, found[-1].first if found else None))
    return found


def _shard_of(db: sqlite3.Connection, entry_id: int) -> str:
    row = db.execute(
        "SELECT name FROM fts_shards WHERE first_entry <= ? ORDER BY first_entry DESC LIMIT 1", (entry_id,)
    ).fetchone()
    return str(row[0])


def _open_shard(db: sqlite3.Connection, first: int) -> Shard:
    """A new, empty shard for entries from `first` on (in the caller's transaction)."""
    (count,) = db.execute("SELECT count(*) FROM fts_shards").fetchone()
    name = f"entries_fts_{count + 1}"
    db.execute(
        f"CREATE VIRTUAL TABLE {name} USING fts5(text, tag, content='entries_fts_content', "
        f"content_rowid='id', tokenize=\"{TOKENIZE}\")"
    )
    db.execute(f"INSERT INTO {name}({name}, rank) VALUES ('hashsize', {HASHSIZE})")
    db.execute("INSERT INTO fts_shards(name, first_entry) VALUES (?, ?)", (name, first))
    return Shard(name, first)


def _into_shards(db: sqlite3.Connection, rows: list[tuple[int, str, str]]) -> None:
    """Index (id, text, tag) rows, in id order, each in its shard; the newest shard holds ids up to
    SHARD_ENTRIES past its first, and the next shard opens at the first id beyond."""
    known = sorted(shards(db), key=lambda s: s.first)
    start = 0
    while start < len(rows):
        first_id = rows[start][0]
        at = bisect.bisect_right([s.first for s in known], first_id) - 1
        if at == len(known) - 1:
            if first_id - known[at].first >= SHARD_ENTRIES:
                known.append(_open_shard(db, first_id))
                at += 1
            end_id = known[at].first + SHARD_ENTRIES
        else:
            end_id = known[at + 1].first
        end = bisect.bisect_left(rows, end_id, lo=start, key=lambda r: r[0])
        db.executemany(f"INSERT INTO {known[at].name}(rowid, text, tag) VALUES (?, ?, ?)", rows[start:end])
        start = end


def tag(author: str, kind: str, harness: str, session: int, ts: str | None) -> str:
    """The filter tokens of an entry, exactly as the entries_fts_content view writes them."""
    when = "" if ts is None else f" m_{ts[:7].replace('-', '_')} d_{ts[:10].replace('-', '_')}"
    return f"a_{author} k_{kind} h_{harness.replace('-', '_')} s_{session}{when}"


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
    _into_shards(db, sorted(
        (r[_ID], r[_TEXT], tag(r[_AUTHOR], r[_KIND], harness[r[_SESSION]], r[_SESSION], r[_TS]))
        for r in rows
    ))
    db.executemany(
        "INSERT INTO entry_facts(id, session, seq, author, kind, ts) VALUES (?, ?, ?, ?, ?, ?)",
        [(r[_ID], r[_SESSION], r[_SEQ], r[_AUTHOR], r[_KIND], r[_TS]) for r in rows],
    )
    months = {r[_TS][:7] for r in rows if r[_TS] is not None}
    db.executemany("INSERT OR IGNORE INTO months(month) VALUES (?)", [(m,) for m in sorted(months)])
    if not derived_later:
        add_derived(db, derive(slim(rows)))


def slim(rows: Sequence[tuple[Any, ...]]) -> list[Slim]:
    """What derive() needs of appended entry rows."""
    return [(r[_ID], r[_KIND], r[_TEXT], r[_TOOL]) for r in rows]


def derive(rows: Sequence[Slim]) -> Derived:
    """The exact-string keys (each once per entry: paths in one entry share their tails, a seventh of the
    keys) and the failed tool results of entries given as (id, kind, text, tool), in no set order. Pure,
    and a fifth of a sync's time: a second process can do it meanwhile (see record/read_ahead.py)."""
    strings = list({
        (entry_id, kind, key)
        for entry_id, entry_kind, text, tool in rows
        for kind, value in extract(entry_kind, text, tool)
        for key in keys_of(kind, value)
    })
    failures = [(r[0],) for r in rows if r[1] == "tool_result" and failed(r[2])]
    return strings, failures


def add_derived(db: sqlite3.Connection, derived: Derived, *, key_order: bool = True) -> None:
    """Write what derive() worked out; with `key_order`, the keys sorted first so the key index is
    written a page at a time instead of at random across millions of keys (pointless while it is
    dropped: see bulk_strings)."""
    strings, failures = derived
    if strings:
        if key_order:
            strings = sorted(strings, key=lambda r: (r[2].lower(), r[0]))
        db.executemany("INSERT INTO strings(entry, kind, key) VALUES (?, ?, ?)", strings)
    if failures:
        db.executemany("INSERT INTO tool_failures(entry) VALUES (?)", failures)


def bulk_strings(db: sqlite3.Connection, incoming_bytes: int, least: int = BULK_BYTES) -> bool:
    """Whether a sync about to read `incoming_bytes` (at least `least`) adds at least as many exact-string
    keys as the record holds: then the indexes of `strings` are dropped for it and built once at its end
    (`build_string_indexes`), sorting every key at once instead of placing each among millions (a 1 GB
    first sync: 170 s with them kept, 131 s built at the end)."""
    if incoming_bytes < least:
        return False
    held = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM strings").fetchone()[0]
    return bool(incoming_bytes // BYTES_PER_KEY >= held)


def drop_string_indexes(db: sqlite3.Connection) -> None:
    for name in STRING_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")


def build_string_indexes(db: sqlite3.Connection) -> None:
    """The indexes of `strings` (see migrations m003 and m011) that a sync dropped and did not live to
    build again."""
    missing = [sql for name, sql in STRING_INDEXES.items()
               if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is None]
    if not missing:
        return
    # SQLite sorts with helper threads when allowed, each holding sorted runs of up to the cache's size:
    # 5.6 M keys took 16.1 s in one thread with a 64 MB cache (+65 MB of memory), 9.0 s in two with
    # 8 MB (+23 MB), 9.4 s with 16 MB (+46 MB), 9.9 s with 64 MB (+193 MB).
    cache = db.execute("PRAGMA cache_size").fetchone()[0]
    db.execute(f"PRAGMA threads={min(os.cpu_count() or 1, 2)}")
    db.execute(f"PRAGMA cache_size={-SORT_CACHE_KB}")
    try:
        for sql in missing:
            db.execute(sql)
    finally:
        db.execute(f"PRAGMA cache_size={cache}")
    db.execute("PRAGMA analysis_limit=1000")  # sampled statistics are enough for the planner
    db.execute("ANALYZE strings")


def on_erase(db: sqlite3.Connection, entry_id: int) -> str:
    """Forget an entry in every index; runs before the text is replaced by the tombstone. Returns the
    word-index shard that held it, which `purge` must then merge."""
    shard = _shard_of(db, entry_id)
    db.execute(
        f"INSERT INTO {shard}({shard}, rowid, text, tag) "
        "SELECT 'delete', id, text, tag FROM entries_fts_content WHERE id = ?",
        (entry_id,),
    )
    db.execute("DELETE FROM strings WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM tool_failures WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM vectors WHERE entry = ?", (entry_id,))
    db.execute("DELETE FROM entry_facts WHERE id = ?", (entry_id,))
    return shard


def purge(db: sqlite3.Connection, names: set[str]) -> None:
    """Merge each named word-index shard into one segment, in the erase's transaction. FTS5's 'delete'
    only writes a tombstone beside the segments that still list the erased words (SQLite 3.40 has no
    FTS5 secure-delete); merging drops them, and the erase's `secure_delete` zeroes the pages freed."""
    for name in sorted(names):
        db.execute(f"INSERT INTO {name}({name}) VALUES ('optimize')")


def rebuild(db: sqlite3.Connection) -> None:
    """Rebuild every index from the record (after a crash of an older version, or by hand); the word
    index is cut into shards afresh (a record from before shards holds one)."""
    rebuild_words(db)
    db.execute("DELETE FROM entry_facts")
    db.execute("INSERT INTO entry_facts SELECT id, session, seq, author, kind, ts FROM entries "
               "WHERE erased_at IS NULL")
    db.execute("DELETE FROM strings")
    db.execute("DELETE FROM tool_failures")
    rows = db.execute("SELECT id, kind, text, tool FROM entries WHERE erased_at IS NULL")
    batch: set[tuple[int, str, str]] = set()
    for entry_id, kind, text, tool in rows:
        batch.update((entry_id, k, key) for k, v in extract(kind, text, tool) for key in keys_of(k, v))
        if kind == "tool_result" and failed(text):
            db.execute("INSERT INTO tool_failures(entry) VALUES (?)", (entry_id,))
        if len(batch) > 10_000:
            add_derived(db, (list(batch), []))
            batch = set()
    add_derived(db, (list(batch), []))
    db.execute("UPDATE digests SET from_entry = 1 WHERE name = 'tool_failures'")


def rebuild_words(db: sqlite3.Connection) -> None:
    """Rebuild the word index and its month list from the record, cut into shards afresh."""
    for shard in shards(db):
        if shard.name != "entries_fts":
            db.execute(f"DROP TABLE {shard.name}")
    db.execute("DELETE FROM fts_shards WHERE name != 'entries_fts'")
    db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('delete-all')")
    db.execute("DELETE FROM months")
    db.execute("INSERT INTO months SELECT DISTINCT substr(ts, 1, 7) FROM entries WHERE ts IS NOT NULL")
    after = -1
    while texts := db.execute(
        "SELECT id, text, tag FROM entries_fts_content WHERE id > ? ORDER BY id LIMIT 5000", (after,)
    ).fetchall():
        _into_shards(db, [(r[0], r[1], r[2]) for r in texts])
        after = texts[-1][0]
