"""Exact strings are what a person asks back word for word: never the markup around them (`</div>`,
`<system-reminder>`) nor the line numbers Claude Code's Read tool puts before a file's lines (`1→`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import SESSIONS
from total_recall.config import RECORD_FILE, record_home
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

CLAUDE = SESSIONS / "claude_code"
# Junk the real sessions gave before: closing tags taken for paths, and a Read output's line number kept.
MARKUP = {"/div", "%></code></pre", "/analysis", "/summary", "/system-reminder", "/bash-stderr",
          "/task-notification", "1→#!/usr/bin/env"}
OUTPUT_FILE = "/tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-dov/tasks/b7636e2.output"


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """The real 1.0.51 and 2.1.39 Claude Code sessions (with the sub-agent that compacted one), synced."""
    root = tmp_path / "claude"
    shutil.copytree(CLAUDE / "real_v2.1.39_spotter", root)
    (root / "-legacy").mkdir()
    shutil.copy(CLAUDE / "real_v1.0.51_summaries_326189cf.jsonl", root / "-legacy")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    cli_runner = CliRunner()
    assert cli_runner.invoke(cli, ["sync", "--harness", "claude-code"]).exit_code == 0
    return cli_runner


def junk(strings: list[str]) -> list[str]:
    return [s for s in strings if s in MARKUP or "→" in s or "</" in s]


def test_a_marker_s_exact_strings_hold_no_closing_tag_nor_a_read_output_s_line_number(
    runner: CliRunner,
) -> None:
    sessions = json.loads(runner.invoke(cli, ["sessions", "--json"]).output)["sessions"]
    assert len(sessions) == 4
    quoted: list[str] = []
    for s in sessions:
        result = runner.invoke(cli, ["compact", s["session"], "--budget", "20000", "--keep-exchanges", "0",
                                     "--json"])
        assert result.exit_code == 0, result.output
        quoted += [q["text"] for q in json.loads(result.output)["strings"]]
    assert junk(quoted) == []
    assert OUTPUT_FILE in quoted and "#!/usr/bin/env" in quoted  # the string itself, without the `1→`


def test_the_exact_string_index_holds_no_closing_tag_nor_a_read_output_s_line_number(
    runner: CliRunner,
) -> None:
    with Record(record_home() / RECORD_FILE) as record:
        keys = [r["key"] for r in record.execute("SELECT key FROM strings WHERE kind IN ('path', 'error')")]
    assert junk(keys) == []
    assert OUTPUT_FILE in keys and "except PermissionError" in keys
