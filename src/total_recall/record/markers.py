"""The markers table: the markers compactions left (`keeping/marker.py` builds and reads them), with the
entries each quotes (`marker_entries`), so erasing or quarantining one withdraws the marker. Markers are
never deleted; an erase blanks them (a trigger, or `record/cues.py` for a cue)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import orjson

from total_recall.record.database import Record, now


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A marker as the table holds it: `body` its JSON form, None once an erase blanked it (`erased_at`)."""

    id: int
    range: str
    body: dict[str, Any] | None
    tokens: int
    created: str
    erased_at: str | None


def add(record: Record, session: int, range: str, body: dict[str, Any], tokens: int,
        quoted: Collection[int]) -> int:
    """Store a marker with the entries of `session` it quotes (by number), in the caller's transaction;
    returns its id."""
    cur = record.db.execute(
        "INSERT INTO markers(session, range, body, tokens, created) VALUES (?, ?, ?, ?, ?)",
        (session, range, orjson.dumps(body).decode(), tokens, now()),
    )
    marker_id = int(cur.lastrowid or 0)
    seqs = sorted(quoted)
    if seqs:
        record.db.execute(
            f"INSERT INTO marker_entries(marker, entry) SELECT ?, id FROM entries WHERE session = ? "
            f"AND seq IN ({','.join('?' * len(seqs))})",
            (marker_id, session, *seqs),
        )
    return marker_id


def of_session(record: Record, session: int) -> list[StoredRow]:
    """The session's markers, oldest first."""
    rows = record.db.execute(
        "SELECT id, range, body, tokens, created, erased_at FROM markers WHERE session = ? ORDER BY id",
        (session,),
    ).fetchall()
    return [StoredRow(r["id"], r["range"], None if r["erased_at"] else orjson.loads(r["body"]), r["tokens"],
                      r["created"], r["erased_at"]) for r in rows]


def quarantined_quotes(record: Record, session: int) -> dict[int, int]:
    """Marker id → the number of an entry it quotes that is quarantined now (the first found), for the
    session's markers that quote one."""
    out: dict[int, int] = {}
    for marker_id, seq in record.db.execute(
        "SELECT me.marker, e.seq FROM marker_entries me JOIN markers m ON m.id = me.marker "
        "JOIN entries e ON e.id = me.entry WHERE m.session = ? AND (SELECT q.action FROM quarantine q "
        "WHERE q.entry = me.entry ORDER BY q.id DESC LIMIT 1) = 'quarantine'",
        (session,),
    ):
        out.setdefault(int(marker_id), int(seq))
    return out
