"""Reading ahead: sources read, parsed and prepared for writing, in a second process while the sync writes.

A first sync of a large store spends about as long in Python (parsing lines, the owner's spans, exact
strings) as in SQLite. None of that needs the record, so when a sync has enough to read, a second
process prepares the next chunks while the sync numbers and writes the one before. Chunks come back in
source order, and numbering, writing and committing stay with the sync, which holds the record: what it
commits, and when, is what a sync in one process commits.

A chunk ends at each checkpoint of its reader (where the sync saves a cursor) or once it holds
FLUSH_BYTES of source records, so one chunk is one flush into the record.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

from total_recall import indexes
from total_recall.config import home_at, record_home
from total_recall.errors import SourceError
from total_recall.model import EntryDraft
from total_recall.readers import Checkpoint, Cursor, Item, Reader, Source, reader_for
from total_recall.record.spans import owner_spans

# Source records a chunk holds before it ends (memory stays flat; one chunk is one flush).
FLUSH_BYTES = 4 << 20
# Bytes to read before a second process pays for its start (~0.2 s): a sync from a hook stays in one.
START_AFTER_BYTES = 16 << 20
# Bytes of parts prepared and not yet taken by the sync: how long a part takes to prepare and to write
# varies from source to source, and a deeper queue keeps both processes busy.
SENDING = 32 << 20
# The pipe's buffer, as large as Linux lets anyone make one without privileges (/proc/sys/fs/pipe-max-size).
PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True, slots=True)
class Job:
    """One source to read from a cursor."""

    source: Source
    cursor: Cursor


@dataclass(slots=True)
class Chunk:
    """A run of one source's items in reading order, with what writing them needs worked out.

    `raw_of[position]` numbers each entry's source record within the chunk (entries cut from one line
    share one); `spans` holds the spans of the owner's words by position (an owner entry missing there
    has none); `strings` the exact-string keys as (position, kind, key), each once per entry; `failures`
    the positions of tool results that say their call failed; `size` the bytes of its source records.
    """

    items: list[Item] = field(default_factory=list)
    raw_of: dict[int, int] = field(default_factory=dict)
    spans: dict[int, list[tuple[int, int, str]]] = field(default_factory=dict)
    strings: list[tuple[int, str, str]] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    size: int = 0


@dataclass(frozen=True, slots=True)
class End:
    """The last part of a job: None, or why the source could not be read on (after what was read)."""

    error: str | None = None


Part = Chunk | End


def prepare(job: Job) -> Iterator[Part]:
    """The chunks of one source from its cursor, then its End."""
    reader = _reader(job.source.harness)
    chunk, records, last_raw = Chunk(), 0, None
    try:
        for item in reader.read(job.source, job.cursor):
            if isinstance(item, EntryDraft):
                if item.raw is not last_raw:  # readers pass one bytes object for the entries of a line
                    if chunk.size >= FLUSH_BYTES:  # never between two entries of one line
                        yield _derived(chunk)
                        chunk, records = Chunk(), 0
                    last_raw = item.raw
                    records += 1
                    chunk.size += len(item.raw)
                position = len(chunk.items)
                chunk.raw_of[position] = records - 1
                chunk.items.append(item)
                if item.author == "owner" and (spans := owner_spans(item.text)):
                    chunk.spans[position] = [(s.start, s.end, s.tag) for s in spans]
            else:
                chunk.items.append(item)
                if isinstance(item, Checkpoint):
                    yield _derived(chunk)
                    chunk, records, last_raw = Chunk(), 0, None
    except SourceError as exc:
        if chunk.items:
            yield _derived(chunk)
        yield End(str(exc))
        return
    if chunk.items:
        yield _derived(chunk)
    yield End()


@functools.cache
def _reader(harness: str) -> Reader:
    return reader_for(harness)  # readers keep per-source state only while a source is read


def _derived(chunk: Chunk) -> Chunk:
    """The chunk with its exact strings and failed calls, by position."""
    chunk.strings, failures = indexes.derive([
        (position, item.kind, item.text, item.tool)
        for position, item in enumerate(chunk.items) if isinstance(item, EntryDraft)
    ])
    chunk.failures = [position for position, in failures]
    return chunk


class ReadAhead:
    """The prepared parts of a sync's jobs, asked for job by job in order: from a second process when
    `second` (and one can be had), else worked out here as they are asked for."""

    def __init__(self, jobs: Sequence[Job], second: bool) -> None:
        self._jobs = list(jobs)
        self._conn: Connection | None = None
        self._process: Any = None
        if second and self._jobs:
            self._start()

    @property
    def processes(self) -> int:
        """2 when a second process was started for this sync, else 1."""
        return 1 if self._process is None else 2

    def parts(self, index: int) -> Iterator[Part]:
        """The parts of job `index`. Should the second process die, the job is read on here from its last
        checkpoint the caller has handled (the caller skips entries it already holds by key)."""
        job = self._jobs[index]
        if self._conn is not None:
            try:
                while True:
                    got, part = self._conn.recv()
                    if got != index:
                        raise RuntimeError(f"read ahead out of order: job {got} while {index} was due")
                    yield part
                    if isinstance(part, End):
                        return
                    if part.items and isinstance(part.items[-1], Checkpoint):
                        job = replace(job, cursor=part.items[-1].cursor)
            except (EOFError, OSError):
                self._stop()  # it died (killed, out of memory): this job and the rest are read here
        yield from prepare(job)

    def close(self) -> None:
        self._stop()

    def _start(self) -> None:
        spawn = multiprocessing.get_context("spawn")  # not fork: the sync holds SQLite and zstd threads
        ours, theirs = spawn.Pipe(duplex=False)
        try:
            self._process = spawn.Process(target=_work, args=(theirs, self._jobs, os.getpid(), record_home()),
                                          daemon=True)
            self._process.start()
        except (OSError, RuntimeError):  # no process to be had (limits): read here
            self._process = None
            return
        finally:
            theirs.close()
        self._conn = ours

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            self._process.kill()
            self._process.join()


def _work(conn: Connection, jobs: list[Job], parent: int, home: Path) -> None:
    """The second process, serving the sync of the record in `home` (copies a reader makes, such as
    store snapshots, go under it: a spawned process does not inherit the CLI's --home)."""
    with home_at(home):
        _serve(conn, jobs, parent)


def _serve(conn: Connection, jobs: list[Job], parent: int) -> None:
    """The second process: prepare every job in order and send its parts, up to SENDING bytes ahead of
    what the sync has taken: a thread writes them, so preparing goes on while the sync is busy writing
    the record. Ctrl-C is left to the sync (which rolls back and stops it); it ends when the sync does,
    even killed outright, at once and without a word: the kernel kills it with its parent (Linux), and
    else a closed pipe or a new parent ends it quietly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.dup2(2, 1)  # stdout may be the sync's protocol channel or a report being read: never ours
    _die_with_parent()
    if os.getppid() != parent:  # the sync died before that took effect
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    with contextlib.suppress(OSError):  # fewer, larger writes: each one waits for the GIL once more
        fcntl.fcntl(conn.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
    outbox = _Outbox()

    def send() -> None:
        while (data := outbox.take()) is not None:
            try:
                conn.send_bytes(data)  # the GIL is released while it writes
            except OSError:  # BrokenPipeError: the sync is gone, and nobody is left to tell
                os._exit(0)

    sender = threading.Thread(target=send)
    sender.start()
    try:
        for index, job in enumerate(jobs):
            for part in prepare(job):
                outbox.put(ForkingPickler.dumps((index, part)))  # what Connection.recv loads
    finally:
        outbox.put(None)
        sender.join()


class _Outbox:
    """Pickled parts waiting to be written, at most SENDING bytes of them (and always one)."""

    def __init__(self) -> None:
        self._items: deque[memoryview | None] = deque()
        self._bytes = 0
        self._changed = threading.Condition()

    def put(self, data: memoryview | None) -> None:
        size = 0 if data is None else data.nbytes
        with self._changed:
            self._changed.wait_for(lambda: not self._items or self._bytes + size <= SENDING)
            self._items.append(data)
            self._bytes += size
            self._changed.notify_all()

    def take(self) -> memoryview | None:
        with self._changed:
            self._changed.wait_for(lambda: bool(self._items))
            data = self._items.popleft()
            self._bytes -= 0 if data is None else data.nbytes
            self._changed.notify_all()
            return data


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies: a prompt, silent end even while this
    process holds the GIL in a long parse (a thread watching the parent would wait for it)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def to_read(jobs: Sequence[Job]) -> int:
    """Roughly how many bytes the jobs will read: a JSONL file from its cursor on (a compressed one counts
    as its size), a database only when it was never read (after that its cursor skips what was read,
    and its file size says nothing of what is new)."""
    total = 0
    for job in jobs:
        try:
            size = job.source.path.stat().st_size if job.source.path.is_file() else 0
        except OSError:
            continue
        if job.source.kind == "jsonl":
            total += max(size - job.cursor.offset, 0)
        elif not job.cursor.state:
            total += size
    return total
