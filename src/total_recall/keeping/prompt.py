"""The per-turn push as a hook hands it over: UserPromptSubmit's payload in, the pointers' text out.

Both routes of `total-recall hook` answer UserPromptSubmit through `context`: the fast one
(`surfaces/entry.py`, which imports only this and what it needs, because the hook runs before every
prompt) and the full one (`keeping/hooks.py`). The text goes back as the harness's additional context,
after the cached prefix, beside the owner's message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the hook asks a running server before it opens the record: nothing heavy first
    from total_recall.record.database import Record

# A Claude Code sub-agent's session id in the record: its transcript's name, `agent-<agent_id>.jsonl`.
SUBAGENT_PREFIX = "agent-"
# A hook waits this long at most to open the record (another process creating or upgrading it).
OPEN_WAIT = 2.0
# What of a prompt the hook sends the running server (the push reads its first 16 KB anyway): a pasted
# megabyte must not cross the socket every turn.
PUSH_TEXT_CHARS = 100_000


def pointers_text(lines: list[str]) -> str:
    """The pointers as the agent reads them beside the owner's message: one a line."""
    if not lines:
        return ""
    return "You already have (Total Recall; `read` opens an address):\n" + "\n".join(f"- {x}" for x in lines)


def context(record: Record, harness: str, payload: Mapping[str, Any], *, meaning: bool | None = False
            ) -> str | None:
    """The additional context for one UserPromptSubmit: the pointers pushed for its prompt, or None when
    there is nothing to push (the push is off, the prompt holds no words, nothing clears the bar).
    `meaning`: as `push` has it (False by default: the hook's own process never loads the model)."""
    return pointers_text(pointer_lines(record, harness, payload, meaning=meaning)) or None


def pointer_lines(record: Record, harness: str, payload: Mapping[str, Any], *, meaning: bool | None = False
                  ) -> list[str]:
    from total_recall.assets.pointers import push

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return []
    native = payload.get("session_id")
    session = record.session_known(harness, native) if isinstance(native, str) else None
    # Inside a sub-agent Claude Code names the parent's session and the sub-agent's own `agent_id`: the
    # sub-agent's scope decides, from its own session once synced, else from its parent's (`reader_of`).
    agent = payload.get("agent_id")
    subagent = isinstance(native, str) and native.startswith(SUBAGENT_PREFIX) and session is None
    if isinstance(agent, str) and agent.strip():
        own = record.session_known(harness, SUBAGENT_PREFIX + agent.strip())
        session, subagent = (own, False) if own is not None else (session, True)
    cwd = payload.get("cwd")
    got = push(record, prompt, session=session, cwd=cwd if isinstance(cwd, str) else None, meaning=meaning,
               subagent=subagent)
    return [p.line for p in got.pointers]


# -- the running MCP server answers the hook (assets/channel.py) --

def served(home: Path, harness: str, payload: Mapping[str, Any]) -> str | bool | None:
    """The context a running server pushed for this prompt (by meaning where it can): its text, None
    when it pushed nothing; False when no server answered in time (the hook pushes by words)."""
    from total_recall.assets.channel import ask

    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return None
    request = {"text": prompt[:PUSH_TEXT_CHARS], "session": payload.get("session_id"),
               "agent": payload.get("agent_id"), "cwd": payload.get("cwd"), "harness": harness}
    reply = ask(home, request)
    lines = None if reply is None else reply.get("pointers")
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        return False
    return pointers_text(lines) or None


def answerer(record_path: Path) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """What a server answers on its push socket: `{"pointers": [line, …]}` for `{"text", "session",
    "agent", "cwd", "harness"}`, pushed by meaning when the index and the extra allow."""

    opened: list[Record] = []  # one connection, kept by the socket's thread (WAL: each read sees the newest)

    def answer(request: Mapping[str, Any]) -> dict[str, Any]:
        harness = request.get("harness")
        payload = {"prompt": request.get("text"), "session_id": request.get("session"),
                   "agent_id": request.get("agent"), "cwd": request.get("cwd")}
        if not opened:
            from total_recall.record.database import Record

            opened.append(Record(record_path, timeout=OPEN_WAIT))
        lines = pointer_lines(opened[0], harness if isinstance(harness, str) else "claude-code", payload,
                              meaning=None)
        return {"pointers": lines}

    return answer

