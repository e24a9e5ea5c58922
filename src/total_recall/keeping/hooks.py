"""Harness hooks: what Total Recall does when Claude Code or Codex calls it around a compaction.

Both harnesses run a hook command with one JSON object on stdin (`session_id`, `transcript_path`, `cwd`,
`hook_event_name`, and per event `trigger` / `custom_instructions` / `source` / `prompt`) and read its
stdout on exit 0. Sources: Claude Code's hooks reference (code.claude.com/docs/en/hooks: "Common input
fields", "PreCompact input", "SessionStart input", "Exit code output", "Add context for Claude"); Codex's
generated hook schemas (openai/codex `codex-rs/hooks/schema/generated/pre-compact.command.input.schema.json`,
`session-start.command.output.schema.json`; PreCompact/PostCompact added in openai/codex#19905, the
`compact` SessionStart source in `codex-rs/hooks/src/events/session_start.rs`).

- **PreCompact** — sync the harness's store (incremental), find the record session by the harness's
  `session_id` (else by its transcript path), then the harness's controller builds, verifies and saves
  a marker for the range before the verbatim tail and writes a receipt (trigger = the hook's
  `trigger`; a manual `/compact`'s instructions are kept word for word in the receipt's note). Nothing
  on stdout: Claude Code only logs PreCompact stdout, and Codex fails a PreCompact hook whose stdout
  looks like JSON but is not its schema.
- **SessionStart** with `source` `compact` or `resume` — the session's markers in force, newest first,
  up to `CONTEXT_CAP` characters, as the context to hand back (`HookReply.context`; the surface puts it in
  `hookSpecificOutput.additionalContext`, which both harnesses accept; Claude Code replaces a value over
  10,000 characters with a file path and a preview). Other sources (`startup`, `clear`, `fork`) — nothing.
- **UserPromptSubmit** — the per-turn push (`keeping/prompt.py`): up to five pointers to what the owner
  already owns, as additional context beside the prompt; nothing at all (an empty stdout, which both
  harnesses take as "no decision, no context") when nothing clears the bar or the push is off.

A hook never waits long for the record: at most `WAIT_BOUND` seconds in all (`OPEN_WAIT` to open it,
`SYNC_WAIT` for another sync and again for the write lock before its own sync, the rest for the write
of the marker and the receipt). A busy record skips the sync (the marker is built from what the record
holds, and the receipt's note says so); a record whose write lock stays held writes nothing and says so
on stderr. `total-recall install` gives each hook a harness timeout above that bound.

A hook must never break its harness: the surface exits 0 whatever happens (Claude Code blocks the
compaction on exit 2 from PreCompact, and shows any other non-zero code as a hook error), and problems
go to stderr, which Claude Code keeps in its debug log on exit 0.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from total_recall.errors import HookInputError, RecordBusy
from total_recall.keeping.controllers import CompactionEvent, HarnessController
from total_recall.keeping.marker import markers_for
from total_recall.keeping.prompt import OPEN_WAIT
from total_recall.keeping.window import in_force
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.sync import VECTOR_BUDGET_ENV
from total_recall.syncing import sync

# Claude Code caps a hook's additionalContext at 10,000 characters; stay under it with the header.
CONTEXT_CAP = 9000
TRIGGERS = ("manual", "auto")
CONTEXT_SOURCES = ("compact", "resume")
# Seconds a hook may wait for the record in all; the harness is waiting (the 104.6 s wait of issue 15).
WAIT_BOUND = 10.0
SYNC_WAIT = 1.0  # for another sync's lock, then again for the write lock: else the sync is skipped


@dataclass(frozen=True, slots=True)
class HookReply:
    """What a hook call decided: the `context` to hand back to the harness (None: nothing; the surface
    words it as the harness's JSON), the `log` lines for stderr, the receipt it wrote."""

    context: str | None = None
    log: tuple[str, ...] = ()
    receipt_id: int | None = None


def parse_payload(text: str) -> dict[str, Any]:
    """The hook JSON read from stdin.

    Raises:
        HookInputError: it is not a JSON object with a string `hook_event_name` and `session_id`.
    """
    if not text.strip():
        raise HookInputError("stdin is empty: expected the hook's JSON object")
    try:
        payload = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise HookInputError(f"stdin is not JSON ({exc}): expected the hook's JSON object") from exc
    if not isinstance(payload, dict):
        raise HookInputError(f"stdin holds a JSON {type(payload).__name__}, not the hook's JSON object")
    for key in ("hook_event_name", "session_id"):
        if not isinstance(payload.get(key), str) or not payload[key]:
            raise HookInputError(f"the hook JSON has no {key!r} string")
    return payload


def handle(record: Record, controller: HarnessController, payload: Mapping[str, Any],
           env: Mapping[str, str] | None = None) -> HookReply:
    """Answer one hook call of `controller`'s harness (see the module docstring)."""
    event = payload["hook_event_name"]
    if event == "PreCompact":
        return pre_compact(record, controller, payload, env)
    if event == "SessionStart":
        return session_start(record, controller, payload)
    if event == "UserPromptSubmit":
        from total_recall.keeping.prompt import context

        return HookReply(context=context(record, controller.name, payload))
    return HookReply(log=(f"{event}: not a hook Total Recall handles; nothing done",))


def pre_compact(record: Record, controller: HarnessController, payload: Mapping[str, Any],
                env: Mapping[str, str] | None = None) -> HookReply:
    """Sync the harness's store, then let its controller prepare a marker and write the receipt, waiting
    for the record at most WAIT_BOUND seconds in all (see the module docstring)."""
    deadline = time.monotonic() + WAIT_BOUND - OPEN_WAIT  # the open came first
    log: list[str] = []
    notes = []
    try:
        with record.waiting(SYNC_WAIT):
            # Embedding meaning vectors can take seconds; the harness is waiting. The next sync catches up.
            report = sync(record, [controller.name], wait=SYNC_WAIT,
                          env={**(os.environ if env is None else env), VECTOR_BUDGET_ENV: "0"})
        log.extend(f"sync: {e}" for e in report.errors)
    except (RecordBusy, sqlite3.OperationalError) as exc:
        if not busy(exc):
            raise
        notes.append(f"record busy ({_reason(exc)}): sync skipped, marker built from what the record held")
        log.append(notes[-1])
    native = str(payload["session_id"])
    session = session_for(record, controller.name, native, payload.get("transcript_path"))
    raw_trigger = payload.get("trigger")
    trigger = raw_trigger if raw_trigger in TRIGGERS else "harness"
    if trigger == "harness":
        notes.append(f"hook trigger {raw_trigger!r} is not manual or auto")
    custom = payload.get("custom_instructions")
    if isinstance(custom, str) and custom.strip():
        notes.append(f"custom instructions: {custom}")
    if session is None:
        notes.append(f"{controller.name} session {native} is not in the record "
                     f"(transcript {payload.get('transcript_path')})")
        log.append(notes[-1])
    note = "; ".join(notes) or None
    # The marker and the receipt are two transactions: each may wait half of what is left.
    left = max(deadline - time.monotonic(), 0.0)
    try:
        with record.waiting(left / 2):
            receipt = controller.on_compaction(record, CompactionEvent(session, trigger, note=note))
    except sqlite3.OperationalError as exc:
        if not busy(exc):
            raise
        record.rollback()
        log.append(f"the record stayed busy (another process holds its write lock): no marker or receipt "
                   f"written after waiting {WAIT_BOUND:g} s at most; the harness compacts without one")
        return HookReply(None, tuple(log), None)
    return HookReply(None, tuple(log), receipt.id)


def busy(exc: Exception) -> bool:
    """Whether `exc` says the record was held by another process past the wait allowed."""
    if isinstance(exc, RecordBusy):
        return True
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return isinstance(exc, sqlite3.OperationalError) and code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _reason(exc: Exception) -> str:
    return "another sync is running" if isinstance(exc, RecordBusy) else "another process is writing it"


def session_start(record: Record, controller: HarnessController, payload: Mapping[str, Any]) -> HookReply:
    """The session's markers as additional context after a compaction or a resume; else nothing."""
    if payload.get("source") not in CONTEXT_SOURCES:
        return HookReply()
    native = str(payload["session_id"])
    session = session_for(record, controller.name, native, payload.get("transcript_path"))
    if session is None:
        return HookReply(log=(f"{controller.name} session {native} is not in the record; no markers",))
    return HookReply(markers_context(record, session))


def session_for(record: Record, harness: str, native_id: str, transcript: object = None) -> int | None:
    """The record session of a harness session: by native id (newest generation), else by its file."""
    found = record.sessions([harness])
    same = [s.number for s in found if s.native_id == native_id]
    if same:
        return max(same)
    if isinstance(transcript, str) and transcript:
        path = str(Path(transcript).expanduser())
        by_file = [s.number for s in found if s.source == path]
        if by_file:
            return max(by_file)
    return None


def markers_context(record: Record, session: int, cap: int = CONTEXT_CAP) -> str | None:
    """The markers in force for `session`, newest first while they fit `cap` characters, shown in range
    order under a one-line header; None when the session has none."""
    markers = in_force(markers_for(record, session))
    if not markers:
        return None
    header = (f"Total Recall markers for what left this window (record session s{session}). "
              f"Each address reads back exactly: total-recall read ADDRESS.")
    chosen = []
    used = len(header)
    for m in markers:  # newest first
        if used + 2 + len(m.marker.text) > cap:
            continue
        chosen.append(m)
        used += 2 + len(m.marker.text)
    left = len(markers) - len(chosen)
    parts = [header] + [m.marker.text for m in sorted(chosen, key=lambda m: _first(m.marker.range))]
    if left:
        parts.append(f"{left} more marker(s) did not fit here: total-recall markers s{session}")
    return "\n\n".join(parts)


def _first(span: str) -> int:
    return Address.parse(span).first or 1
