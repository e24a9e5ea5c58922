"""`total-recall hook claude-code` / `hook codex`: hook JSON in; a marker and a receipt; the markers back."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript, hook_json
from tests.stores import Stores, fixture_stores
from total_recall.keeping.claude_code import claude_code_hook
from total_recall.keeping.hooks import parse_payload, session_for
from total_recall.keeping.marker import markers_for
from total_recall.keeping.receipts import list_receipts
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli

RULE = "Never restart the production database during the day."
SESSION_ID = "7a0c3e55-2b1d-4c8e-9f60-3d4e5f6a7b8c"


@dataclass
class Harnesses:
    stores: Stores
    home: Path
    transcript: Transcript

    def hook(self, harness: str, stdin: str) -> Result:
        return CliRunner().invoke(cli, ["--home", str(self.home), "hook", harness], input=stdin)

    def record(self) -> Record:
        return Record(self.home / "record.sqlite3")


@pytest.fixture
def harnesses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harnesses]:
    with fixture_stores(tmp_path / "stores") as stores:
        stores.point(monkeypatch)
        t = Transcript(stores.roots["claude-code"] / "-work-shop" / f"{SESSION_ID}.jsonl", "/work/shop")
        t.owner(f"{RULE} The certs live in /etc/ssl/private/ and commit 3f9c2e1 last worked.")
        t.agent("Understood. I will check the renewal first.")
        t.tool("Bash", {"command": "certbot renew"},
               "Renewal failed: urn:ietf:params:acme:error:unauthorized")
        t.agent("The renewal failed: the HTTP-01 challenge is blocked.")
        t.owner("Then try the DNS challenge.")
        t.agent("Switching to DNS-01.")
        t.owner("Write the ticket summary.")
        t.agent("Here is the summary.")
        yield Harnesses(stores, tmp_path / "record", t)


def test_precompact_then_sessionstart_gives_back_the_owner_s_words(harnesses: Harnesses) -> None:
    before = harnesses.stores.digest()
    pre = harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="auto",
                                                  custom_instructions=""))
    assert pre.exit_code == 0 and pre.stdout == ""
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
        assert (receipt.controller, receipt.trigger, receipt.decision, receipt.knowledge) == (
            "claude-code", "auto", "compacted", "sent, unconfirmed")
        assert receipt.marker_id is not None and receipt.range is not None
        assert receipt.session is not None
        [marker] = markers_for(record, receipt.session)
        assert marker.id == receipt.marker_id and marker.marker.range == receipt.range
    start = harnesses.hook("claude-code", hook_json("SessionStart", harnesses.transcript, source="compact",
                                                    model="claude-sonnet-5"))
    assert start.exit_code == 0
    out = json.loads(start.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert RULE in context and "/etc/ssl/private/" in context and "3f9c2e1" in context
    assert receipt.range in context and len(context) <= 10_000
    assert set(out) == {"hookSpecificOutput"} and set(out["hookSpecificOutput"]) == {
        "hookEventName", "additionalContext"}
    assert harnesses.stores.digest() == before


def test_the_core_decides_the_context_and_the_surface_words_it_as_the_harness_s_json(
        harnesses: Harnesses) -> None:
    harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="auto"))
    stdin = hook_json("SessionStart", harnesses.transcript, source="compact")
    with harnesses.record() as record:
        decided = claude_code_hook(record, parse_payload(stdin))
    assert decided.context is not None and RULE in decided.context
    assert "hookSpecificOutput" not in decided.context
    start = harnesses.hook("claude-code", stdin)
    assert json.loads(start.stdout) == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                               "additionalContext": decided.context}}


def test_a_resume_gets_the_markers_and_other_session_starts_only_the_observations(
        harnesses: Harnesses) -> None:
    harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="auto"))
    resume = harnesses.hook("claude-code", hook_json("SessionStart", harnesses.transcript, source="resume"))
    assert RULE in json.loads(resume.stdout)["hookSpecificOutput"]["additionalContext"]
    for source in ("startup", "clear", "fork"):
        other = harnesses.hook("claude-code", hook_json("SessionStart", harnesses.transcript, source=source))
        context = json.loads(other.stdout)["hookSpecificOutput"]["additionalContext"]
        assert other.exit_code == 0 and "[total-recall marker" not in context
        assert context.startswith("[total-recall observations]") and RULE in context


def test_a_session_with_no_markers_starts_with_nothing_added(harnesses: Harnesses) -> None:
    with harnesses.record() as record:
        assert sync(record, ["claude-code"]).errors == []
        assert session_for(record, "claude-code", SESSION_ID) is not None
    start = harnesses.hook("claude-code", hook_json("SessionStart", harnesses.transcript, source="compact"))
    assert (start.exit_code, start.stdout) == (0, "")


def test_a_manual_compact_keeps_the_owner_s_compact_instructions_in_the_receipt(harnesses: Harnesses) -> None:
    words = "Keep the certbot error lines and the DNS decision."
    result = harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="manual",
                                                     custom_instructions=words))
    assert (result.exit_code, result.stdout) == (0, "")
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
    assert receipt.trigger == "manual" and receipt.note is not None and words in receipt.note


def test_user_prompt_submit_is_a_valid_no_op_for_now(harnesses: Harnesses) -> None:
    result = harnesses.hook("claude-code", hook_json("UserPromptSubmit", harnesses.transcript,
                                                     prompt="Where do the certs live?"))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize(("stdin", "named"), [
    ("", "stdin is empty"),
    ("{not json", "stdin is not JSON"),
    ('["PreCompact"]', "a JSON list, not the hook's JSON object"),
    ('{"session_id": "abc"}', "no 'hook_event_name'"),
    ('{"hook_event_name": "PreCompact"}', "no 'session_id'"),
])
def test_malformed_stdin_is_named_on_stderr_and_never_breaks_the_harness(
        harnesses: Harnesses, stdin: str, named: str) -> None:
    result = harnesses.hook("claude-code", stdin)
    assert result.exit_code == 0 and result.stdout == ""
    assert named in result.stderr and "Traceback" not in result.output
    with harnesses.record() as record:
        assert list_receipts(record) == []


def test_a_session_is_found_by_its_transcript_when_the_id_is_not_the_file_name(harnesses: Harnesses) -> None:
    path = harnesses.stores.roots["claude-code"] / "synthetic_compact_after_rewind_dag.jsonl"
    stdin = json.dumps({"session_id": "s1", "transcript_path": str(path), "cwd": "/tmp",
                        "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
    assert harnesses.hook("claude-code", stdin).exit_code == 0
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
        assert receipt.session is not None
        assert record.session(receipt.session).source == str(path)


def test_a_broken_record_is_reported_on_stderr_and_the_hook_still_exits_0(harnesses: Harnesses) -> None:
    harnesses.home.mkdir(parents=True, exist_ok=True)
    (harnesses.home / "record.sqlite3").write_bytes(b"this is not a database" * 100)
    result = harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="auto"))
    assert result.exit_code == 0 and result.stdout == ""
    assert "PreCompact failed" in result.stderr and "not a usable record" in result.stderr


def test_codex_compaction_hooks_leave_a_marker_and_give_it_back(harnesses: Harnesses) -> None:
    # A real (sanitized) Codex rollout with four owner messages: something lies before the tail.
    rollout = next(harnesses.stores.roots["codex"].rglob("rollout-2026-02-23T13-19-38-*.jsonl"))
    native = "019c8a70-dda7-7f33-98ea-f30553347322"
    assert native in rollout.name
    common = {"session_id": native, "turn_id": "turn-1", "transcript_path": str(rollout), "cwd": "/work/proj",
              "model": "gpt-5.6"}
    before = harnesses.stores.digest()
    pre = harnesses.hook("codex", json.dumps({**common, "hook_event_name": "PreCompact", "trigger": "auto"}))
    assert (pre.exit_code, pre.stdout) == (0, "")
    with harnesses.record() as record:
        # The hook's sync also wrote the receipts of the Codex compactions the store held already.
        [receipt] = [r for r in list_receipts(record) if r.trigger != "harness"]
    assert (receipt.controller, receipt.trigger, receipt.knowledge) == ("codex", "auto", "sent, unconfirmed")
    assert receipt.marker_id is not None and receipt.range is not None
    start = harnesses.hook("codex", json.dumps({**common, "hook_event_name": "SessionStart",
                                                "source": "compact", "permission_mode": "default"}))
    assert start.exit_code == 0
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"[total-recall marker {receipt.range}]" in context
    assert harnesses.stores.digest() == before


WAIT_BOUND = 10.0  # the seconds a hook may wait for the record, as hooks.py states it
HOLD_SYNC_LOCK = """
import fcntl, sys
lock = open(sys.argv[1] + ".sync-lock", "a")
fcntl.flock(lock, fcntl.LOCK_EX)  # what a long sync holds from its start to its end
print("held", flush=True)
sys.stdin.read()
"""
HOLD_WRITE_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")  # the record's write lock, as a sync or an erase holds it
print("held", flush=True)
sys.stdin.read()
"""


