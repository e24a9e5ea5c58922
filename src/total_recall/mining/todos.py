"""Todo history: a session's todo-list edits, replayed from the agent's own todo tool calls, in every
harness's spelling.

Snapshot tools replace the whole list on each call — Claude Code `TodoWrite`, Codex `update_plan`,
OpenCode `todowrite`, Vibe `todo` (action "write"), and the same names from any other harness — so
consecutive lists are diffed into edits. Claude Code's task tools (`TaskCreate`, `TaskUpdate`) are
incremental and are read as the edits they are. An item keeps its identity by its id when the list gives
one, else by an `itemNN:` slug prefix, else by its text; folding the edits reproduces the lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from total_recall.mining.flood import cap_text
from total_recall.mining.scope import REPORT_MAX_BYTES, check_max_bytes
from total_recall.mining.timeline import load, since_last_compaction
from total_recall.model import Entry, Session
from total_recall.record.database import Record

TODO_TOOL = "todo_history"
# Tool names compared case-insensitively. Snapshot tools carry the whole list.
SNAPSHOT_TOOLS = ("todowrite", "todo_write", "update_plan", "todo", "write_todos", "todo-write")
TASK_CREATE_TOOLS = ("taskcreate",)
TASK_UPDATE_TOOLS = ("taskupdate",)
TOOL_SPELLINGS = ("TodoWrite, TaskCreate/TaskUpdate (Claude Code), update_plan (Codex), "
                  "todowrite (OpenCode), todo (Vibe)")
_SLUG = re.compile(r"^(item\d+):")
_TASK_ID = re.compile(r"Task #(\w+)")
_TEXT_KEYS = ("content", "step", "subject", "title", "text", "description", "task")


@dataclass(frozen=True, slots=True)
class TodoEdit:
    """One edit of the todo list: `action` is added, updated, removed, or the item's new status."""

    address: str
    timestamp: str | None
    tool: str
    action: str
    todo: str
    status: str | None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"address": self.address, "ts": self.timestamp, "tool": self.tool,
                               "action": self.action, "todo": self.todo}
        if self.status is not None:
            out["status"] = self.status
        return out


@dataclass(frozen=True, slots=True)
class TodoCall:
    """One todo tool call and the edits it made; `skipped` says why a call that made none was not read."""

    entry: Entry
    edits: tuple[TodoEdit, ...]
    skipped: str | None = None


def is_todo_tool(tool: str | None) -> bool:
    name = (tool or "").casefold()
    return name in SNAPSHOT_TOOLS or name in TASK_CREATE_TOOLS or name in TASK_UPDATE_TOOLS


def _json(text: str) -> Any:
    """JSON, unwrapping the JSON-in-a-string some harnesses store."""
    value: Any = orjson.loads(text)
    for _ in range(2):
        if isinstance(value, str):
            value = orjson.loads(value)
    return value


def _items(args: Any) -> list[tuple[str, str, str]] | None:
    """(identity, text, status) of each item of a snapshot call; None when the call carries no list."""
    if not isinstance(args, dict):
        return None
    if str(args.get("action", "write")).casefold() not in ("write", "set", "update"):
        return None  # Vibe's todo(action="read") changes nothing
    todos = args.get("todos", args.get("plan", args.get("items")))
    if isinstance(todos, str):
        todos = _json(todos)
    if not isinstance(todos, list):
        return None
    out = []
    for item in todos:
        if isinstance(item, str):
            item = {"content": item}
        if not isinstance(item, dict):
            continue
        text = next((str(item[k]) for k in _TEXT_KEYS if isinstance(item.get(k), str) and item[k]), None)
        if text is None:
            continue
        status = str(item.get("status") or "pending")
        slug = _SLUG.match(text)
        ident = str(item["id"]) if item.get("id") not in (None, "") else (slug.group(1) if slug else text)
        out.append((ident, text, status))
    return out


def _diff(entry: Entry, tool: str, before: dict[str, tuple[str, str]], after: list[tuple[str, str, str]]
          ) -> list[TodoEdit]:
    edits = []
    seen = set()
    for ident, text, status in after:
        seen.add(ident)
        old = before.get(ident)
        if old is None:
            action = "added"
        elif old[1] != status:
            action = status
        elif old[0] != text:
            action = "updated"
        else:
            continue
        edits.append(TodoEdit(entry.address, entry.timestamp, tool, action, text, status))
    for ident, (text, _) in before.items():
        if ident not in seen:
            edits.append(TodoEdit(entry.address, entry.timestamp, tool, "removed", text, None))
    return edits


