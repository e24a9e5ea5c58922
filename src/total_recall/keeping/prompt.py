"""The per-turn push as a hook hands it over: UserPromptSubmit's payload in, the pointers' text out.

Both routes of `total-recall hook` answer UserPromptSubmit through `context`: the fast one
(`surfaces/entry.py`, which imports only this and what it needs, because the hook runs before every
prompt) and the full one (`keeping/hooks.py`). The text goes back as the harness's additional context,
after the cached prefix, beside the owner's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from total_recall.record.database import Record

# A hook waits this long at most to open the record (another process creating or upgrading it).
OPEN_WAIT = 2.0
# The name `mute --all` logs: the push is off.
EVERYTHING = "*"
# A message longer than this is cut before the push reads it (a pasted megabyte would cost its whole
# length every turn).
PUSH_TEXT_CHARS = 100_000


def push_is_off(record: Record) -> bool:
    from total_recall.assets.eligibility import muted_names

    return EVERYTHING in muted_names(record)


def pointers_text(lines: list[str]) -> str:
    """The pointers as the agent reads them beside the owner's message: one a line."""
    if not lines:
        return ""
    return "You already have (Total Recall; `read` opens an address):\n" + "\n".join(f"- {x}" for x in lines)


def context(record: Record, harness: str, payload: Mapping[str, Any]) -> str | None:
    """The additional context for one UserPromptSubmit: the pointers pushed for its prompt, or None when
    there is nothing to push (the push is off, the prompt holds no words, nothing clears the bar)."""
    from total_recall.assets.pointers import push

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip() or push_is_off(record):
        return None
    native = payload.get("session_id")
    session = record.session_known(harness, native) if isinstance(native, str) else None
    cwd = payload.get("cwd")
    got = push(record, prompt[:PUSH_TEXT_CHARS], session=session, cwd=cwd if isinstance(cwd, str) else None)
    return pointers_text([p.line for p in got.pointers]) or None
