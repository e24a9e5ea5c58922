"""The bundled demo store as a newcomer meets it: a sync that names a harness the demo does not hold, what a
sync on a machine with no store says, the index's advice on a base install, and the README's examples run on
the demo as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from total_recall.config import DEMO_RECORD_FILE
from total_recall.indexes import vectors
from total_recall.ops import OPERATIONS
from total_recall.surfaces.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--home", str(home), *args])


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    home = tmp_path / "rec"
    done = CliRunner().invoke(cli, ["--home", str(home), "--demo", "sync"])
    assert done.exit_code == 0, done.output
    return home


def test_a_demo_sync_naming_a_harness_the_demo_does_not_hold_is_refused_naming_those_it_holds(
        tmp_path: Path) -> None:
    home = tmp_path / "rec"
    done = run(home, "--demo", "sync", "--harness", "opencode")
    assert done.exit_code == 2, done.output
    assert "the demo store holds only claude-code and codex sessions, not opencode" in done.stderr
    assert "--harness" in done.stderr and not (home / DEMO_RECORD_FILE).exists()


def test_a_demo_sync_naming_a_harness_it_holds_syncs_only_that_one(tmp_path: Path) -> None:
    done = run(tmp_path / "rec", "--demo", "sync", "--harness", "codex", "--json")
    assert done.exit_code == 0, done.output
    assert list(json.loads(done.stdout)["harnesses"]) == ["codex"]


def test_a_sync_on_a_machine_with_no_agent_store_says_where_it_looked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOTAL_RECALL_SANDBOX")
    machine = tmp_path / "home"  # HOME: empty
    done = run(tmp_path / "rec", "sync", "--json")
    assert done.exit_code == 0, done.output
    [notice] = [n for n in json.loads(done.stdout)["notices"] if "No agent store" in n]
    assert notice.startswith("No agent store found on this machine (looked in ")
    for folder in (machine / ".claude" / "projects", machine / ".codex" / "sessions",
                   machine / ".local" / "share" / "opencode", machine / ".vibe" / "logs" / "session",
                   machine / ".openclaw" / "agents"):
        assert str(folder) in notice


def test_index_on_a_base_install_says_how_to_add_the_extra_from_pypi_and_from_a_clone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "available", lambda: False)  # a base install
    done = run(tmp_path / "rec", "index")
    assert done.exit_code == 2
    assert "pip install 'total-recall[vectors]'" in done.stderr
    assert "pip install -e '.[vectors]'" in done.stderr


def test_every_session_id_the_readme_gives_as_an_example_reads_on_the_demo(demo: Path) -> None:
    addresses = set(re.findall(r"\b[0-9a-f]{8}#\d+\b", README))
    assert addresses
    for address in addresses:
        done = run(demo, "--demo", "read", address, "--json")
        assert done.exit_code == 0, (address, done.stderr)


def test_every_range_the_readme_gives_as_an_example_lies_within_the_demo_s_session(demo: Path) -> None:
    sessions = {s["session"]: s["entries"]
                for s in json.loads(run(demo, "--demo", "sessions", "--json").stdout)["sessions"]}
    ranges = re.findall(r"\b(s\d+)#(\d+)-(\d+)\b", README)
    assert ranges
    for session, _, last in ranges:
        assert int(last) <= sessions[session], f"{session}#…-{last}: the demo's {session} is shorter"


def test_the_readme_lists_every_tool_the_mcp_server_offers() -> None:
    tools = {op.name for op in OPERATIONS} | {alias for op in OPERATIONS for alias in op.aliases}
    listed = README.split("The server offers every operation of the table", 1)[1].split("Session tools", 1)[0]
    assert set(re.findall(r"`([a-z_]+)`", listed)) >= tools
    assert f"{len(tools)} tools" in listed


def test_the_readme_says_the_watcher_does_not_take_opencode() -> None:
    watcher = README.split("## The watcher", 1)[1].split("\n## ", 1)[0]
    assert "not `opencode`" in watcher
