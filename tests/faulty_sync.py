"""`total-recall` with faults injected from the test side, for tests of a sync killed or cut small:

    python tests/faulty_sync.py --home H sync --json

The faults come from this launcher's own variables (total_recall never reads them), each a whole number:

    FAULTY_SYNC_KILL_AT_CHECKPOINT   SIGKILL the sync at its Nth reader checkpoint, after the batch before it
                                     is written and before any commit
    FAULTY_SYNC_COMMIT_BYTES         commit once N bytes are pending (record/sync.py's COMMIT_BYTES)
    FAULTY_SYNC_PARALLEL_AFTER_BYTES read ahead in a second process from N bytes to read (START_AFTER_BYTES)
    FAULTY_SYNC_BULK_BYTES           build the exact-string indexes at the end of a sync reading N bytes or
                                     more (BULK_BYTES)
    FAULTY_SYNC_FLUSH_BYTES          chunks end at N bytes of source records (read_ahead.FLUSH_BYTES)
    FAULTY_SYNC_WORKER_DIES          the second process dies after sending N chunks, as one killed or out of
                                     memory would (exit 1, saying so on stderr)

The second process is spawned: multiprocessing runs this file again in it as `__mp_main__`, with the same
environment, before it unpickles its work. So the faults are applied at module level, outside the
`__main__` guard, and hold there too (FLUSH_BYTES and the dying sender matter only there).
"""

from __future__ import annotations

import os
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

from total_recall.record import read_ahead as ahead
from total_recall.record import sync
from total_recall.surfaces.cli import main

PREFIX = "FAULTY_SYNC_"
# Faults that set a module's constant: the module and the name it reads the constant by when it is used.
CONSTANTS = {"COMMIT_BYTES": (sync, "COMMIT_BYTES"), "PARALLEL_AFTER_BYTES": (sync, "START_AFTER_BYTES"),
             "BULK_BYTES": (sync, "BULK_BYTES"), "FLUSH_BYTES": (ahead, "FLUSH_BYTES")}
NAMES = (*CONSTANTS, "KILL_AT_CHECKPOINT", "WORKER_DIES")


def _faults() -> dict[str, int]:
    faults = {}
    for var, value in os.environ.items():
        if var.startswith(PREFIX):
            name = var.removeprefix(PREFIX)
            if name not in NAMES:  # a misspelt fault would leave a test checking nothing
                sys.exit(f"faulty_sync: unknown fault {var} (known: {', '.join(PREFIX + n for n in NAMES)})")
            faults[name] = int(value)
    return faults


def _kill_at_checkpoint(n: int) -> None:
    commit_point = sync.Syncer._commit_point
    seen = 0

    def killing(self: sync.Syncer) -> None:
        nonlocal seen
        seen += 1
        if seen >= n:
            os.kill(os.getpid(), signal.SIGKILL)
        commit_point(self)

    sync.Syncer._commit_point = killing  # type: ignore[method-assign]


class _DyingConnection:
    """The second process's end of the pipe, which dies as it is asked to send chunk `after` + 1."""

    def __init__(self, conn: Connection, after: int) -> None:
        self._conn, self._after, self._sent = conn, after, 0

    def send_bytes(self, data: Any) -> None:
        if self._sent == self._after:
            sys.stderr.write(f"faulty_sync: the second process dies after {self._sent} chunks\n")
            sys.stderr.flush()
            os._exit(1)
        self._conn.send_bytes(data)
        self._sent += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _worker_dies(after: int) -> None:
    serve = ahead._serve

    def dying(conn: Connection, jobs: list[ahead.Job], parent: int) -> None:
        serve(_DyingConnection(conn, after), jobs, parent)  # type: ignore[arg-type]

    ahead._serve = dying


FAULTS = _faults()
for fault, (module, constant) in CONSTANTS.items():
    if fault in FAULTS:
        if not hasattr(module, constant):  # renamed in src/: setting it would change nothing
            sys.exit(f"faulty_sync: {module.__name__} has no {constant} for {PREFIX}{fault}")
        setattr(module, constant, FAULTS[fault])
if "KILL_AT_CHECKPOINT" in FAULTS:
    _kill_at_checkpoint(FAULTS["KILL_AT_CHECKPOINT"])
if "WORKER_DIES" in FAULTS:
    _worker_dies(FAULTS["WORKER_DIES"])

if __name__ == "__main__":
    main()
