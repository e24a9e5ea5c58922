"""Recall cues (seed 003): one line the agent leaves for its future self about a thread.

A cue is written while the agent still has the thread in view, in the present tense, about what it has
already read: "as of now, this line covers the history". So a cue covers the session from its first
entry up to the newest one recorded when it was left, and compaction keeps the newest cue in place of the
mechanical decision/failure/open lines for what it covers. The agent never predicts a thread's lifecycle
("winding down"), so nothing here asks for one. Cues are an append-only log: a newer cue supersedes.
The one edit allowed is a privacy erase (`erase_cue`): a cue that quoted a secret leaves a tombstone, and a
stored marker showing it is blanked in the same transaction.
"""

from __future__ import annotations

from total_recall.errors import CueError
from total_recall.record import cues
from total_recall.record.cues import Cue
from total_recall.record.database import Record, now

__all__ = ["MAX_CUE_CHARS", "Cue", "cue_by_id", "cues_for", "erase_cue", "leave_cue"]

# A cue is a pointer back, not a summary: long enough for a topic and its open state, no more.
MAX_CUE_CHARS = 300


def leave_cue(record: Record, session: int, text: str) -> Cue:
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
    info = record.session(session)
    if info.entries == 0:
        raise CueError(f"s{session} holds no entries yet: there is nothing for a cue to cover")
    covers = f"s{session}#1-{info.entries}" if info.entries > 1 else f"s{session}#1"
    return cues.add(record, session, line, covers, now())


def cues_for(record: Record, session: int, include_erased: bool = False) -> list[Cue]:
    """The session's cues, oldest first (the newest is last); erased ones (tombstones) only when asked:
    a marker never stands an erased cue in for the items it covered."""
    return [c for c in cues.of_session(record, session) if include_erased or c.erased is None]


def erase_cue(record: Record, cue_id: int, reason: str) -> Cue:
    """Replace a cue's text with a tombstone, and blank every stored marker of its session that shows
    it, in one transaction; freed pages are zeroed and the WAL truncated, as for an entry's erase.
    Erasing an erased cue changes nothing.

    Raises:
        CueError: there is no such cue, or no reason was given.
    """
    if not reason.strip():
        raise CueError("an erase needs a reason (kept with the tombstone)")
    cues.erase(record, cue_by_id(record, cue_id), now(), reason)
    return cue_by_id(record, cue_id)


def cue_by_id(record: Record, cue_id: int) -> Cue:
    """One cue by its id, erased or not.

    Raises:
        CueError: there is no such cue.
    """
    cue = cues.by_id(record, cue_id)
    if cue is None:
        raise CueError(f"cue:{cue_id}: no such cue")
    return cue
