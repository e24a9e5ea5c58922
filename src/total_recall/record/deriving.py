"""Deriving: the exact strings and failed calls of appended entries, worked out beside the sync.

Extracting exact strings is about a fifth of a full sync's time and needs nothing from the record, so once a
sync has read enough for a second process to pay for its start, batches go to one while the sync reads
and writes on. Every result is written into the sync's own transaction before it commits (`drain`), so
a crash loses derived rows only together with the entries they belong to.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from total_recall.find import index

# Entries' text read by a sync before a second process starts: an incremental sync from a hook stays in
# one process (starting one costs ~0.1 s), a first sync of years of sessions gets two cores.
START_AFTER_CHARS = 16 << 20
# Batches handed over and not yet written back; past this the sync waits, so memory stays flat.
MAX_PENDING = 2
# Test hook: the worker dies as it starts, as one killed or out of memory would.
WORKER_DIES_ENV = "TOTAL_RECALL_TEST_WORKER_DIES"


def _serve(parent: int) -> None:
    """Start a worker: Ctrl-C is left to the sync (which rolls back and stops it), and the worker ends
    when the sync does, even killed outright (a pool's worker would wait forever, holding the sync's
    stdout open for whoever reads it)."""
    if os.environ.get(WORKER_DIES_ENV):
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.dup2(2, 1)  # stdout may be the sync's protocol channel or a report being read: never the worker's

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class Deriver:
    """Writes the derived rows of appended entries, in a second process once there is enough to read."""

    def __init__(self, db: sqlite3.Connection, start_after: int = START_AFTER_CHARS) -> None:
        """`start_after` < 0: never start a second process."""
        self._db = db
        self._start_after = start_after
        self._read = 0
        self._pool: ProcessPoolExecutor | None = None
        self._started = False
        self._pending: list[tuple[Future[index.Derived], list[index.Slim]]] = []

    @property
    def processes(self) -> int:
        """2 once a second process was started for this sync, else 1."""
        return 2 if self._started else 1

    def add(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Derive appended entry rows (see Store.append_entries with `derived_later`)."""
        slim = index.slim(rows)
        self._read += sum(len(r[2]) for r in slim)
        if self._pool is None and (self._start_after < 0 or self._read < self._start_after):
            index.add_derived(self._db, index.derive(slim))
            return
        try:
            if self._pool is None:
                # spawn, not fork: the sync holds an open SQLite connection and zstd's threads.
                spawn = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(1, mp_context=spawn, initializer=_serve,
                                                 initargs=(os.getpid(),))
                self._started = True
            self._pending.append((self._pool.submit(index.derive, slim), slim))
        except (OSError, RuntimeError):  # no process to be had (limits, shutting down): derive here
            self._stop()
            index.add_derived(self._db, index.derive(slim))
        while len(self._pending) > MAX_PENDING:
            self._write_oldest()

    def drain(self) -> None:
        """Write every pending result: call before the transaction commits."""
        while self._pending:
            self._write_oldest()

    def close(self) -> None:
        """Stop the worker; pending results are dropped (the caller rolls back, or drained first)."""
        self._pending.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _write_oldest(self) -> None:
        future, slim = self._pending.pop(0)
        try:
            derived = future.result()
        except (BrokenProcessPool, CancelledError):
            # The worker died (killed, out of memory): this batch and the rest are worked out here.
            self._stop()
            derived = index.derive(slim)
        index.add_derived(self._db, derived)

    def _stop(self) -> None:
        """Derive in this process from now on."""
        self._start_after = -1
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
