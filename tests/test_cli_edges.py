"""The rough edges a new user hit on the CLI (issue 17): `sessions` at 80 columns and through a pipe, its
filters and order; `receipts` that only reads; what the CLI says about an empty record, a new one and
agent stores that hold no session; the last sync's warnings kept for `status`."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.cells import cell_len

from tests.keeping_helpers import Transcript
from tests.stores import Stores, fixture_stores
from total_recall.config import DEMO_RECORD_FILE, RECORD_FILE
from total_recall.keeping.audit import harness_compactions
from total_recall.keeping.receipts import list_receipts
from total_recall.record.database import Record
from total_recall.record.sync import sync as library_sync
from total_recall.surfaces.cli import cli


def run(home: Path, *args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    done = CliRunner().invoke(cli, ["--home", str(home), *args], env=env)
    assert done.exit_code == code, (args, done.stdout, done.stderr)
    return done


def as_json(done: Result) -> Any:
    return json.loads(done.stdout)


def listed_sessions(home: Path, *args: str) -> list[dict[str, Any]]:
    """`sessions --json`'s sessions, after checking the reply fit its budget whole."""
    reply = as_json(run(home, "sessions", *args, "--json"))
    assert "held_back" not in reply and reply["bytes"] <= reply["max_bytes"]
    return list(reply["sessions"])


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stores]:
    with fixture_stores(tmp_path / "stores") as found:
        found.point(monkeypatch)
        yield found


@pytest.fixture
def synced(stores: Stores, tmp_path: Path) -> Path:
    home = tmp_path / "rec"
    run(home, "sync", "--json")
    return home


# -- sessions: the address whole at any width, filters, newest first --


def listed_addresses(done: Result, wanted: list[str]) -> list[str]:
    """The addresses a table printed, in order, after checking each of `wanted` is printed whole."""
    missing = [a for a in wanted if not re.search(rf"(?<![\w#]){a}(?![\w#])", done.stdout)]
    assert missing == []
    lines = done.stdout.splitlines()
    assert lines[0].split()[0] == "session"
    return [line.split()[0] for line in lines[1:] if not line.startswith(" ")]


def test_sessions_at_80_columns_print_every_address_whole_and_no_line_wider(synced: Path) -> None:
    everything = [s["session"] for s in listed_sessions(synced)]
    assert len(everything) > 20  # addresses of two digits, and more rows than a screen
    narrow = run(synced, "sessions", env={"COLUMNS": "80"})
    assert listed_addresses(narrow, everything) == everything
    assert max(cell_len(line) for line in narrow.stdout.splitlines()) <= 80
    assert "title" in narrow.stdout.splitlines()[0]  # cut before it is dropped


def test_sessions_piped_print_every_address_whole_with_the_folder(synced: Path) -> None:
    listed = listed_sessions(synced)
    piped = run(synced, "sessions")  # the runner's output is not a terminal, and COLUMNS is unset
    assert listed_addresses(piped, [s["session"] for s in listed]) == [s["session"] for s in listed]
    assert "cwd" in piped.stdout.splitlines()[0]


def test_sessions_at_a_very_narrow_width_still_print_the_address(synced: Path) -> None:
    everything = [s["session"] for s in listed_sessions(synced)]
    assert listed_addresses(run(synced, "sessions", env={"COLUMNS": "20"}), everything) == everything


def test_sessions_list_newest_first_and_limit_takes_the_newest(synced: Path) -> None:
    listed = listed_sessions(synced)
    keys = {"session", "harness", "native_id", "title", "cwd", "parent", "relation", "entries", "started",
            "ended", "read_error", "source", "generation", "last_active"}
    assert all(set(s) == keys for s in listed)
    newest = as_json(run(synced, "list", "--all", "--json"))["sessions"][0]["session"]
    assert listed[0]["session"] == newest
    active = [s["last_active"] for s in listed if s["last_active"]]
    assert active == sorted(active, reverse=True)
    assert listed_sessions(synced, "--limit", "3") == listed[:3]
    assert "most recently active first" in run(synced, "sessions", "--help").stdout


def test_sessions_project_keeps_the_sessions_whose_folder_contains_it(synced: Path) -> None:
    listed = listed_sessions(synced)
    folder = next(s["cwd"] for s in listed if s["cwd"])
    piece = folder.strip("/").split("/")[-1].upper()  # case-blind
    wanted = [s for s in listed if piece.casefold() in (s["cwd"] or "").casefold()]
    assert wanted and len(wanted) < len(listed)
    assert listed_sessions(synced, "--project", piece) == wanted


def test_sessions_since_takes_what_search_takes_and_refuses_what_names_no_time(synced: Path) -> None:
    listed = listed_sessions(synced)
    timed = listed_sessions(synced, "--since", "2000-01-01")
    assert timed and timed == [s for s in listed if s in timed]
    assert listed_sessions(synced, "--since", "3 days ago") == []
    later = run(synced, "sessions", "--since", "2100-01-01")
    assert later.stdout == "" and "no session matches --since 2100-01-01" in later.stderr
    bad = run(synced, "sessions", "--since", "garbage", code=2)
    assert "`--since` 'garbage' is not a time" in bad.stderr


# -- receipts: listing never writes; sync writes the receipts of Codex compactions --


