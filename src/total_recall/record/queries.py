"""The read-only queries over sessions and entries that keeping, mining and search need beyond `Record`'s
reads, and the index reads search makes through the record (find/ holds no connection).

Every statement here reads; none writes. Each takes and returns domain values (numbers, addresses' parts,
texts, small typed tuples), so no SQL or row leaves the record, and each is shaped to use an index the
schema already has (`UNIQUE(session, seq)`, entry ids in order).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple, cast

from total_recall.indexes import entry_facts, strings, vectors, words
from total_recall.indexes.entry_facts import Conditions, Fact, Scored
from total_recall.indexes.words import Shard
from total_recall.model import SpanTag
from total_recall.record.database import Record
from total_recall.record.lines import unpack_raw

# Entry times a reader could not make sense of ("[trimmed for fixture]") are not times.
_ISO_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*"
# SQLite's bound on parameters per statement, with room for the others.
_CHUNK = 900


@dataclass(frozen=True, slots=True)
class HarnessCounts:
    """What the record holds of one harness, and when it last read its stores."""

    harness: str
    sessions: int
    entries: int
    sources: int
    unreadable_sources: int
    last_sync: str | None


class CompactionEntry(NamedTuple):
    """An entry of kind `compaction`: where a harness says it compacted."""

    session: int
    seq: int
    text: str
    timestamp: str | None
    harness: str


class SessionSpan(NamedTuple):
    """A session and the ids of its first and last entries (ids grow with seq)."""

    session: int
    first: int
    last: int


class HitRow(NamedTuple):
    """What a search hit shows of its entry."""

    id: int
    session: int
    seq: int
    harness: str
    author: str
    kind: str
    timestamp: str | None
    text: str


# An entry beside a search candidate: id, session, seq, length of its text, its first characters, author,
# kind, and whether it is not erased.
NearRow = tuple[int, int, int, int, str, str, str, int]


# An entry as the marker builder reads it (keeping/evicted.py): id, seq, author, kind, text (None for a
# tool output left unread), tool, native_id, native_parent, erased_at.
LeanRow = tuple[int, int, str, str, str | None, str | None, str | None, str | None, str | None]


# -- sessions and harnesses (mining's status and listings) --

def last_entry_times(record: Record) -> dict[int, str | None]:
    """Each session's time of its last entry that carries a real time.

    One probe per session down the `(session, seq)` index from the end, so the cost is the number of
    sessions, not the number of entries.
    """
    sql = (
        "SELECT s.id, (SELECT e.ts FROM entries e WHERE e.session = s.id AND e.ts GLOB ? "
        "ORDER BY e.seq DESC LIMIT 1) FROM sessions s"
    )
    return {int(r[0]): r[1] for r in record.db.execute(sql, (_ISO_GLOB,))}


def first_entry_time(record: Record, session: int) -> str | None:
    row = record.db.execute(
        "SELECT ts FROM entries WHERE session = ? AND ts GLOB ? ORDER BY seq LIMIT 1", (session, _ISO_GLOB)
    ).fetchone()
    return None if row is None else str(row[0])


def kind_counts(record: Record, session: int) -> dict[tuple[str, str], int]:
    """How many entries of each (author, kind) one session holds."""
    rows = record.db.execute(
        "SELECT author, kind, COUNT(*) FROM entries WHERE session = ? GROUP BY author, kind", (session,)
    )
    return {(str(r[0]), str(r[1])): int(r[2]) for r in rows}


def harness_counts(record: Record) -> list[HarnessCounts]:
    sessions = {
        str(r[0]): (int(r[1]), int(r[2] or 0))
        for r in record.db.execute("SELECT harness, COUNT(*), SUM(entries) FROM sessions GROUP BY harness")
    }
    sources = {
        str(r[0]): (int(r[1]), int(r[2] or 0), r[3])
        for r in record.db.execute(
            "SELECT harness, COUNT(*), SUM(read_error IS NOT NULL), MAX(synced_at) FROM sources "
            "GROUP BY harness"
        )
    }
    out = []
    for harness in sorted(set(sessions) | set(sources)):
        n_sessions, n_entries = sessions.get(harness, (0, 0))
        n_sources, unreadable, synced = sources.get(harness, (0, 0, None))
        out.append(HarnessCounts(harness, n_sessions, n_entries, n_sources, unreadable, synced))
    return out


def vector_coverage(record: Record, sessions: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Per session: (entries that should have a meaning vector, entries that have one)."""
    if not sessions:
        return {}
    kinds, authors = vectors.EMBEDDED_KINDS, vectors.EMBEDDED_AUTHORS
    rows = record.db.execute(
        f"""SELECT e.session, COUNT(*), COUNT(v.entry) FROM entries e LEFT JOIN vectors v ON v.entry = e.id
        WHERE e.session IN ({",".join("?" * len(sessions))}) AND e.erased_at IS NULL
          AND e.kind IN ({",".join("?" * len(kinds))}) AND e.author IN ({",".join("?" * len(authors))})
        GROUP BY e.session""",
        (*sessions, *kinds, *authors),
    )
    return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


