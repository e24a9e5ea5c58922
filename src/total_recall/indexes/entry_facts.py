"""Reading `entry_facts`: what search ranks and filters by (session, seq, author, kind, time) of each entry
not erased, and a search's filters as conditions on those facts and the entry's session.

The table is written with the entries (`indexes.on_append`) and left by erase (`indexes.on_erase`); the
statements that join it with a word-index shard or with `strings` render the same conditions
(`clause`), so no SQL text leaves this layer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

Fact = tuple[int, int, int, str, str]  # id, session, seq, author, kind
Scored = tuple[int, int, int, str, str, float]  # a Fact and its bm25


@dataclass(frozen=True, slots=True)
class Conditions:
    """What an entry must be to pass a search's filters: its session's harness or folder (`project`, a
    fragment of it), its session, author, kind, a time from `since` (ISO, inclusive) and within `between`
    (ISO [from, to)). Nothing set passes every entry not erased."""

    harness: Sequence[str] = ()
    session: int | None = None
    project: str | None = None
    author: Sequence[str] = ()
    since: str | None = None
    kinds: Sequence[str] = ()
    between: tuple[str, str] | None = None


def clause(conditions: Conditions) -> tuple[str, list[object]]:
    """The conditions as SQL over `entry_facts e` and `sessions s`, and its parameters; "1" when none is
    set, so a statement can still AND its own to it."""
    where: list[str] = []
    params: list[object] = []
    if conditions.harness:
        where.append(f"s.harness IN ({','.join('?' * len(conditions.harness))})")
        params.extend(conditions.harness)
    if conditions.session is not None:
        where.append("e.session = ?")
        params.append(conditions.session)
    if conditions.project:
        where.append("s.cwd LIKE ? ESCAPE '\\'")
        params.append(_like(conditions.project))
    if conditions.author:
        where.append(f"e.author IN ({','.join('?' * len(conditions.author))})")
        params.extend(conditions.author)
    if conditions.since:
        where.append("e.ts >= ?")
        params.append(conditions.since)
    if conditions.kinds:
        where.append(f"e.kind IN ({','.join('?' * len(conditions.kinds))})")
        params.extend(conditions.kinds)
    sql = " AND ".join(where) or "1"
    if conditions.between is not None:
        sql += " AND e.ts >= ? AND e.ts < ?"
        params.extend(conditions.between)
    return sql, params


def _like(fragment: str) -> str:
    """A LIKE pattern matching `fragment` anywhere, its own % and _ taken literally."""
    return "%" + fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def tuples(db: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving plain tuples: the record's sqlite3.Row costs more to make and to unpack."""
    cursor = db.cursor()
    cursor.row_factory = None
    return cursor


def of(db: sqlite3.Connection, ids: Sequence[int]) -> list[Fact]:
    """The facts of those of `ids` not erased, in no particular order."""
    return tuples(db).execute(
        f"SELECT id, session, seq, author, kind FROM entry_facts WHERE id IN ({','.join('?' * len(ids))})",
        list(ids),
    ).fetchall()


def passing(db: sqlite3.Connection, ids: Sequence[int], conditions: Conditions) -> list[Fact]:
    """The facts of those of `ids` (not erased) that pass `conditions`, in no particular order."""
    where, params = clause(conditions)
    # CROSS JOIN: the few ids first; left to itself the planner may walk a project's sessions instead.
    return tuples(db).execute(
        f"SELECT e.id, e.session, e.seq, e.author, e.kind FROM entry_facts e "
        f"CROSS JOIN sessions s ON s.id = e.session WHERE {where} AND e.id IN ({','.join('?' * len(ids))})",
        [*params, *ids],
    ).fetchall()
