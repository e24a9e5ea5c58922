"""OpenCode's SQLite store read without touching it: a private copy of the database and its -wal under the
record home's `snapshots/` (`snapshot`), opened as a checked OpenCode database (`connect`), and the copies a
killed sync left there cleared (`clear_left_snapshots`, which an erase calls too: each copy holds the owner's
words, erased ones included).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from total_recall.config import record_home
from total_recall.errors import SourceError

SQLITE_MAGIC = b"SQLite format 3\x00"
REQUIRED_TABLES = ("session", "message", "part")
SNAPSHOT_TRIES = 3


def check_header(path: Path) -> None:
    """Raises SourceError unless `path` can be opened and looks like SQLite (an empty file may be new)."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise SourceError(f"{path}: cannot open: {exc.strerror or exc}") from exc
    if header and not header.startswith(SQLITE_MAGIC):
        raise SourceError(f"{path}: not a SQLite database")


@contextmanager
def snapshot(path: Path) -> Iterator[Path]:
    """A private copy of the database and its -wal (or -journal), deleted when the block ends.

    Opening the store itself, even `mode=ro`, makes SQLite create (or open for writing) the -shm and
    even the -wal beside it whenever a -wal exists or appears; `immutable=1` would ignore the commits
    still in the -wal. A copy is opened instead, in a folder only we can read under the record's home.
    The copy is consistent when the database file did not change from before its copy to after the
    -wal's: the -wal's frames are then a valid history on top of it (a torn last frame is ignored).
    """
    folder = _snapshot_folder()
    tmp = Path(tempfile.mkdtemp(prefix=f"opencode-{os.getpid()}-", dir=folder))
    try:
        copy = tmp / "opencode.db"
        for _ in range(SNAPSHOT_TRIES):
            before = _identity(path)
            try:
                shutil.copyfile(path, copy)
                for suffix in ("-wal", "-journal"):
                    beside, target = side(path, suffix), side(copy, suffix)
                    try:
                        shutil.copyfile(beside, target)
                    except FileNotFoundError:
                        target.unlink(missing_ok=True)
            except OSError as exc:
                raise SourceError(f"{path}: cannot copy for reading: {exc.strerror or exc}") from exc
            if _identity(path) == before:
                break
        else:
            raise SourceError(f"{path}: changed during each of {SNAPSHOT_TRIES} copies; read it next sync")
        yield copy
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _snapshot_folder() -> Path:
    """`<record home>/snapshots` (0700), cleared of copies left by processes that are gone (killed)."""
    home = record_home()
    if not home.exists():
        home.mkdir(parents=True, mode=0o700, exist_ok=True)
    folder = home / "snapshots"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)
    clear_left_snapshots(home)
    return folder


def clear_left_snapshots(home: Path) -> list[Path]:
    """Remove the store copies under `home`'s snapshots that a process now gone left (a sync killed while it
    read): each is a whole copy of the owner's store, erased words included. Returns what was removed."""
    gone = []
    for left in (home / "snapshots").glob("opencode-*-*"):
        pid = left.name.split("-")[1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
            gone.append(left)
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, not ours to signal
    return True


def _identity(path: Path) -> tuple[int, int, int]:
    try:
        st = path.stat()
    except OSError as exc:
        raise SourceError(f"{path}: cannot open: {exc.strerror or exc}") from exc
    return st.st_ino, st.st_size, st.st_mtime_ns


def side(db: Path, suffix: str) -> Path:
    return db.with_name(db.name + suffix)


def connect(copy: Path, path: Path) -> sqlite3.Connection | None:
    """A connection to our private copy `copy` of the store `path` (named in errors); the copy is ours,
    so SQLite may replay its -wal or roll back its -journal there. None for a database with no table yet
    (OpenCode has just created it: an empty file is one).

    Raises:
        SourceError: the copy is not a readable SQLite database, or not an OpenCode one.
    """
    con: sqlite3.Connection | None = None
    try:
        con = sqlite3.connect(f"file:{quote(str(copy))}", uri=True, isolation_level=None, timeout=5.0)
        con.execute("PRAGMA query_only = ON")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        if con is not None:
            con.close()
        raise SourceError(f"{path}: not a readable SQLite database: {exc}") from exc
    if not tables:
        con.close()
        return None
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        con.close()
        raise SourceError(f"{path}: not an OpenCode database (no {', '.join(missing)} table)")
    con.row_factory = sqlite3.Row
    return con
