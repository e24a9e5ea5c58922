"""Harness hooks: what Total Recall does when Claude Code or Codex calls it around a compaction.

Both harnesses run a hook command with one JSON object on stdin (`session_id`, `transcript_path`, `cwd`,
`hook_event_name`, and per event `trigger` / `custom_instructions` / `source` / `prompt`) and read its
stdout on exit 0. Sources: Claude Code's hooks reference (code.claude.com/docs/en/hooks: "Common input
fields", "PreCompact input", "SessionStart input", "Exit code output", "Add context for Claude"); Codex's
generated hook schemas (openai/codex `codex-rs/hooks/schema/generated/pre-compact.command.input.schema.json`,
`session-start.command.output.schema.json`; PreCompact/PostCompact added in openai/codex#19905, the
`compact` SessionStart source in `codex-rs/hooks/src/events/session_start.rs`).

- **PreCompact** — sync the harness's store (incremental), find the record session by the harness's
  `session_id` (else by its transcript path), observe what of it the observer has not read yet (the
  range being compacted among it: the pre-compaction flush), then the harness's controller builds,
  verifies and saves a marker for the session up to the compaction and writes a receipt (trigger = the
  hook's `trigger`; a manual `/compact`'s instructions are kept word for word in the receipt's note).
  Nothing on stdout: Claude Code only logs PreCompact stdout, and Codex fails a PreCompact hook whose
  stdout looks like JSON but is not its schema. A receipt is permanent, so a payload with a malformed
  field is refused before the record is opened (`keeping/hook_input.py`, `check_payload`), a session
  that neither the record (after the sync) nor a plausible transcript shows (`transcript_of`: a `.jsonl`
  file under one of the harness's store roots) gets no receipt, and control characters never reach a
  note (`printable`).
- **SessionStart** — sync the harness's store when the record already holds its sessions (a first sync
  of a whole store is `total-recall sync`'s), recover the previous session of the same project (`cwd`)
  active within `RECOVERY_HOURS` when the observer has not read it to its end, then hand back as context
  (`HookReply.context`; the surface puts it in `hookSpecificOutput.additionalContext`, which both harnesses
  accept; Claude Code replaces a value over 10,000 characters with a file path and a preview), within
  `CONTEXT_CAP` characters in all: with `source` `compact` or `resume` the session's markers in force,
  newest first; then, for every source, the highest-priority current observations (rules first, this
  project's before others') within `OBSERVATIONS_CAP` tokens and the characters the markers left.
- **UserPromptSubmit** — the per-turn push (`keeping/prompt.py`): up to five pointers to what the owner
  already owns, as additional context beside the prompt; nothing at all (an empty stdout, which both
  harnesses take as "no decision, no context") when nothing clears the bar or the push is off.
- **Stop** — the end of a turn (input `session_id`, `transcript_path`, `cwd`, `stop_hook_active`): sync
  the harness's store incrementally, bounded as PreCompact's sync is (a busy record skips it; no meaning
  vectors), so that what the owner said this turn ("please don't mention X") counts from the next prompt
  on; no marker, no receipt, nothing on stdout (a Stop hook's JSON could make the agent go on). Claude
  Code runs it in the background (`"async": true` in its registration): the owner never waits for it.

A hook never waits long for the record: at most `WAIT_BOUND` seconds in all (`OPEN_WAIT` to open it,
`SYNC_WAIT` for another sync and again for the write lock before its own sync, the rest for the write
of the marker and the receipt). A busy record skips the sync (the marker is built from what the record
holds, and the receipt's note says so); a record whose write lock stays held writes nothing and says so
on stderr. `total-recall install` gives each hook a harness timeout above that bound.

Observing in a hook is bounded too: it waits `SYNC_WAIT` for the write lock (a busy record leaves the
entries for the next run), takes on at most `OBSERVE_MOST` entries (a longer backlog is left to
`total-recall observe`), and gives a configured model at most half the time left (`_Bounded`: each call's
timeout is what is left, no retry sleeps past it); when the model fails, the mechanical observer reads
what it left (the seed's raw-extraction fallback). Without a model the mechanical observer runs alone.

A hook must never break its harness: the surface exits 0 whatever happens (Claude Code blocks the
compaction on exit 2 from PreCompact, and shows any other non-zero code as a hook error), and problems
go to stderr, which Claude Code keeps in its debug log on exit 0.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from total_recall.config import resolve_roots
from total_recall.errors import ConfigError, HookInputError, LLMError, RecordBusy, TotalRecallError
from total_recall.keeping.controllers import CompactionEvent, HarnessController
from total_recall.keeping.hook_input import check_payload, optional_text
from total_recall.keeping.hook_input import parse_payload as parse_payload
from total_recall.keeping.marker import markers_for
from total_recall.keeping.prompt import OPEN_WAIT
from total_recall.keeping.window import in_force
from total_recall.llm.provider import Completion, Message, Provider
from total_recall.llm.settings import LLMSettings, load_settings
from total_recall.model import Address, echoed
from total_recall.observing import for_session_start, observe
from total_recall.observing.observation import parse_time
from total_recall.record import observations as observation_table
from total_recall.record.database import Record
from total_recall.record.queries import last_entry_times
from total_recall.record.sync import VECTOR_BUDGET_ENV
from total_recall.syncing import sync

# Claude Code caps a hook's additionalContext at 10,000 characters; stay under it with the header.
CONTEXT_CAP = 9000
CONTEXT_SOURCES = ("compact", "resume")
# Seconds a hook may wait for the record in all; the harness is waiting (the 104.6 s wait of issue 15).
WAIT_BOUND = 10.0
SYNC_WAIT = 1.0  # for another sync's lock, then again for the write lock: else the sync is skipped
# Observations SessionStart hands back: at most this many tokens (within CONTEXT_CAP characters in all).
OBSERVATIONS_CAP = 1_500
RECOVERY_HOURS = 4.0  # the seed's lookback: a previous session active longer ago is not recovered
OBSERVE_MOST = 2_000  # entries a hook observes at most (~2 s mechanically); more is `total-recall observe`'s
MODEL_LEAST = 1.0  # seconds a model call needs at least: with less left the hook does not call it
CUSTOM_CHARS = 2_000  # a manual /compact's instructions kept in the receipt; longer ones are cut
# What no receipt note keeps: the C0 controls but newline and tab, DEL, the C1 controls (see `printable`).
UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TRANSCRIPT_SUFFIX = ".jsonl"  # what both harnesses write a live session to


@dataclass(frozen=True, slots=True)
class HookReply:
    """What a hook call decided: the `context` to hand back to the harness (None: nothing; the surface
    words it as the harness's JSON), the `log` lines for stderr, the receipt it wrote."""

    context: str | None = None
    log: tuple[str, ...] = ()
    receipt_id: int | None = None


def handle(record: Record, controller: HarnessController, payload: Mapping[str, Any],
           env: Mapping[str, str] | None = None) -> HookReply:
    """Answer one hook call of `controller`'s harness (see the module docstring); a payload
    `check_payload` refuses is named in the log and nothing is done."""
    try:
        check_payload(payload)
    except HookInputError as exc:
        return HookReply(log=(str(exc),))
    event = payload["hook_event_name"]
    if event == "PreCompact":
        return pre_compact(record, controller, payload, env)
    if event == "SessionStart":
        return session_start(record, controller, payload, env)
    if event == "UserPromptSubmit":
        return user_prompt(record, controller, payload)
    if event == "Stop":
        return stop(record, controller, env)
    return HookReply(log=(f"{event}: not a hook Total Recall handles; nothing done",))


def user_prompt(record: Record, controller: HarnessController, payload: Mapping[str, Any]) -> HookReply:
    """The per-turn push (`keeping/prompt.py`) for a checked payload, naming a cwd it could not read."""
    from total_recall.keeping.prompt import context

    log: list[str] = []
    cwd = optional_text(payload, "cwd", log, "pushed for no project")
    return HookReply(context=context(record, controller.name, {**payload, "cwd": cwd}), log=tuple(log))


def pre_compact(record: Record, controller: HarnessController, payload: Mapping[str, Any],
                env: Mapping[str, str] | None = None) -> HookReply:
    """Sync the harness's store, then let its controller prepare a marker and write the receipt, waiting
    for the record at most WAIT_BOUND seconds in all (see the module docstring)."""
    deadline = time.monotonic() + WAIT_BOUND - OPEN_WAIT  # the open came first
    log: list[str] = []
    notes = []
    if (skipped := _sync(record, controller.name, env, log)) is not None:
        notes.append(f"{skipped}, marker built from what the record held")
        log.append(notes[-1])
    native = str(payload["session_id"])
    transcript = payload.get("transcript_path")
    session = session_for(record, controller.name, native, transcript)
    if session is None and not transcript_of(controller.name, transcript, env):
        # Nothing shows this compaction is real: a receipt for it would stay in the record for ever.
        log.append(f"{controller.name} session {native} is not in the record and its transcript_path "
                   f"{echoed(transcript)} names no {TRANSCRIPT_SUFFIX} file in the {controller.name} store: "
                   "no marker or receipt written")
        return HookReply(None, tuple(log), None)
    if session is not None:  # the pre-compaction flush: what leaves the window is observed first
        log.extend(observe_within(record, session, deadline, env, "pre-compaction flush"))
    trigger = str(payload["trigger"])
    custom = payload.get("custom_instructions")
    if isinstance(custom, str) and custom.strip():
        cut = f"… (cut: {len(custom):,} characters in all)" if len(custom) > CUSTOM_CHARS else ""
        notes.append(f"custom instructions: {custom[:CUSTOM_CHARS]}{cut}")
    if session is None:  # a brand-new session the sync did not read (skipped, or its file is elsewhere)
        notes.append(f"{controller.name} session {native} is not in the record yet (transcript {transcript})")
        log.append(notes[-1])
    note = printable("; ".join(notes)) or None
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


def transcript_of(harness: str, transcript: object, env: Mapping[str, str] | None = None) -> bool:
    """Whether `transcript` could be a live transcript of `harness`: a `.jsonl` file under one of the
    store roots its reader reads (`resolve_roots`: the override variables included), symlinks and `..`
    resolved first, so that a path to any file on the machine cannot earn a permanent receipt."""
    if not isinstance(transcript, str) or not transcript.endswith(TRANSCRIPT_SUFFIX):
        return False
    try:
        path = Path(transcript).expanduser().resolve()
        roots = [root.path.resolve() for root in resolve_roots(harness, os.environ if env is None else env)]
        return path.is_file() and any(path.is_relative_to(root) for root in roots)
    except (ConfigError, OSError, RuntimeError, ValueError):  # no store here, `~nouser`, a name too long
        return False


def printable(text: str) -> str:
    """`text` without control characters but newline and tab. A receipt's note is permanent and
    `total-recall receipts` prints it to a terminal: a NUL or an escape sequence in a harness's field
    (custom instructions are the owner's free text) would be stored for ever and replayed on every listing."""
    return UNPRINTABLE.sub("", text)


def stop(record: Record, controller: HarnessController, env: Mapping[str, str] | None = None) -> HookReply:
    """The end of a turn: sync the harness's store (incremental, bounded as PreCompact's sync is: a busy
    record skips it, and no meaning vectors are embedded), so what the owner said this turn — a "don't
    mention X" above all — counts from the next prompt on. No marker, no receipt, nothing on stdout. A
    record that holds none of the harness's sessions is left to `total-recall sync`'s first sync."""
    log: list[str] = []
    if not record.sessions([controller.name]):
        return HookReply(log=(f"Stop: the record holds no {controller.name} session yet: nothing synced "
                              "(`total-recall sync` reads the store first)",))
    if (skipped := _sync(record, controller.name, env, log)) is not None:
        log.append(f"Stop: {skipped}; the next hook or sync catches up")
    return HookReply(log=tuple(log))


def _sync(record: Record, harness: str, env: Mapping[str, str] | None, log: list[str]) -> str | None:
    """Sync `harness` within the hook's bound, its errors added to `log`; why it was skipped, or None."""
    try:
        with record.waiting(SYNC_WAIT):
            # Embedding meaning vectors can take seconds; the harness is waiting. The next sync catches up.
            report = sync(record, [harness], wait=SYNC_WAIT,
                          env={**(os.environ if env is None else env), VECTOR_BUDGET_ENV: "0"})
    except (RecordBusy, sqlite3.OperationalError) as exc:
        if not busy(exc):
            raise
        return f"record busy ({_reason(exc)}): sync skipped"
    log.extend(f"sync: {e}" for e in report.errors)
    return None


def busy(exc: Exception) -> bool:
    """Whether `exc` says the record was held by another process past the wait allowed."""
    if isinstance(exc, RecordBusy):
        return True
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return isinstance(exc, sqlite3.OperationalError) and code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _reason(exc: Exception) -> str:
    return "another sync is running" if isinstance(exc, RecordBusy) else "another process is writing it"


def session_start(record: Record, controller: HarnessController, payload: Mapping[str, Any],
                  env: Mapping[str, str] | None = None) -> HookReply:
    """Recover the project's previous session, then hand back the session's markers (after a compaction
    or a resume) and the observations, within CONTEXT_CAP characters (see the module docstring)."""
    deadline = time.monotonic() + WAIT_BOUND - OPEN_WAIT  # the open came first
    native = str(payload["session_id"])
    log: list[str] = []
    cwd = optional_text(payload, "cwd", log, "no previous session recovered; observations of every project")
    source = payload.get("source")
    if source is not None and not isinstance(source, str):
        log.append(f"SessionStart: source {echoed(source)} is not text: ignored (no markers handed back)")
    transcript = optional_text(payload, "transcript_path", log, "the session is found by its id only")
    try:
        _recover(record, controller.name, native, cwd, deadline, env, log)
    except (TotalRecallError, sqlite3.Error, OSError) as exc:  # the markers are handed back all the same
        record.rollback()
        log.append(f"session recovery failed: {type(exc).__name__}: {exc}")
    parts: list[str] = []
    if source in CONTEXT_SOURCES:
        session = session_for(record, controller.name, native, transcript)
        if session is None:
            log.append(f"{controller.name} session {native} is not in the record; no markers")
        elif (markers := markers_context(record, session)) is not None:
            parts.append(markers)
    left = CONTEXT_CAP - sum(len(p) + 2 for p in parts)
    if (observed := observations_context(record, cwd, left)) is not None:
        parts.append(observed)
    return HookReply("\n\n".join(parts) or None, tuple(log))


def _recover(record: Record, harness: str, native: str, cwd: str | None, deadline: float,
             env: Mapping[str, str] | None, log: list[str]) -> None:
    """Sync (when the record holds the harness already), then observe the project's previous session."""
    if record.sessions([harness]) and (skipped := _sync(record, harness, env, log)):
        log.append(f"{skipped}: the previous session is recovered from what the record held")
    if cwd is not None and (previous := previous_session(record, harness, native, cwd)) is not None:
        log.extend(observe_within(record, previous, deadline, env, "session recovery"))


def previous_session(record: Record, harness: str, native_id: str, cwd: str,
                     now: datetime | None = None) -> int | None:
    """The session of `harness` in the folder `cwd` active last before this one (`native_id`), when it
    was active within RECOVERY_HOURS; sub-agent sessions are never the previous session."""
    here = cwd.rstrip("/")
    since = (now or datetime.now(UTC)) - timedelta(hours=RECOVERY_HOURS)
    times = last_entry_times(record)
    best: tuple[datetime, int] | None = None
    for s in record.sessions([harness]):
        if s.native_id == native_id or s.relation == "subagent" or (s.cwd or "").rstrip("/") != here:
            continue
        stamps = [t for t in (parse_time(times.get(s.number)), parse_time(s.ended), parse_time(s.started))
                  if t is not None]
        last = max(stamps) if stamps else None
        if last is not None and last >= since and (best is None or (last, s.number) > best):
            best = (last, s.number)
    return None if best is None else best[1]


def observe_within(record: Record, session: int, deadline: float, env: Mapping[str, str] | None,
                   why: str) -> list[str]:
    """Observe what the observer has not read of `session` within the hook's bound: with the configured
    model (in half the time left) and the mechanical observer after it when it fails, or mechanically
    alone. Returns the log lines: only problems, and what was left for later."""
    pending = observation_table.pending(record, session)
    if not pending:
        return []
    backlog = pending[0].entries - pending[0].after
    if backlog > OBSERVE_MOST:
        return [f"{why}: s{session} has {backlog:,} entries not observed yet, over the {OBSERVE_MOST:,} a "
                "hook takes on: left for `total-recall observe`"]
    log: list[str] = []
    model = _model(record, deadline, env, log, why)
    try:
        with record.waiting(SYNC_WAIT):
            report = observe(record, session=session, model=model)
            if model is not None and report.errors:
                log.append(f"{why}: the model failed on s{session} ({'; '.join(report.errors)[:300]}): the "
                           "mechanical observer read the rest")
                report = observe(record, session=session)
    except sqlite3.OperationalError as exc:
        if not busy(exc):
            raise
        record.rollback()
        return [*log, f"{why}: record busy (another process is writing it): s{session} left for the next "
                      "observer run"]
    except TotalRecallError as exc:  # observing is extra: it never costs the hook its marker or context
        record.rollback()
        return [*log, f"{why}: s{session} not observed: {exc}"]
    log.extend(f"{why}: s{session}: {e}" for e in report.errors)
    return log


def _model(record: Record, deadline: float, env: Mapping[str, str] | None, log: list[str],
           why: str) -> Provider | None:
    """The configured model held to half the hook's time left, or None (mechanical)."""
    try:
        settings = load_settings(os.environ if env is None else env, record.path.parent)
    except TotalRecallError as exc:
        log.append(f"{why}: LLM settings unusable ({exc}): observed mechanically")
        return None
    if settings.problem is not None:
        return None
    share = time.monotonic() + max(deadline - time.monotonic(), 0.0) / 2
    return _Bounded(settings, share)


class _Bounded(Provider):
    """The configured provider held to a hook's deadline (a `time.monotonic()` value): each call's timeout
    is what is left, a call with less than MODEL_LEAST seconds left is not made, and a retry that would
    sleep past the deadline is not waited for."""

    def __init__(self, settings: LLMSettings, deadline: float) -> None:
        super().__init__(settings, sleep=self._sleep)
        self.deadline = deadline

    def complete(self, messages: Sequence[Message], max_output_tokens: int | None = None) -> Completion:
        left = self.deadline - time.monotonic()
        if left < MODEL_LEAST:
            raise LLMError(f"not called: {max(left, 0.0):.1f} s left of the hook's {WAIT_BOUND:g} s bound")
        self.settings = dataclasses.replace(self.settings, timeout=min(self.settings.timeout, left))
        return super().complete(messages, max_output_tokens)

    def _sleep(self, seconds: float) -> None:
        if time.monotonic() + seconds > self.deadline:
            raise LLMError(f"a retry would wait {seconds:g} s, past the hook's {WAIT_BOUND:g} s bound")
        time.sleep(seconds)


def observations_context(record: Record, cwd: str | None, chars: int,
                         cap_tokens: int = OBSERVATIONS_CAP) -> str | None:
    """The observations block (`for_session_start`) within `cap_tokens` and `chars` characters; None when
    there is none or no room."""
    for _ in range(3):  # tokens and characters are not proportional: shrink the cap until it fits
        if cap_tokens < 100 or chars <= 0:
            return None
        block = for_session_start(record, cwd, cap_tokens)
        if not block:
            return None
        if len(block) <= chars:
            return block
        cap_tokens = cap_tokens * chars // len(block) - 10
    return None


def session_for(record: Record, harness: str, native_id: str, transcript: object = None) -> int | None:
    """The record session of a harness session: by native id (newest generation), else by its file."""
    found = record.sessions([harness])
    same = [s.number for s in found if s.native_id == native_id]
    if same:
        return max(same)
    if isinstance(transcript, str) and transcript:
        try:
            path = str(Path(transcript).expanduser())
        except RuntimeError:  # `~nouser/…`: no such home, so no session's file
            return None
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
