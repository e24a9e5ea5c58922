"""Sync over every fixture store, through the CLI: idempotent, incremental, crash-safe, read-only."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner

from tests.conftest import SESSIONS
from tests.keeping_helpers import Transcript
from tests.stores import Stores, fixture_stores
from total_recall.surfaces.cli import cli


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with fixture_stores(tmp_path / "stores") as s:
        for var, value in s.env.items():
            monkeypatch.setenv(var, value)
        yield s


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return json.loads(result.stdout) if "--json" in args else result


def rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(home / "record.sqlite3")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def snapshot(home: Path) -> list[tuple[Any, ...]]:
    """Every recorded entry with its address: what must never move."""
    return rows(home, "SELECT s.harness, s.native_id, s.generation, e.session, e.seq, e.author, e.kind, "
                      "e.text, e.key FROM entries e JOIN sessions s ON s.id = e.session "
                      "ORDER BY e.session, e.seq")


def spans(home: Path) -> list[tuple[Any, ...]]:
    """The owner's spans and the source record of every entry, by address."""
    tagged = rows(home, "SELECT e.session, e.seq, p.start, p.end, p.tag FROM spans p "
                        "JOIN entries e ON e.id = p.entry ORDER BY 1, 2, 3")
    unpack = zstandard.ZstdDecompressor().decompress
    records = [(session, seq, raw_id, unpack(raw)) for session, seq, raw_id, raw in rows(
        home, "SELECT e.session, e.seq, e.raw_id, r.raw FROM entries e JOIN raws r ON r.id = e.raw_id "
              "ORDER BY 1, 2")]
    return [*tagged, *records]


def record_home() -> Path:
    return Path(os.environ["TOTAL_RECALL_HOME"])


def fixture_payloads() -> list[Path]:
    """Every fixture file that is a session payload (not a provenance note, sidecar or SQL dump)."""
    out = []
    for p in sorted(SESSIONS.rglob("*")):
        if not p.is_file() or p.suffix in (".md", ".sql") or p.name.endswith(".meta.json"):
            continue
        if p.name == "meta.json" or "json_storage_legacy" in p.parts:
            continue
        out.append(p)
    return out


def test_a_sync_of_every_fixture_store_reads_every_payload_without_errors(stores: Stores) -> None:
    report = run("sync", "--json")
    assert report["errors"] == []
    db = sqlite3.connect(record_home() / "record.sqlite3")
    sources = {Path(p).name for (p,) in db.execute("SELECT path FROM sources")}
    for payload in fixture_payloads():
        assert payload.name in sources, f"{payload} was never read"
    per = report["harnesses"]
    assert set(per) == {"claude-code", "codex", "opencode", "vibe", "openclaw"}
    assert all(per[h]["sessions"] > 0 and per[h]["entries"] > 0 for h in per)
    assert report["entries_added"] == sum(per[h]["entries"] for h in per)


def test_the_malformed_fixture_lines_are_warnings_that_name_file_and_line(stores: Stores) -> None:
    report = run("sync", "--json")
    malformed = [w for w in report["warnings"] if "synthetic_malformed_rollout" in w]
    assert len(malformed) == 1
    path, line, why = malformed[0].rsplit(":", 2)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert int(line) == len(lines) and why.strip()
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[int(line) - 1])


def test_stores_are_byte_identical_after_every_command(stores: Stores) -> None:
    before = stores.digest()
    assert any(name.endswith("opencode.db-wal") for name in before)
    run("sync")
    assert stores.digest() == before
    run("sessions", "--json")
    run("read", "s1", "--json")
    run("erase", "s1#1", "--reason", "test")
    run("quarantine", "s1#2", "--reason", "test")
    run("quarantine", "s1#2", "--reason", "test", "--undo")
    run("sync", "--json")
    assert stores.digest() == before


