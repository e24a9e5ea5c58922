"""The nightly cycle (seed 002's Dream Cycle; named so it never collides with seed 004's
`do_android_dream_of_electric_sheep`, which stays a search): tidy the observations while nobody works.

Each night it
- classifies every current observation by impact (critical, high, medium, low, minimal: its type and
  importance) and age (new, fresh, recent, old, expired: since it was last seen, against its type's
  lifetime);
- applies the daily importance decay of its type (event −0.5, fact −0.1, preference −0.02, context −0.1;
  rule, habit and goal none), in whole days since its last decay;
- archives what passed its type's lifetime (event 14 d, fact 90 d, preference 180 d, goal and habit 365 d,
  context 30 d, rule never; scaled by 0.5 + confidence, so a sure note lives longer and a weak one less)
  or decayed below ARCHIVE_BELOW, giving each 4–5 hooks (other phrasings, `phrasing.hooks`) that the
  observation search indexes, so an archived item is still found by other words;
- chunks clusters of 3+ related current observations of one type (events, facts, context; never a rule
  or a high-priority one) into one that cites everything they cited; the members are archived with hooks
  and name the chunk (`superseded_by`);
- stages promotions: a theme (related observations, or one seen again and again) seen 3+ times on 3+
  separate days is proposed for the owner to approve or reject (`staging.py`); context never.
It is a dry run unless `apply=True`: the report (and the night's log) say what it would do and nothing
of the observations changes; only applied nights are numbered (`night`). Applied, it takes a backup first
and checks the result inside its transaction — every rule still current, every high-priority observation
still held, every observation it touched verified again against the record, every archived one found by
its hooks — and rolls back by itself when a check fails. The log keeps ids and counts per night, never an
observation's words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from total_recall.observing.observation import (
    DECAY_PER_DAY,
    MAX_TEXT,
    PRIORITIES,
    TTL_DAYS,
    ObservationRejected,
    Undone,
    iso,
    normalized,
    parse_time,
    utc_now,
    written,
)
from total_recall.observing.phrasing import (
    STOP,
    canonical,
    content_words,
    hooks,
    related_groups,
    shared,
    subject,
)
from total_recall.observing.staging import themes
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation
from total_recall.tokens import estimate_tokens

ARCHIVE_BELOW = 1.0
CHUNK_TYPES = frozenset({"event", "fact", "context"})
CHUNK_LEAST = 3


@dataclass(slots=True)
class NightReport:
    """One night: what it did (or, in a dry run, would do), its metrics, and how it ended."""

    at: str
    applied: bool
    outcome: str
    metrics: dict[str, Any] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)
    backup: int | None = None
    night: int | None = None  # the applied night's number (the first applied night is 1); None: a dry run

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "applied": self.applied, "outcome": self.outcome, "metrics": self.metrics,
                "actions": self.actions, "backup": self.backup, "night": self.night}


@dataclass(slots=True)
class _Plan:
    decay: dict[int, tuple[float, str]] = field(default_factory=dict)  # id → (importance, decayed)
    archive: dict[int, str] = field(default_factory=dict)  # id → why
    chunks: list[list[int]] = field(default_factory=list)
    proposals: list[tuple[str, list[int]]] = field(default_factory=list)


def nightly(record: Record, *, apply: bool = False, clock: Callable[[], datetime] = utc_now) -> NightReport:
    """Run one night of the cycle (a dry run unless `apply`); see the module's docstring."""
    now = clock()
    rows = table.read(record)
    current = [o for o in rows if o.current]
    plan = _plan(record, rows, current, now)
    report = NightReport(iso(now), apply, "dry run: nothing changed" if not apply else "applied")
    report.metrics = _metrics(current, plan, now)
    report.actions = _actions(plan)
    if apply and _has_work(plan):
        _apply(record, rows, current, plan, now, report)
    elif apply:
        report.outcome = "applied: nothing to do"
    with written(record):
        table.log_night(record, report.at, apply, report.outcome, report.metrics, report.actions)
        # A dry run is logged (what it would have done) but is no night of the cycle: it takes no number.
        report.night = table.applied_nights(record) if apply else None
    return report


def impact(o: Observation) -> str:
    if o.type == "rule" or o.importance >= 8:
        return "critical"
    if o.importance >= 6:
        return "high"
    if o.importance >= 4:
        return "medium"
    return "low" if o.importance >= 2 else "minimal"


