"""Codex as a window controller: it compacts and writes its own summary (`compacted` records).

Codex has had compaction hooks since openai/codex#19905 (merged May 2026): `PreCompact` and
`PostCompact` with input `session_id`, `turn_id`, `transcript_path`, `cwd`, `hook_event_name`, `model`,
`trigger` (`manual`|`auto`) — `codex-rs/hooks/schema/generated/pre-compact.command.input.schema.json` —
and `compact` as a `SessionStart` source whose output may carry `hookSpecificOutput.additionalContext`
(`session-start.command.output.schema.json`). So `total-recall hook codex` answers them the same way as
Claude Code's (see `hooks.py`), with controller `codex`.

What is wired: `total-recall install codex` writes PreCompact, SessionStart and UserPromptSubmit into
`$CODEX_HOME/hooks.json` (`~/.codex/hooks.json`), where Codex looks for hooks next to its user config, in
Claude Code's shape (developers.openai.com/codex/hooks). Codex runs a command hook it does not manage only
once the owner has reviewed and trusted it, and not at all with `[features] hooks = false`. Not wired:
Stop. `total-recall hook codex` answers it (a sync), but Codex documents no background mode for hooks, so
a Stop hook would hold up the end of every turn for a second or more; a mute said in a Codex prompt counts
from the next sync instead (SessionStart, PreCompact, `total-recall sync`, the watcher).

Older Codex versions have no hooks, and a hook can be missing or fail; the record still holds every
`compacted` record. Every sync a surface runs writes, for each Codex compaction in the record that no
receipt accounts for (see `audit.py`), a receipt with controller `codex`, trigger `harness`, knowledge
`sent, unconfirmed` and `source` = the compaction entry's address (`compaction.receipt_compactions`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from total_recall.keeping.compaction import receipt_compactions
from total_recall.keeping.controllers import CODEX
from total_recall.keeping.hooks import HookReply, handle
from total_recall.record.database import Record


def codex_hook(record: Record, payload: Mapping[str, Any], env: Mapping[str, str] | None = None) -> HookReply:
    """Answer one Codex hook call (`payload` is its stdin JSON, already parsed)."""
    return handle(record, CODEX, payload, env)


__all__ = ["codex_hook", "receipt_compactions"]