def test_a_second_sync_adds_nothing_and_moves_no_address(stores: Stores) -> None:
    first = run("sync", "--json")
    recorded = snapshot(record_home())
    second = run("sync", "--json")
    assert second["entries_added"] == 0 and second["sessions_added"] == 0
    assert second["sources_read"] == 0 and second["sources_unchanged"] == first["sources_read"]
    assert snapshot(record_home()) == recorded


def test_appending_to_a_session_file_adds_only_the_new_entries(stores: Stores) -> None:
    run("sync")
    recorded = snapshot(record_home())
    vibe = next(stores.roots["vibe"].rglob("messages.jsonl"))
    with vibe.open("ab") as fh:
        fh.write(b'{"role": "user", "content": "Never deploy on Fridays.", "message_id": "m-new-1"}\n')
        fh.write(b'{"role": "assistant", "content": "Understood.", "message_id": "m-new-2"}\n')
    report = run("sync", "--json")
    assert report["entries_added"] == 2 and report["sources_read"] == 1
    after = snapshot(record_home())
    assert after[: len(recorded)] == recorded or set(recorded) <= set(after)
    new = [row for row in after if row not in recorded]
    assert [(r[5], r[6], r[7]) for r in new] == [
        ("owner", "message", "Never deploy on Fridays."),
        ("agent", "message", "Understood."),
    ]
    session = new[0][3]
    assert [r[4] for r in new] == [max(r[4] for r in recorded if r[3] == session) + 1,
                                   max(r[4] for r in recorded if r[3] == session) + 2]


def test_a_half_written_last_line_waits_for_the_next_sync(stores: Stores) -> None:
    run("sync")
    vibe = next(stores.roots["vibe"].rglob("messages.jsonl"))
    with vibe.open("ab") as fh:
        fh.write(b'{"role": "user", "content": "Rotate the ke')
    assert run("sync", "--json")["entries_added"] == 0
    with vibe.open("ab") as fh:
        fh.write(b'ys tonight.", "message_id": "m-late"}\n')
    report = run("sync", "--json")
    assert report["entries_added"] == 1 and report["warnings"] == []


def test_a_file_rewritten_under_read_bytes_becomes_a_new_generation(stores: Stores) -> None:
    run("sync")
    recorded = snapshot(record_home())
    vibe = next(stores.roots["vibe"].rglob("messages.jsonl"))
    vibe.write_bytes(b'{"role": "user", "content": "A different history.", "message_id": "x1"}\n')
    report = run("sync", "--json")
    assert report["generations"] == 1 and report["sessions_added"] == 1
    after = snapshot(record_home())
    assert set(recorded) <= set(after), "a rewrite must not change what was recorded"
    new = [r for r in after if r not in recorded]
    assert [r[2] for r in new] == [2] and new[0][7] == "A different history."


def derived(home: Path) -> list[tuple[Any, ...]]:
    """The exact-string keys and failed tool results, by address: what sync derives from entries."""
    return rows(home, "SELECT e.session, e.seq, st.kind, st.key FROM strings st "
                      "JOIN entries e ON e.id = st.entry "
                      "UNION ALL SELECT e.session, e.seq, 'failed', '' FROM tool_failures f "
                      "JOIN entries e ON e.id = f.entry ORDER BY 1, 2, 3, 4")


FAULTY_SYNC = Path(__file__).with_name("faulty_sync.py")


