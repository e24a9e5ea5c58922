"""Compactions asked for by name, and the account of every compaction — one core call for each surface.

`compact` (`total-recall compact`, the MCP `compact` tool): the range, the marker built from the record
and verified, stored with its receipt. `account` (`total-recall receipts`, the MCP `receipts` tool): the
receipts, and the compactions seen in harness stores that no receipt accounts for.
"""

from __future__ import annotations

from dataclasses import dataclass

from total_recall.errors import MarkerError
from total_recall.keeping.audit import HarnessCompaction, unreceipted
from total_recall.keeping.codex import receipt_compactions
from total_recall.keeping.marker import Marker, build_marker, range_tokens, save_marker
from total_recall.keeping.receipts import Receipt, list_receipts, write_receipt
from total_recall.keeping.tail import DEFAULT_KEEP_EXCHANGES, evictable_range
from total_recall.model import Address
from total_recall.record.store import Store


@dataclass(frozen=True, slots=True)
class Compaction:
    """What a compaction left: the stored marker (its id) and the receipt that accounts for it."""

    marker_id: int
    marker: Marker
    receipt_id: int


def compact(
    store: Store,
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
    store.session(session)  # an unknown session is an error naming it
    if span is not None and span.session != session:
        raise MarkerError(f"the range {span} is not inside s{session} (it names s{span.session})")
    if span is None:
        span = evictable_range(store, session, keep_exchanges)
        if span is None:
            raise MarkerError(f"nothing to compact in s{session}: it holds no more than its last "
                              f"{keep_exchanges} exchanges (give a range, or keep fewer exchanges)")
    marker = build_marker(store, span, budget, bo)
    marker_id = save_marker(store, marker)
    receipt_id = write_receipt(store, Receipt(
        controller=controller, trigger="manual", decision="compacted", knowledge="known input",
        session=session, range=marker.range, tokens_before=range_tokens(store, Address.parse(marker.range)),
        tokens_after=marker.tokens, marker_id=marker_id, source=None, note=None))
    return Compaction(marker_id, marker, receipt_id)


@dataclass(frozen=True, slots=True)
class Account:
    """Every receipt (newest last) and the harness compactions no receipt accounts for."""

    receipts: list[Receipt]
    unreceipted: list[HarnessCompaction]


def account(store: Store, session: int | None = None, harness: str | None = None) -> Account:
    """The receipts, after writing those of Codex compactions in the record that have none (Codex versions
    without hooks give no other moment to get one; idempotent), and the compactions still without one;
    with `harness`, only those of that harness's sessions.

    Raises:
        AddressError: `session` names no session.
    """
    if session is not None:
        store.session(session)
    receipt_compactions(store, session)
    receipts, missing = list_receipts(store, session), unreceipted(store, session)
    if harness is not None:
        ours = {s.number for s in store.sessions([harness])}
        receipts = [r for r in receipts if r.session in ours]
        missing = [c for c in missing if c.session in ours]
    return Account(receipts, missing)
