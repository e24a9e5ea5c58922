"""Sync: read every store incrementally into the record.

Per source, the reader streams items from the saved cursor; entries are appended in batches and each
batch commits together with the cursor that follows it, so a sync killed at any point resumes exactly
where its last commit stopped and a second sync of an unchanged store adds nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from total_recall.config import OVERRIDE_VARS, env_seconds, resolve_roots
from total_recall.errors import ConfigError, RecordBusy
from total_recall.indexes.strings import BULK_BYTES
from total_recall.model import HARNESSES, EntryDraft, ReadWarning, SessionDraft, SyncReport
from total_recall.readers import Checkpoint, Cursor, Reader, Source, reader_for
from total_recall.record import tombstones
from total_recall.record.copies import (
    COPY_CHARS,
    FORK_DEPTH,
    LINE_CHARS,
    Marks,
    Quotes,
    echoes,
    erased_marks,
    quoted,
)
from total_recall.record.database import ERASED_KEY, TOMBSTONE, Record
from total_recall.record.lines import pack
from total_recall.record.locks import held
from total_recall.record.names import titled
from total_recall.record.read_ahead import START_AFTER_BYTES, Chunk, End, Job, Part, ReadAhead, to_read

Progress = Callable[[int, int, str], None]
# For `total-recall sync`: "1", a sync stays in one process; "2" (the default), a second process reads and
# prepares the sources ahead when there is enough to read (a first sync of a large store: read_ahead.py).
PROCESSES_ENV = "TOTAL_RECALL_SYNC_PROCESSES"
# Seconds a sync may spend embedding new entries (the vectors extra); `total-recall index` finishes.
VECTOR_BUDGET_ENV = "TOTAL_RECALL_VECTOR_BUDGET"
DEFAULT_VECTOR_BUDGET = 20.0
# Commit about this often: few commits keep WAL checkpoints rare; each carries its cursors.
COMMIT_BYTES = 64 << 20
_SESSION_FIELDS = ("title", "cwd", "parent_native", "relation", "started", "ended", "meta")


@dataclass
class _Batch:
    """Entries, source records and spans of one source waiting for the next flush (one per chunk).

    Numbers (entry seq, entry and record ids) are assigned here: a sync holds the record's sync lock
    and its write transaction, so nobody else appends meanwhile.

    An entry whose text was erased in an earlier generation of the source (same keyed hash), or a copy of
    an erased message from another session (`scan`), is recorded erased from the start (`born_erased`):
    the tombstone, no source record for its line, no spans, in no index. Its addresses follow the normal
    numbering.
    """

    record: Record
    source_id: int
    harness: str
    generation: int
    report: SyncReport
    keys_in_order: bool = True  # False while the key index is dropped (see Record.defer_string_indexes)
    sessions: dict[str, int] = field(default_factory=dict)
    created: set[int] = field(default_factory=set)
    touched: set[int] = field(default_factory=set)
    next_seq: dict[int, int] = field(default_factory=dict)
    keys: dict[int, set[str]] = field(default_factory=dict)
    entries: list[tuple[Any, ...]] = field(default_factory=list)
    raws: list[tuple[int, bytes]] = field(default_factory=list)
    spans: list[tuple[int, int, int, str]] = field(default_factory=list)
    kept: dict[int, int] = field(default_factory=dict)  # chunk position -> entry id
    next_raw: int = 0
    next_entry: int = 0
    last_raw: int = -1
    last_raw_id: int = 0
    # Erased in an earlier generation (copies.erased_marks): by text, by message, by line, copies of
    # erased messages from any source of the harness, and their quotes; None until the first chunk.
    marks: tuple[Marks, Marks, Marks, Marks, Quotes] | None = None
    # native session -> the native session it was started from, and how (`fork`, `subagent`, …)
    parents: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    # position -> (text hash, line hash), at, reason
    matched: dict[int, tuple[tuple[bytes, bytes], str, str]] = field(default_factory=dict)
    matched_raws: set[int] = field(default_factory=set)  # lines of this chunk holding a matched entry
    erased: list[tuple[Any, ...]] = field(default_factory=list)
    erased_hashes: list[tuple[bytes, bytes]] = field(default_factory=list)
    erased_texts: dict[int, list[str]] = field(default_factory=dict)  # session -> texts, for its title
    erased_now: list[tuple[int, str]] = field(default_factory=list)  # (session, text) of this chunk
    born_erased: int = 0
    erased_keys: set[int] = field(default_factory=set)  # sessions holding an erased entry's key

    def scan(self, chunk: Chunk) -> None:
        """Find the chunk's entries erased in an earlier generation of this source: the same text (keyed
        hash), the same message (its native id and kind in the same native session), or cut from the same
        source record (keyed hash of the line: every entry of a line that held erased words); and the
        erased messages of any session of the harness copied here (the same native id, kind and text: a
        resumed or forked session's file; or, without an id, the same text of COPY_CHARS or more; or a harness
        entry quoting one as a block of its own, as `copies.copies` finds them)."""
        if self.marks is None:
            self.marks = erased_marks(self.record, self.source_id, self.generation, self.harness)
        self.matched, self.matched_raws = {}, set()
        by_text, by_id, by_line, by_copy, by_quote = self.marks
        if not by_text and not by_copy:
            return
        lines: dict[int, bytes] = {}  # the line hash of each source record of the chunk
        for position, item in enumerate(chunk.items):
            if isinstance(item, SessionDraft) and item.parent_native is not None:
                self.parents[item.native_id] = (item.parent_native, item.relation)
            if isinstance(item, EntryDraft):
                digest = self.record.text_hash(item.text)
                raw = chunk.raw_of[position]
                if raw not in lines:
                    lines[raw] = self.record.keyed_hash(item.raw)
                mark = (by_text.get(digest) or by_id.get((item.session, item.native_id, item.kind))
                        or by_line.get(lines[raw]) or by_copy.get((item.native_id, item.kind, digest))
                        or (by_copy.get(digest) if len(item.text) >= COPY_CHARS else None)
                        or (self._quoting(item, by_quote) if by_quote else None))
                if mark is not None:
                    self.matched[position] = ((digest, lines[raw]), *mark)
                    self.matched_raws.add(raw)

    def _quoting(self, item: EntryDraft, by_quote: Quotes) -> tuple[str, str] | None:
        """The erasure of a message `item` repeats, by `copies.copies`' rules: a harness entry repeating it
        whole (`echoes`) in its session or one started from it; a harness summary or message quoting it as
        a block of its own, of `LINE_CHARS` or more there, of `COPY_CHARS` or more in any session; the
        same message (author too) of `LINE_CHARS` or more in a fork of its session, or a fork of a fork."""
        if item.author != "harness":
            text = item.text.strip()
            marks = (by_quote.get(self.record.text_hash(text))
                     if item.kind == "message" and len(text) >= LINE_CHARS else None)
            if marks is None:
                return None
            for native in self._forked_from(item.session):
                if (mark := marks.get((native, item.author))) is not None:
                    return mark
            # A sub-agent's prompt repeating a message of the owner's or the agent's of a session above it
            # (`copies._lines_holding`), first read after the erase.
            for native in self._started_by(item.session) if item.author == "agent" else ():
                if (mark := marks.get((native, "owner")) or marks.get((native, "agent"))) is not None:
                    return mark
            return None
        related = [item.session, *([p] if (p := self._parent(item.session)[0]) else [])]
        for form in echoes(item.text, self.harness):  # the harness repeating a message whole, at any length
            if (found := _mark_of(by_quote.get(self.record.text_hash(form)), related)) is not None:
                return found
        if item.kind not in ("summary", "message"):
            return None
        for block in quoted(item.text):
            marks = by_quote.get(self.record.text_hash(block))
            if (found := _mark_of(marks, related)) is not None:
                return found
            if marks and item.kind == "summary" and len(block) >= COPY_CHARS:
                return next(iter(marks.values()))
        return None

    def _parent(self, native: str) -> tuple[str | None, str | None]:
        """The native id of the session `native` was started from and how, as its draft or the record says."""
        if native not in self.parents:
            self.parents[native] = self.record.parent_native(self.harness, native)
        return self.parents[native]

    def _forked_from(self, native: str) -> list[str]:
        """The sessions `native` was forked from, nearest first, `FORK_DEPTH` at most."""
        return self._above(native, "fork")

    def _started_by(self, native: str) -> list[str]:
        """The sessions that started `native` as a sub-agent, and theirs, nearest first."""
        return self._above(native, "subagent")

    def _above(self, native: str, how: str) -> list[str]:
        out: list[str] = []
        parent, relation = self._parent(native)
        while parent is not None and relation == how and len(out) < FORK_DEPTH and parent not in out:
            out.append(parent)
            parent, relation = self._parent(parent)
        return out

    def session(self, draft: SessionDraft) -> None:
        number = self._number(draft.native_id)
        fields = {name: getattr(draft, name) for name in _SESSION_FIELDS if getattr(draft, name) is not None}
        if any(titled(fields.get("title"), text) for text in self.erased_texts.get(number, ())):
            del fields["title"]  # taken from erased words
        if self.record.update_session(number, fields) and number not in self.created:
            self.touched.add(number)

    def _number(self, native_id: str) -> int:
        number = self.sessions.get(native_id)
        if number is None:
            number, created = self.record.session_number(
                self.harness, native_id, self.generation, self.source_id
            )
            self.sessions[native_id] = number
            if created:
                self.created.add(number)
                self.next_seq[number], self.keys[number] = 1, set()
            else:
                self.next_seq[number], self.keys[number] = self.record.session_keys(number)
                if any(k.startswith(ERASED_KEY) for k in self.keys[number]):
                    self.erased_keys.add(number)
        return number

    def entry(self, e: EntryDraft, position: int, chunk: Chunk) -> None:
        number = self._number(e.session)
        keys = self.keys[number]
        # Already recorded (a replayed block, a re-read after a crash); an erased entry keeps its key only
        # as a keyed hash, looked for in the sessions that hold one.
        if e.key in keys or (number in self.erased_keys and self.record.erased_key(e.key) in keys):
            return
        keys.add(e.key)
        if not self.next_entry:
            self.next_entry, self.next_raw = self.record.next_ids()
        mark = self.matched.get(position)
        author = e.author
        if author == "owner":
            spans = chunk.spans.get(position)
            if not spans:
                author = "harness"  # nothing of it is the owner's own words
            elif mark is None:
                self.spans.extend((self.next_entry, start, end, tag) for start, end, tag in spans)
        # Entries cut from one line share its record; a line holding erased words keeps none.
        raw = chunk.raw_of[position]
        raw_id: int | None = None
        if raw not in self.matched_raws:
            if raw != self.last_raw:
                self.last_raw, self.last_raw_id = raw, self.next_raw
                self.raws.append((self.next_raw, e.raw))
                self.next_raw += 1
            raw_id = self.last_raw_id
        seq = self.next_seq[number]
        self.next_seq[number] = seq + 1
        if mark is not None:
            digest, at, reason = mark
            self.erased.append(
                (self.next_entry, number, seq, author, e.kind, TOMBSTONE.format(at=at, reason=reason),
                 e.timestamp, self.record.erased_key(e.key), self.source_id, e.line, e.row, e.native_id,
                 e.native_parent, e.group, e.tool, int(e.sidechain), None, at, reason)
            )
            self.erased_hashes.append(digest)
            self.erased_texts.setdefault(number, []).append(e.text)
            self.erased_now.append((number, e.text))
        else:
            self.entries.append(
                (self.next_entry, number, seq, author, e.kind, e.text, e.timestamp, e.key, self.source_id,
                 e.line, e.row, e.native_id, e.native_parent, e.group, e.tool, int(e.sidechain), raw_id)
            )
            self.kept[position] = self.next_entry
        self.next_entry += 1

    def flush(self, chunk: Chunk) -> None:
        """Write what this chunk added, with its exact strings and failed calls."""
        if self.raws:
            packed = pack([raw for _, raw in self.raws])
            self.record.append_raws([(n, blob) for (n, _), blob in zip(self.raws, packed, strict=True)])
        if self.entries:
            kept = self.kept
            strings = [(kept[p], kind, key) for p, kind, key in chunk.strings if p in kept]
            failures = [(kept[p],) for p in chunk.failures if p in kept]
            self.record.append_entries(self.entries, (strings, failures), key_order=self.keys_in_order)
        if self.erased:
            tombstones.append(self.record, self.erased, self.erased_hashes, self.generation)
            for number, text in self.erased_now:
                self.record.forget_names(number, text)
            self.born_erased += len(self.erased)
        if self.entries or self.erased:
            added = len(self.entries) + len(self.erased)
            self.report.entries_added += added
            counts = self.report.per_harness.setdefault(self.harness, {})
            counts["entries_added"] = counts.get("entries_added", 0) + added
            numbers = {row[1] for row in self.entries} | {row[1] for row in self.erased}
            self.record.set_counts([(self.next_seq[n] - 1, n) for n in numbers])
            self.touched.update(numbers - self.created)
        if self.spans:
            self.record.add_spans(self.spans)
        self.entries, self.raws, self.spans, self.kept = [], [], [], {}
        self.erased, self.erased_hashes, self.erased_now = [], [], []
        self.next_raw = self.next_entry = 0
        self.last_raw = -1


def _mark_of(marks: dict[tuple[str, str], tuple[str, str]] | None, sessions: Sequence[str]
             ) -> tuple[str, str] | None:
    """The (time, reason) of an erasure `marks` hold in the first of `sessions` they name, by any author."""
    for native in sessions if marks else ():
        for (where, _), mark in marks.items() if marks else ():
            if where == native:
                return mark
    return None


def _due(cursor: Cursor) -> bool:
    """Whether a reader that held something back asked to look again by now, though the source is unchanged
    (`recheck_at` in its cursor's state: an OpenCode turn left half-done counts as abandoned then)."""
    at = cursor.state.get("recheck_at")
    return isinstance(at, str) and at <= datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True, slots=True)
