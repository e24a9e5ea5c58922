"""The word index: external-content FTS5 over entry text, cut into shards of consecutive entries.

The text lives once, in `entries`; each shard (`fts_shards`: `entries_fts` from entry 0, then
`entries_fts_2`, … each opened once the newest holds SHARD_ENTRIES) indexes it through the view
`entries_fts_content`. FTS5's bm25 counts every entry holding a word before it scores any, so a common
word costs what its list in one shard costs, not in the whole record. The tag column holds each entry's
filter tokens (author, kind, harness, session, month and day of its time); `months` lists the months
present.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from total_recall.indexes.entry_facts import Conditions, Scored, clause, tuples

# Entries per shard: on a million entries bm25 for "commit" took 10.7 ms over one index and 5.5 ms over
# the newest 131,072 entries; the per-match scoring left (~4 µs) does not shrink with it.
SHARD_ENTRIES = 1 << 17
# FTS5 writes its term table out as a segment each time it holds this many bytes (see migration m008).
HASHSIZE = 16 << 20
TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"


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


def months(db: sqlite3.Connection, first: str, last: str, most: int) -> list[str]:
    """The months (YYYY-MM) entries are timed in from `first` to `last` (inclusive), at most `most`."""
    return [r[0] for r in db.execute(
        "SELECT month FROM months WHERE month >= ? AND month <= ? LIMIT ?", (first, last, most)
    )]


# -- reading: each takes an FTS5 query (`match`) for one shard --

def _newest(shard: Shard, where: str) -> str:
    """SQL for the rowids of the shard's newest matches (MATCH ?, then `where`'s parameters, LIMIT ?)."""
    n = shard.name
    if not where:
        return f"SELECT rowid FROM {n} WHERE {n} MATCH ? ORDER BY rowid DESC LIMIT ?"
    return (f"SELECT {n}.rowid AS rowid FROM {n} CROSS JOIN entry_facts e ON e.id = {n}.rowid "
            f"JOIN sessions s ON s.id = e.session WHERE {n} MATCH ? AND {where} "
            f"ORDER BY {n}.rowid DESC LIMIT ?")


def _filtered(match: str, most: int, conditions: Conditions | None) -> tuple[str, list[object]]:
    where, params = clause(conditions) if conditions is not None else ("", [])
    return where, [match, *params, most]


def newest(db: sqlite3.Connection, shard: Shard, match: str, most: int,
           conditions: Conditions | None = None) -> list[int]:
    """The ids of the shard's newest `most` matches (passing `conditions` when given), newest first.
    Walking a match list by rowid needs no scoring."""
    where, params = _filtered(match, most, conditions)
    return [r[0] for r in db.execute(_newest(shard, where), params)]


def reach(db: sqlite3.Connection, shard: Shard, match: str, most: int,
          conditions: Conditions | None = None) -> tuple[int, int]:
    """The oldest id among the shard's newest `most` matches (passing `conditions` when given) and how
    many there are (0, 0: none)."""
    where, params = _filtered(match, most, conditions)
    oldest, count = db.execute(f"SELECT min(rowid), count(*) FROM ({_newest(shard, where)})", params
                               ).fetchone()
    return oldest or 0, count


def span(db: sqlite3.Connection, shard: Shard, match: str, most: int) -> tuple[int, int, int]:
    """The newest and the oldest id among the shard's newest `most` matches, and how many there are
    (0, 0, 0: none)."""
    newest_id, oldest, count = db.execute(
        f"SELECT max(rowid), min(rowid), count(*) FROM (SELECT rowid FROM {shard.name} "
        f"WHERE {shard.name} MATCH ? ORDER BY rowid DESC LIMIT ?)",
        (match, most),
    ).fetchone()
    return newest_id or 0, oldest or 0, count


# bm25 with the tag column weighing nothing: tags filter, they never score.

def scored(db: sqlite3.Connection, shard: Shard, match: str) -> list[tuple[int, float]]:
    """(id, bm25) of every match in the shard, in no particular order."""
    n = shard.name
    return tuples(db).execute(f"SELECT rowid, bm25({n}, 1.0, 0.0) FROM {n} WHERE {n} MATCH ?", (match,)
                              ).fetchall()


def newest_scored(db: sqlite3.Connection, shard: Shard, match: str, most: int) -> list[tuple[int, float]]:
    """(id, bm25) of the shard's newest `most` matches, newest first: bm25 scores only those walked."""
    n = shard.name
    return tuples(db).execute(
        f"SELECT rowid, bm25({n}, 1.0, 0.0) FROM {n} WHERE {n} MATCH ? ORDER BY rowid DESC LIMIT ?",
        (match, most),
    ).fetchall()