def sync_into(home: Path, env: dict[str, str], faults: dict[str, int] | None = None,
              **extra: str) -> subprocess.CompletedProcess[str]:
    """`total-recall --home <home> sync --json`; with `faults` (tests/faulty_sync.py's names, without
    their prefix), through that launcher, which injects them."""
    launch = [str(FAULTY_SYNC)] if faults else ["-m", "total_recall"]
    injected = {f"FAULTY_SYNC_{name}": str(value) for name, value in (faults or {}).items()}
    return subprocess.run([sys.executable, *launch, "--home", str(home), "sync", "--json"],
                          env={**env, **extra, **injected}, capture_output=True, text=True)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_sync_killed_mid_run_then_run_again_equals_one_clean_sync(
    stores: Stores, tmp_path: Path, processes: str
) -> None:
    # With "2", a second process reads ahead from the first source on.
    env = {**os.environ, **stores.env, "TOTAL_RECALL_SYNC_PROCESSES": processes}
    early = {"PARALLEL_AFTER_BYTES": 1}
    clean_home = tmp_path / "clean"
    assert sync_into(clean_home, env, early).returncode == 0
    killed_home = tmp_path / "killed"
    for kill_at in (3, 9):
        done = sync_into(killed_home, env, {**early, "KILL_AT_CHECKPOINT": kill_at, "COMMIT_BYTES": 1})
        assert done.returncode == -9, done.stderr
    partial = snapshot(killed_home)
    assert 0 < len(partial) < len(snapshot(clean_home))
    assert sync_into(killed_home, env, early).returncode == 0
    assert snapshot(killed_home) == snapshot(clean_home)
    assert derived(killed_home) == derived(clean_home)


def test_a_sync_read_ahead_by_a_second_process_equals_one_in_one_process(
    stores: Stores, tmp_path: Path
) -> None:
    env = {**os.environ, **stores.env}
    one = sync_into(tmp_path / "one", env, {"PARALLEL_AFTER_BYTES": 1}, TOTAL_RECALL_SYNC_PROCESSES="1")
    two = sync_into(tmp_path / "two", env, {"PARALLEL_AFTER_BYTES": 1, "COMMIT_BYTES": 1})
    assert json.loads(one.stdout)["processes"] == 1 and json.loads(two.stdout)["processes"] == 2
    # What differs between two runs by design: the process count, the record's path, the seconds the
    # asset index took (and so the reply's size).
    replies = [json.loads(done.stdout) for done in (one, two)]
    same = [{k: v for k, v in r.items() if k not in ("processes", "record", "bytes")}
            | {"assets": {**(r["assets"] or {}), "seconds": None}} for r in replies]
    assert same[0] == same[1]
    assert snapshot(tmp_path / "two") == snapshot(tmp_path / "one")
    strings = derived(tmp_path / "one")
    assert derived(tmp_path / "two") == strings
    assert len(strings) > 500 and any(kind == "failed" for _, _, kind, _ in strings)
    assert spans(tmp_path / "two") == spans(tmp_path / "one") and spans(tmp_path / "one")


@pytest.mark.parametrize("dies_after", [0, 3, 12, 119])
def test_a_sync_whose_second_process_dies_reads_the_rest_itself(
    stores: Stores, tmp_path: Path, dies_after: int
) -> None:
    # 0: it dies as it starts; else after sending that many chunks. Chunks of 2 KB end mid-source
    # between checkpoints, so the source is read again from its last checkpoint the sync handled; with
    # these fixtures chunk 119 is the second of synthetic_edge_cases_malformed.jsonl, whose warnings
    # are then read again.
    env = {**os.environ, **stores.env}
    small = {"PARALLEL_AFTER_BYTES": 1, "FLUSH_BYTES": 2000}
    one = sync_into(tmp_path / "one", env, small, TOTAL_RECALL_SYNC_PROCESSES="1")
    died = sync_into(tmp_path / "died", env, {**small, "WORKER_DIES": dies_after, "COMMIT_BYTES": 1})
    assert died.returncode == 0, died.stderr
    assert f"the second process dies after {dies_after} chunks" in died.stderr, "it must have died"
    report, clean = json.loads(died.stdout), json.loads(one.stdout)
    assert report["entries_added"] == clean["entries_added"]
    assert report["warnings"] == clean["warnings"], "a source read on must not repeat its warnings"
    assert snapshot(tmp_path / "died") == snapshot(tmp_path / "one")
    assert derived(tmp_path / "died") == derived(tmp_path / "one")
    assert spans(tmp_path / "died") == spans(tmp_path / "one")


