"""A sync never writes a harness store: under inotify, a full sync of each harness's store creates,
modifies, opens for writing, renames or deletes nothing in any of its folders, and every byte stays."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from tests.conftest import SESSIONS
from tests.inotify import WriteWatch
from tests.stores import build_opencode_db
from total_recall.config import record_home
from total_recall.record.database import Record
from total_recall.record.sync import sync

OPENCODE_SID = "ses_f0de500f8ffeXvsiYJDOg5JtrU"
LATER = 1790768260000  # after every time in the recorded OpenCode dump


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)  # copies of read-only fixtures must stay deletable


def opencode_store(root: Path, wal: bool) -> None:
    """The legacy tree and a WAL-mode `opencode.db` as a crashed or still-running OpenCode leaves it:
    with `wal`, committed rows only in its -wal and no -shm beside it; else a checkpointed db alone."""
    copy_tree(SESSIONS / "opencode" / "json_storage_legacy" / "storage", root / "storage")
    build = root.parent / "opencode-build"
    build.mkdir()
    writer = build_opencode_db(build / "opencode.db")
    try:
        writer.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (
            "msg_wal", OPENCODE_SID, LATER, LATER,
            json.dumps({"role": "user", "time": {"created": LATER}})))
        writer.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (
            "prt_wal", "msg_wal", OPENCODE_SID, LATER, LATER,
            json.dumps({"type": "text", "text": "only in the WAL"})))
        if not wal:
            writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copyfile(build / "opencode.db", root / "opencode.db")
        if wal:
            assert (build / "opencode.db-wal").stat().st_size > 0
            shutil.copyfile(build / "opencode.db-wal", root / "opencode.db-wal")
    finally:
        writer.close()


def make_store(harness: str, root: Path) -> None:
    if harness == "claude-code":
        copy_tree(SESSIONS / "claude_code", root)
    elif harness == "codex":
        copy_tree(SESSIONS / "codex", root)
        plain = next(root.rglob("rollout-2026-02-23T20*.jsonl"))  # one rollout compressed, as Codex does
        packed = zstandard.ZstdCompressor().compress(plain.read_bytes())
        plain.with_name(plain.name + ".zst").write_bytes(packed)
        plain.unlink()
    elif harness == "vibe":
        copy_tree(SESSIONS / "vibe" / "logs" / "session", root)
    elif harness == "openclaw":
        copy_tree(SESSIONS / "openclaw", root)
    else:
        root.mkdir()
        opencode_store(root, wal=harness == "opencode")


def digest(top: Path) -> dict[str, str]:
    return {str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(top.rglob("*")) if p.is_file()}


def recorded(home: Path, sql: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(f"file:{home / 'record.sqlite3'}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


HARNESSES = ["claude-code", "codex", "vibe", "openclaw", "opencode", "opencode-no-wal"]


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_full_sync_writes_nothing_in_any_folder_of_the_store(tmp_path: Path, harness: str) -> None:
    root = tmp_path / "store" / harness
    root.parent.mkdir()
    make_store(harness, root)
    name = harness.removesuffix("-no-wal")
    before = digest(root)
    home = record_home()
    with WriteWatch(root) as watch:
        with Record(home / "record.sqlite3") as record:
            report = sync(record, [name], roots={name: root})
        events = watch.events()
    assert events == []
    assert digest(root) == before
    assert report.errors == [] and report.entries_added > 0
    # The private copy an SQLite store is read from is gone once the sync is done.
    assert list(home.glob("snapshots/*")) == []
    if name == "opencode":
        texts = [r[0] for r in recorded(home, "SELECT text FROM entries")]
        assert texts.count("only in the WAL") == 1


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_sync_into_the_record_home_named_by_flag_makes_its_store_copies_there(
    tmp_path: Path, processes: str
) -> None:
    root = tmp_path / "store" / "opencode"
    root.parent.mkdir()
    make_store("opencode", root)
    named, environment = tmp_path / "named", tmp_path / "environment"
    named.mkdir(mode=0o700)
    # With "2", a second process reads the store ahead (from its first byte: tests/faulty_sync.py sets
    # that): it must copy under the named home too.
    env = {**os.environ, "TOTAL_RECALL_HOME": str(environment), "TOTAL_RECALL_OPENCODE_ROOT": str(root),
           "TOTAL_RECALL_SYNC_PROCESSES": processes, "FAULTY_SYNC_PARALLEL_AFTER_BYTES": "1"}
    with WriteWatch(tmp_path) as watch:
        done = subprocess.run([sys.executable, str(Path(__file__).with_name("faulty_sync.py")),
                               "--home", str(named), "sync", "--harness", "opencode", "--json"],
                              env=env, capture_output=True, text=True)
        events = watch.events()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["processes"] == int(processes)
    assert not environment.exists()
    assert any(event.path == named / "snapshots" for event in events), "the copy is made under --home"
    assert list(named.glob("snapshots/*")) == []
