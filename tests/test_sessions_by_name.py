"""Sessions a person recognises: a Claude Code session untitled by the harness takes its first prompt's words,
and every command that takes `s3` takes the session's own id, or a unique prefix of it, in its place."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.conftest import SESSIONS
from tests.readers.helpers import read_all
from total_recall.readers.claude_code import ClaudeCodeReader
from total_recall.surfaces.cli import cli

WORKTREES = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # REAL 2.1.114, no summary or ai-title record
RECORDED = "609b44ad-7c18-4745-a70b-784281dce85e"  # RECORDED 2.1.284, no summary or ai-title record


@pytest.fixture
def cli_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    root = tmp_path / "claude"
    shutil.copytree(SESSIONS / "claude_code", root)
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    runner = CliRunner()
    assert runner.invoke(cli, ["sync", "--harness", "claude-code"]).exit_code == 0

    def run(*args: str, code: int = 0) -> Result:
        done = runner.invoke(cli, list(args))
        assert done.exit_code == code, (args, done.output, done.stderr)
        return done

    return run


def listed(run: Any) -> dict[str, dict[str, Any]]:
    return {s["native_id"]: s for s in json.loads(run("sessions", "--json").stdout)["sessions"]}


def test_a_claude_code_session_without_a_summary_is_titled_by_its_owner_s_first_words(cli_run: Any) -> None:
    sessions = listed(cli_run)
    long = sessions[WORKTREES]["title"]
    assert long.startswith("OK, we're going to make a little experiment here. Pretend we have")
    assert long.endswith("…") and len(long) <= 80 and not long[:-1].endswith(" ")
    first = cli_run("read", f"{sessions[WORKTREES]['session']}#1-20", "--json").stdout
    assert long[:-1] in first  # cut at a word boundary of the words as typed
    assert sessions[RECORDED]["title"] == "run echo fixture please"
    assert sessions["synthetic_compact_after_rewind_dag"]["title"] == "Start"
    # A summary or title record still names the session.
    assert sessions["real_v1.0.51_summaries_326189cf"]["title"] == (
        "Claude Code Log: Timestamp-Based Caching Implementation")
    assert sessions["synthetic_kitchen_sink_all_record_types"]["title"] == "Stage0 small fixture"
    assert sessions["8463c716-a2ea-4c14-9efa-87158ebd9f20"]["title"].startswith("Work on bead spotter-fum.")
    # Only the harness speaks in the sub-agent Claude Code starts to compact a session: no owner words.
    assert sessions["agent-acompact-e1f845"]["title"] is None
    assert all(s["title"] for n, s in sessions.items() if n != "agent-acompact-e1f845")


def test_a_later_ai_title_replaces_the_first_words_and_wrappers_are_not_the_title(tmp_path: Path) -> None:
    path = tmp_path / "proj" / "5e55a0b0-0000-4000-8000-000000000001.jsonl"
    path.parent.mkdir()
    sid = path.stem
    first = "<command-name>/clear</command-name>\n<command-args></command-args>"
    second = ("<system-reminder>be brief</system-reminder>\n```\nlog line\n```\n"
              "Deploys   wait for the Friday freeze to end")
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": sid,
         "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": first}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": sid,
         "timestamp": "2026-03-01T10:00:01Z", "message": {"role": "user", "content": second}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [source] = ClaudeCodeReader().sources(tmp_path)
    title = read_all(ClaudeCodeReader(), source).sessions[sid].title
    assert title == "Deploys   wait for the Friday freeze to end"
    with path.open("a") as f:
        f.write(json.dumps({"type": "ai-title", "aiTitle": "Friday freeze", "sessionId": sid}) + "\n")
    assert read_all(ClaudeCodeReader(), source).sessions[sid].title == "Friday freeze"


def test_read_takes_a_native_session_id_or_a_unique_prefix_wherever_it_takes_s3(cli_run: Any) -> None:
    number = listed(cli_run)[WORKTREES]["session"]
    for address, ours in ((WORKTREES, number), (f"{WORKTREES}#2", f"{number}#2"),
                          ("ef958aa1#3-5", f"{number}#3-5"), ("EF958AA1-0E93#7", f"{number}#7")):
        assert cli_run("read", address, "--json").stdout == cli_run("read", ours, "--json").stdout
    page = json.loads(cli_run("read", "ef958aa1#3-5", "--json").stdout)
    assert page["address"] == f"{number}#3-5"
    assert [e["address"] for e in page["entries"]] == [f"{number}#3", f"{number}#4", f"{number}#5"]


def test_an_ambiguous_prefix_is_refused_listing_its_candidates_and_an_unknown_one_by_name(
    cli_run: Any,
) -> None:
    ambiguous = cli_run("read", "synthetic_#2", code=2).stderr
    assert "'synthetic_' is ambiguous — it matches 3 sessions" in ambiguous
    assert all(n in ambiguous for n in (
        "synthetic_compact_after_rewind_dag", "synthetic_edge_cases_malformed",
        "synthetic_kitchen_sink_all_record_types"))
    assert "Traceback" not in ambiguous
    for command in (("read", "nosuch-session#2"), ("markers", "nosuch-session"),
                    ("compact", "nosuch-session", "--budget", "800"),
                    ("receipts", "--session", "nosuch-session"),
                    ("search", "fixture", "--session", "nosuch-session")):
        refused = cli_run(*command, code=2).stderr
        # An address names no session (record/sessions.py); a session parameter matches none (the one
        # resolver of the table of operations), in the CLI's words.
        said = "names no session" if command[0] == "read" else "matches no session"
        assert f"'nosuch-session' {said}" in refused and "session_id" not in refused, command
    # More than five candidates: five are listed, and how many more.
    assert "; and " not in ambiguous
    many = cli_run("read", "c", code=2).stderr  # no id starts with it; nine hold it
    assert "'c' is ambiguous — it matches 9 sessions" in many
    assert many.count(" (claude-code, ") == 5 and "; and 4 more" in many


def test_compact_markers_receipts_and_cue_take_the_session_s_own_id(cli_run: Any) -> None:
    number = listed(cli_run)[WORKTREES]["session"]
    done = json.loads(cli_run("compact", "ef958aa1", "--budget", "1200", "--range", "ef958aa1#1-40",
                              "--json").stdout)
    assert done["session"] == number and done["range"] == f"{number}#1-40"
    stored = json.loads(cli_run("markers", WORKTREES, "--json").stdout)
    assert stored["session"] == number and [m["id"] for m in stored["markers"]] == [done["id"]]
    receipts = json.loads(cli_run("receipts", "--session", "ef958aa1-0e93", "--json").stdout)["receipts"]
    assert [r["marker"] for r in receipts if r.get("marker") is not None] == [done["id"]]
    cue = json.loads(cli_run("cue", "ef958aa1", "worktrees experiment: come back to merge", "--json").stdout)
    assert cue["session"] == number


def test_search_within_a_session_named_by_its_own_id(cli_run: Any) -> None:
    number = listed(cli_run)[WORKTREES]["session"]
    hits = json.loads(cli_run("search", "worktree", "--session", "ef958aa1", "--json").stdout)["hits"]
    assert hits and {h["address"].split("#")[0] for h in hits} == {number}
    assert hits == json.loads(cli_run("search", "worktree", "--session", number, "--json").stdout)["hits"]


@pytest.mark.parametrize("address", ["s1#99#2", "s1#3#2", f"{WORKTREES}#99#2", "s١", "s1#١"])
def test_an_address_naming_entries_twice_or_in_other_digits_is_refused_and_nothing_is_done(
    cli_run: Any, address: str
) -> None:
    before = json.loads(cli_run("read", "s1#2", "--json").stdout)["entries"][0]["text"]
    for command in (["read", address], ["erase", address, "--reason", "x"],
                    ["quarantine", address, "--reason", "x"]):
        done = cli_run(*command, code=2)
        assert "not an address" in done.stderr or "names no session" in done.stderr
    assert json.loads(cli_run("read", "s1#2", "--json").stdout)["entries"][0]["text"] == before
    assert json.loads(cli_run("read", "s1#2", "--json").stdout)["entries"][0]["quarantined"] is None


def test_an_address_typed_with_a_capital_s_names_the_same_entries(cli_run: Any) -> None:
    lower = json.loads(cli_run("read", "s1#2-3", "--json").stdout)
    assert json.loads(cli_run("read", "S1#2-3", "--json").stdout) == lower
    number = listed(cli_run)[WORKTREES]["session"]
    hits = json.loads(cli_run("search", "worktree", "--session", number.upper(), "--json").stdout)["hits"]
    assert hits and {h["address"].split("#")[0] for h in hits} == {number}
    assert "not an address" in cli_run("read", "S1#3-2", code=2).stderr
    assert "must name a session (s1), not entries ('S1#2')" in cli_run("profile", "S1#2", code=2).stderr