def string_indexes(home: Path) -> list[tuple[Any, ...]]:
    return rows(home, "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'strings' AND type = 'index' "
                      "ORDER BY name")


def test_a_sync_bringing_in_more_strings_than_the_record_holds_builds_their_indexes_at_its_end(
    stores: Stores, tmp_path: Path
) -> None:
    env = {**os.environ, **stores.env}
    assert sync_into(tmp_path / "one", env).returncode == 0
    bulk = sync_into(tmp_path / "bulk", env, {"BULK_BYTES": 1})
    assert bulk.returncode == 0, bulk.stderr
    assert string_indexes(tmp_path / "bulk") == string_indexes(tmp_path / "one")
    assert [name for name, _ in string_indexes(tmp_path / "one")] == ["strings_entry", "strings_key"]
    assert derived(tmp_path / "bulk") == derived(tmp_path / "one")
    plan = rows(tmp_path / "bulk", "EXPLAIN QUERY PLAN SELECT entry FROM strings WHERE key LIKE 'abc%'")
    assert "strings_key" in str(plan)
    plan = rows(tmp_path / "bulk", "EXPLAIN QUERY PLAN SELECT key FROM strings WHERE entry = 7")
    assert "strings_entry" in str(plan)


def test_a_sync_killed_without_its_string_indexes_leaves_the_next_sync_to_build_them(
    stores: Stores, tmp_path: Path
) -> None:
    env = {**os.environ, **stores.env}
    assert sync_into(tmp_path / "clean", env).returncode == 0
    killed = sync_into(tmp_path / "home", env, {"BULK_BYTES": 1, "KILL_AT_CHECKPOINT": 6, "COMMIT_BYTES": 1})
    assert killed.returncode == -9, killed.stderr
    assert string_indexes(tmp_path / "home") == [] and derived(tmp_path / "home") != []
    assert sync_into(tmp_path / "home", env).returncode == 0  # too little left to read to defer it again
    assert string_indexes(tmp_path / "home") == string_indexes(tmp_path / "clean")
    assert derived(tmp_path / "home") == derived(tmp_path / "clean")
    assert snapshot(tmp_path / "home") == snapshot(tmp_path / "clean")


def test_a_small_sync_stays_in_one_process(stores: Stores, tmp_path: Path) -> None:
    done = sync_into(tmp_path / "home", {**os.environ, **stores.env})
    assert done.returncode == 0 and json.loads(done.stdout)["processes"] == 1


def test_a_process_count_that_is_not_1_or_2_is_refused_by_name(stores: Stores, tmp_path: Path) -> None:
    done = sync_into(tmp_path / "home", {**os.environ, **stores.env}, TOTAL_RECALL_SYNC_PROCESSES="four")
    assert done.returncode == 2
    assert "TOTAL_RECALL_SYNC_PROCESSES='four'" in done.stderr
    assert not (tmp_path / "home" / "record.sqlite3").exists() or snapshot(tmp_path / "home") == []


def test_an_unreadable_payload_is_an_error_naming_its_path_and_exit_2(stores: Stores) -> None:
    rollout = next(p for p in stores.roots["codex"].rglob("rollout-2026-02-23T20*.jsonl"))
    broken = rollout.with_name(rollout.name + ".zst")
    broken.write_bytes(zstandard.ZstdCompressor().compress(rollout.read_bytes())[:-40])
    rollout.unlink()
    result = CliRunner().invoke(cli, ["sync", "--json"])
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert any(str(broken) in e for e in report["errors"])
    listed = run("sessions", "--json")["sessions"]
    damaged = [s for s in listed if s["read_error"]]
    assert damaged and str(broken) in damaged[0]["read_error"]