@contextmanager
def held(record: Path, script: str) -> Iterator[None]:
    """Another process holding one of the record's locks until the block ends (it waits on its stdin)."""
    holder = subprocess.Popen([sys.executable, "-c", script, str(record)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.stdin.close()
        holder.stdout.close()
        holder.wait(timeout=30)


def timed_hook(harnesses: Harnesses, stdin: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """The PreCompact hook run as the harness runs it; a hook that waits for ever fails the test instead."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "total_recall", "--home", str(harnesses.home), "hook",
                           "claude-code"], input=stdin, capture_output=True, text=True,
                          timeout=WAIT_BOUND + 30)
    return done, time.monotonic() - started


def test_a_precompact_hook_skips_the_sync_of_a_busy_record_and_still_leaves_its_marker(
        harnesses: Harnesses) -> None:
    with harnesses.record() as opened_record:
        assert sync(opened_record, ["claude-code"]).errors == []
    record = harnesses.home / "record.sqlite3"
    with held(record, HOLD_SYNC_LOCK):
        done, seconds = timed_hook(harnesses, hook_json("PreCompact", harnesses.transcript, trigger="auto"))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert seconds < WAIT_BOUND and "Traceback" not in done.stderr
    assert "sync skipped" in done.stderr
    with harnesses.record() as opened_record:
        [receipt] = list_receipts(opened_record)
    assert receipt.marker_id is not None and receipt.note is not None
    assert "record busy (another sync is running): sync skipped" in receipt.note


def test_a_precompact_hook_whose_record_stays_locked_exits_0_within_its_bound_saying_so(
        harnesses: Harnesses) -> None:
    with harnesses.record() as opened_record:
        assert sync(opened_record, ["claude-code"]).errors == []
    record = harnesses.home / "record.sqlite3"
    with held(record, HOLD_WRITE_LOCK):
        done, seconds = timed_hook(harnesses, hook_json("PreCompact", harnesses.transcript, trigger="auto"))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert seconds < WAIT_BOUND and "Traceback" not in done.stderr
    assert "no marker or receipt written" in done.stderr
    with harnesses.record() as opened_record:
        assert list_receipts(opened_record) == []


# -- bad hook input: named on stderr, nothing written (the record is append-only) --

EXE = Path(sys.executable).parent / "total-recall"
NEW_ID = "00000000-0000-4000-8000-000000000000"
FOLDER = object()  # stands for a folder as transcript_path (the fixture's store root)


def synced(harnesses: Harnesses) -> dict[str, bytes]:
    """Sync the record as a surface does (Codex compactions receipted, the sync logged); its files."""
    from total_recall.syncing import sync as surface_sync

    with harnesses.record() as record:
        surface_sync(record, ["claude-code", "codex"])
    return home_files(harnesses.home)


def home_files(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir())
            if p.is_file() and not p.name.endswith("-shm")}


def receipts_now(harnesses: Harnesses) -> list[tuple[int | None, str | None]]:
    with harnesses.record() as record:
        return [(r.id, r.note) for r in list_receipts(record)]


def refused_once(result: Result | subprocess.CompletedProcess[str], named: str) -> None:
    """Exit 0, nothing on stdout, one short line on stderr naming the field, control characters escaped."""
    code = result.exit_code if isinstance(result, Result) else result.returncode
    assert (code, result.stdout) == (0, "")
    assert result.stderr.count("\n") == 1 and len(result.stderr) < 600, result.stderr[:600]
    assert named in result.stderr and "nothing done" in result.stderr
    assert "\x00" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("event", "field", "value"), [
    ("PreCompact", "session_id", "%"),
    ("PreCompact", "session_id", "a b"),
    ("PreCompact", "session_id", "x" * 201),
    ("PreCompact", "session_id", SESSION_ID + "\x00"),
    ("PreCompact", "transcript_path", 5),
    ("PreCompact", "transcript_path", ["/work/shop/a.jsonl"]),
    ("PreCompact", "transcript_path", FOLDER),
    ("PreCompact", "transcript_path", "/work/\x00shop.jsonl"),
    ("PreCompact", "trigger", {"a": 1}),
    ("PreCompact", "trigger", "sometimes"),
    ("PreCompact", "trigger", None),
    ("PreCompact", "custom_instructions", 5),
    ("PreCompact", "custom_instructions", ["keep the certs"]),
    ("SessionStart", "session_id", "%"),
    ("PreCompact", "hook_event_name", "PreCompact\x00"),
])
def test_a_hook_payload_with_a_malformed_field_is_refused_naming_it_and_writes_nothing(
        harnesses: Harnesses, event: str, field: str, value: object) -> None:
    before = synced(harnesses)
    payload = json.loads(hook_json(event, harnesses.transcript, trigger="auto", custom_instructions="",
                                   source="compact"))
    payload[field] = str(harnesses.stores.roots["claude-code"]) if value is FOLDER else value
    result = harnesses.hook("claude-code", json.dumps(payload))
    refused_once(result, field)
    assert home_files(harnesses.home) == before


def test_a_five_megabyte_session_id_is_refused_in_one_short_line_and_stores_nothing(
        harnesses: Harnesses) -> None:
    before = synced(harnesses)
    stdin = json.dumps({"hook_event_name": "PreCompact", "session_id": "x" * 5_000_000, "trigger": "auto"})
    done = subprocess.run([str(EXE), "--home", str(harnesses.home), "hook", "claude-code"], input=stdin,
                          capture_output=True, text=True, timeout=60)
    refused_once(done, "session_id")
    assert home_files(harnesses.home) == before


def test_a_refused_payload_on_a_new_home_creates_no_record(harnesses: Harnesses) -> None:
    stdin = hook_json("PreCompact", harnesses.transcript, trigger={"a": 1})
    refused_once(harnesses.hook("claude-code", stdin), "trigger")
    assert not (harnesses.home / "record.sqlite3").exists()


@pytest.mark.parametrize("session_id", ["s1", SESSION_ID[:4], NEW_ID])
@pytest.mark.parametrize("transcript", [None, "/nowhere/00000000.jsonl"])
def test_a_precompact_for_a_session_neither_the_record_nor_a_transcript_file_shows_writes_no_receipt(
        harnesses: Harnesses, session_id: str, transcript: str | None) -> None:
    synced(harnesses)
    before = receipts_now(harnesses)
    payload = {"hook_event_name": "PreCompact", "session_id": session_id, "trigger": "auto", "cwd": "/work"}
    if transcript is not None:
        payload["transcript_path"] = transcript
    result = harnesses.hook("claude-code", json.dumps(payload))
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"session {session_id} is not in the record" in result.stderr
    assert "no marker or receipt written" in result.stderr
    assert receipts_now(harnesses) == before


def outside_files(harnesses: Harnesses) -> dict[str, Path]:
    """Existing files no Claude Code session lives in, each in a way of its own."""
    root = harnesses.stores.roots["claude-code"]
    elsewhere = harnesses.home.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "00000000.jsonl").write_text("{}\n", encoding="utf-8")
    (elsewhere / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (root / "notes.txt").write_text("not a transcript\n", encoding="utf-8")
    return {"a .jsonl outside the store": elsewhere / "00000000.jsonl",
            "any file of the machine": elsewhere / "passwd",
            "a store file that is no .jsonl": root / "notes.txt",
            "a path climbing out of the store": root / ".." / ".." / "elsewhere" / "00000000.jsonl"}


@pytest.mark.parametrize("kind", ["a .jsonl outside the store", "any file of the machine",
                                  "a store file that is no .jsonl", "a path climbing out of the store"])
def test_a_precompact_for_an_unknown_session_whose_transcript_is_no_store_transcript_writes_no_receipt(
        harnesses: Harnesses, kind: str) -> None:
    synced(harnesses)
    before = receipts_now(harnesses)
    stdin = json.dumps({"session_id": NEW_ID, "hook_event_name": "PreCompact", "cwd": "/nowhere",
                        "transcript_path": str(outside_files(harnesses)[kind]), "trigger": "auto",
                        "custom_instructions": ""})
    result = harnesses.hook("claude-code", stdin)
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"session {NEW_ID} is not in the record" in result.stderr
    assert "no marker or receipt written" in result.stderr
    assert receipts_now(harnesses) == before
    start = harnesses.hook("claude-code", stdin.replace("PreCompact", "SessionStart")
                           .replace('"trigger": "auto"', '"source": "compact"'))
    assert start.exit_code == 0 and "[total-recall marker" not in start.stdout
    assert f"session {NEW_ID} is not in the record; no markers" in start.stderr


def test_a_brand_new_session_whose_sync_is_skipped_is_still_receipted_by_its_transcript_file(
        harnesses: Harnesses) -> None:
    synced(harnesses)
    fresh = Transcript(harnesses.stores.roots["claude-code"] / "-work-shop" / f"{NEW_ID}.jsonl", "/work/shop")
    fresh.owner("A session begun after the last sync.")
    fresh.agent("Noted.")
    with held(harnesses.home / "record.sqlite3", HOLD_SYNC_LOCK):
        done, seconds = timed_hook(harnesses, hook_json("PreCompact", fresh, trigger="auto"))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert seconds < WAIT_BOUND and "sync skipped" in done.stderr
    with harnesses.record() as record:
        [receipt] = [r for r in list_receipts(record) if r.controller == "claude-code"]
    assert receipt.session is None and receipt.trigger == "auto"
    assert receipt.note is not None and NEW_ID in receipt.note and str(fresh.path) in receipt.note


def test_a_long_custom_instruction_is_cut_in_the_receipt(harnesses: Harnesses) -> None:
    words = "Keep the certbot error lines. " + "and more " * 200_000
    result = harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="manual",
                                                     custom_instructions=words))
    assert (result.exit_code, result.stdout) == (0, "")
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
    assert receipt.note is not None and "Keep the certbot error lines." in receipt.note
    assert len(receipt.note) < 6_000 and "cut" in receipt.note


def test_control_characters_of_compact_instructions_never_reach_the_receipt_or_its_listing(
        harnesses: Harnesses) -> None:
    words = "keep\x00 the \x1b[31mred\x1b[0m bits\x7f\x85 and\tthe tabs\nand lines"
    result = harnesses.hook("claude-code", hook_json("PreCompact", harnesses.transcript, trigger="manual",
                                                     custom_instructions=words))
    assert (result.exit_code, result.stdout) == (0, "")
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
    assert receipt.note is not None
    assert "keep the [31mred[0m bits and\tthe tabs\nand lines" in receipt.note
    listed = CliRunner().invoke(cli, ["--home", str(harnesses.home), "receipts"])
    assert listed.exit_code == 0 and "[31mred" in listed.stdout
    assert not any(c in listed.stdout for c in "\x00\x1b\x7f\x85")


def test_a_payload_with_a_cut_emoji_is_read_with_a_replacement_character(harnesses: Harnesses) -> None:
    # Node's JSON.stringify writes a lone surrogate escape for half an emoji: valid JSON, refused by orjson.
    stdin = hook_json("PreCompact", harnesses.transcript, trigger="manual", custom_instructions="keep \ud83d")
    assert "\\ud83d" in stdin
    result = harnesses.hook("claude-code", stdin)
    assert (result.exit_code, result.stdout) == (0, ""), result.stderr
    with harnesses.record() as record:
        [receipt] = list_receipts(record)
    assert receipt.note is not None and "custom instructions: keep \ufffd" in receipt.note


def stop_json(transcript: Transcript, **fields: object) -> str:
    """Claude Code's Stop input: the common fields and `stop_hook_active`."""
    return json.dumps({**json.loads(hook_json("Stop", transcript)), "stop_hook_active": False, **fields})


def test_a_stop_hook_syncs_what_the_turn_added_and_answers_nothing(harnesses: Harnesses) -> None:
    synced(harnesses)
    harnesses.transcript.owner("Please don't mention the staging cluster again.")
    harnesses.transcript.agent("Understood.")
    result = harnesses.hook("claude-code", stop_json(harnesses.transcript))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    with harnesses.record() as record:
        session = session_for(record, "claude-code", SESSION_ID)
        assert session is not None
        assert any("staging cluster" in e.text for e in record.entries(Address(session)))
        assert [r for r in list_receipts(record) if r.controller == "claude-code"] == []


def test_a_stop_hook_skips_the_sync_of_a_busy_record_within_its_bound(harnesses: Harnesses) -> None:
    synced(harnesses)
    harnesses.transcript.owner("A turn the busy record does not get yet.")
    with held(harnesses.home / "record.sqlite3", HOLD_SYNC_LOCK):
        done, seconds = timed_hook(harnesses, stop_json(harnesses.transcript))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert seconds < WAIT_BOUND and "Traceback" not in done.stderr
    assert "sync skipped" in done.stderr


@pytest.mark.parametrize(("event", "field", "value"), [
    ("SessionStart", "cwd", 5),
    ("SessionStart", "cwd", ["/"]),
    ("SessionStart", "source", ["compact"]),
    ("SessionStart", "transcript_path", 7),
    ("UserPromptSubmit", "prompt", 5),
    ("UserPromptSubmit", "prompt", ["where?"]),
    ("UserPromptSubmit", "prompt", None),
    ("UserPromptSubmit", "cwd", {"a": "\x00"}),
])
def test_a_mistyped_field_the_hook_can_do_without_is_named_as_ignored(
        harnesses: Harnesses, event: str, field: str, value: object) -> None:
    payload = json.loads(hook_json(event, harnesses.transcript, source="compact",
                                   prompt="Where are the certs?"))
    payload[field] = value
    result = harnesses.hook("claude-code", json.dumps(payload))
    assert result.exit_code == 0 and "Traceback" not in result.output
    [line] = [x for x in result.stderr.splitlines() if f" {field} " in x]
    assert "ignored" in line and "\x00" not in line


def test_a_user_prompt_without_a_prompt_says_so_on_the_full_path_and_makes_no_record(
        harnesses: Harnesses) -> None:
    payload = json.loads(hook_json("UserPromptSubmit", harnesses.transcript))
    result = harnesses.hook("claude-code", json.dumps(payload))
    assert (result.exit_code, result.stdout) == (0, "")
    assert "prompt None is not text" in result.stderr and "nothing pushed" in result.stderr
    assert not (harnesses.home / "record.sqlite3").exists()
