"""The read-only SQL the mining tools need beyond what `Store` offers.

Every statement here reads; none writes. They are kept in one place so the record's schema is named in as
few modules as possible, and each is shaped to use an index the schema already has (`UNIQUE(session, seq)`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from total_recall.record.store import Store, unpack_raw

# Entry times a reader could not make sense of ("[trimmed for fixture]") are not times.
_ISO_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*"


@dataclass(frozen=True, slots=True)
class HarnessCounts:
    """What the record holds of one harness, and when it last read its stores."""

    harness: str
    sessions: int
    entries: int
    sources: int
    unreadable_sources: int
    last_sync: str | None


def last_entry_times(store: Store) -> dict[int, str | None]:
    """Each session's time of its last entry that carries a real time.

    One probe per session down the `(session, seq)` index from the end, so the cost is the number of
    sessions, not the number of entries.
    """
    sql = (
        "SELECT s.id, (SELECT e.ts FROM entries e WHERE e.session = s.id AND e.ts GLOB ? "
        "ORDER BY e.seq DESC LIMIT 1) FROM sessions s"
    )
    return {int(r[0]): r[1] for r in store.execute(sql, (_ISO_GLOB,))}


def first_entry_time(store: Store, session: int) -> str | None:
    row = store.execute(
        "SELECT ts FROM entries WHERE session = ? AND ts GLOB ? ORDER BY seq LIMIT 1", (session, _ISO_GLOB)
    ).fetchone()
    return None if row is None else str(row[0])


def kind_counts(store: Store, session: int) -> dict[tuple[str, str], int]:
    """How many entries of each (author, kind) one session holds."""
    rows = store.execute(
        "SELECT author, kind, COUNT(*) FROM entries WHERE session = ? GROUP BY author, kind", (session,)
    )
    return {(str(r[0]), str(r[1])): int(r[2]) for r in rows}


def harness_counts(store: Store) -> list[HarnessCounts]:
    sessions = {
        str(r[0]): (int(r[1]), int(r[2] or 0))
        for r in store.execute("SELECT harness, COUNT(*), SUM(entries) FROM sessions GROUP BY harness")
    }
    sources = {
        str(r[0]): (int(r[1]), int(r[2] or 0), r[3])
        for r in store.execute(
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


def raw_records(store: Store, session: int, first: int, last: int
                ) -> dict[int, tuple[int | None, bytes | None]]:
    """seq → (source-record id, source record) for a range of one session; None once erased."""
    rows = store.execute(
        "SELECT e.seq, e.raw_id, r.raw FROM entries e LEFT JOIN raws r ON r.id = e.raw_id "
        "WHERE e.session = ? AND e.seq BETWEEN ? AND ?",
        (session, first, last),
    )
    return {int(r[0]): (r[1], unpack_raw(r[2])) for r in rows}


def raw_ids(store: Store, session: int, seqs: Sequence[int]) -> set[int]:
    """The source-record ids of some entries of one session."""
    out: set[int] = set()
    for seq in seqs:
        row = store.execute(
            "SELECT raw_id FROM entries WHERE session = ? AND seq = ?", (session, seq)
        ).fetchone()
        if row is not None and row[0] is not None:
            out.add(int(row[0]))
    return out


def _like(word: str) -> str:
    return "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def matching_seqs(store: Store, sessions: Sequence[int], words: Sequence[str]) -> Iterator[tuple[int, int]]:
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
        store.db.create_function(
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
        for row in store.execute(sql, (number, *params)):
            yield number, int(row[0])