def age(o: Observation, now: datetime) -> str:
    days = _days(o.seen, now)
    life = lifetime(o)
    if life is not None and days > life:
        return "expired"
    return "new" if days < 1 else "fresh" if days < 7 else "recent" if days < 30 else "old"


def lifetime(o: Observation) -> float | None:
    """Days an observation stays current since it was last seen (None: for ever)."""
    ttl = TTL_DAYS.get(o.type)
    return None if ttl is None else ttl * (0.5 + o.confidence)


def _plan(record: Record, rows: list[Observation], current: list[Observation], now: datetime) -> _Plan:
    plan = _Plan()
    for o in current:
        importance = o.importance
        rate = DECAY_PER_DAY.get(o.type, 0.0)
        whole = math.floor(_days(o.decayed, now))
        if rate and whole >= 1:
            importance = max(0.0, round(o.importance - rate * whole, 4))
            decayed = parse_time(o.decayed) or now
            plan.decay[o.id] = (importance, iso(decayed + timedelta(days=whole)))
        if o.type == "rule":
            continue
        if age(o, now) == "expired":
            plan.archive[o.id] = "lifetime"
        elif importance < ARCHIVE_BELOW:
            plan.archive[o.id] = "importance"
    staying = [o for o in current if o.id not in plan.archive]
    for kind in CHUNK_TYPES:
        pool = [o for o in staying if o.type == kind and o.priority != "high" and o.origin != "chunk"]
        for group in related_groups([o.subject for o in pool], least=0.34, shared_stems=2):
            if len(group) >= CHUNK_LEAST:
                plan.chunks.append(sorted(pool[i].id for i in group))
    plan.proposals = themes(record, rows)
    return plan


def _apply(record: Record, rows: list[Observation], current: list[Observation], plan: _Plan, now: datetime,
           report: NightReport) -> None:
    at = iso(now)
    by_id = {o.id: o for o in rows}
    with written(record):
        report.backup = table.back_up(record, "nightly", at)
    try:
        with written(record):
            # Checked under the write lock: the plan was made from a read taken before it, and an erase
            # since then withdrew the notes citing its entry (text and quotes blanked once, m019); a chunk,
            # proposal or archive made from them as read would put the erased words back.
            gone = _gone_since(record, rows)
            if gone:
                raise Undone(f"{_ids(gone)} withdrawn (an erase) or dropped after the night was planned: "
                             "nothing changed; run the night again")
            _change(record, by_id, current, plan, now)
    except Undone as why:
        report.outcome = f"rolled back: {why}"


def _gone_since(record: Record, rows: list[Observation]) -> list[int]:
    """The observations of `rows` (read earlier) that are withdrawn or gone now."""
    held = table.held(record)
    return [o.id for o in rows if o.id not in held]


def _ids(ids: list[int]) -> str:
    return ("observation " if len(ids) == 1 else "observations ") + ", ".join(map(str, ids))


def _change(record: Record, by_id: dict[int, Observation], current: list[Observation], plan: _Plan,
            now: datetime) -> None:
    """The night's changes, in the caller's transaction, checked; Undone when a check fails."""
    at = iso(now)
    touched: set[int] = set()
    for obs, (importance, decayed) in plan.decay.items():
        table.update(record, obs, importance=importance, decayed=decayed)
    for obs in plan.archive:
        o = by_id[obs]
        table.update(record, obs, archived_at=at, updated=at,
                     hooks=hooks(o.text, o.type, parse_time(o.seen)))
        touched.add(obs)
    for members in plan.chunks:
        chunk = _chunk(record, [by_id[m] for m in members], now)
        if chunk is not None:
            touched.update([chunk, *members])
    for theme, members in plan.proposals:
        _stage(record, theme, [by_id[m] for m in members], at)
    problem = _problem(record, current, touched)
    if problem is not None:
        raise Undone(problem)


def _chunk(record: Record, members: list[Observation], now: datetime) -> int | None:
    """One observation standing for `members` (archived under it, with hooks); None when its text is
    held already."""
    at = iso(now)
    text = chunk_text(members)
    digest = record.text_hash(normalized(text))
    if table.by_hash(record, digest) is not None:
        return None
    best = min(members, key=lambda o: PRIORITIES.index(o.priority) if o.priority in PRIORITIES else 3)
    fields = {"text": text, "priority": best.priority, "type": members[0].type,
              "confidence": min(o.confidence for o in members), "source_type": "inference",
              "importance": max(o.importance for o in members), "subject": subject(text), "origin": "chunk",
              "hooks": [], "created": at, "updated": at, "seen": max(o.seen for o in members), "decayed": at}
    chunk = table.add(record, fields, digest, [(c.entry, c.quote) for o in members for c in o.sources])
    for o in members:
        table.update(record, o.id, archived_at=at, superseded_by=chunk, updated=at,
                     hooks=hooks(o.text, o.type, parse_time(o.seen)))
    return chunk


