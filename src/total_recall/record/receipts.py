"""The receipts table: one row per compaction decision (`keeping/receipts.py` decides what a receipt may
say), append-only but for erasing a note, which leaves a tombstone."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal, cast

from total_recall.errors import ReceiptError
from total_recall.record.database import TOMBSTONE, Record, now

Decision = Literal["compacted", "kept"]
Knowledge = Literal["known input", "sent, unconfirmed"]


@dataclass(frozen=True, slots=True)
class Receipt:
    """What one compaction decision was; `source` is the address of the harness's own compaction entry."""

    controller: str
    trigger: str
    decision: Decision
    knowledge: Knowledge
    session: int | None
    range: str | None
    tokens_before: int | None
    tokens_after: int | None
    marker_id: int | None
    source: str | None
    note: str | None
    id: int | None = None
    created: str | None = None


def add(record: Record, receipt: Receipt) -> int:
    """Append a receipt in a transaction of its own; returns its id.

    Raises:
        ReceiptError: the record refused it (no such session or marker).
    """
    record.begin()
    try:
        cur = record.db.execute(
            "INSERT INTO receipts(controller, trigger, decision, knowledge, session, range, tokens_before, "
            "tokens_after, marker, source, note, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (receipt.controller, receipt.trigger, receipt.decision, receipt.knowledge, receipt.session,
             receipt.range, receipt.tokens_before, receipt.tokens_after, receipt.marker_id, receipt.source,
             receipt.note, receipt.created or now()),
        )
        record.commit()
    except sqlite3.IntegrityError as exc:
        record.rollback()
        raise ReceiptError(
            f"receipt refused by the record: {exc} (does the session or marker exist?)"
        ) from exc
    except BaseException:
        record.rollback()
        raise
    return int(cur.lastrowid or 0)


def by_id(record: Record, receipt_id: int) -> Receipt | None:
    row = record.db.execute("SELECT * FROM receipts WHERE id = ?", (receipt_id,)).fetchone()
    return None if row is None else _receipt(row)


def listed(record: Record, session: int | None = None) -> list[Receipt]:
    """Every receipt (or one session's), oldest first."""
    sql = "SELECT * FROM receipts"
    params: tuple[int, ...] = ()
    if session is not None:
        sql += " WHERE session = ?"
        params = (session,)
    return [_receipt(r) for r in record.db.execute(sql + " ORDER BY id", params)]


def erase_note(record: Record, receipt_id: int, at: str, reason: str) -> None:
    """Replace the receipt's note with a tombstone (freed pages zeroed, the WAL truncated after); one
    without a note, or already erased, is left as it is."""
    with record.secure_delete():
        record.begin()
        try:
            row = record.db.execute(
                "SELECT r.note, x.at FROM receipts r LEFT JOIN receipt_erasures x ON x.receipt = r.id "
                "WHERE r.id = ?", (receipt_id,)).fetchone()
            if row["note"] is not None and row["at"] is None:
                record.db.execute("INSERT INTO receipt_erasures(receipt, at, reason) VALUES (?, ?, ?)",
                                 (receipt_id, at, reason))
                record.db.execute("UPDATE receipts SET note = ? WHERE id = ?",
                                 (TOMBSTONE.format(at=at, reason=reason), receipt_id))
            record.commit()
        except BaseException:
            record.rollback()
            raise
    record.checkpoint()


def _receipt(r: sqlite3.Row) -> Receipt:
    return Receipt(
        controller=r["controller"],
        trigger=r["trigger"],
        decision=cast(Decision, r["decision"]),
        knowledge=cast(Knowledge, r["knowledge"]),
        session=r["session"],
        range=r["range"],
        tokens_before=r["tokens_before"],
        tokens_after=r["tokens_after"],
        marker_id=r["marker"],
        source=r["source"],
        note=r["note"],
        id=r["id"],
        created=r["created"],
    )
