"""The mining tools' CLI: one command per core function, JSON where the reply is JSON, text where it is
line-oriented, and the core's own message with exit 2 when a call is rejected."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.mining_stores import RECENT, Mined, mined_record
from total_recall.surfaces.cli import cli


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mined]:
    with mined_record(tmp_path_factory.mktemp("cli")) as m:
        yield m


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def run(mined: Mined, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(mined.store.path.parent), *args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result


def as_json(mined: Mined, *args: str) -> Any:
    return json.loads(run(mined, *args).stdout)


def test_status_prints_the_harnesses_as_json(mined: Mined) -> None:
    status = as_json(mined, "status")
    assert {r["harness"] for r in status["harnesses"]} == set(RECENT) | {"claude-code"}
    assert as_json(mined, "status", "--harness", "codex")["serves"] == ["codex"]


def test_list_defaults_to_the_recent_window_and_takes_the_scope_flags(mined: Mined) -> None:
    assert as_json(mined, "list")["window_count"] == len(RECENT)
    listed = as_json(mined, "list", "--all", "--harness", "vibe", "--directory", "proj")
    assert listed["sessions"] and {r["harness"] for r in listed["sessions"]} == {"vibe"}
    assert as_json(mined, "list", "--all", "--max-bytes", "2000")["held_back"] > 0


def test_a_rejected_scope_exits_2_with_the_cores_message(mined: Mined) -> None:
    result = run(mined, "list", "--all", "--hours", "5", code=2)
    assert "all=true is the whole record" in result.stderr and "pass one, not both" in result.stderr
    assert "`limit` is out of range" in run(mined, "extract", "--limit", "0", code=2).stderr
    assert "`max_bytes` is out of range" in run(mined, "profile", "--max-bytes", "99999999", code=2).stderr
    assert "matches no session" in run(mined, "profile", "no-such-session", code=2).stderr


def test_profile_and_extract_print_json_for_a_session(mined: Mined) -> None:
    profile = as_json(mined, "profile", RECENT["codex"])
    assert profile["harness"] == "codex" and profile["event_counts"]["GitTag"] == 1
    page = as_json(mined, "extract", RECENT["codex"], "--full", "--limit", "3", "--offset", "0")
    assert page["bounds"]["returned_records"] == 3 and page["bounds"]["next_offset"] == 3
    users = as_json(mined, "user-messages", RECENT["codex"])
    assert [m["text"] for m in users["user_messages"]] == ["plan the 1.2 release, then tag it"]


def test_extract_by_type_prints_its_lines(mined: Mined) -> None:
    out = run(mined, "extract-by-type", RECENT["claude-code"], "--type", "tool").stdout.splitlines()
    assert out[0].startswith("# {") and all(line.startswith("tool,") for line in out[1:])
    assert len(out) == 9


def test_todo_history_prints_one_json_edit_per_line(mined: Mined) -> None:
    out = run(mined, "todo-history", RECENT["vibe"]).stdout.splitlines()
    assert [json.loads(line)["action"] for line in out[1:]] == ["added", "added", "completed", "completed"]
    after = run(mined, "todo-history", RECENT["codex"], "--no-full").stdout.splitlines()
    assert len(after) == 3


def test_he_said_she_said_and_qa_pairs_print_their_reports(mined: Mined) -> None:
    said = run(mined, "he-said-she-said", "--words", "branch,tag").stdout
    assert said.startswith("# she said, he said, they did — words: branch, tag") and "HE SAID" in said
    assert "`words` is required" in run(mined, "he-said-she-said", code=2).stderr
    one = run(mined, "he-said-she-said", "--words", "fixture", "--session", "01a0f21c").stdout
    assert "sessions: 1 scanned" in one
    qa = run(mined, "qa-pairs", "--all").stdout
    assert qa.startswith("# QA pairs — scope: the whole record (all=true)") and "QUESTION:" in qa


def test_line_histogram_profiles_and_extracts_and_refuses_a_folder(mined: Mined, tmp_path: Path) -> None:
    folder = mined.store.path.parent / "overflow"  # the one folder it reads
    folder.mkdir(mode=0o700, exist_ok=True)
    dump = folder / "dump.txt"
    dump.write_text("".join(f"line {n}\n" for n in range(1, 41)), encoding="utf-8")
    (folder / "sub").mkdir(exist_ok=True)
    assert "Total lines: 40" in run(mined, "line-histogram", str(dump)).stdout
    assert run(mined, "line-histogram", str(dump), "--extract", "--line", "7").stdout == "line 7\n"
    assert (
        run(mined, "line-histogram", str(dump), "--extract", "--start", "2", "--end", "3").stdout
        == "line 2\nline 3\n"
    )
    assert "is not a regular file" in run(mined, "line-histogram", str(folder / "sub"), code=2).stderr
    assert "mode is 'histogram'" in run(mined, "line-histogram", str(dump), "--line", "3", code=2).stderr


def test_the_mining_commands_leave_the_stores_byte_identical(mined: Mined) -> None:
    for args in (
        ["status"],
        ["list", "--all"],
        ["profile"],
        ["extract", "--full"],
        ["user-messages"],
        ["extract-by-type", "--raw", "--include-injected"],
        ["todo-history"],
        ["he-said-she-said", "--words", "git", "--all"],
        ["qa-pairs", "--all"],
    ):
        run(mined, *args)
    assert mined.stores.digest() == mined.digest


def test_dream_searches_the_scope_one_hit_a_line_with_addresses(mined: Mined) -> None:
    lines = run(mined, "dream", "fixture", "--all", "--limit", "3").stdout.splitlines()
    assert lines[0].startswith("# do_android_dream_of_electric_sheep · query 'fixture'")
    assert lines[1] == "address | score | timestamp | AUTHOR | snippet"
    assert 1 <= len(lines[2:]) <= 3
    assert all(line.split(" | ")[0].startswith("s") and "#" in line.split(" | ")[0] for line in lines[2:])
    assert "pass one, not both" in run(mined, "dream", "x", "--all", "--hours", "3", code=2).stderr


def test_index_sessions_reports_every_session_of_the_scope(mined: Mined) -> None:
    report = as_json(mined, "index-sessions", "--all", "--budget", "0")
    assert report["totals"]["sessions"] == len(report["sessions"]) > 0
    assert report["meaning_vectors"]["budget_seconds"] == 0
    assert "`budget_seconds` is out of range" in run(mined, "index-sessions", "--budget", "-1", code=2).stderr