class _Planned:
    """A source to read: its row in the record, from where, the fingerprint taken before reading."""

    source: Source
    row_id: int
    generation: int
    cursor: Cursor
    fingerprint: str


@dataclass
class Syncer:
    """One sync run over the chosen harnesses."""

    record: Record
    harnesses: Sequence[str] = HARNESSES
    env: Mapping[str, str] | None = None
    roots: Mapping[str, Path] | None = None
    progress: Progress | None = None
    explicit: bool = False
    processes: int = 1
    wait: float | None = None  # seconds to wait for another sync's lock; None: as long as it takes
    report: SyncReport = field(default_factory=SyncReport)
    _pending: int = 0
    _bulk: bool = False

    def run(self) -> SyncReport:
        env = self.env if self.env is not None else os.environ
        vector_budget(env)  # a bad budget is refused before anything is written, not after the commit
        work = self._discover()
        with sync_lock(self.record.path, self.wait):
            self.record.begin()
            ahead: ReadAhead | None = None
            try:
                planned = [self._plan(reader, source) for reader, source in work]
                chosen = [p for p in planned if p is not None]
                jobs = [Job(p.source, p.cursor) for p in chosen]
                incoming, after = to_read(jobs), _parallel_after(self.processes)
                self._bulk = self.record.defer_string_indexes(incoming, BULK_BYTES)
                if not self._bulk:
                    self.record.build_string_indexes()  # a sync killed after dropping them left them out
                ahead = ReadAhead(jobs, second=after >= 0 and incoming >= after)
                done = len(work) - len(chosen)
                for index, plan in enumerate(chosen):
                    if self.progress:
                        self.progress(done + index, len(work), plan.source.key)
                    self._read(plan, ahead.parts(index))
                self.record.build_string_indexes()
                self.record.commit()
            except BaseException:
                self.record.rollback()
                raise
            finally:
                if ahead is not None:
                    ahead.close()
            self.report.processes = ahead.processes
            self.record.optimize()
        if self.progress:
            self.progress(len(work), len(work), "")
        self._totals()
        self._embed(env)
        return self.report

    def _embed(self, env: Mapping[str, str]) -> None:
        """Meaning vectors for new entries, within a time budget; the rest wait for the next sync."""
        from total_recall.indexes import vectors

        budget = vector_budget(env)
        if budget <= 0 or not vectors.pending(self.record.db, 1) or not vectors.available():
            return
        shown = self.progress
        embedded, done = vectors.index_pending(
            self.record.db, budget,
            (lambda n, total: shown(n, total, "meaning vectors")) if shown else None)
        remaining = 0 if done else vectors.pending_count(self.record.db)
        self.report.vectors = {"embedded": embedded, "pending": remaining}

    def _commit_point(self) -> bool:
        """Commit when enough is pending: everything written so far, with the cursors that cover it;
        returns whether it did."""
        if self._pending < COMMIT_BYTES:
            return False
        self.record.commit()
        self.record.begin()
        self._pending = 0
        return True

    def _discover(self) -> list[tuple[Reader, Source]]:
        work: list[tuple[Reader, Source]] = []
        for harness in self.harnesses:
            explicit_root = (self.roots or {}).get(harness)
            try:
                roots = resolve_roots(harness, self.env, explicit_root)
            except ConfigError as exc:
                if self.explicit or explicit_root is not None or _override_set(harness, self.env):
                    self.report.errors.append(str(exc))
                    # Still reported with what the record holds of it: unread is not gone.
                    self.report.per_harness.setdefault(harness, {})
                else:
                    self.report.notices.append(str(exc))
                continue
            reader = reader_for(harness)
            self.report.per_harness.setdefault(harness, {})
            for root in roots:
                try:
                    work.extend((reader, s) for s in reader.sources(root.path))
                except OSError as exc:
                    self.report.errors.append(f"{root.path}: cannot list: {exc.strerror or exc}")
        return work

    def _plan(self, reader: Reader, source: Source) -> _Planned | None:
        """Whether and from where to read a source: None when it is unchanged since the last sync (or
        cannot be looked at). A source rewritten under bytes already read starts a new generation."""
        record = self.record
        row = record.source(source.harness, source.key, str(source.path), source.kind)
        try:
            fingerprint = reader.fingerprint(source)
        except OSError as exc:
            self.report.errors.append(f"{source.path}: cannot stat: {exc.strerror or exc}")
            return None
        if row.fingerprint == fingerprint and row.read_error is None and not _due(row.cursor):
            self.report.sources_skipped += 1
            return None
        self.report.sources_read += 1
        cursor, generation = row.cursor, row.generation
        if (cursor.offset or cursor.line) and not reader.unchanged_prefix(source, cursor):
            generation = record.new_generation(row.id)
            cursor = Cursor()
            self.report.generations += 1
            self.report.warnings.append(
                ReadWarning(str(source.path), f"rewritten under what was read: generation {generation}")
            )
        return _Planned(source, row.id, generation, cursor, fingerprint)

    def _read(self, plan: _Planned, parts: Iterator[Part]) -> None:
        record, source = self.record, plan.source
        batch = _Batch(record, plan.row_id, source.harness, plan.generation, self.report, not self._bulk)
        error: str | None = None
        warned: set[ReadWarning] = set()  # a source read on after a second process died repeats some
        for part in parts:
            if isinstance(part, End):
                error = part.error
                break
            checkpoint: Checkpoint | None = None
            batch.scan(part)
            for position, item in enumerate(part.items):
                if isinstance(item, EntryDraft):
                    batch.entry(item, position, part)
                elif isinstance(item, SessionDraft):
                    batch.session(item)
                elif isinstance(item, ReadWarning):
                    if item not in warned:
                        warned.add(item)
                        self.report.warnings.append(item)
                elif isinstance(item, Checkpoint):
                    checkpoint = item
            batch.flush(part)
            self._pending += part.size
            if checkpoint is not None:
                record.save_cursor(plan.row_id, str(source.path), checkpoint.cursor)
                if self._commit_point():
                    batch.marks = None  # an erase may have landed between the commit and the begin
            del part  # read in this process, the next chunk is cut meanwhile: one at a time in memory
        if error is not None:
            self.report.errors.append(error)
        if batch.born_erased:
            self.report.notices.append(
                f"{source.path}: {batch.born_erased} entries recorded erased: their text was erased in an "
                "earlier generation of this file"
            )
        record.finish_source(plan.row_id, plan.fingerprint, error)
        self.report.sessions_added += len(batch.created)
        self.report.sessions_updated += len(batch.touched - batch.created)
        counts = self.report.per_harness.setdefault(source.harness, {})
        counts["sessions_added"] = counts.get("sessions_added", 0) + len(batch.created)

    def _totals(self) -> None:
        for harness, sessions, entries in self.record.execute(
            "SELECT harness, COUNT(*), COALESCE(SUM(entries), 0) FROM sessions GROUP BY harness"
        ):
            if harness in self.report.per_harness:
                counts = self.report.per_harness[harness]
                counts["sessions"] = sessions
                counts["entries"] = entries


