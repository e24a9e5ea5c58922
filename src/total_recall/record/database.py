"""The record: one SQLite file (WAL) that every other part reads, and only sync and erase write.

`Record` holds the core SQL about sources, sessions, entries, spans and quarantine; the erase of entries
is `tombstones`'s, and the record's other tables have their modules beside it (queries, markers, receipts,
cues, summary blocks). The schema's triggers make it append-only: an entry changes only through `erase`,
which logs the erasure first.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import orjson

from total_recall.config import PRIVATE_FILE, private_home
from total_recall.errors import AddressError, RecordError
from total_recall.model import Address, Author, Entry, Kind, ReadWarning, Session, Span, SpanTag
from total_recall.record import names
from total_recall.record.branches import Link
from total_recall.record.lines import unpack_raw
from total_recall.record.locks import held
from total_recall.record.migrations import migrate

if TYPE_CHECKING:
    from total_recall.indexes import Derived
    from total_recall.readers.base import Cursor

# The write side's modules (the indexes, hashlib, logging) are imported where they are used: the per-prompt
# hook opens the record only to read, and their imports cost it more than its push.

TOMBSTONE = "[erased {at}: {reason}]"
ERASED_KEY = "erased:"  # the start of an erased entry's key (Record.erased_key)
# Beside the record: held while a process creates or migrates it.
OPENING_LOCK = ".open-lock"
ERASE_LOCK = ".erase-lock"

def _empty(path: Path) -> bool:
    """Whether `path` is an empty file, or none."""
    try:
        return os.stat(path).st_size == 0
    except FileNotFoundError:
        return True


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"




@dataclass(frozen=True, slots=True)
class LoggedSync:
    """One sync as the log keeps it: `warnings` counts them all, `kept` holds the first of them;
    `earlier_warnings` counts those of the syncs before it."""

    id: int
    at: str
    sources_read: int
    entries_added: int
    warnings: int
    kept: tuple[ReadWarning, ...]
    last_entry: int
    earlier_warnings: int


class SourceRow:
    """A source as the record tracks it: identity, generation and cursor."""

    __slots__ = ("cursor", "fingerprint", "generation", "id", "path", "read_error")

    def __init__(self, row: sqlite3.Row) -> None:
        self.id: int = row["id"]
        self.path: str = row["path"]
        self.generation: int = row["generation"]
        self.fingerprint: str = row["fingerprint"]
        self.read_error: str | None = row["read_error"]
        from total_recall.readers.base import Cursor

        self.cursor = Cursor(row["offset"], row["line"], row["check_hash"], orjson.loads(row["state"]))


class Record:
    """The record at `path`, migrated on open.

    Raises:
        RecordError: the file is not a usable record.
    """

    _salt: bytes | None = None  # the record's key for text hashes (record_key), read when first needed

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        """Open (creating and migrating it if need be) the record at `path`, waiting at most `timeout`
        seconds for another process creating or upgrading it, or holding its write lock.

        The home is made private first (`config.private_home`); a tightening is logged once and kept
        in `notices`.
        """
        self.path = path
        self.notices: list[str] = []
        if notice := private_home(path.parent):
            self._notice(notice)
        try:
            # Created 0600 before SQLite opens it: SQLite gives its -wal and -shm the main file's mode.
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
                made = True
            except FileExistsError:
                made = False
            # The erase lock a reply holds shared (`erasure.replying`), there as the open-lock is.
            os.close(os.open(path.with_name(path.name + ERASE_LOCK), os.O_RDONLY | os.O_CREAT, PRIVATE_FILE))
            # Processes opening a new record at once would each run its migrations: one at a time.
            with held(path.with_name(path.name + OPENING_LOCK), timeout, lambda: RecordError(
                    f"{path}: busy: another process has been creating or upgrading the record for more "
                    f"than {timeout:g} s")):
                if not made and _empty(path) and _empty(path.with_name(path.name + "-wal")):
                    # Under the lock a creator has written its schema: an empty file found here was cut
                    # short or replaced, and whatever it held is gone. Said, then made anew.
                    self._notice(f"{path} was an empty file: a new record is made in it; if it held "
                                 "sessions it was truncated or replaced (sync reads them again from the "
                                 "stores)")
                # Autocommit mode: every transaction in this module is explicit.
                self.db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
                self.db.row_factory = sqlite3.Row
                # Large pages hold most entries without overflow chains; only takes effect on a new file.
                self.db.execute("PRAGMA page_size=32768")
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA foreign_keys=ON")
                # Freed pages and cells are zeroed as they are freed, not only during an erase: a page split
                # or an index rebuild before an erase can leave an old copy of a key (a hash of the text)
                # on a free page that the erase never touches.
                self.db.execute("PRAGMA secure_delete=ON")
                self.db.execute("PRAGMA cache_size=-65536")
                migrate(self.db)
        except sqlite3.DatabaseError as exc:
            if getattr(self, "db", None) is not None:
                self.db.close()
            raise RecordError(f"{path}: not a usable record: {exc}") from exc
        except OSError as exc:
            raise RecordError(f"{path}: cannot open the record: {exc.strerror or exc}") from exc

    def _notice(self, notice: str) -> None:
        import logging

        logging.getLogger("total_recall.record").warning("total-recall: note: %s", notice)
        self.notices.append(notice)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Record:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        self.close()
        # A page damaged inside the file shows only when it is read, long after the open: the same refusal
        # as at the open, not a traceback (a constraint's error is a defect of ours, and stays one).
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise RecordError(f"{self.path}: the record is locked by another process ({exc}): try again "
                                  "once it is done") from exc
            raise RecordError(f"{self.path}: not a usable record: {exc} (damaged? `sqlite3 {self.path} "
                              "'PRAGMA integrity_check'` says where; the stores can be synced into a new "
                              "record)") from exc

    # -- transactions --

    def begin(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def optimize(self) -> None:
        """Refresh the planner's statistics (bounded sampling), so filtered lookups pick good plans."""
        self.db.execute("PRAGMA analysis_limit=1000")
        analysed = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()
        self.db.execute("PRAGMA optimize" if analysed else "ANALYZE")

    def defer_string_indexes(self, incoming_bytes: int, least: int) -> bool:
        """Drop the indexes of the exact strings for a sync reading `least` bytes or more that brings in
        at least as many as the record holds (see indexes.strings.bulk); say whether it did.
        `build_string_indexes` puts them back."""
        from total_recall.indexes import strings

        if not strings.bulk(self.db, incoming_bytes, least):
            return False
        strings.drop_indexes(self.db)
        return True

    def build_string_indexes(self) -> None:
        """The indexes of the exact strings, if a sync dropped them (this one, or one killed before its
        end)."""
        from total_recall.indexes import strings

        strings.build_indexes(self.db)

    def vectors_waiting(self) -> bool:
        """Whether an entry waits for a meaning vector (vectors are made after the sync's commits)."""
        from total_recall.indexes import vectors

        return bool(vectors.pending(self.db, 1))

    def make_vectors(self, seconds: float | None,
                     progress: Callable[[int, int], None] | None = None) -> tuple[int, bool]:
        """Make the meaning vectors waiting, in entry order, for at most `seconds` (None: all of them; a
        commit per batch); returns (vectors made, whether none waits now)."""
        from total_recall.indexes import vectors

        return vectors.index_pending(self.db, seconds, progress)

    def vector_count(self) -> int:
        from total_recall.indexes import vectors

        return vectors.count(self.db)

    def rebuild_indexes(self) -> None:
        """Rebuild the word and exact-string indexes (and the tool failures, entry facts) from the record,
        in one transaction."""
        from total_recall import indexes

        self.begin()
        indexes.rebuild(self.db)
        self.commit()

    def rollback(self) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    # -- writing: sources --

    def source(self, harness: str, key: str, path: str, kind: str) -> SourceRow:
        """The source row for (harness, key), created on first sight."""
        self.db.execute(
            "INSERT OR IGNORE INTO sources(harness, key, path, kind) VALUES (?, ?, ?, ?)",
            (harness, key, path, kind),
        )
        row = self.db.execute(
            "SELECT * FROM sources WHERE harness = ? AND key = ?", (harness, key)
        ).fetchone()
        return SourceRow(row)

    def read_to(self, path: str) -> tuple[int, str] | None:
        """How far the sync has read the store file at `path` (bytes), with the fingerprint of the bytes it
        read (`readers.base.read_check`), or None when it has not."""
        row = self.db.execute("SELECT offset, check_hash FROM sources WHERE path = ? ORDER BY offset DESC "
                              "LIMIT 1", (path,)).fetchone()
        return None if row is None or row[0] is None else (int(row[0]), str(row[1] or ""))

    def save_cursor(self, source_id: int, path: str, cursor: Cursor) -> None:
        self.db.execute(
            "UPDATE sources SET path = ?, offset = ?, line = ?, check_hash = ?, state = ? WHERE id = ?",
            (path, cursor.offset, cursor.line, cursor.check, orjson.dumps(cursor.state).decode(), source_id),
        )

    def finish_source(self, source_id: int, fingerprint: str, read_error: str | None) -> None:
        self.db.execute(
            "UPDATE sources SET fingerprint = ?, read_error = ?, synced_at = ? WHERE id = ?",
            (fingerprint if read_error is None else "", read_error, now(), source_id),
        )

    def new_generation(self, source_id: int) -> int:
        """Start a source over after it was rewritten under bytes already read."""
        self.db.execute(
            "UPDATE sources SET generation = generation + 1, offset = 0, line = 0, check_hash = '', "
            "state = '{}', fingerprint = '' WHERE id = ?",
            (source_id,),
        )
        row = self.db.execute("SELECT generation FROM sources WHERE id = ?", (source_id,)).fetchone()
        return int(row[0])

    def session_known(self, harness: str, native_id: str) -> int | None:
        """The number of `harness`'s session `native_id` (its newest generation), or None: a hook names
        its session by the harness's own id, and a session not synced yet is not in the record."""
        row = self.db.execute(
            "SELECT MAX(id) FROM sessions WHERE harness = ? AND native_id = ?", (harness, native_id)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    # -- writing: sessions --

    def parent_native(self, harness: str, native_id: str) -> tuple[str | None, str | None]:
        """The native id of the session a recorded session was started from, and how (`fork`, `subagent`,
        `compaction`; its newest generation's)."""
        row = self.db.execute("SELECT parent_native, relation FROM sessions WHERE harness = ? "
                              "AND native_id = ? ORDER BY generation DESC LIMIT 1",
                              (harness, native_id)).fetchone()
        return (None, None) if row is None else (cast(str | None, row[0]), cast(str | None, row[1]))

    def session_number(
        self, harness: str, native_id: str, generation: int, source_id: int
    ) -> tuple[int, bool]:
        """The number of a session, created on first sight; says whether it was created."""
        row = self.db.execute(
            "SELECT id FROM sessions WHERE harness = ? AND native_id = ? AND generation = ?",
            (harness, native_id, generation),
        ).fetchone()
        if row is not None:
            return int(row[0]), False
        cur = self.db.execute(
            "INSERT INTO sessions(harness, native_id, generation, source, first_seen) VALUES (?, ?, ?, ?, ?)",
            (harness, native_id, generation, source_id, now()),
        )
        return int(cast(int, cur.lastrowid)), True

    def update_session(self, number: int, fields: dict[str, Any]) -> bool:
        """Set the given metadata fields; returns whether anything changed."""
        if not fields:
            return False
        fields = names.unerased(self, number, fields)
        if not fields:
            return False
        # `ended` only moves later: a session read from several files (OpenClaw's live transcript and its
        # archives, same header id) is given each file's end, in whatever order the files are read. Kept only
        # when both times parse and the held one is not earlier; else the given one is taken, as before.
        keep = "julianday(?) <= julianday(ended)"
        sets, differs, set_values, differ_values = [], [], [], []
        for n, v in fields.items():
            value = orjson.dumps(v).decode() if n == "meta" else v
            if n == "ended":
                sets.append(f"ended = CASE WHEN {keep} THEN ended ELSE ? END")
                differs.append(f"(ended IS NOT ? AND NOT coalesce({keep}, 0))")
                set_values += [value, value]
                differ_values += [value, value]
            else:
                sets.append(f"{n} = ?")
                differs.append(f"{n} IS NOT ?")
                set_values.append(value)
                differ_values.append(value)
        cur = self.db.execute(
            f"UPDATE sessions SET {', '.join(sets)} WHERE id = ? AND ({' OR '.join(differs)})",
            (*set_values, number, *differ_values),
        )
        return cur.rowcount > 0

    def forget_names(self, session: int, text: str | None) -> None:
        """Clear what names `session` and its sub-agents that came from `text` (`names.forget`)."""
        names.forget(self, session, text)

    def set_counts(self, rows: Sequence[tuple[int, int]]) -> None:
        """Set sessions' entry counts, given as (count, session)."""
        self.db.executemany("UPDATE sessions SET entries = ? WHERE id = ?", rows)

    # -- writing: entries --

    def session_keys(self, number: int) -> tuple[int, set[str]]:
        """A recorded session's next entry number and the keys it already holds."""
        keys = {r[0] for r in self.db.execute("SELECT key FROM entries WHERE session = ?", (number,))}
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE session = ?", (number,))
        return int(row.fetchone()[0]), keys

    def next_ids(self) -> tuple[int, int]:
        """The first free entry id and source-record id, for the sync that holds the write lock."""
        # An erase may have deleted the newest source record: its number stays taken (an erased entry
        # and its siblings still name it), or a later line would answer for theirs.
        row = self.db.execute(
            "SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM entries), "
            "MAX((SELECT COALESCE(MAX(id), 0) FROM raws), COALESCE((SELECT raw_id FROM entries "
            "WHERE raw_id IS NOT NULL ORDER BY id DESC LIMIT 1), 0)) + 1"
        ).fetchone()
        return int(row[0]), int(row[1])

    def append_raws(self, rows: Sequence[tuple[int, bytes]]) -> None:
        """Store source records, given as (id, record) with the record already `pack`ed."""
        self.db.executemany("INSERT INTO raws(id, raw) VALUES (?, ?)", rows)

    def append_entries(
        self, rows: Sequence[tuple[Any, ...]], derived: Derived | None = None, *,
        key_order: bool = True,
    ) -> None:
        """Append entry rows, already numbered: (id, session, seq, author, kind, text, ts, key, source,
        line, row, native_id, native_parent, grp, tool, sidechain, raw_id), and index them in the same
        transaction; `derived`: their exact strings and failed calls, already worked out (by a second
        process, say) as indexes.derive would; `key_order`: see indexes.add_derived.

        Raises:
            sqlite3.IntegrityError: a number or key is taken (the caller's numbering is wrong).
        """
        self.db.executemany(
            "INSERT INTO entries(id, session, seq, author, kind, text, ts, key, source, line, row, "
            "native_id, native_parent, grp, tool, sidechain, raw_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        from total_recall import indexes

        indexes.on_append(self.db, rows, derived_later=derived is not None)
        if derived is not None:
            indexes.add_derived(self.db, derived, key_order=key_order)

    def add_spans(self, rows: Sequence[tuple[int, int, int, str]]) -> None:
        """Spans of freshly appended entries, given as (entry id, start, end, tag)."""
        self.db.executemany("INSERT INTO spans(entry, start, end, tag) VALUES (?, ?, ?, ?)", rows)

    # -- erase and quarantine --

    def erase(self, address: Address, reason: str, texts: list[str] | None = None) -> list[str]:
        """Replace the text of every entry at `address`, and of its copies, with a tombstone
        (`tombstones.erase`); `texts`, when given, gets the erased texts.

        Raises:
            AddressError: the address names nothing.
            RecordError: no reason was given.
        """
        from total_recall.record import tombstones

        return tombstones.erase(self, address, reason, texts)

    def holds_erased(self, session: int, first: int, last: int) -> bool:
        """Whether any entry of session `session` from `first` to `last` is erased."""
        row = self.db.execute("SELECT 1 FROM entries WHERE session = ? AND seq BETWEEN ? AND ? "
                              "AND erased_at IS NOT NULL LIMIT 1", (session, first, last)).fetchone()
        return row is not None

    def erased_key(self, key: str) -> str:
        """The key an erased entry keeps: a keyed hash of its own (which may hash the erased text), still
        one per entry, so a later read of the same line is known by it and nothing answers a guess."""
        return ERASED_KEY + self.keyed_hash(key.encode("utf-8", "surrogatepass")).hex()

    def text_hash(self, text: str) -> bytes:
        """A hash of `text` keyed by this record's own random salt (see `keyed_hash`)."""
        return self.keyed_hash(text.encode("utf-8", "surrogatepass"))

    def keyed_hash(self, data: bytes) -> bytes:
        """A hash of `data` keyed by this record's own random salt: it matches the same bytes again, and
        without the record it answers no dictionary guess."""
        if self._salt is None:
            row = self.db.execute("SELECT salt FROM record_key WHERE id = 1").fetchone()
            self._salt = bytes(row[0])
        import hashlib

        return hashlib.blake2b(data, key=self._salt, digest_size=16).digest()

    def checkpoint(self) -> bool:
        """Copy the WAL into the record and truncate it, so no old frame keeps erased words (it waits
        for readers up to the busy timeout; a reader still holding an old snapshot leaves the frames to
        the next checkpoint); returns whether it got that far."""
        busy, _, _ = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return int(busy) == 0

    @contextmanager
    def secure_delete(self) -> Iterator[None]:
        """Zero freed pages and cells while erasing (SQLite's default leaves them holding old bytes)."""
        before = int(self.db.execute("PRAGMA secure_delete").fetchone()[0])
        self.db.execute("PRAGMA secure_delete=ON")
        try:
            yield
        finally:
            self.db.execute(f"PRAGMA secure_delete={before}")

    @contextmanager
    def waiting(self, seconds: float) -> Iterator[None]:
        """Wait at most `seconds` for another process's lock within the block (not the open's timeout)."""
        before = int(self.db.execute("PRAGMA busy_timeout").fetchone()[0])
        self.db.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
        try:
            yield
        finally:
            self.db.execute(f"PRAGMA busy_timeout = {before}")

    def quarantine(self, address: Address, reason: str | None = None, undo: bool = False) -> list[str]:
        """Hide (or, with `undo`, show again) the entries at `address` in windows and pushes; edits nothing.
        Returns the entries whose state changed: one already quarantined (or not quarantined, for `undo`)
        is left as it is, so the log says each change once. A release needs no reason.

        Raises:
            AddressError: the address names nothing.
            RecordError: a quarantine without a reason.
        """
        if not (reason or "").strip():
            if not undo:
                raise RecordError("a quarantine needs a reason (kept in the quarantine log)")
            reason = "released"
        self.entry_ids(address)  # an address naming nothing is refused before anything starts
        action = "release" if undo else "quarantine"
        self.begin()
        try:
            ids = self.entry_ids(address)  # read and timed under the write lock, as an erase is
            at = now()
            changed = [(entry_id, seq) for entry_id, seq, _ in ids
                       if self._quarantined(entry_id) == undo]
            self.db.executemany(
                "INSERT INTO quarantine(entry, action, at, reason) VALUES (?, ?, ?, ?)",
                [(entry_id, action, at, reason) for entry_id, _ in changed],
            )
            self.commit()
        except BaseException:
            self.rollback()
            raise
        return [f"s{address.session}#{seq}" for _, seq in changed]

    def _quarantined(self, entry_id: int) -> bool:
        """Whether the latest row of the quarantine log for the entry is in force as a quarantine."""
        row = self.db.execute(
            "SELECT action FROM quarantine WHERE entry = ? ORDER BY id DESC LIMIT 1", (entry_id,)
        ).fetchone()
        return row is not None and row[0] == "quarantine"

    def span(self, address: Address, *, whole: bool = False) -> tuple[Session, int, int]:
        """The session `address` names and the first and last of its entries it covers (a range running
        past the end is cut there, unless `whole`).

        Raises:
            AddressError: no such session; the address starts past the session's end; with `whole`, a range
                running past it (an erase must name what it erases).
        """
        session = self.session(address.session)
        first = address.first or 1
        last = address.last if address.last is not None else session.entries
        held = session.entries
        if first > held:
            raise AddressError(f"{address}: no such entry (s{address.session} has {held} entries)")
        if whole and last > held:
            raise AddressError(f"{address}: runs past the end of s{address.session} (its last entry is "
                               f"s{address.session}#{held}); nothing was done")
        return session, first, min(last, held)

    def entry_ids(self, address: Address) -> list[tuple[int, int, str | None]]:
        """(id, seq, erased_at) of each entry at `address`, in order; refused as `span(whole=True)` does."""
        _, first, last = self.span(address, whole=True)
        rows = self.db.execute(
            "SELECT id, seq, erased_at FROM entries WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            (address.session, first, last),
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    # -- reading --

    def session(self, number: int) -> Session:
        """Raises: AddressError when there is no such session."""
        row = self.db.execute(_SESSION_SELECT + " WHERE s.id = ?", (number,)).fetchone()
        if row is None:
            raise AddressError(f"s{number}: no such session")
        return self._shown([_session(row)])[0]

    def sessions(self, harness: Sequence[str] = ()) -> list[Session]:
        sql = _SESSION_SELECT
        params: tuple[str, ...] = ()
        if harness:
            sql += f" WHERE s.harness IN ({','.join('?' * len(harness))})"
            params = tuple(harness)
        return self._shown([_session(r) for r in self.db.execute(sql + " ORDER BY s.id", params)])

    def _shown(self, sessions: list[Session]) -> list[Session]:
        """`sessions` with each title taken from an entry now quarantined withheld (None), the session's own
        or, for a sub-agent, its parent's: a quarantine hides the words from every view and every prompt,
        and a title that quotes them is the same words."""
        held: dict[int, list[str]] = {}
        for session, text in self.db.execute(
            "SELECT e.session, e.text FROM quarantine q JOIN entries e ON e.id = q.entry "
            "WHERE q.action = 'quarantine' AND q.id = (SELECT MAX(id) FROM quarantine WHERE entry = q.entry)"
        ):
            held.setdefault(session, []).append(text)
        if not held:
            return sessions
        # A sub-agent's title may be the description its parent's call gave it.
        return [replace(s, title=None) if any(names.titled(s.title, t) for t in
                                              [*held.get(s.number, ()), *held.get(s.parent or 0, ())]) else s
                for s in sessions]

    def entries(self, address: Address, with_spans: bool = True) -> list[Entry]:
        """The entries at an address, exactly as recorded (tombstones for erased ones).

        Raises:
            AddressError: the session or entry does not exist.
        """
        session = self.session(address.session)
        first = address.first or 1
        last = address.last if address.last is not None else max(session.entries, 1)
        if address.first is not None and first > session.entries:
            raise AddressError(f"{address}: no such entry (s{address.session} has {session.entries} entries)")
        rows = self.db.execute(
            _ENTRY_SELECT + " WHERE e.session = ? AND e.seq BETWEEN ? AND ? ORDER BY e.seq",
            (address.session, first, last),
        ).fetchall()
        spans: dict[int, list[Span]] = {}
        if with_spans and rows:
            for s in self.db.execute(
                "SELECT entry, start, end, tag FROM spans WHERE entry BETWEEN ? AND ? ORDER BY entry, start",
                (rows[0]["id"], rows[-1]["id"]),
            ):
                spans.setdefault(s[0], []).append(Span(s[1], s[2], cast(SpanTag, s[3])))
        return [_entry(r, tuple(spans.get(r["id"], ()))) for r in rows]

    def raw(self, session: int, seq: int) -> bytes | None:
        """The source record an entry was cut from (None once erased)."""
        row = self.db.execute(
            "SELECT e.id, r.raw FROM entries e LEFT JOIN raws r ON r.id = e.raw_id "
            "WHERE e.session = ? AND e.seq = ?",
            (session, seq),
        ).fetchone()
        if row is None:
            raise AddressError(f"s{session}#{seq}: no such entry")
        return unpack_raw(row[1])

    def tree_links(self, session: int) -> Iterator[Link]:
        """Each of a session's entries in order as a link of its tree, for branch finding."""
        for r in self.db.execute(
            "SELECT native_id, native_parent, sidechain, author, kind FROM entries WHERE session = ? "
            "ORDER BY seq",
            (session,),
        ):
            yield Link(r[0], r[1], bool(r[2]), r[3], r[4])

    def counts(self) -> dict[str, int]:
        row = self.db.execute(
            "SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM entries)"
        ).fetchone()
        return {"sessions": int(row[0]), "entries": int(row[1])}

    def holds_sessions(self) -> bool:
        return self.db.execute("SELECT 1 FROM sessions LIMIT 1").fetchone() is not None

    def newest_entry(self) -> int:
        """The id of the newest entry (0 in an empty record)."""
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM entries").fetchone()[0])

    def sessions_with_compactions(self, harness: str, after: int) -> list[int]:
        """The sessions of `harness` holding a compaction entry newer than entry id `after`. Read from
        `entry_facts` (a row of ~50 bytes per entry): the first look at a record scans it whole."""
        return [int(r[0]) for r in self.db.execute(
            "SELECT DISTINCT f.session FROM entry_facts f JOIN sessions s ON s.id = f.session "
            "WHERE f.id > ? AND f.kind = 'compaction' AND s.harness = ? ORDER BY f.session",
            (after, harness))]

    # -- the sync log (m016) --

    def log_sync(self, sources_read: int, entries_added: int, warnings: Sequence[ReadWarning], kept: int,
                 last_entry: int) -> int:
        """Append a sync to the log with its count of warnings and the first `kept` of them; returns its
        id."""
        self.begin()
        try:
            cur = self.db.execute(
                "INSERT INTO syncs(at, sources_read, entries_added, warnings, last_entry) "
                "VALUES (?, ?, ?, ?, ?)",
                (now(), sources_read, entries_added, len(warnings), last_entry))
            sync_id = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO sync_warnings(sync, n, path, line, why) VALUES (?, ?, ?, ?, ?)",
                [(sync_id, n, w.path, w.line, w.why) for n, w in enumerate(warnings[:kept])])
            self.commit()
        except BaseException:
            self.rollback()
            raise
        return sync_id

    def last_sync(self) -> LoggedSync | None:
        """The newest sync in the log, with the warnings kept of it and the count of earlier ones."""
        row = self.db.execute("SELECT * FROM syncs ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        kept = tuple(ReadWarning(r["path"], r["why"], r["line"]) for r in self.db.execute(
            "SELECT path, line, why FROM sync_warnings WHERE sync = ? ORDER BY n", (row["id"],)))
        earlier = self.db.execute("SELECT COALESCE(SUM(warnings), 0) FROM syncs WHERE id < ?",
                                  (row["id"],)).fetchone()[0]
        return LoggedSync(row["id"], row["at"], row["sources_read"], row["entries_added"], row["warnings"],
                          kept, row["last_entry"], int(earlier))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Raw access for tests and derived indexes; the core's own SQL stays in this module."""
        return self.db.execute(sql, params)


_SESSION_SELECT = """
    SELECT s.*, src.path AS source_path, src.read_error AS read_error,
           (SELECT p.id FROM sessions p WHERE p.harness = s.harness AND p.native_id = s.parent_native
            ORDER BY p.generation DESC LIMIT 1) AS parent
    FROM sessions s JOIN sources src ON src.id = s.source
"""

_ENTRY_SELECT = """
    SELECT e.*, src.path AS source_path,
           (SELECT q.reason FROM quarantine q WHERE q.entry = e.id ORDER BY q.id DESC LIMIT 1) AS q_reason,
           (SELECT q.action FROM quarantine q WHERE q.entry = e.id ORDER BY q.id DESC LIMIT 1) AS q_action
    FROM entries e JOIN sources src ON src.id = e.source
"""


def _session(r: sqlite3.Row) -> Session:
    return Session(
        number=r["id"],
        harness=r["harness"],
        native_id=r["native_id"],
        source=r["source_path"],
        generation=r["generation"],
        title=r["title"],
        cwd=r["cwd"],
        parent=r["parent"],
        relation=r["relation"],
        entries=r["entries"],
        started=r["started"],
        ended=r["ended"],
        read_error=r["read_error"],
    )


def _entry(r: sqlite3.Row, spans: tuple[Span, ...]) -> Entry:
    quarantined = r["q_reason"] if r["q_action"] == "quarantine" else None
    erased = f"{r['erased_at']}: {r['erased_reason']}" if r["erased_at"] else None
    branch: Literal["active", "side"] | None = None
    return Entry(
        session=r["session"],
        seq=r["seq"],
        author=cast(Author, r["author"]),
        kind=cast(Kind, r["kind"]),
        text=r["text"],
        timestamp=r["ts"],
        source_path=r["source_path"],
        line=r["line"],
        row=r["row"],
        native_id=r["native_id"],
        native_parent=r["native_parent"],
        group=r["grp"],
        tool=r["tool"],
        sidechain=bool(r["sidechain"]),
        spans=spans,
        erased=erased,
        quarantined=quarantined,
        branch=branch,
    )