def record_state(home: Path) -> tuple[dict[str, str], dict[str, int]]:
    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(home.glob(RECORD_FILE + "*"))
             if not p.name.endswith("-shm")}
    db = sqlite3.connect(f"file:{home / RECORD_FILE}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        db.close()
    return files, counts


def test_listing_receipts_leaves_the_record_unchanged(synced: Path) -> None:
    before = record_state(synced)
    assert before[1]["receipts"] > 0
    run(synced, "receipts")
    run(synced, "receipts", "--json")
    assert record_state(synced) == before


def test_the_receipts_of_codex_compactions_are_written_by_the_sync_once(synced: Path) -> None:
    with Record(synced / RECORD_FILE) as record:
        wanted = sorted(c.address for c in harness_compactions(record) if c.harness == "codex")
        written = [r.source or "" for r in list_receipts(record) if r.controller == "codex"]
    assert wanted and sorted(written) == wanted  # before any listing
    codex = [r for r in as_json(run(synced, "receipts", "--json"))["receipts"] if r["controller"] == "codex"]
    assert sorted(r["source"] for r in codex) == wanted
    assert {(r["trigger"], r["knowledge"]) for r in codex} == {("harness", "sent, unconfirmed")}
    run(synced, "sync")
    again = as_json(run(synced, "receipts", "--json"))
    assert [r for r in again["receipts"] if r["controller"] == "codex"] == codex
    assert not any(u["harness"] == "codex" for u in again["unreceipted"])


def test_a_sync_catches_up_on_compactions_a_library_sync_recorded(stores: Stores, tmp_path: Path) -> None:
    home = tmp_path / "rec"
    home.mkdir()
    with Record(home / RECORD_FILE) as record:
        assert library_sync(record).errors == []
    assert not any(r["controller"] == "codex" for r in as_json(run(home, "receipts", "--json"))["receipts"])
    run(home, "sync")
    assert any(r["controller"] == "codex" for r in as_json(run(home, "receipts", "--json"))["receipts"])


# -- an empty record, a new one, stores that hold no session --


@pytest.fixture
def empty_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine whose Claude Code store exists and holds no session; the sandbox off (HOME is tmp)."""
    monkeypatch.delenv("TOTAL_RECALL_SANDBOX")
    projects = tmp_path / "home" / ".claude" / "projects"
    projects.mkdir(parents=True)
    return projects


def test_a_sync_of_stores_that_hold_no_session_says_where_it_looked_and_shows_the_demo(
        empty_machine: Path, tmp_path: Path) -> None:
    home = tmp_path / "rec"
    done = run(home, "sync")
    # Said as a note (stderr), beside the demo record's table (stdout).
    assert "hold no session yet" in done.stderr and str(empty_machine) in done.stderr
    assert f"synced the bundled demo store into {home / DEMO_RECORD_FILE}" in done.stderr
    assert str(home / DEMO_RECORD_FILE) in "".join(done.stdout.split())  # the table's title, wrapped
    assert as_json(run(home, "--demo", "sessions", "--json"))["sessions"]
    assert listed_sessions(home) == []
    report = as_json(run(home, "sync", "--json"))
    assert report["demo"] is True and any(str(empty_machine) in n for n in report["notices"])


def test_sessions_and_search_on_an_empty_record_say_how_to_sync_and_where_the_demo_is(
        empty_machine: Path, tmp_path: Path) -> None:
    home = tmp_path / "rec"
    run(home, "sync")
    listed = run(home, "sessions")
    assert listed.stdout == ""
    assert f"total-recall --home {home} sync" in listed.stderr
    assert f"total-recall --home {home} --demo sessions" in listed.stderr
    found = run(home, "search", "certificate")
    assert "no hits" in found.stderr and f"total-recall --home {home} sync" in found.stderr
    assert listed_sessions(home) == []
    assert as_json(run(home, "search", "certificate", "--json"))["hits"] == []


def test_a_home_naming_a_missing_folder_says_a_new_record_was_created(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    done = run(missing, "search", "anything")
    assert f"no record at {missing / RECORD_FILE}: created a new, empty one" in done.stderr
    assert (missing / RECORD_FILE).exists()
    assert "created a new" not in run(missing, "search", "anything").stderr


# -- the last sync's warnings, kept for status --


def test_status_shows_the_last_syncs_skipped_lines_by_file_and_line_capped_with_the_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "claude"
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    t = Transcript(root / "-work-shop" / "5f0e1d2c-3b4a.jsonl", "/work/shop")
    t.owner("Keep the staging certificate.")
    with t.path.open("a", encoding="utf-8") as fh:
        fh.writelines("{not json\n" for _ in range(250))
    t.agent("Kept.")
    home = tmp_path / "rec"
    run(home, "sync", "--harness", "claude-code")
    status = as_json(run(home, "status", "--json"))["last_sync"]
    assert status["warning_count"] == 250 and status["warnings_not_listed"] == 50
    assert len(status["warnings"]) == 200
    assert status["warnings"][0].startswith(f"{t.path}:2: not JSON")
    assert status["entries_added"] > 0 and status["earlier_warnings"] == 0
    run(home, "sync", "--harness", "claude-code")  # nothing to read: the warnings stay in view
    assert as_json(run(home, "status", "--json"))["last_sync"] == status
    shown = run(home, "status").stdout  # the human form: a table per harness, and the skipped lines
    assert f"{t.path}:2: not JSON" in shown and "250 warnings" in shown and "… 230 more" in shown
    assert re.search(r"claude-code\s+1\s+\d+\s+1\s+0", shown) and not shown.lstrip().startswith("{")
    # The MCP `status` check lists fewer of them, with the count of the rest.
    from total_recall.ops.operation import Call
    from total_recall.ops.record import SERVED_WARNINGS, StatusParams
    from total_recall.ops.record import status as server_status

    served = Call(home / "record.sqlite3", "mcp", serving={"server": "total-recall"})
    listed = server_status(served, StatusParams())["last_sync"]
    assert len(listed["warnings"]) == SERVED_WARNINGS and listed["warnings"] == status["warnings"][:20]
    assert listed["warnings_not_listed"] == 250 - SERVED_WARNINGS