def sync_lock(record: Path, wait: float | None = None) -> AbstractContextManager[None]:
    """One sync at a time per record: a second waits for the first (entry numbers are assigned here),
    for ever, or at most `wait` seconds.

    Raises:
        RecordBusy: another sync held the lock for more than `wait` seconds.
    """
    return held(record.with_name(record.name + ".sync-lock"), wait, lambda: RecordBusy(
        f"{record}: another sync has been writing the record for more than {wait:g} s"))


def vector_budget(env: Mapping[str, str]) -> float:
    """Seconds a sync may spend embedding (`TOTAL_RECALL_VECTOR_BUDGET`, default 20, at most a day); 0: none.

    Raises:
        ConfigError: the variable is not a number of seconds in that range.
    """
    return env_seconds(env, VECTOR_BUDGET_ENV, DEFAULT_VECTOR_BUDGET, 86_400.0)


def processes_from(env: Mapping[str, str]) -> int:
    """How many processes `total-recall sync` may use: TOTAL_RECALL_SYNC_PROCESSES, 2 when unset.

    Raises:
        ConfigError: it is set to something other than 1 or 2.
    """
    processes = env.get(PROCESSES_ENV, "").strip() or "2"
    if processes not in ("1", "2"):
        raise ConfigError(f"{PROCESSES_ENV}={env[PROCESSES_ENV]!r}: give 1 (one process) or 2")
    return int(processes)


