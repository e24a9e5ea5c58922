"""The record's own commands on the command line: quarantine, erase, the words of their reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.conftest import SESSIONS
from total_recall.surfaces.cli import cli


@pytest.fixture
def demo(tmp_path: Path) -> list[str]:
    args = ["--home", str(tmp_path / "rec"), "--demo"]
    done = CliRunner().invoke(cli, [*args, "sync"])
    assert done.exit_code == 0, done.output
    return args


def run(args: list[str], *more: str) -> Result:
    return CliRunner().invoke(cli, [*args, *more])


def test_quarantine_needs_a_reason_and_its_undo_does_not(demo: list[str]) -> None:
    refused = run(demo, "quarantine", "s1#2")
    assert refused.exit_code == 2 and "needs a reason" in refused.stderr
    assert run(demo, "quarantine", "s1#2", "--reason", "checking").stdout == "quarantined 1 entry: s1#2\n"
    released = run(demo, "quarantine", "s1#2", "--undo")
    assert released.exit_code == 0 and released.stdout == "released 1 entry: s1#2\n"
    again = run(demo, "quarantine", "s1#2", "--undo", "--json")
    assert json.loads(again.stdout) == {"released": [], "reason": None}


def test_erase_and_quarantine_take_a_session_by_its_own_id(demo: list[str]) -> None:
    native = next(s["native_id"] for s in json.loads(run(demo, "sessions", "--json").stdout)["sessions"]
                  if s["session"] == "s1")
    done = run(demo, "quarantine", f"{native[:8]}#3", "--reason", "by id")
    assert done.exit_code == 0 and done.stdout == "quarantined 1 entry: s1#3\n"
    erased = run(demo, "erase", f"{native}#4", "--reason", "by id", "--json")
    assert erased.exit_code == 0 and json.loads(erased.stdout)["erased"] == ["s1#4"]


def test_read_pages_an_address_with_offset_limit_and_max_bytes_as_mcp_does(demo: list[str]) -> None:
    whole = json.loads(run(demo, "read", "s1#1-6", "--json").stdout)
    total = whole["bounds"]["total_records"]
    assert total == 6 and whole["bounds"]["next_offset"] is None and len(whole["entries"]) == total
    page = json.loads(run(demo, "read", "s1#1-6", "--offset", "1", "--limit", "2", "--json").stdout)
    assert [(e["address"], e["text"]) for e in page["entries"]] == [
        (e["address"], e["text"]) for e in whole["entries"][1:3]]
    assert (page["bounds"]["offset"], page["bounds"]["next_offset"]) == (1, 3)
    shown = run(demo, "read", "s1#1-6", "--offset", "1", "--limit", "2")
    assert shown.exit_code == 0 and shown.stdout.startswith(f"── {whole['entries'][1]['address']} ·")
    assert f"2 of {total} entries shown; go on with --offset 3" in shown.stderr
    cut = json.loads(run(demo, "read", "s1", "--max-bytes", "2048", "--json").stdout)
    assert 0 < len(cut["entries"]) < cut["bounds"]["total_records"] and cut["bounds"]["bytes"] <= 2048
    assert "byte_cap" in cut["bounds"]["truncation_reason"]
    refused = run(demo, "read", "s1", "--max-bytes", "10")
    assert refused.exit_code == 2
    assert "read: `--max-bytes` is out of range: 10 — it must be at least 1024" in refused.stderr


def test_a_page_of_an_address_reads_each_entry_as_the_whole_address_does(demo: list[str]) -> None:
    whole = json.loads(run(demo, "read", "s1#1-6", "--json").stdout)
    page = json.loads(run(demo, "read", "s1#1-6", "--offset", "1", "--limit", "2", "--json").stdout)
    assert page["entries"] == whole["entries"][1:3]


def test_an_owner_message_too_long_for_max_bytes_is_read_in_parts_that_add_up_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The real 2.1.114 session's first prompt, read with a budget it does not fit (its spans repeat its
    text): each part fits, names the next, holds the spans it overlaps (offsets in the whole text), and the
    parts add up to the text."""
    shutil.copytree(SESSIONS / "claude_code" / "real_v2.1.114_worktrees", tmp_path / "claude" / "-research")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(tmp_path / "claude"))
    assert run([], "sync").exit_code == 0
    sessions = json.loads(run([], "sessions", "--json").stdout)["sessions"]
    session = next(s["session"] for s in sessions if s["native_id"] == "ef958aa1-0e93-49f0-bb71-150f63befcd1")
    entries = json.loads(run([], "read", session, "--json", "--max-bytes", "8388608").stdout)["entries"]
    whole = next(e for e in entries if e["author"] == "owner" and len(e["text"]) > 1000)
    assert len(json.dumps(whole)) > 2 * 1024 and whole["spans"]
    parts, offset = [], 0
    while True:
        page = run([], "read", whole["address"], "--max-bytes", "1024", "--text-offset", str(offset),
                   "--json")
        assert page.exit_code == 0, page.output
        got = json.loads(page.stdout)
        assert got["bounds"]["bytes"] <= 1024
        [part] = got["entries"]
        end = offset + len(part["text"])
        assert part["part"] == {"start": offset, "end": end, "length": len(whole["text"])}
        assert part["spans"] == [{**s, "text": None} for s in whole["spans"]
                                 if s["start"] < end and s["end"] > offset]
        assert {k: v for k, v in part.items() if k not in ("text", "spans", "part")} == {
            k: v for k, v in whole.items() if k not in ("text", "spans")}
        parts.append(part["text"])
        if got["bounds"]["next_text_offset"] is None:
            break
        offset = got["bounds"]["next_text_offset"]
        assert got["bounds"]["truncated"] and "text_part" in got["bounds"]["truncation_reason"]
        assert f"--offset 0 --text-offset {offset}" in page.stderr
    assert len(parts) > 2 and "".join(parts) == whole["text"]
    shown = run([], "read", whole["address"], "--max-bytes", "1024")
    assert shown.exit_code == 0 and shown.stdout.startswith(f"── {whole['address']} ·")