def best(db: sqlite3.Connection, shard: Shard, over: str, floor: int, most: int,
         among: str | None = None) -> list[tuple[int, float]]:
    """(id, bm25) of the `most` best matches of `over` from id `floor` on, best first; with `among`, only
    those matching it too (checked beside bm25, which then counts only what `over` names)."""
    n = shard.name
    if among is None:
        return tuples(db).execute(
            f"SELECT rowid, bm25({n}, 1.0, 0.0) AS score FROM {n} "
            f"WHERE {n} MATCH ? AND rowid >= ? ORDER BY score LIMIT ?",
            (over, floor, most),
        ).fetchall()
    # `+rowid`: a condition checked on each row, not a lookup FTS5 would run (and count) per id.
    return tuples(db).execute(
        f"SELECT rowid, bm25({n}, 1.0, 0.0) AS score FROM {n} "
        f"WHERE {n} MATCH ? AND rowid >= ? AND +rowid IN "
        f"(SELECT rowid FROM {n} WHERE {n} MATCH ? AND rowid >= ?) ORDER BY score LIMIT ?",
        (over, floor, among, floor, most),
    ).fetchall()


def best_passing(db: sqlite3.Connection, shard: Shard, over: str, floor: int, most: int,
                 conditions: Conditions, among: str | None = None) -> list[Scored]:
    """As `best`, of the matches passing `conditions`, each with its facts: every match is joined with
    its entry, so the conditions apply whatever the tags in `over` and `among` say."""
    n = shard.name
    beside, values = ("", []) if among is None else (
        f"AND +{n}.rowid IN (SELECT rowid FROM {n} WHERE {n} MATCH ? AND rowid >= ?)", [among, floor])
    where, params = clause(conditions)
    return tuples(db).execute(
        f"""
            SELECT e.id, e.session, e.seq, e.author, e.kind, bm25({n}, 1.0, 0.0) AS score
            FROM {n} CROSS JOIN entry_facts e ON e.id = {n}.rowid
            JOIN sessions s ON s.id = e.session
            WHERE {n} MATCH ? AND {n}.rowid >= ? {beside} AND {where}
            ORDER BY score LIMIT ?
            """,
        (over, floor, *values, *params, most),
    ).fetchall()


# -- writing --

def tag(author: str, kind: str, harness: str, session: int, ts: str | None) -> str:
    """The filter tokens of an entry, exactly as the entries_fts_content view writes them."""
    when = "" if ts is None else f" m_{ts[:7].replace('-', '_')} d_{ts[:10].replace('-', '_')}"
    return f"a_{author} k_{kind} h_{harness.replace('-', '_')} s_{session}{when}"


def add(db: sqlite3.Connection, rows: list[tuple[int, str, str]], timed: Iterable[str]) -> None:
    """Index (id, text, tag) rows, in id order, and note the months (YYYY-MM) they are `timed` in."""
    _into_shards(db, rows)
    db.executemany("INSERT OR IGNORE INTO months(month) VALUES (?)", [(m,) for m in sorted(set(timed))])


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


def forget(db: sqlite3.Connection, entry_id: int) -> str:
    """Take an entry out of its shard, before its text is replaced (FTS5 'delete' needs the text and tags
    it indexed). Returns the shard, which `purge` must then merge."""
    shard = _shard_of(db, entry_id)
    db.execute(
        f"INSERT INTO {shard}({shard}, rowid, text, tag) "
        "SELECT 'delete', id, text, tag FROM entries_fts_content WHERE id = ?",
        (entry_id,),
    )
    return shard


def purge(db: sqlite3.Connection, names: set[str]) -> None:
    """Merge each named shard into one segment, in the erase's transaction. FTS5's 'delete' only writes a
    tombstone beside the segments that still list the erased words (SQLite 3.40 has no FTS5
    secure-delete); merging drops them, and the erase's `secure_delete` zeroes the pages freed."""
    for name in sorted(names):
        db.execute(f"INSERT INTO {name}({name}) VALUES ('optimize')")


def rebuild(db: sqlite3.Connection) -> None:
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