# -- times of entries (the prior-period summary) --

def timed_span(record: Record, session: int, low: str, high: str) -> tuple[int, int, int] | None:
    """(first seq, last seq, count) of the session's entries whose ISO time text lies in [low, high]; None
    when there are none."""
    first, last, count = record.db.execute(
        "SELECT MIN(seq), MAX(seq), COUNT(*) FROM entries WHERE session = ? "
        "AND ts GLOB '[0-9][0-9][0-9][0-9]-*' AND ts >= ? AND ts <= ?", (session, low, high)).fetchone()
    return None if first is None else (int(first), int(last), int(count))


def holds_timed_entries(record: Record, session: int) -> bool:
    """Whether any entry of the session carries a time."""
    return record.db.execute("SELECT 1 FROM entries WHERE session = ? AND ts GLOB '[0-9][0-9][0-9][0-9]-*' "
                            "LIMIT 1", (session,)).fetchone() is not None


# -- entries by what they hold --

def _like(word: str) -> str:
    return "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def matching_seqs(record: Record, sessions: Sequence[int], words: Sequence[str]) -> Iterator[tuple[int, int]]:
    """(session, seq) of the owner's and the agent's messages and the tool calls whose text (or tool name)
    holds any of `words`, case-insensitively, in session order then entry order.

    The match runs inside the query, so only matching rows leave SQLite: `LIKE` (case-insensitive for
    ASCII, in C) for ASCII words, and a scalar function on this read-only statement for the others.
    Erased entries (their text is a tombstone) never match.
    """
    tests: list[str] = []
    params: list[str] = []
    others = [w.casefold() for w in words if not w.isascii()]
    for word in (w for w in words if w.isascii()):
        tests.append("text LIKE ? ESCAPE '\\' OR (kind = 'tool_call' AND tool LIKE ? ESCAPE '\\')")
        params += [_like(word), _like(word)]
    if others:
        record.db.create_function(
            "total_recall_matches", 2,
            lambda tool, text: int(any(w in f"{tool or ''}\n{text or ''}".casefold() for w in others)),
            deterministic=True,
        )
        tests.append("total_recall_matches(CASE WHEN kind = 'tool_call' THEN tool END, text)")
    sql = (
        "SELECT seq FROM entries WHERE session = ? AND erased_at IS NULL "
        "AND ((author IN ('owner', 'agent') AND kind = 'message') OR kind = 'tool_call') "
        f"AND ({' OR '.join(f'({t})' for t in tests)}) ORDER BY seq"
    )
    for number in sessions:
        for row in record.db.execute(sql, (number, *params)):
            yield number, int(row[0])


def tool_seqs(record: Record, session: int, through: int, tools: Sequence[str]) -> list[int]:
    """The session's calls, up to entry `through`, of any of `tools` (lower-case names, matched whatever
    the case recorded) and the results grouped with them, in order."""
    marks = ",".join("?" * len(tools))
    return [int(r[0]) for r in record.db.execute(
        f"SELECT seq FROM entries WHERE session = ? AND seq <= ? AND ((kind = 'tool_call' AND "
        f"lower(tool) IN ({marks})) OR (kind = 'tool_result' AND grp IN (SELECT grp FROM entries WHERE "
        f"session = ? AND kind = 'tool_call' AND lower(tool) IN ({marks})))) ORDER BY seq",
        (session, through, *tools, session, *tools))]


