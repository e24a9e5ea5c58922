"""The reactive watcher (seed 002's layer 4): follows the harness stores by OS file events and, once a
main session has grown by enough lines, syncs its harness and observes that session.

watchdog's observer (inotify on Linux, FSEvents on macOS) runs in a thread of its own and only puts the
paths it sees written on a queue; `step` drains that queue in the caller's thread, counts the complete
lines each main session file gained since it was last read, and triggers there too, so the record is only
ever opened by one thread. What is counted:
- JSONL stores only (Claude Code, Codex, Vibe, OpenClaw): OpenCode keeps SQLite, with no lines to count;
- main sessions only: Claude Code's `subagents/` folders and `agent-*.jsonl` files, Vibe's `agents/`
  folders are passed over by path (the observer skips every other sub-agent session by what the record
  says of it);
- lines appended after the watch starts (a file that appears later counts from its start); a half-written
  last line waits for its end.
After `lines` new lines in one session it syncs that harness and observes the session, then holds that
session for `cooldown` seconds (the count goes on; the next trigger comes when both allow). When a run
elsewhere (a hook, cron, `total-recall observe`) has already synced the file past every counted line and
observed the session to its end, the count is reset instead (seed 002: "resets counter when cron/external
observer runs are detected"): a `reset` action, nothing synced. A sync or an
observe that fails is an `error` action and the watcher goes on: a failed sync keeps its count and is
tried again after the cooldown (RETRY_AFTER at least). Store files are opened for reading only: nothing
is ever written there.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from total_recall.config import resolve_roots
from total_recall.errors import ConfigError
from total_recall.llm.provider import Provider
from total_recall.observing.observation import ObservingError
from total_recall.observing.observer import observe
from total_recall.readers.base import read_check
from total_recall.record.database import Record
from total_recall.record.observations import pending as observer_pending
from total_recall.syncing import sync

DEFAULT_LINES = 40  # seed 002: "after 40+ new JSONL writes"
DEFAULT_COOLDOWN = 300.0  # seed 002: "5-min cooldown", per session here
DEFAULT_WAIT = 60.0  # seconds a trigger waits for another sync of the record (a hook's, `total-recall sync`)
RETRY_AFTER = 30.0  # seconds at least before a failed trigger is tried again, whatever the cooldown
# Bounds of the times a caller gives: past a day a cooldown only stops a session being observed, and a
# deadline past the platform's time_t crashes the wait (nan, never reached, never ends it).
MAX_COOLDOWN = 86_400.0  # one day
MAX_RUN = 366 * 86_400.0  # a year, leap day included
HARNESSES: tuple[str, ...] = ("claude-code", "codex", "vibe", "openclaw")
_READ = 1 << 20

Kind = Literal["watching", "sync", "observe", "held", "reset", "error", "stopped"]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the watcher did (or was told): `lines` is what the session gained before it."""

    kind: Kind
    harness: str | None = None
    path: str | None = None
    session: int | None = None
    lines: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def to_json(self) -> dict[str, Any]:
        """One JSON object per action (`total-recall watch --json`): scripts read these keys. `session` is
        the session's number, as it always was; `address` (`s7`) is how every other command names it."""
        out: dict[str, Any] = {"action": self.kind, "at": self.at}
        if self.harness is not None:
            address = f"s{self.session}" if self.session is not None else None
            out.update(harness=self.harness, path=self.path, session=self.session, address=address,
                       lines=self.lines)
        return {**out, **self.data, "errors": list(self.errors)}


def main_session(harness: str, path: Path) -> bool:
    """Whether a store file is a main session's transcript the watcher counts (see the docstring)."""
    if path.suffix != ".jsonl":
        return False
    if harness == "claude-code":
        return not path.name.startswith("agent-") and "subagents" not in path.parts
    if harness == "vibe":
        return path.name == "messages.jsonl" and path.parent.parent.name != "agents"
    return True


