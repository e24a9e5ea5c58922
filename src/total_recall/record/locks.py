"""Locks beside the record: a private file per purpose, held with flock for as long as a block runs.

`record.sqlite3.open-lock` is held while a process creates or migrates the record, `record.sqlite3.sync-lock`
while a sync assigns entry numbers, `record.sqlite3.erase-lock` by an erase (alone) and by the replies read
from the record (shared: see `erasure.replying`). The kernel drops a lock when its holder dies, so a killed
process never leaves the record locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from total_recall.config import PRIVATE_FILE

# How often a bounded wait tries again: a lock is held for milliseconds (a migration) to minutes (a sync).
RETRY_SECONDS = 0.01


@contextmanager
def held(path: Path, wait: float | None, busy: Callable[[], Exception], shared: bool = False
         ) -> Iterator[None]:
    """Hold the lock file `path` (created 0600) within the block, alone or `shared` with other holders
    sharing it: waiting for ever when `wait` is None, else at most `wait` seconds, then raising `busy()`."""
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        if wait is None:
            fcntl.flock(fd, mode)
        else:
            # flock has no timeout of its own: try, and try again until the deadline.
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise busy() from None
                    time.sleep(RETRY_SECONDS)
        yield
    finally:
        os.close(fd)  # closing releases the lock