def _parallel_after(processes: int) -> int:
    """Bytes a sync must have to read for a second process to read ahead; -1: never."""
    if processes < 2 or (os.cpu_count() or 1) < 2:
        return -1
    return START_AFTER_BYTES


def _override_set(harness: str, env: Mapping[str, str] | None) -> bool:
    e = os.environ if env is None else env
    return bool(e.get(OVERRIDE_VARS[harness], "").strip())


def sync(
    record: Record,
    harnesses: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    roots: Mapping[str, Path] | None = None,
    progress: Progress | None = None,
    processes: int = 1,
    wait: float | None = None,
) -> SyncReport:
    """Bring the record up to date with the stores of `harnesses` (all by default).

    A harness named explicitly whose root cannot be used is an error in the report; an unnamed one is a
    notice (no such store on this machine, or the sandbox refused it). Nothing raises for one bad
    source: its error is in the report and the rest still syncs. `processes=2` lets a large sync spawn a
    second process (which imports the caller's `__main__` as multiprocessing's spawn does, so only
    entry points that guard theirs ask for it: `total-recall sync`). `wait` bounds, in seconds, how long
    it waits for another sync to finish (a hook must not wait long): RecordBusy past it.
    """
    chosen = list(harnesses) if harnesses else list(HARNESSES)
    for h in chosen:
        if h not in HARNESSES:
            raise ConfigError(f"unknown harness {h!r} (known: {', '.join(HARNESSES)})")
    if processes not in (1, 2):
        raise ConfigError(f"processes={processes!r}: give 1 or 2")
    return Syncer(record, chosen, env, roots, progress, explicit=bool(harnesses), processes=processes,
                  wait=wait).run()