def watched_roots(harnesses: Sequence[str] = (),
                  env: Mapping[str, str] | None = None) -> dict[str, list[Path]]:
    """The folders to follow per harness: those a sync of it reads (`config.resolve_roots`).

    Raises:
        ConfigError: a harness named is not one the watcher follows, its override is unusable, or there is
            nothing to watch at all; SandboxError when a harness named has no override in the sandbox.
    """
    for name in harnesses:
        if name not in HARNESSES:
            raise ConfigError(f"the watcher follows {', '.join(HARNESSES)}, not {name!r}"
                              + (" (OpenCode keeps SQLite: no lines to count)" if name == "opencode" else ""))
    found: dict[str, list[Path]] = {}
    problems: list[str] = []
    for name in harnesses or HARNESSES:
        try:
            paths = [root.path for root in resolve_roots(name, env) if root.path.is_dir()]
        except ConfigError as exc:
            if harnesses:
                raise
            problems.append(str(exc))  # every harness by default: the others may still be watched
            continue
        if paths:
            found[name] = paths
    if not found:
        why = problems[0] if problems else ("no store folder of " + ", ".join(harnesses or HARNESSES)
                                            + " here (a TOTAL_RECALL_<HARNESS>_ROOT override names one)")
        raise ConfigError(f"nothing to watch: {why}")
    return found


@dataclass(slots=True)
class _Tally:
    """One main session file: how far it has been read, the lines counted since the last trigger."""

    harness: str
    offset: int
    lines: int = 0
    ready_at: float = float("-inf")
    held: bool = False


class _Queue(FileSystemEventHandler):
    """watchdog's side: the paths written, queued for `Watcher.step` (nothing else happens here)."""

    def __init__(self, paths: queue.SimpleQueue[str | None]) -> None:
        self.paths = paths

    def on_created(self, event: FileSystemEvent) -> None:
        self._put(event.src_path, event.is_directory)

    def on_modified(self, event: FileSystemEvent) -> None:
        self._put(event.src_path, event.is_directory)

    def on_moved(self, event: FileSystemEvent) -> None:
        self._put(event.dest_path, event.is_directory)

    def _put(self, path: str | bytes, directory: bool) -> None:
        if not directory:
            self.paths.put(os.fsdecode(path))