def todo_calls(entries: list[Entry]) -> list[TodoCall]:
    """Every todo tool call of a timeline with the edits it made, in order; quarantined and erased calls
    are not read (their text is withheld or gone)."""
    results = {e.group: e for e in entries if e.kind == "tool_result" and e.group}
    snapshot: dict[str, tuple[str, str]] = {}
    tasks: dict[str, tuple[str, str]] = {}
    out = []
    for e in entries:
        if e.kind != "tool_call" or not is_todo_tool(e.tool):
            continue
        tool = e.tool or ""
        name = tool.casefold()
        if e.quarantined is not None or e.erased:
            out.append(TodoCall(e, (), "quarantined" if e.quarantined is not None else "erased"))
            continue
        try:
            args = _json(e.text)
        except orjson.JSONDecodeError:
            out.append(TodoCall(e, (), "its input is not JSON"))
            continue
        if name in SNAPSHOT_TOOLS:
            try:
                items = _items(args)
            except orjson.JSONDecodeError:
                items = None
            if items is None:
                if isinstance(args, dict) and str(args.get("action", "write")).casefold() == "read":
                    continue
                out.append(TodoCall(e, (), "no todo list in its input"))
                continue
            edits = _diff(e, tool, snapshot, items)
            snapshot = {ident: (text, status) for ident, text, status in items}
            out.append(TodoCall(e, tuple(edits)))
        elif isinstance(args, dict):
            out.append(_task_call(e, tool, name, args, results.get(e.group or ""), tasks))
    return out


def _task_call(e: Entry, tool: str, name: str, args: dict[str, Any], result: Entry | None,
               tasks: dict[str, tuple[str, str]]) -> TodoCall:
    """Claude Code's incremental task tools: a create names its id only in its result."""
    if name in TASK_CREATE_TOOLS:
        text = next((str(args[k]) for k in _TEXT_KEYS if isinstance(args.get(k), str) and args[k]), "")
        found = _TASK_ID.search(result.text) if result is not None else None
        ident = found.group(1) if found else text
        tasks[ident] = (text, "pending")
        return TodoCall(e, (TodoEdit(e.address, e.timestamp, tool, "added", text, "pending"),))
    ident = str(args.get("taskId") or args.get("id") or "")
    text, status = tasks.get(ident, (str(args.get("subject") or f"task #{ident}"), "pending"))
    new_text = str(args.get("subject") or text)
    new_status = str(args.get("status") or status)
    if new_status == "deleted":
        tasks.pop(ident, None)
        return TodoCall(e, (TodoEdit(e.address, e.timestamp, tool, "removed", new_text, None),))
    tasks[ident] = (new_text, new_status)
    if new_status != status:
        return TodoCall(e, (TodoEdit(e.address, e.timestamp, tool, new_status, new_text, new_status),))
    if new_text != text:
        return TodoCall(e, (TodoEdit(e.address, e.timestamp, tool, "updated", new_text, new_status),))
    return TodoCall(e, ())


def todo_history(record: Record, session: Session, *, full: bool = True, max_bytes: int = REPORT_MAX_BYTES
                 ) -> dict[str, Any]:
    """A session's todo-list edits in order (`action`: added, updated, removed, or the new status), with
    what was read: the calls, the tools, the calls skipped and why. `full` (default true) reads the whole
    session, false only from its last compaction. `todo_text` writes it as seed 004's lines.

    Raises:
        ScopeError: max_bytes out of range.
    """
    budget = check_max_bytes(TODO_TOOL, max_bytes, REPORT_MAX_BYTES)
    entries = load(record, session.number)
    if not full:
        entries, _ = since_last_compaction(entries)
    calls = todo_calls(entries)
    edits = [edit for call in calls for edit in call.edits]
    s = session
    return {
        "session": s.address, "native_id": s.native_id, "harness": s.harness, "full": full,
        "calls": len(calls), "events": len(edits), "tools": sorted({c.entry.tool or "" for c in calls}),
        "skipped": [{"address": c.entry.address, "why": c.skipped} for c in calls if c.skipped],
        "max_bytes": budget,
        "notice": None if calls else f"no todo tool calls in this session (looked for {TOOL_SPELLINGS})",
        "edits": [edit.as_json() for edit in edits],
    }


def todo_text(reply: dict[str, Any]) -> str:
    """A todo history as lines: a `# {header}` line, then one compact JSON object per edit; flood-capped
    at its max_bytes (the whole in an overflow file)."""
    header = {k: v for k, v in reply.items() if k != "edits" and not (k == "notice" and v is None)}
    lines = ["# " + orjson.dumps(header).decode()]
    lines.extend(orjson.dumps(edit).decode() for edit in reply["edits"])
    return cap_text(TODO_TOOL, reply["session"], "\n".join(lines) + "\n", reply["max_bytes"])
