"""The record's own commands on the command line: quarantine, erase, the words of their reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

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
    native = next(s["native_id"] for s in json.loads(run(demo, "sessions", "--json").stdout)
                  if s["session"] == "s1")
    done = run(demo, "quarantine", f"{native[:8]}#3", "--reason", "by id")
    assert done.exit_code == 0 and done.stdout == "quarantined 1 entry: s1#3\n"
    erased = run(demo, "erase", f"{native}#4", "--reason", "by id", "--json")
    assert erased.exit_code == 0 and json.loads(erased.stdout)["erased"] == ["s1#4"]