class Watcher:
    """Follows `roots` (harness → folders) and syncs and observes a main session once it has grown by
    `lines` lines, at most once per `cooldown` seconds of `clock`.

    `start`, `step` and `close` belong to one thread (the record is opened there); `stop` may come from
    any thread or a signal handler. `model` observes with the configured model (None: mechanically)."""

    def __init__(self, record_path: Path, roots: Mapping[str, Sequence[Path]], *, lines: int = DEFAULT_LINES,
                 cooldown: float = DEFAULT_COOLDOWN, model: Provider | None = None,
                 env: Mapping[str, str] | None = None, wait: float = DEFAULT_WAIT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if lines < 1 or not 0 <= cooldown <= MAX_COOLDOWN:  # nan is in no range
            raise ObservingError(f"the watcher needs lines ≥ 1 and a cooldown of a finite number of seconds "
                                 f"from 0 to {MAX_COOLDOWN:.0f} (got {lines}, {cooldown:g})")
        self.record_path = record_path
        self.roots = {harness: [Path(p) for p in paths] for harness, paths in roots.items()}
        self.lines = lines
        self.cooldown = cooldown
        self.model = model
        self.env = env
        self.wait = wait
        self.clock = clock
        self._paths: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._tallies: dict[str, _Tally] = {}
        self._known: dict[str, int] = {}
        self._stopping = threading.Event()
        self._observer: BaseObserver | None = None

    # -- the thread that runs it --

    def start(self) -> Action:
        """Note where each main session file ends, then follow the roots.

        Raises:
            ObservingError: the OS refuses the watch (e.g. Linux's fs.inotify.max_user_watches reached).
        """
        if self._observer is not None:
            raise ObservingError("the watcher is already started")
        for harness, paths in self.roots.items():
            for path in self._main_files(harness, paths):
                try:
                    self._known[str(path)] = path.stat().st_size
                except OSError:
                    continue  # gone since the walk: a new one counts from its start
        observer = Observer()
        handler = _Queue(self._paths)
        try:
            for paths in self.roots.values():
                for root in paths:
                    observer.schedule(handler, str(root), recursive=True)
            observer.start()
        except OSError as exc:
            raise ObservingError(f"cannot watch the stores ({exc}); on Linux, raise "
                                 "fs.inotify.max_user_watches") from exc
        self._observer = observer
        return Action("watching", data={
            "roots": {h: [str(p) for p in paths] for h, paths in self.roots.items()},
            "files": len(self._known), "lines": self.lines, "cooldown": self.cooldown,
            "observer": "mechanical" if self.model is None else "model"})

    def step(self, timeout: float | None = None) -> list[Action]:
        """Wait up to `timeout` seconds (None: until something happens) for file events, count what they
        wrote, and trigger every session due: the actions taken, in order."""
        written: set[str] = set()
        try:
            first = self._paths.get(timeout=timeout) if timeout is None or timeout > 0 \
                else self._paths.get_nowait()
            if first is not None:
                written.add(first)
            while True:
                more = self._paths.get_nowait()
                if more is not None:
                    written.add(more)
        except queue.Empty:
            pass
        for path in sorted(written):
            self._count(path)
        if self._stopping.is_set():
            return []
        actions: list[Action] = []
        for path, tally in self._tallies.items():
            if tally.lines < self.lines:
                continue
            now = self.clock()
            if now < tally.ready_at:
                if not tally.held:
                    tally.held = True
                    actions.append(Action("held", tally.harness, path, None, tally.lines,
                                          {"seconds_left": round(tally.ready_at - now, 3)}))
                continue
            if self._observed_elsewhere(path, tally):
                actions.append(Action("reset", tally.harness, path, None, tally.lines,
                                      {"reason": "synced and observed by another run"}))
                tally.lines, tally.held = 0, False
                continue
            actions.extend(self._trigger(path, tally))
        return actions

    def run(self, emit: Callable[[Action], None], *, seconds: float | None = None,
            once: bool = False) -> None:
        """`step` until `stop` (or for `seconds` of the clock, or until the first sync when `once`),
        handing each action to `emit`.

        Raises:
            ObservingError: `seconds` is not a finite number from 0 to MAX_RUN.
        """
        if seconds is not None and not 0 <= seconds <= MAX_RUN:  # nan is in no range
            raise ObservingError(f"the watcher runs for a finite number of seconds from 0 to {MAX_RUN:.0f} "
                                 f"(got {seconds:g})")
        deadline = None if seconds is None else self.clock() + seconds
        while not self._stopping.is_set():
            # Due sessions held by their cooldown (a failed sync's too) wake the loop when it ends.
            waits = [t.ready_at - self.clock() for t in self._tallies.values() if t.lines >= self.lines]
            if deadline is not None:
                waits.append(deadline - self.clock())
            actions = self.step(max(0.0, min(waits)) if waits else None)
            for action in actions:
                emit(action)
            if (once and any(a.kind == "sync" for a in actions)) or \
                    (deadline is not None and self.clock() >= deadline):
                return

    def pending(self, path: Path | str) -> int:
        """The lines counted in one session file since its last trigger."""
        tally = self._tallies.get(str(path))
        return tally.lines if tally else 0

    def close(self) -> None:
        """Stop following the stores and join watchdog's thread."""
        self.stop()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join()
            self._observer = None

    # -- any thread --

    def stop(self) -> None:
        """Ask `run` (or a `step` waiting) to return; safe from a signal handler."""
        self._stopping.set()
        self._paths.put(None)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- counting and triggering --

    def _main_files(self, harness: str, paths: Sequence[Path]) -> Iterator[Path]:
        for root in paths:
            for path in root.rglob("*.jsonl"):
                if main_session(harness, path):
                    yield path

    def _harness_of(self, path: Path) -> str | None:
        for harness, roots in self.roots.items():
            if any(path.is_relative_to(root) for root in roots):
                return harness if main_session(harness, path) else None
        return None

    def _count(self, name: str) -> None:
        tally = self._tallies.get(name)
        if tally is None:
            harness = self._harness_of(Path(name))
            if harness is None:
                return
            # A file not there when the watch started is new: every line of it counts.
            tally = self._tallies[name] = _Tally(harness, self._known.pop(name, 0))
        try:
            with open(name, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < tally.offset:
                    tally.offset = 0  # rewritten shorter: the sync reads it again whole
                fh.seek(tally.offset)
                while chunk := fh.read(_READ):
                    ends = chunk.count(b"\n")
                    if ends:
                        tally.lines += ends
                        tally.offset += chunk.rindex(b"\n") + 1
                        fh.seek(tally.offset)
                    elif len(chunk) < _READ:
                        break  # a half-written last line: counted once it ends
                    else:
                        tally.offset += len(chunk)  # a line longer than a read: its end counts it
        except OSError:
            return  # gone or unreadable: the sync will say so if it matters

    def _observed_elsewhere(self, path: str, tally: _Tally) -> bool:
        """Whether the record already holds every line counted (read past the tally's offset, from the
        bytes the file holds now: not a read of what it held before a rewrite) and the observer has read
        its session to the end. Any doubt (no record, a busy one) says no."""
        if not self.record_path.exists():
            return False
        try:
            with Record(self.record_path) as record:
                read = record.read_to(path)
                number = _session_of(record, tally.harness, path)
                return (read is not None and read[0] >= tally.offset and number is not None
                        and (read[0] == 0 or read_check(Path(path), read[0]) == read[1])
                        and not observer_pending(record, number))
        except Exception:  # a check only: the trigger that follows reports what is wrong
            return False

    def _trigger(self, path: str, tally: _Tally) -> list[Action]:
        lines, tally.lines = tally.lines, 0
        tally.ready_at, tally.held = self.clock() + self.cooldown, False
        actions: list[Action] = []
        stage = "open"
        try:
            with Record(self.record_path) as record:
                stage = "sync"
                report = sync(record, [tally.harness], env=self.env, wait=self.wait)
                actions.append(Action("sync", tally.harness, path, None, lines, {
                    "sources_read": report.sources_read, "sessions_added": report.sessions_added,
                    "entries_added": report.entries_added, "warnings": len(report.warnings)},
                    tuple(report.errors)))
                stage = "observe"
                number = _session_of(record, tally.harness, path)
                if number is None:
                    return [*actions, Action("observe", tally.harness, path, None, lines,
                                             {"observed": {"sessions": 0, "entries": 0}},
                                             ("the record holds no session read from this file",))]
                done = observe(record, session=number, model=self.model)
                result = done.to_json()
                errors = tuple(result.pop("errors"))
                actions.append(Action("observe", tally.harness, path, number, lines, result, errors))
        except Exception as exc:  # the top of a daemon's work: reported, and the watcher goes on
            if stage in ("open", "sync"):
                tally.lines += lines  # nothing synced: these lines still count toward the next try
            tally.ready_at = self.clock() + max(self.cooldown, RETRY_AFTER)  # never a loop of failures
            actions.append(Action("error", tally.harness, path, None, lines, {"stage": stage},
                                  (f"{type(exc).__name__}: {exc}",)))
        return actions


def _session_of(record: Record, harness: str, path: str) -> int | None:
    """The record session read from a store file (its newest generation)."""
    numbers = [s.number for s in record.sessions([harness]) if s.source == path]
    return max(numbers) if numbers else None
