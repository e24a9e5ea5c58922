"""Claude Code transcript lines for the keeping tests, cut from the real fixtures' own lines.

Each line starts as a copy of a line a real Claude Code wrote (the 2.1.114 recording and its subagent
file, the compact-boundary fixture) and only the ids, times and texts change, so what the reader sees
has the shape Claude Code writes. `Transcript` appends them to a session file in a fixture-store copy,
the way Claude Code appends to a live session.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import SESSIONS

CLAUDE = SESSIONS / "claude_code"
REAL = CLAUDE / "real_v2.1.114_worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
SUBAGENT = (CLAUDE / "real_v2.1.114_worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1" / "subagents"
            / "agent-aef063ba534d73153.jsonl")
COMPACT = CLAUDE / "synthetic_compact_after_rewind_dag.jsonl"


def _line(path: Path, want: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for raw in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(raw)
        if isinstance(obj, dict) and want(obj):
            return obj
    raise LookupError(f"no such line in {path}")


def _content(obj: dict[str, Any]) -> list[Any]:
    content = obj.get("message", {}).get("content")
    return content if isinstance(content, list) else []


def _is_owner_text(o: dict[str, Any]) -> bool:
    return (o.get("type") == "user" and not o.get("isMeta") and isinstance(o["message"].get("content"), str)
            and not o["message"]["content"].startswith("<"))


TEMPLATES = {
    "owner": _line(REAL, _is_owner_text),
    "agent": _line(REAL, lambda o: o.get("type") == "assistant"
                   and [b.get("type") for b in _content(o)] == ["text"]),
    "meta": _line(CLAUDE / "real_v1.0.51_summaries_326189cf.jsonl", lambda o: o.get("isMeta") is True),
    "tool_use": _line(SUBAGENT, lambda o: any(b.get("name") == "Read" for b in _content(o))),
    "tool_result": _line(SUBAGENT, lambda o: any(b.get("type") == "tool_result" for b in _content(o))),
    "boundary": _line(COMPACT, lambda o: o.get("subtype") == "compact_boundary"),
    "summary": _line(COMPACT, lambda o: o.get("isCompactSummary") is True),
}


class Transcript:
    """A Claude Code session file that grows one real-shaped line at a time."""

    def __init__(self, path: Path, cwd: str, start: datetime | None = None) -> None:
        self.path = path
        self.session_id = path.stem
        self.cwd = cwd
        self.clock = start or datetime.now(UTC) - timedelta(hours=2)
        self.parent: str | None = None
        self._ids = itertools.count(1)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def _next(self, kind: str, **fields: Any) -> dict[str, Any]:
        obj = copy.deepcopy(TEMPLATES[kind])
        n = next(self._ids)
        self.clock += timedelta(minutes=1)
        obj.update(uuid=f"{self.session_id[:8]}-{n:04d}", parentUuid=self.parent, sessionId=self.session_id,
                   cwd=self.cwd, timestamp=self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"), isSidechain=False)
        obj.pop("agentId", None)
        obj.update(fields)
        self.parent = obj["uuid"]
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(obj) + "\n")
        return obj

    def owner(self, text: str) -> None:
        obj = copy.deepcopy(TEMPLATES["owner"]["message"])
        obj["content"] = text
        self._next("owner", message=obj)

    def meta(self, text: str) -> None:
        obj = copy.deepcopy(TEMPLATES["meta"]["message"])
        obj["content"] = text
        self._next("meta", message=obj)

    def agent(self, text: str) -> None:
        msg = copy.deepcopy(TEMPLATES["agent"]["message"])
        msg["id"] = f"msg_{next(self._ids):08d}"
        msg["content"][0]["text"] = text
        self._next("agent", message=msg)

    def tool(self, name: str, args: dict[str, Any], output: str) -> None:
        call_id = f"toolu_{self.session_id[:6]}{next(self._ids):06d}"
        use = copy.deepcopy(TEMPLATES["tool_use"]["message"])
        use["id"] = f"msg_{next(self._ids):08d}"
        use["content"] = [{**use["content"][0], "id": call_id, "name": name, "input": args}]
        self._next("tool_use", message=use)
        result = copy.deepcopy(TEMPLATES["tool_result"]["message"])
        result["content"] = [{**result["content"][0], "tool_use_id": call_id, "content": output}]
        self._next("tool_result", message=result, toolUseResult={"type": "text"})

    def read(self, path: Path, first: int = 1, count: int | None = None) -> None:
        """A Read of `path` shown the way Claude Code 2.1 shows it: `N\\tline`."""
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        shown = lines[first - 1:] if count is None else lines[first - 1:first - 1 + count]
        output = "\n".join(f"{first + i}\t{line}" for i, line in enumerate(shown))
        args: dict[str, Any] = {"file_path": str(path)}
        if first != 1 or count is not None:
            args.update(offset=first, limit=count)
        self.tool("Read", args, output)

    def compacted(self, trigger: str, summary: str) -> None:
        """What Claude Code writes after it compacts: a boundary, then its own summary, stamped now (after
        any PreCompact hook that ran for it)."""
        self.clock = max(self.clock, datetime.now(UTC))
        boundary = self._next("boundary", parentUuid=None, logicalParentUuid=self.parent,
                              compactMetadata={"trigger": trigger, "preTokens": 150000})
        self.parent = boundary["uuid"]
        msg = copy.deepcopy(TEMPLATES["summary"]["message"])
        msg["content"][0]["text"] = summary
        self._next("summary", message=msg)


def hook_json(event: str, transcript: Transcript, **fields: Any) -> str:
    """A hook's stdin JSON with the common fields Claude Code documents."""
    payload = {"session_id": transcript.session_id, "transcript_path": str(transcript.path),
               "cwd": transcript.cwd, "permission_mode": "default", "hook_event_name": event, **fields}
    return json.dumps(payload)
