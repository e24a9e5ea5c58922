"""Where things live: the demo fallback and the record home."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from total_recall.config import chosen_home, default_folders, record_home, store_roots, use_demo
from total_recall.errors import ConfigError
from total_recall.surfaces.cli import cli


def test_the_demo_store_is_used_only_on_a_machine_with_no_agent_store(tmp_path: Path) -> None:
    home = tmp_path / "machine"
    home.mkdir()
    env = {"HOME": str(home)}
    assert use_demo((), env)
    assert not use_demo(("codex",), env)
    assert not use_demo((), {**env, "TOTAL_RECALL_SANDBOX": "1"})
    (home / ".codex" / "sessions").mkdir(parents=True)
    assert not use_demo((), env)


def test_the_folders_a_sync_looked_in_leave_out_a_harness_whose_folders_cannot_be_named(
        tmp_path: Path) -> None:
    home = tmp_path / "machine"
    (home / ".codex" / "sessions").mkdir(parents=True)
    env = {"HOME": str(home), "VIBE_HOME": "~nouser-zq7/vibe",
           "TOTAL_RECALL_OPENCODE_ROOT": str(tmp_path / "not-there")}
    assert default_folders(env) == [home / ".claude" / "projects", home / ".config" / "claude" / "projects",
                                    home / ".codex" / "sessions", home / ".codex" / "archived_sessions",
                                    home / ".local" / "share" / "opencode", home / ".openclaw" / "agents",
                                    home / ".clawdbot" / "agents", home / ".moltbot" / "agents",
                                    home / ".moldbot" / "agents", home / ".pi" / "agent" / "sessions"]
    assert store_roots(env) == [home / ".codex" / "sessions"]  # no opencode override, no ~nouser vibe
    assert store_roots({**env, "TOTAL_RECALL_SANDBOX": "1"}) == []


def test_the_record_lives_in_the_xdg_data_dir_unless_told_otherwise(tmp_path: Path) -> None:
    assert record_home({"HOME": str(tmp_path)}) == tmp_path / ".local" / "share" / "total-recall"
    assert record_home({"HOME": str(tmp_path), "XDG_DATA_HOME": "/x"}) == Path("/x/total-recall")
    assert record_home({"TOTAL_RECALL_HOME": "/r"}) == Path("/r")


def test_a_relative_xdg_data_home_is_ignored_as_the_xdg_spec_says(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": "data"}
    assert record_home(env) == tmp_path / ".local" / "share" / "total-recall"


@pytest.mark.parametrize("value", ["rel", "./rel", "rel/sub"])
def test_a_relative_home_is_refused_naming_it_whether_from_the_variable_or_home(value: str) -> None:
    with pytest.raises(ConfigError, match=f"TOTAL_RECALL_HOME names '{re.escape(value)}', a relative path"):
        record_home({"TOTAL_RECALL_HOME": value})
    with pytest.raises(ConfigError, match=f"--home names '{re.escape(value)}', a relative path"):
        chosen_home(value)
    assert chosen_home("/abs/rec") == Path("/abs/rec")
    assert chosen_home(None, {"TOTAL_RECALL_HOME": "/abs/env"}) == Path("/abs/env")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder the shell (or a hook's client) stands in, empty."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def test_a_relative_total_recall_home_is_refused_with_exit_2_and_makes_no_record_where_the_shell_stands(
        elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOTAL_RECALL_HOME", "rel")
    for command in (["status"], ["sessions"], ["sync"]):
        done = CliRunner().invoke(cli, command)
        assert done.exit_code == 2 and "TOTAL_RECALL_HOME names 'rel', a relative path" in done.stderr
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_a_hook_under_a_relative_home_exits_0_saying_why_and_makes_no_record(
        event: str, elsewhere: Path) -> None:
    payload = json.dumps({"hook_event_name": event, "session_id": "abc", "source": "startup",
                          "prompt": "hello", "cwd": str(elsewhere)})
    done = subprocess.run([str(Path(sys.executable).parent / "total-recall"), "hook", "claude-code"],
                          input=payload, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TOTAL_RECALL_HOME": "rel"})
    assert done.returncode == 0 and done.stdout == ""
    assert "TOTAL_RECALL_HOME names 'rel', a relative path" in done.stderr and "Traceback" not in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_relative_home_flag_is_refused_with_exit_2_and_makes_no_record_where_the_shell_stands(
        elsewhere: Path) -> None:
    done = CliRunner().invoke(cli, ["--home", "relh", "status"])
    assert done.exit_code == 2 and "--home names 'relh', a relative path" in done.stderr
    assert list(elsewhere.iterdir()) == []
