"""The reflector: when the current observations pass a size (seed 002: 8,000 words), consolidate them.

- An observation said whole by another of its type (every word it carries stands in the other, with the
  same qualifiers — never, not, only, before … —, at a priority as high; events excepted, each its own
  happening) is merged into that one — the one saying most, then the highest priority, then the newest —
  which cites every entry it cited. Two notes that only share a subject ("never deploy billing on
  Fridays", "deploy billing through staging first") are two rules: neither goes.
- A merged observation of low priority is dropped; one of medium or high priority is kept, superseded,
  naming the observation that superseded it (`superseded_by`).
- Low-priority observations past their type's lifetime are archived as stale, with other phrasings to find
  them by (as the nightly cycle archives them): out of the current set, never out of reach.
A backup is taken first (the last 10 are kept); the result must be shorter than what it replaces, every
observation merged away must be said whole by the current one that took it in (which cites it), and no
other high-priority observation may leave the current set, else the whole consolidation is rolled back
and the report says why. Mechanical: no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

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
from total_recall.observing.phrasing import STOP, hooks, stem
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
    # Notes current at the first read but no longer at the consolidation's (an erase withdrew them, another
    # writer changed them): left out, never merged as first read.
    left_out: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"words_before": self.words_before, "words_after": self.words_after, "merged": self.merged,
                "superseded": self.superseded, "dropped": self.dropped, "archived": self.archived,
                "backup": self.backup, "applied": self.applied, "reason": self.reason,
                "left_out": self.left_out}


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
    left_out: list[int] = []
    try:
        with written(record):
            # Read again under the write lock, and consolidate that: an erase committed since the first
            # read withdrew the notes citing its entry (text and quotes blanked once, m019), and merging
            # them as first read would copy the erased quotes onto the notes that took them in.
            fresh = [o for o in table.read(record) if o.current]
            left_out = sorted({o.id for o in current} - {o.id for o in fresh})
            before = sum(o.words for o in fresh)
            merged, superseded, dropped, archived, absorbed = _consolidate(record, fresh, now)
            after = sum(o.words for o in table.read(record) if o.current)
            problem = _problem(fresh, table.read(record), absorbed, before, after)
            if problem is not None:
                raise Undone(problem)
    except Undone as why:
        return ReflectReport(before, before, 0, [], [], backup, False,
                             f"rolled back: {why}" + _left_out(record, left_out), left_out=left_out)
    return ReflectReport(before, after, merged, superseded, dropped, backup, True,
                         f"{before:,} → {after:,} words" + _left_out(record, left_out), archived, left_out)


def _left_out(record: Record, ids: list[int]) -> str:
    """What the reason says of the notes that stopped being current between the first read and the
    consolidation's (an erase withdrew them, or another writer changed them)."""
    if not ids:
        return ""
    withdrawn = [o.id for o in table.read(record, ids, withdrawn=True) if o.withdrawn_at is not None]
    others = [i for i in ids if i not in withdrawn]
    parts = ([f"{_ids(withdrawn)} withdrawn by an erase"] if withdrawn else []) + (
        [f"{_ids(others)} no longer current"] if others else [])
    return f"; left out, since the first read: {' and '.join(parts)}"


def _ids(ids: list[int]) -> str:
    return ("observation " if len(ids) == 1 else "observations ") + ", ".join(map(str, ids))


def _consolidate(record: Record, current: list[Observation],
                 now: datetime) -> tuple[int, list[int], list[int], list[int], dict[int, int]]:
    superseded: list[int] = []
    dropped: list[int] = []
    by_type: dict[str, list[Observation]] = {}
    for o in current:
        by_type.setdefault(o.type, []).append(o)
    at = iso(now)
    absorbed: dict[int, int] = {}
    for kind, rows in by_type.items():
        if kind == "event":
            continue  # two happenings about one thing are two events, not one said twice
        absorbed.update(_absorbed(rows))
    by_id = {o.id: o for o in current}
    keepers: dict[int, list[Observation]] = {}
    for gone, keeper in absorbed.items():
        keepers.setdefault(keeper, []).append(by_id[gone])
    for keeper, members in keepers.items():
        for o in members:
            table.cite(record, keeper, [(c.entry, c.quote) for c in o.sources])
            if o.priority == "low":
                dropped.append(o.id)
            else:
                table.update(record, o.id, superseded_by=keeper, updated=at)
                superseded.append(o.id)
        table.update(record, keeper, updated=at, seen=max(o.seen for o in [by_id[keeper], *members]))
    gone_ids = set(absorbed)
    archived: list[int] = []
    for o in current:
        ttl = TTL_DAYS.get(o.type)
        seen = parse_time(o.seen)
        if (o.id not in gone_ids and o.priority == "low" and ttl is not None and seen is not None
                and (now - seen).days > ttl):
            table.update(record, o.id, archived_at=at, updated=at, hooks=hooks(o.text, o.type, seen))
            archived.append(o.id)
    table.delete(record, dropped)
    return len(keepers), superseded, dropped, archived, absorbed


