"""Reading ahead: how a source is cut into chunks, and how much a sync expects to read."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import zstandard

from total_recall.model import EntryDraft
from total_recall.readers import Checkpoint, Cursor, Source, reader_for
from total_recall.record import read_ahead as ahead
from total_recall.record.read_ahead import Chunk, End, Job, prepare, to_read


def two_block_transcript(folder: Path, lines: int) -> Source:
    """A Claude Code session whose assistant lines each hold a text and a tool call (two entries, one
    source record), with an owner's question before each."""
    folder.mkdir(parents=True)
    sid = "11111111-2222-4333-8444-555555555555"
    out, parent = [], None
    for i in range(lines):
        uid = f"00000000-0000-4000-8000-{2 * i:012d}"
        out.append(json.dumps({
            "type": "user", "uuid": uid, "parentUuid": parent, "sessionId": sid, "cwd": "/work",
            "timestamp": f"2026-11-20T10:{i % 60:02d}:00.000Z",
            "message": {"role": "user", "content": f"Why does /etc/ssl/private/site-{i}.pem fail to load?"},
        }))
        parent, uid = uid, f"00000000-0000-4000-8000-{2 * i + 1:012d}"
        out.append(json.dumps({
            "type": "assistant", "uuid": uid, "parentUuid": parent, "sessionId": sid, "cwd": "/work",
            "timestamp": f"2026-11-20T10:{i % 60:02d}:30.000Z",
            "message": {"id": f"msg_{i}", "role": "assistant", "content": [
                {"type": "text", "text": f"Checking the key of site {i} with openssl, version 3.0.{i}."},
                {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                 "input": {"command": f"openssl rsa -check -in /etc/ssl/private/site-{i}.pem"}},
            ]},
        }))
        parent = uid
    (folder / f"{sid}.jsonl").write_text("\n".join(out) + "\n")
    return next(reader_for("claude-code").sources(folder.parent))


def test_chunks_end_past_the_flush_size_and_never_between_two_entries_of_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = two_block_transcript(tmp_path / "projects" / "-work", 60)
    monkeypatch.setattr(ahead, "FLUSH_BYTES", 4_000)
    parts = list(prepare(Job(source, Cursor())))
    chunks = [p for p in parts if isinstance(p, Chunk)]
    assert parts[-1] == End() and len(chunks) > 3
    for chunk in chunks[:-1]:
        assert chunk.size >= 4_000 or isinstance(chunk.items[-1], Checkpoint)
    # Each line's record lies in one chunk, and its entries share one number there.
    records = [[e.raw for e in c.items if isinstance(e, EntryDraft)] for c in chunks]
    seen: set[bytes] = set()
    for chunk, raws in zip(chunks, records, strict=True):
        assert not seen & set(raws)
        seen |= set(raws)
        by_record: dict[bytes, set[int]] = {}
        for position, item in enumerate(chunk.items):
            if isinstance(item, EntryDraft):
                by_record.setdefault(item.raw, set()).add(chunk.raw_of[position])
        assert all(len(numbers) == 1 for numbers in by_record.values())
        assert len({n for numbers in by_record.values() for n in numbers}) == len(by_record)
    # Nothing lost or reordered, and what was worked out points at the right entries.
    read = [i for i in reader_for("claude-code").read(source, Cursor()) if isinstance(i, EntryDraft)]
    cut = [i for c in chunks for i in c.items if isinstance(i, EntryDraft)]
    assert [e.key for e in cut] == [e.key for e in read] and len(cut) == 180
    for chunk in chunks:
        entries = {p: i for p, i in enumerate(chunk.items) if isinstance(i, EntryDraft)}
        assert chunk.strings and all(key in entries[p].text for p, _, key in chunk.strings)
        assert all(entries[p].author == "owner" for p in chunk.spans)
    assert sum(len(c.spans) for c in chunks) == 60