def test_an_opencode_db_that_is_not_sqlite_is_an_error_naming_it(stores: Stores) -> None:
    bad = stores.roots["opencode"] / "opencode-beta.db"
    bad.write_bytes(b"this is not a database at all" * 100)
    result = CliRunner().invoke(cli, ["sync", "--harness", "opencode"])
    assert result.exit_code == 2
    assert str(bad) in result.stderr


def test_an_override_that_does_not_exist_is_an_error_naming_the_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-dir"
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(missing))
    result = CliRunner().invoke(cli, ["sync", "--harness", "vibe"])
    assert result.exit_code == 2
    assert str(missing) in result.stderr and "does not exist" in result.stderr


def test_the_sandbox_refuses_a_live_root_even_when_it_exists(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    live = Path(os.environ["HOME"]) / ".vibe" / "logs" / "session"
    shutil.copytree(SESSIONS / "vibe" / "logs" / "session", live)
    result = CliRunner().invoke(cli, ["sync", "--harness", "vibe", "--json"])
    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert errors == [
        "TOTAL_RECALL_SANDBOX is set but TOTAL_RECALL_VIBE_ROOT is not: refusing to read the live store. "
        "Point TOTAL_RECALL_VIBE_ROOT at a fixture or scratch copy."
    ]
    monkeypatch.delenv("TOTAL_RECALL_SANDBOX")
    report = run("sync", "--harness", "vibe", "--json")
    assert report["harnesses"]["vibe"]["sessions"] == 2


def test_an_empty_session_file_is_an_empty_session_not_an_error(stores: Stores) -> None:
    empty = stores.roots["claude-code"] / "projects" / "-tmp-x" / "0b0e0000-0000-4000-8000-000000000000.jsonl"
    empty.parent.mkdir(parents=True)
    empty.write_bytes(b"")
    report = run("sync", "--harness", "claude-code", "--json")
    assert report["errors"] == []


def test_an_unchanged_sync_reports_every_count_and_a_harness_whose_override_broke_stays_listed(
    stores: Stores, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = run("sync", "--json")
    again = run("sync", "--json")
    assert again["entries_added"] == 0 and again["sessions_added"] == 0
    for harness, counts in again["harnesses"].items():
        assert counts == {**first["harnesses"][harness], "sessions_added": 0, "entries_added": 0}
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(tmp_path / "moved away"))
    broken = run("sync", "--json", code=2)
    assert any("moved away" in e for e in broken["errors"])
    assert broken["harnesses"]["vibe"] == {**first["harnesses"]["vibe"], "sessions_added": 0,
                                           "entries_added": 0}


def test_a_sync_reply_keeps_the_warnings_that_fit_max_bytes_and_puts_the_whole_report_in_a_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = tmp_path / "claude"
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    t = Transcript(root / "-work-shop" / "5f0e1d2c-3b4a.jsonl", "/work/shop")
    t.owner("Keep the staging certificate.")
    with t.path.open("a", encoding="utf-8") as fh:
        fh.writelines("{not json\n" for _ in range(300))
    t.agent("Kept.")
    report = run("sync", "--harness", "claude-code", "--max-bytes", "4096", "--json")
    assert report["max_bytes"] == 4096 and report["bytes"] <= 4096
    kept = report["warnings"]
    assert kept and report["held_back"] == 300 - len(kept) and "held back" in report["notice"]
    assert report["entries_added"] == 2 and report["errors"] == []
    whole = json.loads(Path(report["overflow"]["file"]).read_text(encoding="utf-8"))
    assert len(whole["warnings"]) == 300 and whole["warnings"][:len(kept)] == kept
    assert whole["warnings"][0].startswith(f"{t.path}:2: not JSON")
    # Without --json, the count names every skipped line, those held back included.
    shown = run("--home", str(tmp_path / "other"), "sync", "--harness", "claude-code")
    assert "300 warnings (lines skipped):" in shown.stderr and "… 280 more" in shown.stderr
