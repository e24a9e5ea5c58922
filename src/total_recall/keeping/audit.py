"""The alarm: compactions a harness recorded in its own store that no receipt accounts for.

Seed 000: "Every compaction writes one receipt, whoever ran it … A missing receipt is the alarm."

A harness compaction is an entry of kind `compaction` in the record: Claude Code's `compact_boundary`,
Codex's `compacted` record, OpenCode's compaction part, pi/OpenClaw's `compaction` entry, Vibe's
compaction child session. (The harness's summary that follows, kind `summary`, belongs to it and is not
counted again; Claude Code's legacy `summary` title lines are not compactions.) Codex writes one
compaction more than once — the `compacted` record, a `context_compacted` event, sometimes a
`compaction` response item — so an announcement is folded into the nearest `compacted` record of its
session when no owner message lies between them.

A compaction is accounted for by a receipt when
- the receipt's `source` is the compaction entry (or one of its announcements): a receipt written from
  the record, e.g. `codex.receipt_compactions`;
- or a hook receipt of the same harness and session (no `source`, trigger `manual`/`auto`, written by a
  PreCompact hook before the harness wrote its compaction) pairs with it: hook receipts and compactions
  pair in order, each receipt with the first compaction not yet paired that lies after the range it
  marked and, when both times are known, was written no earlier than a minute before the receipt;
- or the range of one of our own compaction receipts (`runtime`, `cli`) covers the entry.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from total_recall.keeping.receipts import Receipt, list_receipts
from total_recall.model import Address
from total_recall.record import queries
from total_recall.record.database import Record

HOOK_TRIGGERS = ("manual", "auto")
OWN_CONTROLLERS = ("runtime", "cli")
CODEX_RECORD = "compacted"
PAIRING_SLACK = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class HarnessCompaction:
    """One compaction a harness wrote: its entry's address and its other announcements (Codex)."""

    address: str
    harness: str
    session: int
    seq: int
    timestamp: str | None
    echoes: tuple[str, ...] = ()

    @property
    def addresses(self) -> tuple[str, ...]:
        return (self.address, *self.echoes)


def harness_compactions(record: Record, session: int | None = None) -> list[HarnessCompaction]:
    """Every compaction the harnesses recorded, in record order (one session when given)."""
    per_session: dict[int, list[tuple[int, str, str | None, str]]] = defaultdict(list)
    for c in queries.compactions(record, session):
        per_session[c.session].append((c.seq, c.text, c.timestamp, c.harness))
    out: list[HarnessCompaction] = []
    for number, rows in per_session.items():
        harness = rows[0][3]
        if harness == "codex":
            out.extend(_codex_events(record, number, rows))
        else:
            out.extend(HarnessCompaction(f"s{number}#{seq}", harness, number, seq, ts)
                       for seq, _, ts, _ in rows)
    return out


def unreceipted(record: Record, session: int | None = None) -> list[HarnessCompaction]:
    """The harness compactions no receipt accounts for (see the module docstring)."""
    events = harness_compactions(record, session)
    if not events:
        return []
    receipts = list_receipts(record, session)
    return [e for e, covered in zip(events, accounted(events, receipts), strict=True) if not covered]


def accounted(events: Sequence[HarnessCompaction], receipts: Sequence[Receipt]) -> list[bool]:
    """For each compaction, whether a receipt accounts for it."""
    sources = {r.source for r in receipts if r.source}
    ours = [Address.parse(r.range) for r in receipts
            if r.controller in OWN_CONTROLLERS and r.range and r.decision == "compacted"]
    hooks: dict[tuple[str, int], list[Receipt]] = defaultdict(list)
    for r in sorted(receipts, key=lambda r: r.id or 0):
        if (r.source is None and r.session is not None and r.trigger in HOOK_TRIGGERS
                and r.controller not in OWN_CONTROLLERS and r.decision == "compacted"):
            hooks[(r.controller, r.session)].append(r)
    result: list[bool] = []
    for e in events:
        if any(a in sources for a in e.addresses) or any(_covers(span, e) for span in ours):
            result.append(True)
            continue
        waiting = hooks.get((e.harness, e.session), [])
        match = next((r for r in waiting if _before(r, e)), None)
        if match is not None:
            waiting.remove(match)
        result.append(match is not None)
    return result


def _codex_events(record: Record, session: int,
                  rows: list[tuple[int, str, str | None, str]]) -> list[HarnessCompaction]:
    records = [r for r in rows if r[1].startswith(CODEX_RECORD)]
    others = [r for r in rows if not r[1].startswith(CODEX_RECORD)]
    owners = queries.owner_seqs(record, session)
    echoes: dict[int, list[str]] = defaultdict(list)
    alone: list[tuple[int, str, str | None, str]] = []
    for seq, text, ts, harness in others:
        near = [rec for rec in records
                if not any(min(seq, rec[0]) < o < max(seq, rec[0]) for o in owners)]
        if near:
            nearest = min(near, key=lambda rec: abs(rec[0] - seq))
            echoes[nearest[0]].append(f"s{session}#{seq}")
        else:
            alone.append((seq, text, ts, harness))
    events = [HarnessCompaction(f"s{session}#{seq}", "codex", session, seq, ts, tuple(echoes[seq]))
              for seq, _, ts, _ in records]
    events += [HarnessCompaction(f"s{session}#{seq}", "codex", session, seq, ts) for seq, _, ts, _ in alone]
    return sorted(events, key=lambda e: e.seq)


def _covers(span: Address, event: HarnessCompaction) -> bool:
    if span.session != event.session:
        return False
    lo, hi = span.first or 1, span.last if span.last is not None else event.seq
    return lo <= event.seq <= hi


def _before(receipt: Receipt, event: HarnessCompaction) -> bool:
    """A hook receipt pairs only with a compaction written after the range it marked and, when both
    times are known, not before the receipt (a minute of slack for clocks and write lag)."""
    if receipt.range is not None:
        span = Address.parse(receipt.range)
        if (span.last or span.first or 0) >= event.seq:
            return False
    made, seen = _time(receipt.created), _time(event.timestamp)
    return made is None or seen is None or made <= seen + PAIRING_SLACK


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)
