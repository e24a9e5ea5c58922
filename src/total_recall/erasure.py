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

Those files are not in the record's transaction, so an erase guards them two ways. It holds the record's
erase lock alone from its first purge to its last, while every reply read from the record holds it shared
(`replying`): a reply read before the erase has written its overflow file by then, one read after it holds
no erased words. And it leaves a mark beside the record while it runs (`…sqlite3.erase-pending`): a
process killed between its commit and its clean-up leaves the mark, and the next call of any operation
finishes the clean-up (`finish_interrupted`: every overflow file goes, since which held the words is no
longer known, and the exports and store copies are rewritten and cleared). A call that adds or calls out
(a sync, a model call: minutes) cannot hold the lock while it runs; erases are counted in the lock file, and
such a call writes its overflow file under the lock shared and only if the count has not moved since it
began (`adding`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from total_recall.errors import AddressError, RecordError, TotalRecallError
from total_recall.keeping.cues import cue_by_id, erase_cue
from total_recall.keeping.receipts import erase_note, receipt_by_id
from total_recall.mining.flood import guarded, purge, purge_all
from total_recall.model import echoed
from total_recall.observing.export import refresh_exports
from total_recall.record.database import ERASE_LOCK, Record
from total_recall.record.locks import held
from total_recall.record.names import title_forms
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
    # Exports the owner changed since they were written: his, left alone, and they may hold the words.
    exports_left: list[Path] = field(default_factory=list)
    wal_cleared: bool = True  # False: a reader's old snapshot keeps the words in the WAL until it closes


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
        titles = _titles_from(record, texts)
        with _erasing(record.path, texts + titles) as under:
            taken: list[str] = []  # what the erase took under its write lock: copies, and entries since
            done = record.erase(address, reason, taken)
            under.committed = True
            purged = under.purged + purge(taken + titles)
            # Observations cite entries only: a cue's or a note's erase withdraws none.
            left: list[Path] = []
            rewritten = refresh_exports(record, left=left)
            return Erasure(done, purged, rewritten, _left_copies(record.path), left, record.checkpoint())
    m = _KEPT_TEXT.fullmatch(target)
    if m is None:
        raise AddressError(f"not a cue or receipt: {echoed(target)} (expected cue:3 or receipt:3)")
    number = int(m.group(2))
    if m.group(1) == "cue":
        cue = cue_by_id(record, number)
        texts = [] if cue.erased else [cue.text]
        with _erasing(record.path, texts) as under:
            named = f"cue:{erase_cue(record, number, reason).id}"
            under.committed = True
            # One erased before is named as no entry is: nothing was erased now.
            return Erasure([named] if texts else [], under.purged + purge(texts))
    note = receipt_by_id(record, number).note
    texts = [] if note is None else [note]
    with _erasing(record.path, texts) as under:
        named = f"receipt:{erase_note(record, number, reason).id}"
        under.committed = True
        return Erasure([named] if texts else [], under.purged + purge(texts))


def _titles_from(record: Record, texts: list[str]) -> list[str]:
    """The sessions' titles taken from `texts` (as a harness or a reader cuts one: `names.title_forms`),
    which a listing's overflow file may hold without the rest of the words: the erase purges them too."""
    if not texts:
        return []
    forms = set().union(*map(title_forms, texts))
    return sorted({s.title for s in record.sessions() if s.title in forms})


@contextmanager
def replying(record_path: Path) -> Iterator[None]:
    """Held while a reply is read from the record at `record_path` and written out, overflow files
    included: an erase waits for it, and it for an erase. No lock before the record's home exists: there
    is nothing to erase yet."""
    if not record_path.parent.is_dir():
        yield
        return
    with held(_lock(record_path), None, _never, shared=True):
        yield


@contextmanager
def adding(record_path: Path) -> Iterator[None]:
    """Around a call that adds or calls out and so runs without the erase lock: the erases counted when it
    begins, and an overflow file it writes written under the lock shared, and only if no erase has run
    since (`flood.guarded`). The count is taken under the lock too: a call beginning during an erase waits
    for it, so the reads that follow see the erase."""
    lock = _lock(record_path)
    if record_path.parent.is_dir():
        with held(lock, None, _never, shared=True):
            began = _erases(lock)
    else:
        began = 0  # no home yet, so no erase yet

    @contextmanager
    def clear() -> Iterator[bool]:
        with held(lock, None, _never, shared=True):
            yield _erases(lock) == began

    with guarded(clear):
        yield


def finish_interrupted(record_path: Path) -> bool:
    """Finish the clean-up of an erase a killed process left half done (its mark is still there): delete
    every overflow file, rewrite the exports, clear the store copies and the WAL; returns whether there
    was one."""
    pending = _pending(record_path)
    if not pending.exists():
        return False
    with held(_lock(record_path), None, _never):
        if not pending.exists():
            return False  # another call finished it meanwhile
        purge_all()
        with Record(record_path) as record:
            refresh_exports(record)
            record.checkpoint()
        _left_copies(record_path)
        pending.unlink(missing_ok=True)
    return True


@dataclass(slots=True)
class _Under:
    """An erase under way: the overflow files purged before its write, and whether that write committed."""

    purged: list[Path]
    committed: bool = False


@contextmanager
def _erasing(record_path: Path, texts: list[str]) -> Iterator[_Under]:
    """The erase lock held alone, the mark of an erase under way beside the record, and the overflow files
    holding `texts` purged before the write (a process killed after its commit leaves none of them). The
    mark stays when the process dies or the block fails after the write committed, for
    `finish_interrupted`; a refusal before it commits takes the mark back."""
    lock = _lock(record_path)
    with held(lock, None, _never):
        lock.write_text(str(_erases(lock) + 1), encoding="ascii")  # `adding`'s calls under way keep nothing
        pending = _pending(record_path)
        pending.touch(mode=0o600)
        under = _Under(purge(texts))
        try:
            yield under
        except TotalRecallError:
            if not under.committed:
                pending.unlink(missing_ok=True)  # refused: nothing was erased, nothing is left to do
            raise
        pending.unlink(missing_ok=True)


def _left_copies(record_path: Path) -> list[Path]:
    """The copies of an OpenCode store a killed sync left under the home, which hold the words too,
    deleted."""
    from total_recall.readers.opencode_db import clear_left_snapshots

    return clear_left_snapshots(record_path.parent)


def _lock(record_path: Path) -> Path:
    return record_path.with_name(record_path.name + ERASE_LOCK)


def _erases(lock: Path) -> int:
    """How many erases have begun on this record (held in its erase lock's file; read under the lock)."""
    try:
        return int(lock.read_text(encoding="ascii") or 0)
    except (FileNotFoundError, ValueError):
        return 0


def _pending(record_path: Path) -> Path:
    return Path(f"{record_path}.erase-pending")


def _never() -> Exception:  # the erase lock is waited for without a bound: no call holds it for long
    return RecordError("the record's erase lock is busy")
