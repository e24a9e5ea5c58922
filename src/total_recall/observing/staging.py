"""Staged promotions: themes the owner keeps coming back to, proposed for him to approve or reject.

A theme is a group of related current observations (most stems shared), or one observation seen again
and again (its content hash gathers every sighting's source). One seen 3+ times (distinct entries cited)
on 3+ separate days (the entries' own times) is proposed once: approved, its newest observation becomes a
standing one — priority high; a preference or habit becomes a rule — citing every entry of the theme, and
the others name it (`superseded_by`). Context is never proposed, and nothing is promoted without the
owner's approval. Erasing an entry a proposal cites withdraws the proposal (the m019 trigger).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from total_recall.observing.observation import ObservingError, iso, utc_now, written
from total_recall.observing.phrasing import related_groups, shared
from total_recall.observing.verifier import Verifier
from total_recall.record import observations as table
from total_recall.record.database import Record
from total_recall.record.observations import Observation, Proposal

LEAST_OCCURRENCES = 3
LEAST_DAYS = 3


@dataclass(frozen=True, slots=True)
class Shown:
    """A proposal with the observations it gathers (those still held)."""

    proposal: Proposal
    observations: list[Observation]


def themes(record: Record, rows: list[Observation]) -> list[tuple[str, list[int]]]:
    """The themes seen often enough that no proposal names yet: (theme, observation ids)."""
    pool = [o for o in rows if o.current and o.type != "context"]
    grouped: list[list[Observation]] = [[pool[i] for i in g] for g in
                                        related_groups([o.subject for o in pool], least=0.5, shared_stems=3)]
    inside = {o.id for g in grouped for o in g}
    grouped += [[o] for o in pool if o.id not in inside]
    staged = {p.theme for p in table.proposals(record)}
    out: list[tuple[str, list[int]]] = []
    for members in grouped:
        if all(o.type == "rule" and o.priority == "high" for o in members):
            continue  # standing already
        entries = {c.entry for o in members for c in o.sources}
        days = {c.ts[:10] for o in members for c in o.sources if c.ts}
        if len(entries) < LEAST_OCCURRENCES or len(days) < LEAST_DAYS:
            continue
        theme = " ".join(shared(o.subject for o in members)) or members[0].subject
        if theme and theme not in staged:
            staged.add(theme)
            out.append((theme, sorted(o.id for o in members)))
    return out


def proposals(record: Record, status: str | None = "proposed") -> list[Proposal]:
    """Staged proposals (by status; None: all), oldest first."""
    return table.proposals(record, status)


def show(record: Record, proposal: int) -> Shown:
    """Raises: ObservingError when there is no such proposal."""
    p = _proposal(record, proposal)
    return Shown(p, table.read(record, list(p.members)))


def approve(record: Record, proposal: int, *, clock: Callable[[], datetime] = utc_now) -> Observation:
    """Promote a proposed theme (see the module's docstring); returns the standing observation.

    Raises:
        ObservingError: no such proposal, it was decided already, or its observations are gone.
        ObservationRejected: what it would cite no longer verifies against the record.
    """
    with written(record):
        # Read under the write: an erase between a read and the write would withdraw the keeper.
        p = _proposal(record, proposal)
        if p.status != "proposed":
            raise ObservingError(f"proposal {proposal} is {p.status}, not proposed")
        members = [o for o in table.read(record, list(p.members)) if o.superseded_by is None]
        if not members:
            raise ObservingError(f"proposal {proposal}: none of its observations is held any more")
        at = iso(clock())
        keeper = max(members, key=lambda o: (o.seen, o.id))
        table.cite(record, keeper.id, [(c.entry, c.quote) for o in members for c in o.sources])
        table.update(record, keeper.id, type=p.type, priority="high", importance=max(9.0, keeper.importance),
                     archived_at=None, updated=at, decayed=at)
        for o in members:
            if o.id != keeper.id:
                table.update(record, o.id, superseded_by=keeper.id, updated=at)
        promoted = table.read(record, [keeper.id])[0]
        Verifier(record).recheck(promoted)
        table.decide(record, proposal, "approved", at, keeper.id)
    return promoted


def reject(record: Record, proposal: int, *, clock: Callable[[], datetime] = utc_now) -> Proposal:
    """Raises: ObservingError when there is no such proposal or it was decided already."""
    p = _proposal(record, proposal)
    if p.status != "proposed":
        raise ObservingError(f"proposal {proposal} is {p.status}, not proposed")
    with written(record):
        table.decide(record, proposal, "rejected", iso(clock()), None)
    return _proposal(record, proposal)


def _proposal(record: Record, proposal: int) -> Proposal:
    for p in table.proposals(record, None):
        if p.id == proposal:
            return p
    raise ObservingError(f"no proposal {proposal} (list them with their ids first)")
