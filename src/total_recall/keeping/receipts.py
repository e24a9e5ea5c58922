"""Receipts: one per compaction and one per decision not to compact, whoever held the pen.

A receipt says what the memory layer can know about it: "known input" when this package built the call
that the model read, "sent, unconfirmed" when a harness or a provider compacted on its own side. A
compaction seen in a harness store with no receipt is the alarm, so receipts are an append-only log. A
receipt's note may hold words a caller wrote (a manual `/compact`'s instructions): the one edit allowed is
erasing that note (`erase_note`), which leaves a tombstone and the rest of the receipt as it was.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal, cast, get_args

from total_recall.errors import ReceiptError
from total_recall.record.store import TOMBSTONE, Store, now

Decision = Literal["compacted", "kept"]
Knowledge = Literal["known input", "sent, unconfirmed"]
CONTROLLERS = ("runtime", "claude-code", "codex", "provider-api", "cli", "mcp")
TRIGGERS = ("forced", "elective", "manual", "auto", "harness")


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


def write_receipt(store: Store, receipt: Receipt) -> int:
    """Append a receipt; returns its id.

    Raises:
        ReceiptError: a field is outside its allowed values (the message names it).
    """
    _check(receipt)
    store.begin()
    try:
        cur = store.db.execute(
            "INSERT INTO receipts(controller, trigger, decision, knowledge, session, range, tokens_before, "
            "tokens_after, marker, source, note, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (receipt.controller, receipt.trigger, receipt.decision, receipt.knowledge, receipt.session,
             receipt.range, receipt.tokens_before, receipt.tokens_after, receipt.marker_id, receipt.source,
             receipt.note, receipt.created or now()),
        )
        store.commit()
    except sqlite3.IntegrityError as exc:
        store.rollback()
        raise ReceiptError(
            f"receipt refused by the record: {exc} (does the session or marker exist?)"
        ) from exc
    except BaseException:
        store.rollback()
        raise
    return int(cur.lastrowid or 0)


def erase_note(store: Store, receipt_id: int, reason: str) -> Receipt:
    """Replace a receipt's note with a tombstone (freed pages zeroed, the WAL truncated, as for an entry's
    erase); a receipt without a note, or one already erased, is left as it is. Returns the receipt.

    Raises:
        ReceiptError: there is no such receipt, or no reason was given.
    """
    if not reason.strip():
        raise ReceiptError("an erase needs a reason (kept with the tombstone)")
    if store.db.execute("SELECT 1 FROM receipts WHERE id = ?", (receipt_id,)).fetchone() is None:
        raise ReceiptError(f"receipt:{receipt_id}: no such receipt")
    at = now()
    with store.secure_delete():
        store.begin()
        try:
            row = store.db.execute(
                "SELECT r.note, x.at FROM receipts r LEFT JOIN receipt_erasures x ON x.receipt = r.id "
                "WHERE r.id = ?", (receipt_id,)).fetchone()
            if row["note"] is not None and row["at"] is None:
                store.db.execute("INSERT INTO receipt_erasures(receipt, at, reason) VALUES (?, ?, ?)",
                                 (receipt_id, at, reason))
                store.db.execute("UPDATE receipts SET note = ? WHERE id = ?",
                                 (TOMBSTONE.format(at=at, reason=reason), receipt_id))
            store.commit()
        except BaseException:
            store.rollback()
            raise
    store.checkpoint()
    return receipt_by_id(store, receipt_id)


def receipt_by_id(store: Store, receipt_id: int) -> Receipt:
    """One receipt by its id.

    Raises:
        ReceiptError: there is no such receipt.
    """
    row = store.db.execute("SELECT * FROM receipts WHERE id = ?", (receipt_id,)).fetchone()
    if row is None:
        raise ReceiptError(f"receipt:{receipt_id}: no such receipt")
    return _receipt(row)


def list_receipts(store: Store, session: int | None = None) -> list[Receipt]:
    """Every receipt (or one session's), oldest first: the newest is last."""
    sql = "SELECT * FROM receipts"
    params: tuple[int, ...] = ()
    if session is not None:
        sql += " WHERE session = ?"
        params = (session,)
    return [_receipt(r) for r in store.db.execute(sql + " ORDER BY id", params)]


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
