"""Which tool results say their call failed (`indexes.failures`), on real sessions: the harness's own flag
where it writes one, what the output says where it does not."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import SESSIONS
from total_recall.indexes.failures import failed
from total_recall.keeping.marker import build_marker
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

# `uv run ty check` three times: once by the owner in bash mode (lines 6-7), twice by the agent (lines 34-35,
# 41-42, each result `is_error`), before he says "please fix these".
SUMMARIES = SESSIONS / "claude_code" / "real_v1.0.51_summaries_326189cf.jsonl"


def synced(tmp_path: Path) -> tuple[Record, dict[int, str]]:
    """The record of the real session, and the address of each of its source lines' first entry."""
    root = tmp_path / "claude"
    (root / "projects" / "-proj").mkdir(parents=True)
    shutil.copy(SUMMARIES, root / "projects" / "-proj" / SUMMARIES.name)
    record = Record(tmp_path / "record.sqlite3")
    assert sync(record, ["claude-code"], roots={"claude-code": root}).errors == []
    (session,) = record.sessions()
    at: dict[int, str] = {}
    for entry in read(record, f"s{session.number}"):
        if entry.line is not None:
            at.setdefault(entry.line, entry.address)
    return record, at


def failures_at(record: Record, address: str) -> list[str]:
    """The failure items of a marker over one entry: its telling line, when the entry's call failed."""
    marker = build_marker(record, Address.parse(address), budget=1500)
    return [i.line for i in marker.items if i.kind == "failure"]


def test_a_result_claude_code_flagged_is_error_is_a_failed_call(tmp_path: Path) -> None:
    record, at = synced(tmp_path)
    for line in (35, 42):
        assert read(record, at[line])[0].text.startswith("Error\nWARN ty is pre-release software")
        assert len(failures_at(record, at[line])) == 1
    assert failures_at(record, at[49]) == []  # a result with `is_error: false`


def test_a_command_the_owner_ran_in_bash_mode_that_printed_an_error_line_is_a_failed_call(
        tmp_path: Path) -> None:
    record, at = synced(tmp_path)
    output = read(record, at[7])[0]
    assert (output.author, output.kind, output.tool) == ("tool", "tool_result", "bash")
    assert "\nerror[call-non-callable]: Object of type" in output.text
    assert len(failures_at(record, at[7])) == 1


def test_bash_mode_output_fails_by_an_error_line_only() -> None:
    assert failed("<bash-stdout></bash-stdout><bash-stderr>fatal: not a git repository</bash-stderr>")
    assert failed("<bash-stdout>Traceback (most recent call last):\n  File \"x\"\nKeyError: 1</bash-stdout>")
    assert not failed("<bash-stdout>3 files, 0 errors\nerrors.log written\n</bash-stdout>"
                      "<bash-stderr>WARN slow disk</bash-stderr>")
    # An `ls` listing files named for errors, a log line about error handling: no error's head.
    assert not failed("<bash-stdout>error.log\naccess.log\n</bash-stdout><bash-stderr></bash-stderr>")
    assert not failed("<bash-stdout>error_handler.py\nFatal-Frame.iso\n    error handling: retry on 503\n"
                      "</bash-stdout><bash-stderr></bash-stderr>")
    # stdout with no newline at its end: stderr's first line starts behind the tag.
    assert failed("<bash-stdout>ok</bash-stdout><bash-stderr>error: pathspec 'x' did not match</bash-stderr>")


def test_a_failed_check_is_told_by_its_error_line_not_by_the_source_it_quotes(tmp_path: Path) -> None:
    record, at = synced(tmp_path)
    assert failures_at(record, at[35]) == ["error[call-non-callable]: Object of type "
                                           "`_WithException[Unknown, <class 'Skipped'>]` is not callable"]


def test_a_flagged_failure_whose_output_names_no_error_is_told_by_its_own_first_line(tmp_path: Path) -> None:
    from total_recall.keeping.items import error_lines, failure_line

    said = "Error\nFile does not exist."  # as the reader opens a result Claude Code flagged `is_error`
    assert failure_line(said, error_lines(said)) == "File does not exist."
