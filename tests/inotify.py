"""The kernel's view of writes under a folder tree, for tests: inotify through ctypes (Linux only).

A content snapshot misses a file opened for writing and closed unchanged, or created and deleted again;
inotify reports each such open (IN_CLOSE_WRITE), creation and deletion as it happens, synchronously with
the system call, so reading the queue after the code under test returns needs no waiting.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_Q_OVERFLOW = 0x4000
WRITES = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
NAMES = {IN_MODIFY: "MODIFY", IN_ATTRIB: "ATTRIB", IN_CLOSE_WRITE: "CLOSE_WRITE", IN_MOVED_FROM: "MOVED_FROM",
         IN_MOVED_TO: "MOVED_TO", IN_CREATE: "CREATE", IN_DELETE: "DELETE", IN_Q_OVERFLOW: "Q_OVERFLOW"}
_HEADER = struct.Struct("iIII")


@dataclass(frozen=True)
class Event:
    path: Path
    kinds: tuple[str, ...]


class WriteWatch:
    """Watches every folder under `top` (as it is when the watch starts) for writes of any kind."""

    def __init__(self, top: Path, mask: int = WRITES) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._folders: dict[int, Path] = {}
        for folder in [top, *(p for p in sorted(top.rglob("*")) if p.is_dir() and not p.is_symlink())]:
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), mask)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch failed on {folder}")
            self._folders[wd] = folder

    def events(self) -> list[Event]:
        """Every event queued so far (the queue is drained)."""
        out: list[Event] = []
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    return out
                raise
            pos = 0
            while pos < len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, pos)
                name = data[pos + _HEADER.size : pos + _HEADER.size + size].rstrip(b"\0")
                pos += _HEADER.size + size
                folder = self._folders.get(wd, Path("?"))
                kinds = tuple(label for bit, label in NAMES.items() if mask & bit)
                out.append(Event(folder / os.fsdecode(name) if name else folder, kinds))

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> WriteWatch:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
