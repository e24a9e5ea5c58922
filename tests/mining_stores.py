"""A record for the mining tests: every fixture store, plus one recent session per harness in its native
format with what the fixtures lack — todo edits in each harness's spelling, git commit/push/tag, a question
tool — and the OpenCode rows of prompt-cult's own todo/git tests.

The added sessions are written into the scratch copies of the stores (never into shared/), dated within
the last hours so the tools' default windows hold them; the fixtures themselves are months old.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import PROMPT_CULT
from tests.stores import Stores, fixture_stores
from total_recall.ops import Call, by_name
from total_recall.record.database import Record
from total_recall.record.sync import sync

# Words and values the tests look for.
QUESTION = "Which branch do we release from?"
ANSWER = "main"
GIT_COMMAND = "git commit -am 'changelog for 1.2' && git tag v1.2 && git push origin main --tags"
CWD = "/work/tr-mining"


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _claude(root: Path, start: datetime) -> None:
    sid = str(uuid.UUID(int=0xC1A0DE))
    lines: list[dict[str, Any]] = []
    parent: str | None = None

    def add(kind: str, message: dict[str, Any], minute: int, **extra: Any) -> None:
        nonlocal parent
        me = str(uuid.uuid5(uuid.NAMESPACE_URL, f"claude-{len(lines)}"))
        lines.append(
            {
                "cwd": CWD,
                "isSidechain": False,
                "message": message,
                "parentUuid": parent,
                "sessionId": sid,
                "timestamp": _iso(start + timedelta(minutes=minute)),
                "type": kind,
                "userType": "external",
                "uuid": me,
                "version": "2.1.284",
                **extra,
            }
        )
        parent = me

    def use(n: int, name: str, args: dict[str, Any], result: str, minute: int) -> None:
        add(
            "assistant",
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}],
            },
            minute,
        )
        add(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": result}],
            },
            minute,
        )

    add("user", {"role": "user", "content": "release 1.2 please: what is left before we can tag it?"}, 0)
    add(
        "assistant",
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Two things: the changelog and the tag on the release branch."}
            ],
        },
        1,
    )
    use(
        1,
        "AskUserQuestion",
        {
            "questions": [
                {
                    "question": QUESTION,
                    "header": "Branch",
                    "multiSelect": False,
                    "options": [
                        {"label": "main", "description": "the trunk"},
                        {"label": "release", "description": "cut one"},
                    ],
                }
            ]
        },
        f'User has answered your questions: "{QUESTION}"="{ANSWER}". You can now continue.',
        2,
    )
    use(
        2,
        "TodoWrite",
        {
            "todos": [
                {"content": "write the changelog", "status": "in_progress", "activeForm": "w"},
                {"content": "tag v1.2", "status": "pending", "activeForm": "t"},
            ]
        },
        "Todos have been modified successfully.",
        3,
    )
    use(3, "Bash", {"command": GIT_COMMAND, "description": "commit, tag, push"}, "ok", 4)
    use(
        4,
        "TodoWrite",
        {
            "todos": [
                {"content": "write the changelog", "status": "completed", "activeForm": "w"},
                {"content": "tag v1.2", "status": "completed", "activeForm": "t"},
            ]
        },
        "Todos have been modified successfully.",
        5,
    )
    add(
        "assistant",
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Released 1.2 from the main branch: committed, tagged and pushed."}
            ],
        },
        6,
    )
    _jsonl(root / "-work-tr-mining" / f"{sid}.jsonl", lines)


def _codex(root: Path, start: datetime) -> None:
    sid = str(uuid.UUID(int=0xC0DE))
    stamp = start.strftime("%Y-%m-%dT%H-%M-%S")
    lines: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any], minute: int) -> None:
        lines.append({"timestamp": _iso(start + timedelta(minutes=minute)), "type": kind, "payload": payload})

    def call(n: int, name: str, args: dict[str, Any], output: str, minute: int) -> None:
        add(
            "response_item",
            {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": f"call_{n}"},
            minute,
        )
        add(
            "response_item",
            {"type": "function_call_output", "call_id": f"call_{n}", "output": output},
            minute,
        )

    add(
        "session_meta",
        {
            "id": sid,
            "timestamp": _iso(start),
            "cwd": CWD,
            "originator": "codex_cli_rs",
            "cli_version": "0.158.0",
        },
        0,
    )
    add(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "plan the 1.2 release, then tag it"}],
        },
        0,
    )
    call(
        1,
        "update_plan",
        {
            "plan": [
                {"step": "write the changelog", "status": "in_progress"},
                {"step": "tag v1.2", "status": "pending"},
            ]
        },
        "Plan updated",
        1,
    )
    call(2, "exec_command", {"cmd": GIT_COMMAND}, "ok", 2)
    add("compacted", {"message": "The changelog is written; the tag is next.", "replacement_history": []}, 3)
    call(
        3,
        "update_plan",
        {
            "plan": [
                {"step": "write the changelog", "status": "completed"},
                {"step": "tag v1.2", "status": "completed"},
            ]
        },
        "Plan updated",
        4,
    )
    add(
        "response_item",
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Tagged v1.2 on the main branch."}],
        },
        5,
    )
    day = root / start.strftime("%Y/%m/%d")
    _jsonl(day / f"rollout-{stamp}-{sid}.jsonl", lines)


def _vibe(
    root: Path, start: datetime, sid: str = str(uuid.UUID(int=0x71BE)), title: str = "ship 1.2"
) -> None:
    folder = root / f"session_{start.strftime('%Y%m%d_%H%M%S')}_{sid[-8:]}"
    folder.mkdir(parents=True)
    messages: list[dict[str, Any]] = []

    def call(n: int, name: str, args: dict[str, Any], result: str) -> None:
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "injected": False,
                "tool_calls": [
                    {
                        "id": f"call_{n}",
                        "index": 0,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
                "message_id": f"m{n}a",
            }
        )
        messages.append(
            {"role": "tool", "content": result, "injected": False, "name": name, "tool_call_id": f"call_{n}"}
        )

    messages.append(
        {"role": "user", "content": "ship 1.2: changelog, then tag", "injected": False, "message_id": "m0"}
    )
    call(
        1,
        "todo",
        {
            "action": "write",
            "todos": [
                {"id": "1", "content": "write the changelog", "status": "in_progress", "priority": "high"},
                {"id": "2", "content": "tag v1.2", "status": "pending", "priority": "medium"},
            ],
        },
        "Updated 2 todos",
    )
    call(
        2,
        "ask_user_question",
        {
            "questions": [
                {
                    "question": QUESTION,
                    "header": "Branch",
                    "choices": [{"label": "main"}, {"label": "release"}],
                }
            ]
        },
        f"Q: {QUESTION}\nA: {ANSWER}",
    )
    call(3, "bash", {"command": GIT_COMMAND}, "command: git\nreturncode: 0")
    call(
        4,
        "todo",
        {
            "action": "write",
            "todos": [
                {"id": "1", "content": "write the changelog", "status": "completed", "priority": "high"},
                {"id": "2", "content": "tag v1.2", "status": "completed", "priority": "medium"},
            ],
        },
        "Updated 2 todos",
    )
    messages.append(
        {
            "role": "assistant",
            "content": "Tagged v1.2 on the main branch.",
            "injected": False,
            "message_id": "m9",
        }
    )
    (folder / "messages.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    meta = {
        "session_id": sid,
        "parent_session_id": None,
        "start_time": start.isoformat(),
        "end_time": (start + timedelta(minutes=6)).isoformat(),
        "environment": {"working_directory": CWD},
        "title": title,
        "total_messages": len(messages),
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _openclaw(root: Path, start: datetime) -> None:
    sid = str(uuid.UUID(int=0x0C1A))
    lines: list[dict[str, Any]] = [
        {"cwd": CWD, "id": sid, "timestamp": _iso(start), "type": "session", "version": 3}
    ]
    parent = None

    def add(message: dict[str, Any], minute: int) -> None:
        nonlocal parent
        me = f"e{len(lines):07d}"
        lines.append(
            {
                "id": me,
                "message": message,
                "parentId": parent,
                "timestamp": _iso(start + timedelta(minutes=minute)),
                "type": "message",
            }
        )
        parent = me

    add({"role": "user", "content": [{"type": "text", "text": "tag the release and push the branch"}]}, 0)
    add(
        {
            "role": "assistant",
            "content": [
                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": GIT_COMMAND}}
            ],
            "stopReason": "toolUse",
        },
        1,
    )
    add(
        {
            "role": "toolResult",
            "content": [{"type": "text", "text": "ok\n"}],
            "toolCallId": "call_1",
            "toolName": "bash",
            "isError": False,
        },
        1,
    )
    add(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Pushed the branch and the tag."}],
            "stopReason": "stop",
        },
        2,
    )
    _jsonl(root / "main" / "sessions" / f"{sid}.jsonl", lines)


def _opencode(root: Path, start: datetime) -> None:
    """prompt-cult's OpenCode test rows (todowrite flushes, a git commit, a compaction), and one recent
    session that asked a question through OpenCode's question tool."""
    db = sqlite3.connect(root / "opencode-prompt-cult.db")
    try:
        db.executescript(
            (PROMPT_CULT / "derived" / "opencode_fixture_from_tests.sql").read_text(encoding="utf-8")
        )
        ms = int(start.timestamp() * 1000)
        state = {
            "status": "completed",
            "input": {
                "questions": [
                    {
                        "question": QUESTION,
                        "header": "Branch",
                        "options": [{"label": "main", "description": "the trunk"}],
                    }
                ]
            },
            "output": f'User has answered your questions: "{QUESTION}"="{ANSWER}".',
        }
        db.execute(
            "INSERT INTO session VALUES ('ses_question0001', NULL, ?, 'release questions', ?, ?)",
            (CWD, ms, ms + 60000),
        )
        db.execute(
            "INSERT INTO message VALUES ('qmsg1', 'ses_question0001', ?, ?, ?)",
            (ms, ms, json.dumps({"role": "assistant", "time": {"created": ms, "completed": ms + 5}})),
        )
        db.execute(
            "INSERT INTO part VALUES ('qpart1', 'qmsg1', 'ses_question0001', ?, ?, ?)",
            (ms, ms, json.dumps({"type": "tool", "tool": "question", "callID": "q1", "state": state})),
        )
        db.commit()
    finally:
        db.close()


