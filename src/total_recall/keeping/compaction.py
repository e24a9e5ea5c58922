"""Compactions asked for by name, and the account of every compaction — one core call for each surface.

`compact` (`total-recall compact`, the MCP `compact` tool): the range, the marker built from the record
and verified, stored with its receipt. `account` (`total-recall receipts`, the MCP `receipts` tool): the
receipts, and the compactions seen in harness stores that no receipt accounts for — a listing, which
never writes. `receipt_compactions` writes the receipts of Codex compactions the record holds and no
receipt accounts for; every sync a surface runs calls it (`total_recall.syncing`).
"""

from __future__ import annotations

from dataclasses import dataclass

from total_recall.errors import MarkerError
from total_recall.keeping.audit import HarnessCompaction, unreceipted
from total_recall.keeping.controllers import CODEX, CompactionEvent
from total_recall.keeping.marker import Marker, build_marker, range_tokens, save_marker
from total_recall.keeping.receipts import Receipt, list_receipts, write_receipt
from total_recall.keeping.tail import DEFAULT_KEEP_EXCHANGES, evictable_range
from total_recall.model import Address
from total_recall.record.database import Record


@dataclass(frozen=True, slots=True)
class Compaction:
    """What a compaction left: the stored marker (its id) and the receipt that accounts for it."""

    marker_id: int
    marker: Marker
    receipt_id: int


def compact(
    record: Record,
    session: int,
    *,
    budget: int,
    span: Address | None = None,
    bo: int | None = None,
    keep_exchanges: int = DEFAULT_KEEP_EXCHANGES,
    controller: str = "cli",
) -> Compaction:
    """Compact `span` of `session` (default: everything before the verbatim tail of the last
    `keep_exchanges` whole exchanges) into a verified marker within `budget` tokens, store it, and write
    the receipt (trigger `manual`, knowledge `known input`: the caller asked for exactly this).

    Raises:
        AddressError: no such session, or a range that names nothing.
        MarkerError: the range is not inside `session`, there is nothing to compact, or the budget is too
            small (the message says what would fit).
        MarkerRejected: the marker failed verification (never stored).
    """
    record.session(session)  # an unknown session is an error naming it
    if span is not None and span.session != session:
        raise MarkerError(f"the range {span} is not inside s{session} (it names s{span.session})")
    if span is not None:
        record.span(span, whole=True)  # a range running past the session's end is refused, naming its end
    else:
        span = evictable_range(record, session, keep_exchanges)
        if span is None:
            raise MarkerError(f"nothing to compact in s{session}: it holds no more than its last "
                              f"{keep_exchanges} exchanges (give a range, or keep fewer exchanges)")
    marker = build_marker(record, span, budget, bo)
    marker_id = save_marker(record, marker)
    receipt_id = write_receipt(record, Receipt(
        controller=controller, trigger="manual", decision="compacted", knowledge="known input",
        session=session, range=marker.range, tokens_before=range_tokens(record, Address.parse(marker.range)),
        tokens_after=marker.tokens, marker_id=marker_id, source=None, note=None))
    return Compaction(marker_id, marker, receipt_id)


@dataclass(frozen=True, slots=True)
class Account:
    """Every receipt (newest last) and the harness compactions no receipt accounts for."""

    receipts: list[Receipt]
    unreceipted: list[HarnessCompaction]


def account(record: Record, session: int | None = None, harness: str | None = None) -> Account:
    """The receipts and the compactions without one; with `harness`, only those of that harness's
    sessions. Reads only: the receipts of Codex compactions are written at sync (`receipt_compactions`).

    Raises:
        AddressError: `session` names no session.
    """
    if session is not None:
        record.session(session)
    receipts, missing = list_receipts(record, session), unreceipted(record, session)
    if harness is not None:
        ours = {s.number for s in record.sessions([harness])}
        receipts = [r for r in receipts if r.session in ours]
        missing = [c for c in missing if c.session in ours]
    return Account(receipts, missing)


def receipt_compactions(record: Record, session: int | None = None, after: int = 0) -> list[Receipt]:
    """A receipt for every Codex compaction in the record (in `session`, or in the sessions holding one
    recorded after entry id `after`) that no receipt accounts for: controller `codex`, trigger `harness`,
    knowledge `sent, unconfirmed`, `source` the compaction entry's address. Codex versions without hooks
    give no other moment to get one, and a hook may fail. Writes nothing twice: a second run finds them
    accounted for. Returns the receipts written."""
    sessions = [session] if session is not None else record.sessions_with_compactions("codex", after)
    written = []
    for number in sessions:
        for c in unreceipted(record, number):
            if c.harness != "codex":
                continue
            also = f"; also announced at {', '.join(c.echoes)}" if c.echoes else ""
            written.append(CODEX.on_compaction(record, CompactionEvent(
                c.session, "harness", source=c.address,
                note=f"Codex compaction seen in the record at {c.timestamp or 'an unknown time'}{also}")))
    return written