def test_a_source_cut_mid_read_gives_what_was_read_then_its_error(tmp_path: Path) -> None:
    source = two_block_transcript(tmp_path / "projects" / "-work", 600)  # zstd blocks hold 128 KB
    cut = source.path.with_name(source.path.name + ".zst")
    cut.write_bytes(zstandard.ZstdCompressor().compress(source.path.read_bytes())[:-40])
    source.path.unlink()
    parts = list(prepare(Job(Source(source.harness, source.key, cut, source.kind), Cursor())))
    *chunks, end = parts
    assert isinstance(end, End) and end.error is not None and str(cut) in end.error
    read = [i for c in chunks if isinstance(c, Chunk) for i in c.items if isinstance(i, EntryDraft)]
    assert 0 < len(read) < 1_800


def test_a_database_read_before_counts_nothing_to_read_ahead(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(b"x" * 5_000)
    log = tmp_path / "rollout.jsonl"
    log.write_bytes(b"y" * 3_000)
    sqlite, jsonl = Source("opencode", "db", db, "sqlite"), Source("codex", "r", log, "jsonl")
    assert to_read([Job(sqlite, Cursor())]) == 5_000
    assert to_read([Job(sqlite, Cursor(state={"v": 2, "sessions": {}}))]) == 0
    assert to_read([Job(jsonl, Cursor(offset=1_000)), Job(sqlite, Cursor())]) == 2_000 + 5_000
    assert to_read([Job(Source("codex", "gone", tmp_path / "gone.jsonl"), Cursor())]) == 0


def many_sessions(root: Path, files: int, lines: int) -> None:
    """`files` Claude Code sessions of `lines` exchanges each under one project folder of `root`."""
    folder = root / "-work"
    folder.mkdir(parents=True)
    for f in range(files):
        sid = f"11111111-2222-4333-8444-{f:012d}"
        out = []
        for i in range(lines):
            out.append(json.dumps({
                "type": "user", "uuid": f"{f:08d}-0000-4000-8000-{i:012d}", "sessionId": sid, "cwd": "/work",
                "timestamp": "2026-11-20T10:00:00.000Z",
                "message": {"role": "user", "content": f"Why does /srv/site-{f}-{i}.pem fail? " + "x" * 400},
            }))
        (folder / f"{sid}.jsonl").write_text("\n".join(out) + "\n")


def alive_with(token: str) -> list[int]:
    """The processes whose environment holds `token` (a sync's second process inherits its environment)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if token.encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue  # gone, or not ours
    return found


def gone_within(pid: int, seconds: float) -> bool:
    """Whether process `pid` ends within `seconds`: its pidfd turns readable when it does."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], seconds)
        return bool(ready)
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs Linux pidfds")
def test_the_second_process_ends_quietly_with_a_sync_killed_outright(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    many_sessions(root, files=40, lines=400)  # ~8 MB: the second process runs far ahead of the sync
    token = f"TR_AHEAD_TEST={uuid.uuid4()}"
    # Faults injected by tests/faulty_sync.py: the sync is killed at its second checkpoint.
    env = {**os.environ, "TOTAL_RECALL_CLAUDE_ROOT": str(root), "TOTAL_RECALL_SYNC_PROCESSES": "2",
           "FAULTY_SYNC_PARALLEL_AFTER_BYTES": "1", "FAULTY_SYNC_FLUSH_BYTES": "20000",
           "FAULTY_SYNC_COMMIT_BYTES": "1", "FAULTY_SYNC_KILL_AT_CHECKPOINT": "2",
           token.split("=")[0]: token.split("=")[1]}
    sync = subprocess.Popen([sys.executable, str(Path(__file__).with_name("faulty_sync.py")),
                             "--home", str(tmp_path / "record"), "sync", "--json"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert sync.wait(timeout=120) == -9
    left = [pid for pid in alive_with(token) if pid != os.getpid()]
    assert all(gone_within(pid, 1.0) for pid in left), f"second process {left} outlived its sync"
    assert sync.stderr is not None
    err = sync.stderr.read().decode()  # the second process shared this pipe: EOF once it is gone too
    sync.stderr.close()
    assert "Traceback" not in err and "Error" not in err, err
