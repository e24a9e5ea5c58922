"""Erase: the one way every surface takes text out of everything Total Recall keeps.

A target is an entry address (`s3#12`, a range, a session; the session may be named by its own id or a
unique prefix of it, `ef958aa1#12`), a recall cue (`cue:N`) or a receipt's note
(`receipt:N`): text a harness wrote, or a caller. Each becomes a tombstone in the record (its indexes,
markers and summaries follow in the same transaction, see `Record.erase`, `erase_cue`, `erase_note`),
then every overflow file of a capped reply that held the text (or a name taken from it) is deleted, and so
is every copy of a store a killed sync left under the home (`snapshots/`), and
an entry's erase rewrites every `observations.md` the record's exports wrote, so the observations it
withdrew leave those copies too. The text is read before the erase: afterwards the record holds only the
tombstones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from total_recall.errors import AddressError
from total_recall.keeping.cues import cue_by_id, erase_cue
from total_recall.keeping.receipts import erase_note, receipt_by_id
from total_recall.mining.flood import purge
from total_recall.model import echoed
from total_recall.observing.export import refresh_exports
from total_recall.record.database import Record
from total_recall.record.sessions import resolve_address

# Ids are SQLite integers: more than 18 digits can name nothing.
_KEPT_TEXT = re.compile(r"(cue|receipt):(\d{1,18})")


@dataclass(frozen=True, slots=True)
class Erasure:
    """What an erase did: what it tombstoned (addresses, `cue:N`, `receipt:N`), the overflow files that
    held the text, and the exported observations files rewritten (or removed) without what it withdrew."""

    erased: list[str]
    purged: list[Path]
    exports: list[Path] = field(default_factory=list)
    snapshots: list[Path] = field(default_factory=list)  # store copies a killed sync had left


def erase(record: Record, target: str, reason: str) -> Erasure:
    """Erase `target` with `reason` kept beside the tombstone.

    Raises:
        AddressError: `target` is not an address, cue:N or receipt:N, or names nothing.
        CueError, ReceiptError: no such cue or receipt, or no reason.
    """
    target = target.strip()
    if not target.startswith(("cue:", "receipt:")):
        address = resolve_address(record, target)
        texts = [e.text for e in record.entries(address, with_spans=False) if e.erased is None]
        done = record.erase(address, reason)
        # A copy of an OpenCode store a killed sync left under the home holds the words too.
        from total_recall.readers.opencode import clear_left_snapshots

        left = clear_left_snapshots(record.path.parent)
        # Observations cite entries only: a cue's or a note's erase withdraws none.
        return Erasure(done, purge(texts), refresh_exports(record), left)
    m = _KEPT_TEXT.fullmatch(target)
    if m is None:
        raise AddressError(f"not a cue or receipt: {echoed(target)} (expected cue:3 or receipt:3)")
    number = int(m.group(2))
    if m.group(1) == "cue":
        cue = cue_by_id(record, number)
        texts = [] if cue.erased else [cue.text]
        return Erasure([f"cue:{erase_cue(record, number, reason).id}"], purge(texts))
    note = receipt_by_id(record, number).note
    erased = erase_note(record, number, reason)
    texts = [note] if note is not None and erased.note != note else []
    return Erasure([f"receipt:{erased.id}"], purge(texts))
