"""Scratch copies of every fixture store, laid out as real roots, and a way to prove they never change."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SESSIONS
from total_recall.record.database import Record
from total_recall.record.sync import sync

OVERRIDES = {
    "claude-code": "TOTAL_RECALL_CLAUDE_ROOT",
    "codex": "TOTAL_RECALL_CODEX_ROOT",
    "opencode": "TOTAL_RECALL_OPENCODE_ROOT",
    "vibe": "TOTAL_RECALL_VIBE_ROOT",
    "openclaw": "TOTAL_RECALL_OPENCLAW_ROOT",
}


def point_roots(monkeypatch: pytest.MonkeyPatch, roots: dict[str, Path]) -> None:
    """Set each harness's root variable to its folder in `roots`, made when missing."""
    for harness, root in roots.items():
        root.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(OVERRIDES[harness], str(root))


def empty_roots(base: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A folder of its own under `base` for every harness, each pointed at; returns them."""
    roots = {harness: base / harness for harness in OVERRIDES}
    point_roots(monkeypatch, roots)
    return roots


@dataclass
class Stores:
    """Five harness roots under one folder, with the env that points Total Recall at them."""

    base: Path
    roots: dict[str, Path]

    @property
    def env(self) -> dict[str, str]:
        return {OVERRIDES[h]: str(p) for h, p in self.roots.items()}

    def point(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Point Total Recall at these roots (each harness's variable), as a user's environment would."""
        point_roots(monkeypatch, self.roots)

    def digest(self) -> dict[str, str]:
        """sha256 of every file under every root, a db and its -wal included.

        A `-shm` file is left out: it is SQLite's shared-memory index, not data, and every WAL reader —
        OpenCode's own, or a `mode=ro` one — must write its read marks there.
        """
        out = {}
        for path in sorted(self.base.rglob("*")):
            if path.is_file() and not path.name.endswith("-shm"):
                out[str(path.relative_to(self.base))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return out


@contextmanager
def fixture_stores(base: Path) -> Iterator[Stores]:
    """Copies of every fixture store; OpenCode's db is built from its dump and held open in WAL mode
    by a writer for the whole block, the way a running OpenCode holds it, so its -wal file exists."""
    roots = {
        "claude-code": base / "claude",
        "codex": base / "codex",
        "opencode": base / "opencode",
        "vibe": base / "vibe",
        "openclaw": base / "openclaw",
    }
    shutil.copytree(SESSIONS / "claude_code", roots["claude-code"])
    shutil.copytree(SESSIONS / "codex", roots["codex"])
    shutil.copytree(SESSIONS / "vibe" / "logs" / "session", roots["vibe"])
    shutil.copytree(SESSIONS / "openclaw", roots["openclaw"])
    roots["opencode"].mkdir()
    shutil.copytree(SESSIONS / "opencode" / "json_storage_legacy" / "storage", roots["opencode"] / "storage")
    for p in base.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)  # shared/ is read-only; the copies must be deletable by pytest
    writer = build_opencode_db(roots["opencode"] / "opencode.db")
    try:
        yield Stores(base, roots)
    finally:
        writer.close()


def build_opencode_db(path: Path) -> sqlite3.Connection:
    """A real OpenCode db from the recorded dump, in WAL mode, with an uncheckpointed write in its -wal."""
    sql = (SESSIONS / "opencode" / "sqlite_1.18.33" / "opencode.sql").read_text(encoding="utf-8")
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(sql)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("UPDATE session SET time_updated = time_updated + 1")  # lands in the -wal only
    return db


def synced_transcript(tmp_path: Path, turns: list[tuple[str, str, str]], cwd: str = "/rerank") -> Record:
    """One Claude Code session of plain (role, text, timestamp) turns, synced into a fresh record."""
    folder = tmp_path / "projects" / ("-" + cwd.strip("/").replace("/", "-"))
    folder.mkdir(parents=True)
    sid = "11111111-2222-4333-8444-555555555555"
    lines, parent = [], None
    for i, (role, text, ts) in enumerate(turns):
        uid = f"00000000-0000-4000-8000-{i:012d}"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({
            "type": role, "uuid": uid, "parentUuid": parent, "sessionId": sid, "cwd": cwd,
            "isSidechain": False, "timestamp": ts, "message": {"role": role, "content": content},
        }))
        parent = uid
    (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    record = Record(tmp_path / "record.sqlite3")
    assert sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"}).errors == []
    return record
