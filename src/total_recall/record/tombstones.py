"""Entries that are tombstones: the erase of an entry (`erase`, the one change the record's append-only
triggers let through: its text replaced by a tombstone, the erasure logged first) and the entries a sync
records already erased (`append`, their text erased in an earlier generation of the source).

Either way the record keeps a keyed hash of the text, never the text (`erased_texts`), so a later read knows
the same words again (see `copies.erased_marks`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from total_recall.errors import AppendOnlyError, RecordError
from total_recall.model import Address
from total_recall.record import copies
from total_recall.record.database import TOMBSTONE, Record, now
from total_recall.record.lines import unpack


def erase(record: Record, address: Address, reason: str, texts: list[str] | None = None) -> list[str]:
    """Replace the text of every entry at `address` with a tombstone and drop its raw record and spans;
    `texts`, when given, gets the erased texts (read under the write lock: what the erase took, copies
    included, for the files outside the record that may hold them).

    The erasure keeps a keyed hash of the text (never the text), so a later generation of the source
    records the same text erased (see `copies.erased_marks`). The word-index shards that held it are
    merged and freed pages zeroed (`secure_delete`), and the WAL is checkpointed and truncated after
    the commit: no page of the record, and no frame of its WAL, keeps the words.

    Raises:
        AddressError: the address names nothing.
        RecordError: no reason was given.
    """
    if not reason.strip():
        raise RecordError("an erase needs a reason (kept with the tombstone)")
    record.entry_ids(address)  # an address naming nothing is refused before anything starts
    erased = []
    with record.secure_delete():
        record.begin()
        try:
            from total_recall.indexes import words

            # Read and timed under the write lock: a summary block stored while this erase waited
            # for it is older than the erase, so the erase blanks it (`created <= at`).
            ids = record.entry_ids(address)
            at = now()

            named = [entry_id for entry_id, _, erased_at in ids if erased_at is None]
            shards: set[str] = set()
            for entry_id, session, seq in [*_rows_of(record, named), *copies.copies(record, named)]:
                shards.add(_erase_entry(record, entry_id, at, reason, texts))
                erased.append(f"s{session}#{seq}")
            # A session left with no entry not erased (the address named it whole, or its last ones):
            # what names it goes too, though it came from a sidecar (a sub-agent's description, Vibe's
            # meta.json) and not from an entry.
            for session in sorted({int(a[1:].split("#")[0]) for a in erased}):
                if not record.db.execute("SELECT 1 FROM entries WHERE session = ? AND erased_at IS NULL "
                                         "LIMIT 1", (session,)).fetchone():
                    record.forget_names(session, None)
            words.purge(record.db, shards)
            record.commit()
        except sqlite3.IntegrityError as exc:
            record.rollback()
            raise AppendOnlyError(str(exc)) from exc
        except BaseException:
            record.rollback()
            raise
    if erased:
        record.checkpoint()
    return erased


def append(
    record: Record, rows: Sequence[tuple[Any, ...]], hashes: Sequence[tuple[bytes, bytes]], generation: int
) -> None:
    """Append entries recorded already erased (their text erased in an earlier generation of the
    source): rows as `Record.append_entries` takes them, with the tombstone for text, no source record,
    and the erasure's time and reason added; `hashes` the keyed hashes of each one's text and source
    record. Nothing of them goes into any index."""
    record.db.executemany(
        "INSERT INTO entries(id, session, seq, author, kind, text, ts, key, source, line, row, "
        "native_id, native_parent, grp, tool, sidechain, raw_id, erased_at, erased_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    record.db.executemany(
        "INSERT INTO erasures(entry, at, reason) VALUES (?, ?, ?)", [(r[0], r[17], r[18]) for r in rows]
    )
    record.db.executemany(
        "INSERT INTO erased_texts(entry, source, generation, hash, line_hash) VALUES (?, ?, ?, ?, ?)",
        [(r[0], r[8], generation, text, line) for r, (text, line) in zip(rows, hashes, strict=True)],
    )


def _rows_of(record: Record, ids: Sequence[int]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of each of `ids`, in their order."""
    return [(i, *record.db.execute("SELECT session, seq FROM entries WHERE id = ?", (i,)).fetchone())
            for i in ids]


def _erase_entry(record: Record, entry_id: int, at: str, reason: str, texts: list[str] | None) -> str:
    """Erase one entry in the caller's transaction (its text added to `texts`); returns the word-index
    shard that held it."""
    row = record.db.execute(
        "SELECT e.text, e.kind, e.key, e.source, e.session, e.seq, s.generation, s.title FROM entries e "
        "JOIN sessions s ON s.id = e.session WHERE e.id = ?", (entry_id,)
    ).fetchone()
    text: str = row["text"]
    if texts is not None:
        texts.append(text)
    line = record.db.execute(
        "SELECT r.raw FROM raws r JOIN entries e ON e.raw_id = r.id WHERE e.id = ?", (entry_id,)
    ).fetchone()
    # The source record too: a later reader may cut other text from the same line (an unwrapped tool
    # output, a fixed parse), and the line must still be known as holding erased words.
    line_hash = None if line is None else record.keyed_hash(unpack(line[0]))
    record.db.execute("INSERT INTO erasures(entry, at, reason) VALUES (?, ?, ?)", (entry_id, at, reason))
    record.db.execute(
        "INSERT INTO erased_texts(entry, source, generation, hash, line_hash, quote_hash) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (entry_id, row["source"], row["generation"], record.text_hash(text), line_hash,
         record.text_hash(copies.quoted_by(text, row["kind"]))),
    )
    from total_recall import indexes

    shard = indexes.on_erase(record.db, entry_id)  # before the text goes: the index needs it to forget it
    record.db.execute(
        "UPDATE entries SET text = ?, erased_at = ?, erased_reason = ?, key = ? WHERE id = ?",
        (TOMBSTONE.format(at=at, reason=reason), at, reason, record.erased_key(row["key"]), entry_id),
    )
    # The source line holds the erased words too; siblings cut from it lose it as well.
    record.db.execute(
        "DELETE FROM raws WHERE id = (SELECT raw_id FROM entries WHERE id = ?)", (entry_id,)
    )
    record.db.execute("DELETE FROM spans WHERE entry = ?", (entry_id,))
    # A title taken from the erased words (a harness's summary, a first message cut short) goes too,
    # and so does a sub-agent's, given by the erased call that started it.
    record.forget_names(row["session"], text)
    # Summary blocks over it may quote it, and so may every later one (their prompts carried the earlier
    # blocks): read back they are withheld, and their text is blanked.
    record.db.execute(
        "UPDATE summary_blocks SET text = '' WHERE session = ? AND last_seq >= ? "
        "AND text <> '' AND created <= ?",
        (row["session"], row["seq"], at),
    )
    return shard
