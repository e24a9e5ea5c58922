"""The reactive watcher (`total-recall watch`): a real watchdog observer on a temporary Claude Code store.
Enough new lines in a main session sync it and observe it, once per cooldown of an injected clock; a
sub-agent's lines do not count; a failure is reported and the watch goes on; nothing is written in the store.
No sleeps: `step` blocks on the watcher's event queue (with a timeout) until the file events arrive."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.inotify import WriteWatch
from tests.test_store_untouched import digest
from total_recall.config import record_home
from total_recall.errors import ConfigError
from total_recall.observing import observe
from total_recall.observing.watcher import Action, Watcher, watched_roots
from total_recall.record.database import Record
from total_recall.record.sync import sync, sync_lock

SID = "5a1e0000-0000-4000-8000-000000000001"
WAIT = 20.0  # seconds any one wait for file events may take before the test fails


class Clock:
    """The watcher's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def line(i: int) -> str:
    return json.dumps({"type": "user", "uuid": f"u-{i}", "parentUuid": None, "sessionId": SID,
                       "cwd": "/work/proj", "timestamp": f"2026-05-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                       "message": {"role": "user", "content": f"Always run the tests first ({i})"}})


def append(path: Path, start: int, count: int) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(line(i) + "\n" for i in range(start, start + count)))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "store"
    (root / "-work-proj" / SID / "subagents").mkdir(parents=True)
    append(main_file(root), 0, 1)
    append(sub_file(root), 0, 1)
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    return root


def main_file(root: Path) -> Path:
    return root / "-work-proj" / f"{SID}.jsonl"


def sub_file(root: Path) -> Path:
    return root / "-work-proj" / SID / "subagents" / "agent-a1.jsonl"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make(store: Path, clock: Clock) -> Iterator[Callable[..., Watcher]]:
    started: list[Watcher] = []

    def build(**options: Any) -> Watcher:
        watcher = Watcher(record_home() / "record.sqlite3", watched_roots(["claude-code"]), clock=clock,
                          **options)
        watcher.start()
        started.append(watcher)
        return watcher

    yield build
    for watcher in started:
        watcher.close()


def steps_until(watcher: Watcher, done: Callable[[list[Action]], bool]) -> list[Action]:
    """Step (each blocking on the event queue) until `done` holds for the actions so far."""
    actions: list[Action] = []
    deadline = time.monotonic() + WAIT
    while not done(actions):
        left = deadline - time.monotonic()
        assert left > 0, f"the watcher did not get there: {actions}"
        actions += watcher.step(timeout=left)
    return actions


def kinds(actions: list[Action]) -> list[str]:
    return [a.kind for a in actions]


def test_forty_new_lines_in_a_main_session_sync_and_observe_it_once_writing_nothing_in_the_store(
        make: Callable[..., Watcher], store: Path) -> None:
    watcher = make()
    append(main_file(store), 1, 40)
    before = digest(store)
    with WriteWatch(store) as writes:
        actions = steps_until(watcher, lambda a: "observe" in kinds(a))
        assert writes.events() == []
    assert digest(store) == before
    assert kinds(actions) == ["sync", "observe"]
    synced, observed = actions
    assert synced.path == str(main_file(store)) and synced.lines == 40 and synced.errors == ()
    assert synced.data["entries_added"] >= 41  # the session's first line, from before the watch, too
    assert observed.session is not None and observed.data["observed"] == {"sessions": 1, "entries": 41}
    assert observed.to_json()["action"] == "observe" and watcher.pending(main_file(store)) == 0
    assert watcher.step(timeout=0) == []


def test_thirty_nine_new_lines_do_not_trigger(make: Callable[..., Watcher], store: Path) -> None:
    watcher = make()
    append(main_file(store), 1, 39)
    assert steps_until(watcher, lambda _: watcher.pending(main_file(store)) == 39) == []
    assert not (record_home() / "record.sqlite3").exists()


def test_a_sub_agent_file_is_not_counted(make: Callable[..., Watcher], store: Path) -> None:
    watcher = make()
    append(sub_file(store), 1, 80)
    append(main_file(store), 1, 1)  # a main session's line after it: its count says the events are in
    assert steps_until(watcher, lambda _: watcher.pending(main_file(store)) == 1) == []
    assert watcher.pending(sub_file(store)) == 0


def test_the_cooldown_holds_a_second_trigger_until_the_clock_passes_it(
        make: Callable[..., Watcher], store: Path, clock: Clock) -> None:
    watcher = make(cooldown=300)
    append(main_file(store), 1, 40)
    assert kinds(steps_until(watcher, lambda a: "observe" in kinds(a))) == ["sync", "observe"]
    clock.now += 299
    append(main_file(store), 41, 45)
    [held] = steps_until(watcher, lambda a: bool(a))
    assert held.kind == "held" and held.lines == 45 and held.data["seconds_left"] == 1
    assert watcher.step(timeout=0) == []  # held once, said once
    clock.now += 1
    later = watcher.step(timeout=0)
    assert kinds(later) == ["sync", "observe"] and later[0].lines == 45
    assert later[1].data["observed"]["entries"] == 45


def test_a_run_elsewhere_that_synced_and_observed_the_lines_resets_the_count(
        make: Callable[..., Watcher], store: Path, clock: Clock) -> None:
    watcher = make(cooldown=0)
    append(main_file(store), 1, 40)
    with Record(record_home() / "record.sqlite3") as record:  # cron's or a hook's run, not the watcher's
        sync(record, ["claude-code"], roots={"claude-code": store})
        assert observe(record).entries == 41
    [reset] = steps_until(watcher, lambda a: bool(a))  # the watcher counts the 40 lines only now
    assert reset.kind == "reset" and reset.lines == 40 and watcher.pending(main_file(store)) == 0
    append(main_file(store), 41, 40)  # lines that run did not see are the watcher's again
    actions = steps_until(watcher, lambda a: "observe" in kinds(a))
    assert kinds(actions) == ["sync", "observe"] and actions[1].data["observed"]["entries"] == 40


def test_a_session_rewritten_shorter_is_synced_again_not_taken_for_a_run_elsewhere(
        make: Callable[..., Watcher], store: Path, clock: Clock) -> None:
    watcher = make(cooldown=0)
    append(main_file(store), 1, 40)
    assert kinds(steps_until(watcher, lambda a: "observe" in kinds(a))) == ["sync", "observe"]
    # The harness rewrites the file shorter (a rewind, a compaction): 40 lines the record has not read.
    rewritten = main_file(store).with_suffix(".tmp")
    rewritten.write_text("".join(line(i).replace("Always run the tests first", "Rewritten") + "\n"
                                 for i in range(40)), encoding="utf-8")
    rewritten.replace(main_file(store))
    actions = steps_until(watcher, lambda a: bool(a) and a[-1].kind != "held")
    assert kinds(actions) == ["sync", "observe"] and actions[0].data["entries_added"] > 0


def test_a_failing_sync_is_reported_and_the_watch_goes_on(
        make: Callable[..., Watcher], store: Path, clock: Clock) -> None:
    watcher = make(cooldown=60, wait=0)
    record = record_home() / "record.sqlite3"
    record.parent.mkdir(mode=0o700, parents=True)
    append(main_file(store), 1, 40)
    with sync_lock(record):  # another sync holds the record
        actions = steps_until(watcher, lambda a: bool(a))
    [failed] = actions
    assert failed.kind == "error" and failed.data == {"stage": "sync"} and "RecordBusy" in failed.errors[0]
    assert failed.to_json()["errors"] == list(failed.errors)
    assert watcher.pending(main_file(store)) == 40  # nothing synced: the lines still count
    assert kinds(watcher.step(timeout=0)) == ["held"]
    clock.now += 60
    again = watcher.step(timeout=0)
    assert kinds(again) == ["sync", "observe"] and again[0].lines == 40 and again[1].errors == ()


def test_run_tries_a_failed_sync_again_once_its_cooldown_has_passed(
        make: Callable[..., Watcher], store: Path, clock: Clock) -> None:
    watcher = make(cooldown=60, wait=0)
    record = record_home() / "record.sqlite3"
    record.parent.mkdir(mode=0o700, parents=True)
    append(main_file(store), 1, 40)
    seen: list[Action] = []
    with ExitStack() as busy:
        busy.enter_context(sync_lock(record))

        def emit(action: Action) -> None:
            seen.append(action)
            if action.kind == "error":
                busy.close()  # the other sync is done
                clock.now += 60

        running = threading.Thread(target=watcher.run, args=(emit,), kwargs={"once": True})
        running.start()
        running.join(WAIT)
        if running.is_alive():
            watcher.stop()
            running.join()
            pytest.fail(f"run did not try again: {seen}")
    assert kinds(seen) == ["error", "sync", "observe"] and seen[1].lines == 40


def test_a_harness_without_lines_is_refused_by_name(store: Path) -> None:
    with pytest.raises(ConfigError, match="OpenCode keeps SQLite"):
        watched_roots(["opencode"])


# -- the command --


class Watch:
    """`total-recall watch --json` in a process of its own, its output read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "total_recall", "watch", "--json", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        self.buffer = b""

    def until(self, kind: str) -> list[dict[str, Any]]:
        """The JSON lines printed, up to and with the first of `kind` (waiting on the output itself)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + WAIT
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while not seen or seen[-1]["action"] != kind:
                if b"\n" in self.buffer:
                    text, self.buffer = self.buffer.split(b"\n", 1)
                    seen.append(json.loads(text))
                    continue
                left = deadline - time.monotonic()
                assert left > 0 and selector.select(left), f"no {kind} from the watcher: {seen}"
                more = os.read(fd, 1 << 16)
                assert more, f"the watcher ended before {kind}: {seen}"
                self.buffer += more
        return seen

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.communicate()


def test_watch_syncs_and_observes_then_stops_on_sigterm_with_exit_0(store: Path) -> None:
    with Watch("--harness", "claude-code", "--mechanical") as watch:
        [watching] = watch.until("watching")
        assert watching["roots"] == {"claude-code": [str(store)]} and watching["lines"] == 40
        append(main_file(store), 1, 40)
        done = watch.until("observe")
        assert [d["action"] for d in done] == ["sync", "observe"]
        assert done[1]["observed"] == {"sessions": 1, "entries": 41} and done[1]["errors"] == []
        assert done[1]["address"] == f"s{done[1]['session']}"  # the session as every other command names it
        watch.proc.send_signal(signal.SIGTERM)
        assert watch.until("stopped")[-1]["why"] == "SIGTERM"
        assert watch.proc.wait(timeout=WAIT) == 0


def test_watch_once_stops_by_itself_after_its_first_sync_and_observe(store: Path) -> None:
    with Watch("--once", "--lines", "5", "--mechanical") as watch:
        watch.until("watching")
        append(main_file(store), 1, 5)
        done = watch.until("stopped")
        assert [d["action"] for d in done] == ["sync", "observe", "stopped"] and done[-1]["why"] == "once"
        assert watch.proc.wait(timeout=WAIT) == 0


def test_watch_stops_on_ctrl_c_with_exit_130(store: Path) -> None:
    with Watch("--mechanical") as watch:
        watch.until("watching")
        watch.proc.send_signal(signal.SIGINT)
        assert watch.until("stopped")[-1]["why"] == "SIGINT"
        assert watch.proc.wait(timeout=WAIT) == 130


def test_watch_with_nothing_to_watch_exits_2_saying_why() -> None:
    with Watch() as watch:
        _, err = watch.proc.communicate(timeout=WAIT)
        assert watch.proc.returncode == 2 and b"TOTAL_RECALL_SANDBOX is set" in err