def newest_owner_messages(record: Record, session: int, count: int) -> list[int]:
    """The numbers of the session's newest `count` owner messages, newest first."""
    rows = record.db.execute(
        "SELECT seq FROM entries WHERE session = ? AND author = 'owner' AND kind = 'message' "
        "ORDER BY seq DESC LIMIT ?",
        (session, count),
    ).fetchall()
    return [int(r[0]) for r in rows]


def owner_seqs(record: Record, session: int) -> list[int]:
    """The numbers of every entry of the owner's in the session, in order."""
    return [int(r[0]) for r in record.db.execute(
        "SELECT seq FROM entries WHERE session = ? AND author = 'owner' ORDER BY seq", (session,))]


def compactions(record: Record, session: int | None = None) -> list[CompactionEntry]:
    """Every entry of kind `compaction` (one session's when given), by session then number."""
    sql = ("SELECT e.session, e.seq, e.text, e.ts, s.harness FROM entries e "
           "JOIN sessions s ON s.id = e.session WHERE e.kind = 'compaction'")
    params: tuple[int, ...] = ()
    if session is not None:
        sql += " AND e.session = ?"
        params = (session,)
    return [CompactionEntry(*r) for r in record.db.execute(sql + " ORDER BY e.session, e.seq", params)]


def texts(record: Record, session: int, first: int, last: int) -> Iterator[str]:
    """The text of each entry of the session numbered `first`..`last` (tombstones for erased ones)."""
    for r in record.db.execute(
        "SELECT text FROM entries WHERE session = ? AND seq BETWEEN ? AND ?", (session, first, last)
    ):
        yield r[0]


def holding_strings(record: Record, session: int, seqs: Sequence[int]) -> set[int]:
    """Of these entries of the session, those the exact-string index holds strings for."""
    holding: set[int] = set()
    for i in range(0, len(seqs), _CHUNK):
        chunk = list(seqs[i:i + _CHUNK])
        marks = ",".join("?" * len(chunk))
        rows = record.db.execute(
            f"SELECT e.seq FROM entries e WHERE e.session = ? AND e.seq IN ({marks}) "
            "AND EXISTS (SELECT 1 FROM strings s WHERE s.entry = e.id)", [session, *chunk])
        holding.update(int(r[0]) for r in rows)
    return holding


# -- source records (extraction) --

def raw_records(record: Record, session: int, first: int, last: int
                ) -> dict[int, tuple[int | None, bytes | None]]:
    """seq → (source-record id, source record) for a range of one session; None once erased."""
    rows = record.db.execute(
        "SELECT e.seq, e.raw_id, r.raw FROM entries e LEFT JOIN raws r ON r.id = e.raw_id "
        "WHERE e.session = ? AND e.seq BETWEEN ? AND ?",
        (session, first, last),
    )
    return {int(r[0]): (r[1], unpack_raw(r[2])) for r in rows}


def raw_ids(record: Record, session: int, seqs: Sequence[int]) -> set[int]:
    """The source-record ids of some entries of one session."""
    out: set[int] = set()
    for seq in seqs:
        row = record.db.execute(
            "SELECT raw_id FROM entries WHERE session = ? AND seq = ?", (session, seq)
        ).fetchone()
        if row is not None and row[0] is not None:
            out.add(int(row[0]))
    return out


# -- a range read lean (the marker builder, keeping/evicted.py) --
# Plain tuples, not sqlite3.Row: a 10k-entry range has a budget of 200 ms.

def lean_rows(record: Record, session: int, first: int, last: int, unread_from: int) -> list[LeanRow]:
    """The session's entries `first`..`last` in order, as `LeanRow`s; the text of a tool output from entry
    id `unread_from` on is left unread (None)."""
    cur = record.db.cursor()
    cur.row_factory = None
    return cast(list[LeanRow], cur.execute(
        "SELECT id, seq, author, kind, CASE WHEN kind = 'tool_result' AND id >= ? THEN NULL ELSE text END, "
        "tool, native_id, native_parent, erased_at FROM entries "
        "WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        (unread_from, session, first, last),
    ).fetchall())


def entry_texts(record: Record, ids: Sequence[int]) -> list[tuple[int, str]]:
    """(id, text) of these entries."""
    if not ids:
        return []
    cur = record.db.cursor()
    cur.row_factory = None
    return cur.execute(f"SELECT id, text FROM entries WHERE id IN ({','.join('?' * len(ids))})",
                       list(ids)).fetchall()


