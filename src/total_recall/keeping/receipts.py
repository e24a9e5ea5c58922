"""Receipts: one per compaction and one per decision not to compact, whoever held the pen.

A receipt says what the memory layer can know about it: "known input" when this package built the call
that the model read, "sent, unconfirmed" when a harness or a provider compacted on its own side. A
compaction seen in a harness store with no receipt is the alarm, so receipts are an append-only log. A
receipt's note may hold words a caller wrote (a manual `/compact`'s instructions): the one edit allowed is
erasing that note (`erase_note`), which leaves a tombstone and the rest of the receipt as it was.
"""

from __future__ import annotations

from typing import get_args

from total_recall.errors import ReceiptError
from total_recall.record import receipts
from total_recall.record.database import Record, now
from total_recall.record.receipts import Decision, Knowledge, Receipt

__all__ = [
    "CONTROLLERS", "TRIGGERS", "Decision", "Knowledge", "Receipt", "erase_note", "list_receipts",
    "receipt_by_id", "write_receipt",
]

CONTROLLERS = ("runtime", "claude-code", "codex", "provider-api", "cli", "mcp")
TRIGGERS = ("forced", "elective", "manual", "auto", "harness")


def write_receipt(record: Record, receipt: Receipt) -> int:
    """Append a receipt; returns its id.

    Raises:
        ReceiptError: a field is outside its allowed values (the message names it).
    """
    _check(receipt)
    return receipts.add(record, receipt)


def erase_note(record: Record, receipt_id: int, reason: str) -> Receipt:
    """Replace a receipt's note with a tombstone (freed pages zeroed, the WAL truncated, as for an entry's
    erase); a receipt without a note, or one already erased, is left as it is. Returns the receipt.

    Raises:
        ReceiptError: there is no such receipt, or no reason was given.
    """
    if not reason.strip():
        raise ReceiptError("an erase needs a reason (kept with the tombstone)")
    receipt_by_id(record, receipt_id)  # it must be there
    receipts.erase_note(record, receipt_id, now(), reason)
    return receipt_by_id(record, receipt_id)


def receipt_by_id(record: Record, receipt_id: int) -> Receipt:
    """One receipt by its id.

    Raises:
        ReceiptError: there is no such receipt.
    """
    found = receipts.by_id(record, receipt_id)
    if found is None:
        raise ReceiptError(f"receipt:{receipt_id}: no such receipt")
    return found


def list_receipts(record: Record, session: int | None = None) -> list[Receipt]:
    """Every receipt (or one session's), oldest first: the newest is last."""
    return receipts.listed(record, session)


def _check(r: Receipt) -> None:
    if r.controller not in CONTROLLERS:
        raise ReceiptError(f"receipt controller {r.controller!r} is not one of {', '.join(CONTROLLERS)}")
    if r.trigger not in TRIGGERS:
        raise ReceiptError(f"receipt trigger {r.trigger!r} is not one of {', '.join(TRIGGERS)}")
    if r.decision not in get_args(Decision):
        raise ReceiptError(f"receipt decision {r.decision!r} is not 'compacted' or 'kept'")
    if r.knowledge not in get_args(Knowledge):
        raise ReceiptError(f"receipt knowledge {r.knowledge!r} is not 'known input' or 'sent, unconfirmed'")
    for name in ("tokens_before", "tokens_after"):
        value = getattr(r, name)
        if value is not None and value < 0:
            raise ReceiptError(f"receipt {name} is negative ({value})")