def _absorbed(rows: list[Observation]) -> dict[int, int]:
    """Observation id → the id of the one (of `rows`, one type) that says it whole and stands for it.
    Only a note no other one says whole takes others in, so nothing is merged into a note that goes."""
    said = {o.id: _said(o.text) for o in rows}
    holders: dict[str, set[int]] = {}
    for o in rows:
        for w in said[o.id]:
            holders.setdefault(w, set()).add(o.id)
    by_id = {o.id: o for o in rows}

    def candidates(o: Observation) -> list[Observation]:
        if not said[o.id]:
            return []  # a note of stop words only is said whole by any: never merged
        held = set.intersection(*(holders[w] for w in said[o.id]))
        return [by_id[i] for i in held if i != o.id]

    def beats(c: Observation, o: Observation) -> bool:
        # Strictly more said, or the same said by one standing higher: never both ways, so no cycle.
        return says(c, o) and (said[o.id] < said[c.id] or _standing(c) > _standing(o))

    beaten = {o.id for o in rows if any(beats(c, o) for c in candidates(o))}
    out: dict[int, int] = {}
    for o in rows:
        if o.id not in beaten:
            continue
        tops = [c for c in candidates(o) if c.id not in beaten and says(c, o)]
        if tops:
            out[o.id] = max(tops, key=lambda c: (len(said[c.id]), _standing(c))).id
    return out


# Words that turn what a note says around or bound it: two notes say the same only with the same ones.
_NEGATIONS = frozenset({"never", "not", "no", "nor", "cannot", "nobody", "nothing", "none", "nowhere",
                        "neither", "dont", "don't", "doesn't", "isn't", "aren't", "can't", "won't",
                        "shouldn't", "mustn't", "didn't", "wasn't", "weren't"})
_BOUNDS = frozenset({"without", "only", "except", "unless", "before", "after", "until", "instead",
                     "rather", "but", "off", "against", "outside", "inside"})
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'’+#./_-]*[a-z0-9+#]|[a-z0-9]")


@lru_cache(maxsize=8_192)  # `says` asks again for each pair a note is in
def _said(text: str) -> frozenset[str]:
    """What a note says, as stems of its own words (no synonyms: pnpm is not npm), stop words aside."""
    out = set()
    for w in _TOKEN.findall(text.lower().replace("’", "'")):
        w = w.strip(".-/")
        if len(w) >= 2 and w not in STOP and w not in _NEGATIONS and w not in _BOUNDS:
            out.add(stem(w))
    return frozenset(out)


@lru_cache(maxsize=8_192)
def _qualifiers(text: str) -> frozenset[str]:
    words = _TOKEN.findall(text.lower().replace("’", "'"))
    return frozenset("not" if w in _NEGATIONS or w.endswith("n't") else w for w in words
                     if w in _NEGATIONS or w in _BOUNDS or w.endswith("n't"))


def says(keeper: Observation, other: Observation) -> bool:
    """Whether `keeper` says everything `other` says, so it may stand for it: every word `other` carries
    stands in it, with the same qualifiers (never, only, before …), at a priority at least as high, and
    `other` is not a sliver of it (half its words at least: "use tabs" is not said by "convert tabs to
    spaces in YAML")."""
    mine, theirs = _said(keeper.text), _said(other.text)
    return (keeper.type == other.type and bool(theirs) and theirs <= mine and 2 * len(theirs) >= len(mine)
            and _qualifiers(keeper.text) == _qualifiers(other.text)
            and _rank(keeper.priority) <= _rank(other.priority))


def _rank(priority: str) -> int:
    return PRIORITIES.index(priority) if priority in PRIORITIES else len(PRIORITIES)


def _standing(o: Observation) -> tuple[int, str, float, int]:
    return (len(PRIORITIES) - _rank(o.priority), o.seen, o.importance, o.id)


def _problem(before: list[Observation], after_all: list[Observation], absorbed: dict[int, int],
             words_before: int, words_after: int) -> str | None:
    """Why the consolidated observations must not stand, or None: not shorter; a note merged into one
    that does not say it whole, is not current or does not cite what it cited; a high-priority note
    gone from the current set otherwise."""
    if words_after >= words_before:
        return f"not shorter ({words_before:,} → {words_after:,} words)"
    by_id = {o.id: o for o in after_all}
    for o in before:
        if o.id in absorbed:
            keeper = by_id.get(absorbed[o.id])
            if keeper is None or not keeper.current or not says(keeper, o):
                return (f"observation {o.id} would be merged into {absorbed[o.id]}, which does not say it "
                        "whole")
            if not {c.entry for c in o.sources} <= {c.entry for c in keeper.sources}:
                return f"observation {absorbed[o.id]} would stand for {o.id} without citing its entries"
            if o.priority != "low" and by_id.get(o.id, o).superseded_by != keeper.id:
                return f"observation {o.id} would not name {keeper.id}, which superseded it"
        elif o.priority == "high" and not (o.id in by_id and by_id[o.id].current):
            return f"high-priority observation {o.id} would be lost"
    return None


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
