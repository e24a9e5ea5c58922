"""Keeping a draft: verified first, then stored once — a draft whose text is already held (its keyed
content hash) reinforces the observation that holds it instead: the new sources are cited, it counts as
seen again, and an archived one comes back. A retired one (the owner took it back) comes back only when a
new source was said after it was retired; the same words read again leave it retired. A new note that a
retraction logged before it names, from words said before that retraction, is kept retired."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from total_recall.observing import retraction
from total_recall.observing.observation import (
    Draft,
    ObservationRejected,
    ObserveReport,
    iso,
    normalized,
    parse_time,
)
from total_recall.observing.phrasing import subject
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record

Kept = Literal["added", "reinforced", "duplicate", "retired"]


def keep(record: Record, verifier: Verifier, draft: Draft, now: datetime) -> tuple[Kept, int]:
    """Store `draft` in the caller's transaction; returns what happened and the observation's id.

    Raises:
        ObservationRejected: the verifier refused it (nothing is written).
    """
    checked = verifier.check(draft)
    times = [t for c in checked if (t := parse_time(c.ts)) is not None]
    seen = iso(max(times)) if times else iso(now)
    at = iso(now)
    digest = record.text_hash(normalized(draft.text))
    sources = [(c.entry, c.quote) for c in checked]
    existing = table.by_hash(record, digest)
    if existing is None:
        fields = {"text": draft.text.strip(), "priority": draft.priority, "type": draft.type,
                  "confidence": float(draft.confidence), "source_type": draft.source_type,
                  "importance": draft.weight(), "subject": subject(draft.text), "origin": draft.origin,
                  "hooks": [], "created": at, "updated": at, "seen": seen, "decayed": seen}
        obs = table.add(record, fields, digest, sources)
        return ("retired" if retraction.retire_if_taken_back(record, obs, now) else "added"), obs
    old = table.read(record, [existing])[0]
    if old.retired:
        cited = {c.entry for c in old.sources}
        if not retraction.later_than_retired(record, old, [e for e, _ in sources if e not in cited]):
            table.cite(record, existing, sources)
            return "retired", existing
        table.unretire(record, existing, at)  # the owner said it again after taking it back
    if not table.cite(record, existing, sources):
        return "duplicate", existing
    newest = max(seen, old.seen)
    changes: dict[str, object] = {"updated": at, "seen": newest}
    if newest > old.seen:
        # Seen again: it counts from now, with the importance it started with.
        changes.update(decayed=newest, importance=max(old.importance, draft.weight()),
                       confidence=max(old.confidence, float(draft.confidence)))
        if old.archived_at is not None and old.superseded_by is None:
            changes["archived_at"] = None
    table.update(record, existing, **changes)
    return "reinforced", existing


def keep_counted(record: Record, verifier: Verifier, draft: Draft, now: datetime,
                 report: ObserveReport) -> tuple[Kept, int] | None:
    """`keep` one draft, counting what became of it in `report` (a refusal names why, never stops the run);
    returns what happened and the observation's id (None: refused)."""
    try:
        kept, obs = keep(record, verifier, draft, now)
    except ObservationRejected as exc:
        report.refused.append(str(exc))
        return None
    if kept == "added":
        report.added += 1
    elif kept == "reinforced":
        report.reinforced += 1
    elif kept == "retired":
        report.skip("taken back by the owner")
    else:
        report.skip("duplicates")
    return kept, obs
