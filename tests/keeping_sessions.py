"""Claude Code sessions written in its native JSONL, for the keeping tests: synced through the real reader."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from total_recall.record.database import Record
from total_recall.record.sync import sync


class ClaudeSession:
    """One session file under a Claude Code root; lines are appended and the record re-synced at will."""

    def __init__(self, root: Path, name: str = "s") -> None:
        self.root = root
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
        self.path = root / "projects" / "-srv-app" / f"{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.parent: str | None = None
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any]) -> None:
        self.n += 1
        node = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.id}/{self.n}"))
        minute, second = divmod(self.n, 60)
        line = {"parentUuid": self.parent, "isSidechain": False, "type": kind, "message": message,
                "uuid": node, "timestamp": f"2026-11-16T10:{minute % 60:02d}:{second:02d}.000Z",
                "sessionId": self.id, "cwd": "/srv/app", "version": "2.1.0"}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        self.parent = node

    def rewind_to(self, line: int) -> ClaudeSession:
        """The next line continues from line number `line` (1-based), as after a rewind in Claude Code:
        what followed it becomes a side branch."""
        self.parent = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.id}/{line}"))
        return self

    def owner(self, text: str) -> ClaudeSession:
        self._line("user", {"role": "user", "content": text})
        return self

    def agent(self, text: str) -> ClaudeSession:
        self._line("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]})
        return self

    def tool(self, command: str, output: str) -> ClaudeSession:
        call = f"toolu_{self.n:08d}"
        self._line("assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]})
        self._line("user", {"role": "user", "content": [
            {"tool_use_id": call, "type": "tool_result", "content": output, "is_error": False}]})
        return self

    def sync(self, record: Record) -> int:
        """Sync the root into the record; returns the session's number."""
        report = sync(record, ["claude-code"], roots={"claude-code": self.root})
        assert report.errors == [], report.errors
        return next(s.number for s in record.sessions() if s.native_id == self.id)