def quarantine_actions(record: Record, low: int, high: int) -> dict[int, str]:
    """Entry id → the latest action of the quarantine log (`quarantine` or `release`), for the entries with
    ids `low`..`high` that have one."""
    cur = record.db.cursor()
    cur.row_factory = None
    state: dict[int, str] = {}
    for entry_id, action in cur.execute(
        "SELECT entry, action FROM quarantine WHERE entry BETWEEN ? AND ? ORDER BY id", (low, high)
    ):
        state[entry_id] = action
    return state


def failures_digested_from(record: Record) -> int:
    """The first entry whose tool-failure digest the record keeps (entries before it are worked out)."""
    row = record.db.execute("SELECT from_entry FROM digests WHERE name = 'tool_failures'").fetchone()
    return int(row[0]) if row is not None else 1 << 62


def failed_outputs(record: Record, low: int, high: int) -> set[int]:
    """The ids `low`..`high` of the tool outputs the failure digest holds as failed."""
    cur = record.db.cursor()
    cur.row_factory = None
    return {r[0] for r in cur.execute(
        "SELECT entry FROM tool_failures WHERE entry BETWEEN ? AND ?", (low, high))}


def spans_between(record: Record, low: int, high: int) -> list[tuple[int, int, int, SpanTag]]:
    """(entry id, start, end, tag) of the owner spans of the entries with ids `low`..`high`, in order."""
    cur = record.db.cursor()
    cur.row_factory = None
    return cast(list[tuple[int, int, int, SpanTag]], cur.execute(
        "SELECT entry, start, end, tag FROM spans WHERE entry BETWEEN ? AND ? ORDER BY entry, start",
        (low, high),
    ).fetchall())


def links_outside(record: Record, session: int, first: int, last: int) -> list[tuple[str, str | None]]:
    """(native id, native parent) of the session's entries outside `first`..`last` that have a native id."""
    cur = record.db.cursor()
    cur.row_factory = None
    return [(r[0], r[1]) for r in cur.execute(
        "SELECT native_id, native_parent FROM entries WHERE session = ? AND (seq < ? OR seq > ?) "
        "AND native_id IS NOT NULL", (session, first, last))]


# -- search (find/): one read snapshot; sessions and entries it ranks --

def _tuples(record: Record) -> sqlite3.Cursor:
    """A cursor giving plain tuples: the record's sqlite3.Row costs more to make and to unpack."""
    cursor = record.db.cursor()
    cursor.row_factory = None
    return cursor


@contextmanager
def snapshot(record: Record) -> Iterator[bool]:
    """One read snapshot for every statement run inside: a read transaction of its own, or the caller's
    when one is open. Yields whether it is its own (what it reads is then committed, so final)."""
    own = not record.db.in_transaction
    if own:
        record.db.execute("BEGIN")
    try:
        yield own
    finally:
        if own:
            record.db.execute("COMMIT")


def sessions_in_folders(record: Record, fragment: str, most: int) -> list[int]:
    """The numbers of up to `most` sessions whose folder (cwd) holds `fragment`, case-blind in ASCII."""
    return [r[0] for r in _tuples(record).execute(
        "SELECT id FROM sessions WHERE cwd LIKE ? ESCAPE '\\' LIMIT ?", (_like(fragment), most))]


def session_spans(record: Record, sessions: Sequence[int]) -> tuple[SessionSpan, ...]:
    """The first and last entry id of each of `sessions` that has entries."""
    if not sessions:
        return ()
    return tuple(SessionSpan(*r) for r in _tuples(record).execute(
        "SELECT id, (SELECT id FROM entries WHERE session = sessions.id ORDER BY seq LIMIT 1) AS a, "
        "(SELECT id FROM entries WHERE session = sessions.id ORDER BY seq DESC LIMIT 1) AS b "
        f"FROM sessions WHERE id IN ({','.join('?' * len(sessions))}) AND a IS NOT NULL",
        list(sessions),
    ))


def near(record: Record, ids: Sequence[int], chars: int) -> list[NearRow]:
    """`NearRow`s of the entries whose ids lie within one of any of `ids` (erased ones too), the first
    `chars` characters of each text."""
    return _tuples(record).execute(
        f"SELECT id, session, seq, length(text), substr(text, 1, ?), author, kind, erased_at IS NULL "
        f"FROM entries WHERE {' OR '.join(['id BETWEEN ? AND ?'] * len(ids))}",
        (chars, *[v for entry_id in ids for v in (entry_id - 1, entry_id + 1)]),
    ).fetchall()