def long_titled_vibe_session(stores: Stores, started: datetime) -> None:
    """A Vibe session, newer than the others, whose title alone is larger than a 1 KiB budget."""
    _vibe(stores.roots["vibe"], started + timedelta(minutes=30), str(uuid.UUID(int=0x7177E)), "t" * 2000)


def add_recent_sessions(stores: Stores, now: datetime | None = None) -> datetime:
    """Write the recent sessions into the store copies; returns when they started (2 hours ago)."""
    start = (now or datetime.now(UTC)) - timedelta(hours=2)
    _claude(stores.roots["claude-code"], start)
    _codex(stores.roots["codex"], start)
    _vibe(stores.roots["vibe"], start)
    _openclaw(stores.roots["openclaw"], start)
    _opencode(stores.roots["opencode"], start)
    return start


@dataclass
class Mined:
    """A synced record over the fixture stores (and the recent sessions), with the stores' digest."""

    record: Record
    stores: Stores
    digest: dict[str, str]
    started: datetime

    def session(self, harness: str, native_id: str) -> str:
        for s in self.record.sessions((harness,)):
            if s.native_id == native_id:
                return s.address
        raise LookupError(f"{harness} {native_id} not in the record")


def mine(record: Record, tool: str, *, harness: str | None = None, **arguments: Any) -> Any:
    """What the MCP tool `tool` answers on `record` (a server bound to `harness`, if given): its
    text for the tools that answer text, else its JSON reply — the operation called in this process."""
    op = by_name(tool)
    reply = op(Call(record.path, "mcp", harness=harness), **arguments)
    return op.text(reply) if op.text is not None else reply


# The native ids of the recent sessions, per harness.
RECENT = {
    "claude-code": str(uuid.UUID(int=0xC1A0DE)),
    "codex": str(uuid.UUID(int=0xC0DE)),
    "vibe": str(uuid.UUID(int=0x71BE)),
    "openclaw": str(uuid.UUID(int=0x0C1A)),
    "opencode": "ses_question0001",
}


@contextmanager
def mined_record(base: Path, extra: Callable[[Stores, datetime], None] | None = None) -> Iterator[Mined]:
    """Fixture stores plus recent sessions under `base` (and whatever `extra` writes into the store copies),
    synced into a record at `base/record.sqlite3`."""
    with fixture_stores(base / "stores") as stores:
        started = add_recent_sessions(stores)
        if extra is not None:
            extra(stores, started)
        record = Record(base / "record.sqlite3")
        try:
            # Only the override roots, and no embedding (slow, and meaning search is not under test here).
            report = sync(record, env={**stores.env, "TOTAL_RECALL_VECTOR_BUDGET": "0"})
            assert report.errors == [], report.errors
            yield Mined(record, stores, stores.digest(), started)
        finally:
            record.close()
