"""Reading a source whole through a reader, for reader tests."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from total_recall.model import EntryDraft, ReadWarning, SessionDraft
from total_recall.readers import Checkpoint, Cursor, Reader, Source


@dataclass
class Read:
    sessions: dict[str, SessionDraft] = field(default_factory=dict)
    entries: list[EntryDraft] = field(default_factory=list)
    warnings: list[ReadWarning] = field(default_factory=list)
    cursor: Cursor | None = None

    def of(self, session: str) -> list[EntryDraft]:
        return [e for e in self.entries if e.session == session]


def read_all(reader: Reader, source: Source, cursor: Cursor | None = None) -> Read:
    """Every item of one source, with session drafts merged the way the record merges them."""
    out = Read()
    for item in reader.read(source, cursor or Cursor()):
        if isinstance(item, SessionDraft):
            known = out.sessions.get(item.native_id)
            if known is None:
                out.sessions[item.native_id] = item
            else:
                for name in ("title", "cwd", "parent_native", "relation", "started", "ended", "meta"):
                    if getattr(item, name) is not None:
                        setattr(known, name, getattr(item, name))
        elif isinstance(item, EntryDraft):
            assert item.session in out.sessions, f"entry before its session draft: {item}"
            out.entries.append(item)
        elif isinstance(item, ReadWarning):
            out.warnings.append(item)
        elif isinstance(item, Checkpoint):
            out.cursor = item.cursor
    return out


def unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """`folder` cannot be listed, as a folder of another user's is (root, running the tests, may list
    anything)."""
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if isinstance(path, str | os.PathLike) and Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