def chunk_text(members: list[Observation]) -> str:
    """The text of the observation standing for `members`: what they share, then what each adds."""
    common = set(shared(o.subject for o in members))
    head = " ".join([w for w in content_words(members[0].text) if canonical(w) in common][:4])
    parts = [_rest(o.text, common) for o in members]
    text = f"{head}: " + " · ".join(p if len(p) <= 90 else p[:89].rstrip() + "…" for p in parts)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1].rstrip() + "…"


def _rest(text: str, common: set[str]) -> str:
    """A member's text without the leading words the chunk's head already says ("The staging database
    runs Postgres 16" under "staging database": "runs Postgres 16")."""
    words = text.split()
    n = 0
    while n < len(words) - 1:
        w = words[n].lower().strip(".,;:!?\"'()")
        if w in STOP or canonical(w) in common:
            n += 1
            continue
        break
    return " ".join(words[n:]).rstrip(".")


def _stage(record: Record, theme: str, members: list[Observation], at: str) -> None:
    newest = max(members, key=lambda o: (o.seen, o.id))
    kind = "rule" if newest.type in ("preference", "habit", "rule") else newest.type
    entries = {c.entry for o in members for c in o.sources}
    days = {c.ts[:10] for o in members for c in o.sources if c.ts}
    table.stage(record, theme, kind, newest.text, [o.id for o in members], len(entries), len(days), entries,
                at)


def _problem(record: Record, before: list[Observation], touched: set[int]) -> str | None:
    """Why the night must not stand, or None."""
    after = {o.id: o for o in table.read(record)}
    for o in before:
        held = after.get(o.id)
        if o.type == "rule" and (held is None or not held.current):
            return f"rule {o.id} would no longer be current"
        if o.priority == "high" and held is None:
            return f"high-priority observation {o.id} would be lost"
    verifier = Verifier(record)
    for obs in sorted(touched):
        found = after.get(obs)
        if found is None:
            return f"observation {obs} vanished"
        try:
            verifier.recheck(found)
        except ObservationRejected as exc:
            return str(exc)
        if found.archived and len(found.hooks) < 4:
            return f"archived observation {obs} has {len(found.hooks)} hooks, fewer than 4"
        if found.archived and obs not in table.search(record, content_words(found.hooks[0]), 10_000):
            return f"archived observation {obs} is not found by its hooks"
    return None


def _metrics(current: list[Observation], plan: _Plan, now: datetime) -> dict[str, Any]:
    by_type: dict[str, int] = {}
    by_impact: dict[str, int] = {}
    by_age: dict[str, int] = {}
    for o in current:
        by_type[o.type] = by_type.get(o.type, 0) + 1
        by_impact[impact(o)] = by_impact.get(impact(o), 0) + 1
        by_age[age(o, now)] = by_age.get(age(o, now), 0) + 1
    gone = set(plan.archive) | {m for c in plan.chunks for m in c}
    by_id = {o.id: o for o in current}
    tokens_before = sum(estimate_tokens(o.text) for o in current)
    tokens_after = sum(estimate_tokens(o.text) for o in current if o.id not in gone) + sum(
        estimate_tokens(chunk_text([by_id[m] for m in chunk])) for chunk in plan.chunks)
    return {"current": len(current), "by_type": by_type, "by_impact": by_impact, "by_age": by_age,
            "decayed": len(plan.decay), "archived": len(plan.archive), "chunks": len(plan.chunks),
            "chunked": sum(len(c) for c in plan.chunks), "proposals": len(plan.proposals),
            "tokens_before": tokens_before, "tokens_after": tokens_after}


def _actions(plan: _Plan) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"action": "archive", "id": obs, "why": why}
                                 for obs, why in sorted(plan.archive.items())]
    out += [{"action": "chunk", "ids": members} for members in plan.chunks]
    out += [{"action": "propose", "ids": members} for _, members in plan.proposals]
    return out


def _has_work(plan: _Plan) -> bool:
    return bool(plan.decay or plan.archive or plan.chunks or plan.proposals)


def _days(when: str, now: datetime) -> float:
    at = parse_time(when)
    return 0.0 if at is None else max(0.0, (now - at).total_seconds() / 86_400)
