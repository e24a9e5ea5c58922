"""The reflector: when the current observations pass a size (seed 002: 8,000 words), consolidate them.

- Related observations (same type, same subject: most of their stems shared; events excepted, each its own
  happening) merge into the one that stands — the highest priority, then the newest — which cites every
  entry the others cited.
- A merged observation of low priority is dropped; one of medium or high priority is kept, superseded,
  naming the observation that superseded it (`superseded_by`).
- Low-priority observations past their type's lifetime are archived as stale, with other phrasings to find
  them by (as the nightly cycle archives them): out of the current set, never out of reach.
A backup is taken first (the last 10 are kept); the result must be shorter than what it replaces and must
lose no high-priority observation (each is still current, or names a current one that superseded it),
else the whole consolidation is rolled back and the report says why. Mechanical: no model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from total_recall.observing.observation import (
    PRIORITIES,
    TTL_DAYS,
    ObservingError,
    Undone,
    iso,
    parse_time,
    utc_now,
    written,
)
from total_recall.observing.phrasing import hooks, related_groups
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation

THRESHOLD_WORDS = 8_000


@dataclass(frozen=True, slots=True)
class ReflectReport:
    """What a reflection did (or, rolled back or not needed, why not)."""

    words_before: int
    words_after: int
    merged: int  # groups merged
    superseded: list[int]
    dropped: list[int]
    backup: int | None
    applied: bool
    reason: str
    archived: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"words_before": self.words_before, "words_after": self.words_after, "merged": self.merged,
                "superseded": self.superseded, "dropped": self.dropped, "archived": self.archived,
                "backup": self.backup, "applied": self.applied, "reason": self.reason}


def reflect(record: Record, *, threshold_words: int = THRESHOLD_WORDS, force: bool = False,
            clock: Callable[[], datetime] = utc_now) -> ReflectReport:
    """Consolidate the current observations when their words pass `threshold_words` (or `force`)."""
    now = clock()
    current = [o for o in table.read(record) if o.current]
    before = sum(o.words for o in current)
    if before <= threshold_words and not force:
        return ReflectReport(before, before, 0, [], [], None, False,
                             f"{before:,} words, under the threshold of {threshold_words:,}")
    with written(record):
        backup = table.back_up(record, "reflect", iso(now))
    try:
        with written(record):
            merged, superseded, dropped, archived = _consolidate(record, current, now)
            after = sum(o.words for o in table.read(record) if o.current)
            problem = _problem(current, table.read(record), before, after)
            if problem is not None:
                raise Undone(problem)
    except Undone as why:
        return ReflectReport(before, before, 0, [], [], backup, False, f"rolled back: {why}")
    return ReflectReport(before, after, merged, superseded, dropped, backup, True,
                         f"{before:,} → {after:,} words", archived)


def _consolidate(record: Record, current: list[Observation],
                 now: datetime) -> tuple[int, list[int], list[int], list[int]]:
    superseded: list[int] = []
    dropped: list[int] = []
    merged = 0
    by_type: dict[str, list[Observation]] = {}
    for o in current:
        by_type.setdefault(o.type, []).append(o)
    at = iso(now)
    for kind, rows in by_type.items():
        if kind == "event":
            continue  # two happenings about one thing are two events, not one said twice
        for group in related_groups([o.subject for o in rows], least=0.6, shared_stems=5):
            members = [rows[i] for i in group]
            keeper = max(members, key=_standing)
            merged += 1
            for o in members:
                if o.id == keeper.id:
                    continue
                table.cite(record, keeper.id, [(c.entry, c.quote) for c in o.sources])
                if o.priority == "low":
                    dropped.append(o.id)
                else:
                    table.update(record, o.id, superseded_by=keeper.id, updated=at)
                    superseded.append(o.id)
            table.update(record, keeper.id, updated=at, seen=max(o.seen for o in members))
    gone = set(superseded) | set(dropped)
    archived: list[int] = []
    for o in current:
        ttl = TTL_DAYS.get(o.type)
        seen = parse_time(o.seen)
        if (o.id not in gone and o.priority == "low" and ttl is not None and seen is not None
                and (now - seen).days > ttl):
            table.update(record, o.id, archived_at=at, updated=at, hooks=hooks(o.text, o.type, seen))
            archived.append(o.id)
    table.delete(record, dropped)
    return merged, superseded, dropped, archived


def _standing(o: Observation) -> tuple[int, str, float, int]:
    return (len(PRIORITIES) - PRIORITIES.index(o.priority) if o.priority in PRIORITIES else 0,
            o.seen, o.importance, o.id)


def _problem(before: list[Observation], after_all: list[Observation], words_before: int,
             words_after: int) -> str | None:
    """Why the consolidated observations must not stand, or None."""
    if words_after >= words_before:
        return f"not shorter ({words_before:,} → {words_after:,} words)"
    by_id = {o.id: o for o in after_all}
    for o in before:
        if o.priority != "high":
            continue
        if not _stands(o.id, by_id):
            return f"high-priority observation {o.id} would be lost"
    return None


def _stands(obs: int, by_id: dict[int, Observation]) -> bool:
    """Whether an observation is current, or names (through the chain) a current one superseding it."""
    seen: set[int] = set()
    at: int | None = obs
    while at is not None and at not in seen:
        seen.add(at)
        o = by_id.get(at)
        if o is None:
            return False
        if o.current:
            return True
        at = o.superseded_by
    return False


@dataclass(frozen=True, slots=True)
class Backup:
    """A copy of the observations taken before a change (the reflector's, a night's, a restore's)."""

    backup: int
    taken: str
    reason: str
    count: int


def backups(record: Record) -> list[Backup]:
    """The backups kept (the last 10), newest first."""
    return [Backup(*row) for row in table.backups(record)]


def restore(record: Record, backup: int, *, clock: Callable[[], datetime] = utc_now) -> tuple[int, int]:
    """Put back the observations of a backup, replacing the current ones, after backing those up (so a
    restore can be undone by restoring that one); returns (observations restored, the new backup's id).
    Copies citing an entry erased since were withdrawn with it and do not come back.

    Raises:
        ObservingError: no such backup (the last 10 are kept).
    """
    if backup not in {b.backup for b in backups(record)}:
        kept = ", ".join(str(b.backup) for b in backups(record)) or "none yet"
        raise ObservingError(f"no backup {backup} (the last {table.KEEP_BACKUPS} are kept: {kept})")
    with written(record):
        before = table.back_up(record, f"before restoring backup {backup}", iso(clock()), spare=backup)
        count = table.restore(record, backup)
    return count, before
