"""Opening the record: private whatever the umask, and created once when many processes open it at once."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from total_recall.record.database import Record
from total_recall.record.migrations import MIGRATIONS


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def modes(home: Path) -> dict[str, int]:
    """The permission bits of the home and of everything under it, by path relative to it."""
    out = {".": stat.S_IMODE(home.stat().st_mode)}
    for path in sorted(home.rglob("*")):
        out[str(path.relative_to(home))] = stat.S_IMODE(path.lstat().st_mode)
    return out


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "total_recall", "--home", str(home), *args],
                          capture_output=True, text=True, umask=0o022)


def test_a_new_record_its_wal_and_its_locks_are_private_under_umask_022(
    tmp_path: Path, umask_022: None
) -> None:
    home = tmp_path / "record"
    with Record(home / "record.sqlite3") as record:
        record.begin()
        record.source("claude-code", "k", "/x.jsonl", "jsonl")
        record.commit()
        # The WAL and its index exist while a connection is open.
        assert {"record.sqlite3-wal", "record.sqlite3-shm"} <= {p.name for p in home.iterdir()}
        seen = modes(home)
    done = cli(home, "--demo", "sync", "--json")  # the demo record, and the sync's lock file
    assert done.returncode == 0, done.stderr
    seen |= modes(home)
    loose = {name: oct(mode) for name, mode in seen.items() if mode & 0o077}
    assert loose == {}
    assert seen["."] == 0o700
    assert {"demo.sqlite3", "demo.sqlite3.sync-lock", "record.sqlite3-wal"} <= set(seen)


def test_a_record_open_to_others_is_made_private_and_its_owner_told_once(tmp_path: Path) -> None:
    home = tmp_path / "record"
    assert cli(home, "sessions").returncode == 0
    (home / "overflow").mkdir()
    (home / "overflow" / "reply.txt").write_text("a private reply")
    (home / "push-12345.sock").write_text("")  # a running server's push socket is ours too
    (home / "llm.toml").write_text("model = 'x'\n")
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    first = cli(home, "sessions")
    assert first.returncode == 0, first.stderr
    assert f"the record's home {home} was open to other users" in first.stderr
    assert {name: oct(mode) for name, mode in modes(home).items() if mode & 0o077} == {}
    assert modes(home)["."] == 0o700 and modes(home)["overflow"] == 0o700
    assert modes(home)["overflow/reply.txt"] == 0o600
    again = cli(home, "sessions")
    assert again.returncode == 0 and "open to other users" not in again.stderr


def test_a_record_in_a_shared_folder_makes_only_its_own_files_private(tmp_path: Path) -> None:
    home = tmp_path / "shared"
    (home / "photos").mkdir(parents=True)
    (home / "photos" / "cat.jpg").write_text("meow")
    (home / "notes.txt").write_text("someone else's")
    assert cli(home, "sessions").returncode == 0
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    first = cli(home, "sessions")
    assert first.returncode == 0, first.stderr
    assert f"the record's files in {home} (a folder shared with other things" in first.stderr
    seen = modes(home)
    assert seen["."] == 0o755 and seen["photos"] == 0o755 and seen["photos/cat.jpg"] == 0o644
    assert seen["notes.txt"] == 0o644
    assert {n: oct(m) for n, m in seen.items() if n.startswith("record.sqlite3") and m & 0o077} == {}


OPEN = """
import sys
from pathlib import Path
from total_recall.record.database import Record
sys.stdin.read()  # the barrier: every process is ready when the test closes the pipe
Record(Path(sys.argv[1])).close()
"""


def test_processes_opening_a_brand_new_record_at_once_all_succeed_and_migrate_it_once(tmp_path: Path) -> None:
    for trial in range(3):
        record = tmp_path / f"trial{trial}" / "record.sqlite3"
        barrier, release = os.pipe()
        procs = [subprocess.Popen([sys.executable, "-c", OPEN, str(record)], stdin=barrier,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(10)]
        os.close(barrier)
        os.close(release)  # every process reads EOF at once
        results = [(p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in procs]
        for p in procs:
            for stream in (p.stdout, p.stderr):
                if stream:
                    stream.close()
        assert [code for code, _ in results] == [0] * 10, [err for _, err in results if err]
        db = sqlite3.connect(record)
        try:
            names = [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY name")]
        finally:
            db.close()
        assert names == sorted(name for name, _ in MIGRATIONS)
