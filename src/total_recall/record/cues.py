"""The cues table: the agent's recall cues (`keeping/cues.py` decides what a cue may say), append-only but
for a privacy erase, which leaves a tombstone and blanks the stored markers showing the cue."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from total_recall.record.database import TOMBSTONE, Record

_SELECT = ("SELECT c.id, c.session, c.text, c.covers, c.created, x.at, x.reason FROM cues c "
           "LEFT JOIN cue_erasures x ON x.cue = c.id")


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue as stored; `covers` is the range it speaks for (`s3#1-120`); `erased` ("<when>: <why>") is
    set when `text` is a tombstone."""

    id: int
    session: int
    text: str
    covers: str
    created: str
    erased: str | None = None


def add(record: Record, session: int, text: str, covers: str, created: str) -> Cue:
    """Append a cue in a transaction of its own."""
    record.begin()
    try:
        cur = record.db.execute(
            "INSERT INTO cues(session, text, covers, created) VALUES (?, ?, ?, ?)",
            (session, text, covers, created),
        )
        record.commit()
    except BaseException:
        record.rollback()
        raise
    return Cue(int(cur.lastrowid or 0), session, text, covers, created)


def of_session(record: Record, session: int) -> list[Cue]:
    """The session's cues, erased ones included, oldest first."""
    rows = record.db.execute(_SELECT + " WHERE c.session = ? ORDER BY c.id", (session,)).fetchall()
    return [_cue(r) for r in rows]


def by_id(record: Record, cue_id: int) -> Cue | None:
    r = record.db.execute(_SELECT + " WHERE c.id = ?", (cue_id,)).fetchone()
    return None if r is None else _cue(r)


def left(record: Record, session: int, covers: str, text: str) -> bool:
    """Whether a cue with this text was left for the session over exactly `covers`."""
    row = record.db.execute(
        "SELECT 1 FROM cues WHERE session = ? AND covers = ? AND text = ?", (session, covers, text)
    ).fetchone()
    return row is not None


def erase(record: Record, cue: Cue, at: str, reason: str) -> None:
    """Replace the cue's text with a tombstone and blank every stored marker of its session that shows it,
    in one transaction (freed pages zeroed, the WAL truncated after); an erased cue is left as it is."""
    with record.secure_delete():
        record.begin()
        try:
            done = record.db.execute("SELECT 1 FROM cue_erasures WHERE cue = ?", (cue.id,)).fetchone()
            if done is None:
                record.db.execute("INSERT INTO cue_erasures(cue, at, reason) VALUES (?, ?, ?)",
                                 (cue.id, at, reason))
                record.db.execute(
                    "UPDATE markers SET body = '', erased_at = ? WHERE session = ? AND erased_at IS NULL "
                    "AND CASE WHEN json_valid(body) THEN json_extract(body, '$.cue.text') END = ?",
                    (at, cue.session, cue.text),
                )
                record.db.execute("UPDATE cues SET text = ? WHERE id = ?",
                                 (TOMBSTONE.format(at=at, reason=reason), cue.id))
            record.commit()
        except BaseException:
            record.rollback()
            raise
    record.checkpoint()


def _cue(r: sqlite3.Row) -> Cue:
    erased = None if r["at"] is None else f"{r['at']}: {r['reason']}"
    return Cue(r["id"], r["session"], r["text"], r["covers"], r["created"], erased)