def heads(record: Record, places: Sequence[tuple[int, int]], chars: int) -> list[tuple[int, int, str]]:
    """(session, seq, its first `chars` characters) of the entries not erased at these (session, seq)."""
    return _tuples(record).execute(
        f"SELECT session, seq, substr(text, 1, ?) FROM entries WHERE erased_at IS NULL AND "
        f"({' OR '.join(['(session = ? AND seq = ?)'] * len(places))})",
        (chars, *[v for place in places for v in place]),
    ).fetchall()


def texts_holding(record: Record, ids: Sequence[int], anchors: Sequence[str]) -> list[tuple[int, str]]:
    """(id, text) of those of `ids` not erased whose text holds any of `anchors` (letters and digits,
    case-blind in ASCII)."""
    # LIKE passes over the texts holding no anchor inside SQLite: only those worth comparing are copied out.
    return _tuples(record).execute(
        f"SELECT id, text FROM entries WHERE erased_at IS NULL AND id IN ({','.join('?' * len(ids))}) "
        f"AND ({' OR '.join(['text LIKE ?'] * len(anchors))})",
        [*ids, *(f"%{a}%" for a in anchors)],
    ).fetchall()


def hit_rows(record: Record, ids: Sequence[int]) -> list[HitRow]:
    """What a hit shows of each of these entries, in no particular order."""
    return [HitRow(*r) for r in _tuples(record).execute(
        f"""
            SELECT e.id, e.session, e.seq, s.harness, e.author, e.kind, e.ts, e.text
            FROM entries e JOIN sessions s ON s.id = e.session WHERE e.id IN ({','.join('?' * len(ids))})
            """,
        list(ids),
    )]


# -- search (find/): the indexes it reads. find/ holds no connection; each of these hands the record's to
# the indexes/ function of the same read, which holds its SQL. --

def word_shards(record: Record) -> list[Shard]:
    return words.shards(record.db)


def word_months(record: Record, first: str, last: str, most: int) -> list[str]:
    return words.months(record.db, first, last, most)


def newest_matches(record: Record, shard: Shard, match: str, most: int,
                   conditions: Conditions | None = None) -> list[int]:
    return words.newest(record.db, shard, match, most, conditions)


def newest_reach(record: Record, shard: Shard, match: str, most: int,
                 conditions: Conditions | None = None) -> tuple[int, int]:
    return words.reach(record.db, shard, match, most, conditions)


def newest_span(record: Record, shard: Shard, match: str, most: int) -> tuple[int, int, int]:
    return words.span(record.db, shard, match, most)


def scored_matches(record: Record, shard: Shard, match: str) -> list[tuple[int, float]]:
    return words.scored(record.db, shard, match)


def newest_scored(record: Record, shard: Shard, match: str, most: int) -> list[tuple[int, float]]:
    return words.newest_scored(record.db, shard, match, most)


def best_matches(record: Record, shard: Shard, over: str, floor: int, most: int,
                 among: str | None = None) -> list[tuple[int, float]]:
    return words.best(record.db, shard, over, floor, most, among)


def best_passing(record: Record, shard: Shard, over: str, floor: int, most: int, conditions: Conditions,
                 among: str | None = None) -> list[Scored]:
    return words.best_passing(record.db, shard, over, floor, most, conditions, among)


def facts_of(record: Record, ids: Sequence[int]) -> list[Fact]:
    return entry_facts.of(record.db, ids)


def facts_passing(record: Record, ids: Sequence[int], conditions: Conditions) -> list[Fact]:
    return entry_facts.passing(record.db, ids, conditions)


def strings_starting(record: Record, key: str, most: int, conditions: Conditions | None = None,
                     within: Sequence[tuple[int, int]] | None = None) -> list[int]:
    return strings.starting(record.db, key, most, conditions, within)


def error_lines(record: Record, ids: Sequence[int]) -> list[tuple[int, str]]:
    return strings.error_lines(record.db, ids)


def holds_vectors(record: Record) -> bool:
    return vectors.any_stored(record.db)


def vectors_of(record: Record, ids: Sequence[int]) -> list[tuple[int, bytes]]:
    return vectors.stored(record.db, ids)
