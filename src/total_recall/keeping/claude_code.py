"""Claude Code as a window controller: it compacts and writes its own summary; we work through its hooks.

`total-recall install claude-code` (another part) registers `total-recall hook claude-code` for
PreCompact, SessionStart, UserPromptSubmit and Stop (in the background: `"async": true`). On PreCompact we
sync the Claude Code store, prepare a verified marker for the session up to the compaction and write a
receipt (controller `claude-code`, trigger `manual`/`auto`, knowledge `sent, unconfirmed`: Claude Code
writes its own summary and we do not see what the model is given). On SessionStart after a compaction or a
resume we give the markers back as additional context. On Stop, the end of every turn, we sync the store,
so what the owner said in the turn counts from the next prompt. What each event does, and the hook contract
it follows, is in `hooks.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from total_recall.keeping.controllers import CLAUDE_CODE
from total_recall.keeping.hooks import HookReply, handle
from total_recall.record.database import Record


def claude_code_hook(record: Record, payload: Mapping[str, Any], env: Mapping[str, str] | None = None
                     ) -> HookReply:
    """Answer one Claude Code hook call (`payload` is its stdin JSON, already parsed)."""
    return handle(record, CLAUDE_CODE, payload, env)
