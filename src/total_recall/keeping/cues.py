"""Recall cues (seed 003): one line the agent leaves for its future self about a thread.

A cue is written while the agent still has the thread in view, in the present tense, about what it has
already read: "as of now, this line covers the history". So a cue covers the session from its first
entry up to the newest one recorded when it was left, and compaction keeps the newest cue in place of the
mechanical decision/failure/open lines for what it covers. The agent never predicts a thread's lifecycle
("winding down"), so nothing here asks for one. Cues are an append-only log: a newer cue supersedes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from total_recall.errors import CueError
from total_recall.record.store import Store, now

# A cue is a pointer back, not a summary: long enough for a topic and its open state, no more.
MAX_CUE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue as stored; `covers` is the range it speaks for (`s3#1-120`)."""

    id: int
    session: int
    text: str
    covers: str
    created: str


def leave_cue(store: Store, session: int, text: str) -> Cue:
    """Record a one-line, present-tense cue covering the session up to its newest entry.

    Raises:
        AddressError: no such session.
        CueError: the text is empty, longer than one line or than MAX_CUE_CHARS, or the session has no
            entries to cover.
    """
    line = text.strip()
    if not line:
        raise CueError("a cue needs text: one line saying what this thread is and when to come back to it")
    if "\n" in line or "\r" in line:
        raise CueError("a cue is one line: leave out the line breaks (the record keeps the details)")
    if len(line) > MAX_CUE_CHARS:
        raise CueError(f"a cue is one line of at most {MAX_CUE_CHARS} characters (this one has {len(line)}): "
                       "name the topic and its open state, the record holds the rest")
    info = store.session(session)
    if info.entries == 0:
        raise CueError(f"s{session} holds no entries yet: there is nothing for a cue to cover")
    covers = f"s{session}#1-{info.entries}" if info.entries > 1 else f"s{session}#1"
    created = now()
    store.begin()
    try:
        cur = store.db.execute(
            "INSERT INTO cues(session, text, covers, created) VALUES (?, ?, ?, ?)",
            (session, line, covers, created),
        )
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return Cue(int(cur.lastrowid or 0), session, line, covers, created)


def cues_for(store: Store, session: int) -> list[Cue]:
    """The session's cues, oldest first (the newest is last)."""
    rows = store.db.execute(
        "SELECT id, session, text, covers, created FROM cues WHERE session = ? ORDER BY id", (session,)
    ).fetchall()
    return [_cue(r) for r in rows]


def _cue(r: sqlite3.Row) -> Cue:
    return Cue(r["id"], r["session"], r["text"], r["covers"], r["created"])
