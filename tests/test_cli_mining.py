"""The mining operations on the CLI: one command each, generated from the table of operations. `--json`
prints the reply (the data, for the tools MCP answers in text); without it the JSON replies are shown as
tables and pages and the text tools print seed 004's text. A refusal exits 2 naming the CLI's flags."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.keeping_sessions import ClaudeSession
from tests.mining_stores import RECENT, Mined, mine, mined_record
from total_recall.errors import ScopeError
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mined]:
    with mined_record(tmp_path_factory.mktemp("cli")) as m:
        yield m


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def run(mined: Mined, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(mined.record.path.parent), *args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result


def as_json(mined: Mined, *args: str) -> Any:
    return json.loads(run(mined, *args, "--json").stdout)


def test_status_prints_the_harnesses_as_json(mined: Mined) -> None:
    status = as_json(mined, "status")
    assert {r["harness"] for r in status["harnesses"]} == set(RECENT) | {"claude-code"}
    assert as_json(mined, "status", "--harness", "codex")["serves"] == ["codex"]


def test_list_defaults_to_the_recent_window_and_takes_the_scope_flags(mined: Mined) -> None:
    listed = as_json(mined, "list")
    assert listed["window"] == "the last 240 h (the default window)"
    assert listed["window_count"] == len(RECENT)
    listed = as_json(mined, "list", "--all", "--harness", "vibe", "--directory", "proj")
    assert listed["sessions"] and {r["harness"] for r in listed["sessions"]} == {"vibe"}
    assert as_json(mined, "list", "--all", "--max-bytes", "2000")["held_back"] > 0
    assert as_json(mined, "list", "--hours", "1")["window_count"] == 0  # the recent ones are 2 h old


def test_list_shows_a_table_and_says_what_the_window_held_in_the_clis_words(mined: Mined) -> None:
    result = run(mined, "list")
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["session", "harness", "entries"]
    assert {line.split()[0] for line in lines[1:]} == {mined.session(h, n) for h, n in RECENT.items()}
    assert "5 sessions of 5 in the last 240 h (the default window)" in result.stderr
    assert "widen with --hours N or --all" in result.stderr and "hours_back" not in result.stderr


def test_a_refusal_exits_2_naming_the_clis_flags(mined: Mined) -> None:
    both = run(mined, "list", "--all", "--hours", "5", code=2).stderr
    assert "--all is the whole record and --hours 5 is a window — pass one, not both" in both
    assert "hours_back" not in both and "all=true" not in both
    assert "`--limit` is out of range: 0" in run(mined, "extract", "--limit", "0", code=2).stderr
    assert "`--max-bytes` is out of range" in run(mined, "profile", "--max-bytes", "99999999", code=2).stderr
    assert "matches no session" in run(mined, "profile", "no-such-session", code=2).stderr
    mixed = run(mined, "qa-pairs", "--session", "s1", "--hours", "2", code=2).stderr
    assert "`--session` picks one session and `--hours`/`--directory`/`--all` pick a window" in mixed


def test_profile_extract_and_user_messages_print_their_reply_with_json(mined: Mined) -> None:
    profile = as_json(mined, "profile", RECENT["codex"])
    assert profile == mine(mined.record, "profile_session", session_id=RECENT["codex"])
    assert profile["harness"] == "codex" and profile["event_counts"]["GitTag"] == 1
    page = as_json(mined, "extract", RECENT["codex"], "--full", "--limit", "3", "--offset", "0")
    assert page["bounds"]["returned_records"] == 3 and page["bounds"]["next_offset"] == 3
    users = as_json(mined, "user-messages", RECENT["codex"])
    assert [m["text"] for m in users["user_messages"]] == ["plan the 1.2 release, then tag it"]


def test_profile_shows_the_sessions_shape_and_its_events(mined: Mined) -> None:
    codex = mined.session("codex", RECENT["codex"])
    out = run(mined, "profile", RECENT["codex"]).stdout.splitlines()
    assert out[0].startswith(f"{codex} · codex")
    assert any(line.startswith("events: ") and "GitTag 1" in line for line in out)
    tag = next(line for line in out if line.startswith("  ") and " GitTag " in line)
    assert tag.split()[0].startswith(f"{codex}#") and "git tag v1.2" in tag


def test_extract_shows_each_message_under_its_address_and_says_how_to_page_on(mined: Mined) -> None:
    codex = mined.session("codex", RECENT["codex"])
    result = run(mined, "extract", RECENT["codex"], "--full", "--limit", "3", "--offset", "0")
    heads = [line for line in result.stdout.splitlines() if line.startswith("── ")]
    assert len(heads) == 3 and heads[0].startswith(f"── {codex}#") and " · owner · message · " in heads[0]
    assert "plan the 1.2 release, then tag it" in result.stdout
    assert "next page: --offset 3" in result.stderr and "offset=" not in result.stderr
    users = run(mined, "user-messages", RECENT["codex"]).stdout
    assert users.splitlines()[1] == "plan the 1.2 release, then tag it"


def test_extract_by_type_prints_its_lines_and_its_records_as_json(mined: Mined) -> None:
    out = run(mined, "extract-by-type", RECENT["claude-code"], "--type", "tool").stdout.splitlines()
    assert out[0].startswith("# {") and all(line.startswith("tool,") for line in out[1:])
    assert len(out) == 9
    reply = as_json(mined, "extract-by-type", RECENT["claude-code"], "--type", "tool")
    assert reply["types"] == ["tool"] and len(reply["records"]) == 8
    assert [f"tool,{r['ts']},{json.dumps(r['record'], separators=(',', ':'), ensure_ascii=False)}"
            for r in reply["records"]] == out[1:]
    whole = as_json(mined, "extract-by-type", RECENT["codex"], "--include-injected")
    since = as_json(mined, "extract-by-type", RECENT["codex"], "--no-full", "--include-injected")
    assert since["full"] is False and since["records"][0]["record"]["kind"] == "compaction"
    assert since["records"] == whole["records"][-len(since["records"]):] != whole["records"]


def test_todo_history_prints_one_json_edit_per_line_and_its_edits_as_json(mined: Mined) -> None:
    out = run(mined, "todo-history", RECENT["vibe"]).stdout.splitlines()
    assert [json.loads(line)["action"] for line in out[1:]] == ["added", "added", "completed", "completed"]
    after = run(mined, "todo-history", RECENT["codex"], "--no-full").stdout.splitlines()
    assert len(after) == 3
    reply = as_json(mined, "todo-history", RECENT["vibe"])
    assert [e["action"] for e in reply["edits"]] == ["added", "added", "completed", "completed"]
    assert reply["tools"] == ["todo"] and reply["notice"] is None


def test_he_said_she_said_and_qa_pairs_print_their_reports(mined: Mined) -> None:
    said = run(mined, "he-said-she-said", "--words", "branch,tag").stdout
    assert said.startswith("# she said, he said, they did — words: branch, tag") and "HE SAID" in said
    assert "`--words` is required" in run(mined, "he-said-she-said", code=2).stderr
    one = run(mined, "he-said-she-said", "--words", "fixture", "--session", "01a0f21c").stdout
    assert "sessions: 1 scanned" in one
    qa = run(mined, "qa-pairs", "--all").stdout
    assert qa.startswith("# QA pairs — scope: the whole record (--all)") and "QUESTION:" in qa


def test_he_said_she_said_and_qa_pairs_give_their_data_with_json(mined: Mined) -> None:
    said = as_json(mined, "he-said-she-said", "--words", "branch", "--words", "tag")
    assert said["words"] == ["branch", "tag"] and said["sessions_scanned"] == len(RECENT)
    openclaw = mined.session("openclaw", RECENT["openclaw"])
    row = next(s for s in said["sessions"] if s["session"] == openclaw)
    first = row["hits"][0]
    assert (first["said"], first["address"], first["author"]) == ("HE SAID", f"{openclaw}#1", "owner")
    assert said["hit_count"] == sum(len(s["hits"]) for s in said["sessions"])
    qa = as_json(mined, "qa-pairs", "--all")
    claude = mined.session("claude-code", RECENT["claude-code"])
    pairs = next(s for s in qa["sessions"] if s["session"] == claude)["pairs"]
    asked = next(p for p in pairs if p["tool"] == "AskUserQuestion")
    assert (asked["asked"], asked["answered"], asked["answers"]) == (f"{claude}#3", f"{claude}#4", ["main"])
    assert asked["questions"][0]["question"] == "Which branch do we release from?"


def test_line_histogram_profiles_and_extracts_and_refuses_a_folder(mined: Mined, tmp_path: Path) -> None:
    folder = mined.record.path.parent / "overflow"  # the one folder it reads
    folder.mkdir(mode=0o700, exist_ok=True)
    dump = folder / "dump.txt"
    dump.write_text("".join(f"line {n}\n" for n in range(1, 41)), encoding="utf-8")
    (folder / "sub").mkdir(exist_ok=True)
    assert "Total lines: 40" in run(mined, "line-histogram", str(dump)).stdout
    extract = ("--mode", "extract")
    assert run(mined, "line-histogram", str(dump), *extract, "--line", "7").stdout == "line 7\n"
    assert (
        run(mined, "line-histogram", str(dump), *extract, "--start", "2", "--end", "3").stdout
        == "line 2\nline 3\n"
    )
    assert "is not a regular file" in run(mined, "line-histogram", str(folder / "sub"), code=2).stderr
    assert "mode is 'histogram'" in run(mined, "line-histogram", str(dump), "--line", "3", code=2).stderr
    refused = run(mined, "line-histogram", str(mined.record.path), code=2).stderr
    assert f"line-histogram reads only overflow files under {folder}: " in refused
    profiled = as_json(mined, "line-histogram", str(dump))
    assert (profiled["total_lines"], len(profiled["buckets"])) == (40, 10)
    lines = as_json(mined, "line-histogram", str(dump), *extract, "--start", "2", "--end", "3")["lines"]
    assert lines == [{"line": 2, "text": "line 2\n"}, {"line": 3, "text": "line 3\n"}]


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
    assert lines[0].startswith("# dream · query 'fixture'")
    assert lines[1] == "address | score | timestamp | AUTHOR | snippet"
    assert 1 <= len(lines[2:]) <= 3
    assert all(line.split(" | ")[0].startswith("s") and "#" in line.split(" | ")[0] for line in lines[2:])
    assert "pass one, not both" in run(mined, "dream", "x", "--all", "--hours", "3", code=2).stderr
    reply = as_json(mined, "dream", "fixture", "--all", "--limit", "3")
    assert [h["address"] for h in reply["hits"]] == [line.split(" | ")[0] for line in lines[2:]]
    assert reply["scope"] == "the whole record (--all)" and reply["found"] >= len(reply["hits"])


def test_index_sessions_reports_every_session_of_the_scope(mined: Mined) -> None:
    report = as_json(mined, "index-sessions", "--all", "--budget", "0")
    assert report["totals"]["sessions"] == len(report["sessions"]) > 0
    assert report["meaning_vectors"]["budget_seconds"] == 0
    assert "`--budget` is out of range" in run(mined, "index-sessions", "--budget", "-1", code=2).stderr
    shown = run(mined, "index-sessions", "--budget", "0")
    assert shown.stdout.splitlines()[0].split() == ["session", "harness", "entries", "vectors", "pending",
                                                    "title"]
    assert len(shown.stdout.splitlines()) == 1 + len(RECENT)
    assert "the last 240 h (the default window): words and exact strings" in shown.stderr


def test_he_said_she_said_matches_whole_words_only(mined: Mined) -> None:
    said = as_json(mined, "he-said-she-said", "--words", "tag", "--session", RECENT["claude-code"])
    texts = [h["text"] for s in said["sessions"] for h in s["hits"]]
    assert any("git tag v1.2" in t for t in texts) and any('"tag v1.2"' in t for t in texts)
    assert not any("tagged" in t for t in texts)  # "committed, tagged and pushed" holds no word "tag"
    assert all(h["matched"] == ["tag"] for s in said["sessions"] for h in s["hits"])
    upper = as_json(mined, "he-said-she-said", "--words", "TAG V1.2", "--session", RECENT["claude-code"])
    assert upper["hit_count"] == sum(1 for t in texts if "tag v1.2" in t)  # a phrase, case-blind


def test_a_tool_call_hit_s_snippet_holds_the_word_matched_after_an_escaped_line_break(tmp_path: Path) -> None:
    session = ClaudeSession(tmp_path / "claude")
    session.tool("echo building && " * 120 + "\ntag v1.2", "tagged")
    record = Record(tmp_path / "record.sqlite3")
    try:
        number = session.sync(record)
    finally:
        record.close()
    said = CliRunner().invoke(cli, ["--home", str(tmp_path), "he-said-she-said", "--words", "tag",
                                    "--session", f"s{number}", "--json"])
    assert said.exit_code == 0, said.output
    [tagged] = json.loads(said.stdout)["sessions"][0]["hits"]
    assert tagged["kind"] == "tool_call" and tagged["matched"] == ["tag"]
    assert tagged["text"].startswith("…") and tagged["text"].endswith('\\ntag v1.2"}')  # cut as written


def test_a_reply_s_own_words_name_the_clis_flags_and_command(mined: Mined) -> None:
    empty = ("--hours", "1", "--directory", "no-such-folder")
    dreamt = run(mined, "dream", "fixture", *empty).stdout
    assert dreamt.startswith("# dream · query 'fixture' · scope: the last 1 h, folder containing")
    assert "no sessions in this scope — widen with --hours N or --all" in dreamt
    said = run(mined, "he-said-she-said", "--words", "tag", *empty).stdout
    assert "no sessions in this scope; widen with --hours N or --all" in said
    assert "scope: the whole record (--all)" in run(mined, "dream", "fixture", "--all").stdout
    codex = RECENT["codex"]
    one = as_json(mined, "qa-pairs", "--session", codex)
    assert one["scope"] == f"session {mined.session('codex', codex)} (--session '{codex}')"
    for text in (dreamt, said, json.dumps(as_json(mined, "list", *empty))):
        assert not any(w in text for w in ("hours_back", "all=true", "do_android", "session_id"))


def test_the_same_words_over_mcp_name_its_parameters_and_tool(mined: Mined) -> None:
    empty = {"hours_back": 1, "directory": "no-such-folder"}
    dreamt = mine(mined.record, "do_android_dream_of_electric_sheep", query="fixture", **empty)
    assert dreamt.startswith("# do_android_dream_of_electric_sheep · query 'fixture' · scope: the last 1 h")
    assert "no sessions in this scope — widen with hours_back=N or all=true" in dreamt
    said = mine(mined.record, "she_said_he_said_action", words=["tag"], **empty)
    assert "no sessions in this scope; widen with hours_back=N or all=true" in said
    assert "scope: the whole record (all=true)" in mine(mined.record, "do_android_dream_of_electric_sheep",
                                                        query="fixture", all=True)


def test_an_empty_prior_period_is_refused_in_each_surface_s_words(mined: Mined) -> None:
    empty = ("--hours", "1", "--directory", "no-such-folder")
    refused = run(mined, "prior-period-summary", *empty, code=2).stderr
    assert "widen `--hours`, drop `--directory`, or pass --all on purpose" in refused
    assert "hours_back" not in refused and "all=true" not in refused
    with pytest.raises(ScopeError) as over_mcp:
        mine(mined.record, "prior_period_summary", hours_back=1, directory="no-such-folder")
    assert "widen `hours_back`, drop `directory`, or pass all=true on purpose" in str(over_mcp.value)
