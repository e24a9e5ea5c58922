"""The JSONL line loop every JSONL reader shares: nothing dropped without a word, nothing held whole
past the line limit, and text a strict parser refuses kept when it can be."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import total_recall.readers.base as base
from tests.conftest import REPO, SESSIONS
from tests.readers.helpers import read_all, unreadable
from total_recall.model import ReadWarning
from total_recall.readers import Checkpoint, Cursor, Line, Source
from total_recall.readers.base import LINE_LIMIT, iter_jsonl
from total_recall.readers.claude_code import ClaudeCodeReader
from total_recall.readers.openclaw import OpenClawReader
from total_recall.record.database import Record
from total_recall.record.sync import sync

SID = "11111111-2222-4333-8444-555555555555"


def user_line(uuid: str, text: str, parent: str | None = None) -> bytes:
    return json.dumps({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": SID, "cwd": "/w",
        "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": text},
    }).encode()


def items(path: Path, limit: int) -> tuple[list[Line], list[ReadWarning], Cursor]:
    lines, warnings, cursor = [], [], Cursor()
    for item in iter_jsonl(path, Cursor(), limit=limit):
        if isinstance(item, Line):
            lines.append(item)
        elif isinstance(item, ReadWarning):
            warnings.append(item)
        elif isinstance(item, Checkpoint):
            cursor = item.cursor
    return lines, warnings, cursor


def transcript(tmp_path: Path, body: bytes) -> Path:
    path = tmp_path / "projects" / "-w" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def recorded_texts(tmp_path: Path) -> list[str]:
    db = sqlite3.connect(f"file:{tmp_path / 'record.sqlite3'}?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute("SELECT text FROM entries ORDER BY session, seq")]
    finally:
        db.close()


def sync_claude(tmp_path: Path) -> tuple[int, list[str]]:
    with Record(tmp_path / "record.sqlite3") as record:
        report = sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"})
    assert report.errors == []
    return report.entries_added, [str(w) for w in report.warnings]


def test_the_line_limit_is_the_one_the_readme_and_the_readers_contract_state() -> None:
    stated = f"{LINE_LIMIT >> 20} MiB"
    assert LINE_LIMIT % (1 << 20) == 0
    for doc in ("README.md", "docs/READERS_CONTRACT.md", "docs/ARCHITECTURE.md"):
        assert stated in (REPO / doc).read_text(encoding="utf-8"), f"{doc} does not say {stated}"


@pytest.mark.parametrize("chunk", [1 << 20, 256], ids=["line-inside-one-chunk", "line-across-chunks"])
def test_a_line_over_the_limit_is_skipped_with_a_file_line_warning_and_the_next_line_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(base, "READ_CHUNK", chunk)
    long = b'{"text": "' + b"x" * 5000 + b'"}'
    body = user_line("u1", "before") + b"\n" + long + b"\n" + user_line("u3", "after") + b"\n"
    path = tmp_path / "long.jsonl"
    path.write_bytes(body)
    lines, warnings, cursor = items(path, limit=1000)
    assert [ln.number for ln in lines] == [1, 3]
    assert lines[1].obj["message"]["content"] == "after"
    assert [(w.path, w.line) for w in warnings] == [(str(path), 2)]
    assert f"{len(long)} bytes" in warnings[0].why and "1000-byte line limit" in warnings[0].why
    assert (cursor.offset, cursor.line) == (len(body), 3)


def test_a_resumed_read_after_a_skipped_line_agrees_with_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "READ_CHUNK", 300)
    monkeypatch.setattr(base, "CHECKPOINT_BYTES", 1)
    body = b"\n".join([user_line("u1", "a"), b'{"t": "' + b"y" * 3000 + b'"}', user_line("u3", "b"),
                       user_line("u4", "c")]) + b"\n"
    path = tmp_path / "r.jsonl"
    path.write_bytes(body)
    checkpoints = [i.cursor for i in iter_jsonl(path, Cursor(), limit=1000) if isinstance(i, Checkpoint)]
    full = [ln.number for ln in items(path, 1000)[0]]
    for at in checkpoints:
        tail = [i.number for i in iter_jsonl(path, at, limit=1000) if isinstance(i, Line)]
        assert tail == [n for n in full if n > at.line]
        assert base.read_check(path, at.offset) == at.check


def test_an_overlong_last_line_with_no_newline_is_warned_and_left_for_the_next_read(tmp_path: Path) -> None:
    head = user_line("u1", "first") + b"\n"
    path = tmp_path / "growing.jsonl"
    path.write_bytes(head + b'{"text": "' + b"z" * 4000)
    lines, warnings, cursor = items(path, limit=1000)
    assert [ln.number for ln in lines] == [1]
    assert [w.line for w in warnings] == [2] and "no newline yet" in warnings[0].why
    assert (cursor.offset, cursor.line) == (len(head), 1)


def test_a_utf8_bom_on_the_first_line_is_dropped_and_the_line_is_kept(tmp_path: Path) -> None:
    body = b"\xef\xbb\xbf" + user_line("u1", "hello") + b"\n" + user_line("u2", "x") + b"\n"
    path = transcript(tmp_path, body)
    got = read_all(ClaudeCodeReader(), Source("claude-code", str(path), path))
    assert [e.text for e in got.entries] == ["hello", "x"] and got.warnings == []
    assert got.entries[0].raw.startswith(b"{")


def test_a_lone_surrogate_escape_keeps_the_line_with_a_replacement_and_a_warning(tmp_path: Path) -> None:
    lone = user_line("u2", "x").replace(b'"x"', b'"broken \\ud800 here"')
    path = transcript(tmp_path, user_line("u1", "a") + b"\n" + lone + b"\n")
    got = read_all(ClaudeCodeReader(), Source("claude-code", str(path), path))
    assert [e.text for e in got.entries] == ["a", "broken \ufffd here"]
    assert [(w.path, w.line) for w in got.warnings] == [(str(path), 2)]
    assert "surrogate" in got.warnings[0].why


def test_invalid_utf8_keeps_the_line_with_a_replacement_and_a_warning(tmp_path: Path) -> None:
    bad = user_line("u1", "caf_").replace(b"caf_", b"caf\xe9")
    path = transcript(tmp_path, bad + b"\n")
    got = read_all(ClaudeCodeReader(), Source("claude-code", str(path), path))
    assert [e.text for e in got.entries] == ["caf\ufffd"]
    assert [w.line for w in got.warnings] == [1] and "UTF-8" in got.warnings[0].why


def test_a_second_line_reusing_a_uuid_with_other_text_is_recorded_too(tmp_path: Path) -> None:
    first = user_line("u1", "first words")
    # The same line twice byte for byte is one entry; the same uuid with other words is another.
    path = transcript(tmp_path, first + b"\n" + first + b"\n" + user_line("u1", "other words") + b"\n")
    added, _ = sync_claude(tmp_path)
    assert added == 2 and recorded_texts(tmp_path) == ["first words", "other words"]
    # A later append reusing it again is kept as well; re-reading the same lines adds nothing.
    with path.open("ab") as fh:
        fh.write(user_line("u1", "third words") + b"\n")
    assert sync_claude(tmp_path)[0] == 1
    assert recorded_texts(tmp_path) == ["first words", "other words", "third words"]
    assert sync_claude(tmp_path)[0] == 0



def test_an_openclaw_node_id_reused_with_other_text_keeps_both_entries_apart(tmp_path: Path) -> None:
    def node(text: str) -> bytes:
        return json.dumps({"type": "message", "id": "a1b2c3d4", "parentId": None,
                           "timestamp": "2026-01-01T00:00:00Z",
                           "message": {"role": "user", "content": [{"type": "text", "text": text}]}}).encode()

    path = tmp_path / "sessions" / f"{SID}.jsonl"
    path.parent.mkdir()
    path.write_bytes(node("one") + b"\n" + node("one") + b"\n" + node("two") + b"\n")
    got = read_all(OpenClawReader(), Source("openclaw", str(path), path))
    assert [e.text for e in got.entries] == ["one", "one", "two"]
    keys = [e.key for e in got.entries]
    assert keys[0] == keys[1] == "a1b2c3d4" and keys[2].startswith("a1b2c3d4~")


# A real pi session (badlogic/pi-mono, MIT; tests/fixtures/sessions/SOURCES.md) whose sixth line holds two
# records: the agent's "Done." lacked its newline when pi stopped, and the owner's "ok" was appended to it
# 28 minutes later.
RESUMED = next((SESSIONS / "openclaw" / "pi_real").glob("2025-12-17T*.jsonl"))


def test_two_records_on_one_line_are_both_read_and_numbered_as_a_read_resumed_between_them_numbers_them(
    tmp_path: Path,
) -> None:
    body = RESUMED.read_bytes()
    whole = read_all(OpenClawReader(), Source("openclaw", str(RESUMED), RESUMED))
    owner = [(e.line, e.text) for e in whole.entries if e.author == "owner"]
    assert owner == [(7, "ok"), (9, "write a little poem instead,")]
    assert [(w.line, w.why.split(" (")[0]) for w in whole.warnings] == [(6, "2 JSON records on one line")]
    # The same file met by a sync while pi was away: the first record without its newline, then the rest.
    split = body.index(b'}{"type":"message"') + 1
    path = tmp_path / RESUMED.name
    path.write_bytes(body[:split])
    first = read_all(OpenClawReader(), Source("openclaw", str(path), path))
    assert first.cursor is not None and first.cursor.offset == split
    path.write_bytes(body)
    rest = read_all(OpenClawReader(), Source("openclaw", str(path), path), first.cursor)
    assert rest.warnings == []
    seen = [(e.key, e.line, e.text) for e in first.entries + rest.entries]
    assert seen == [(e.key, e.line, e.text) for e in whole.entries]


def test_a_last_line_whose_second_record_is_still_being_written_is_left_for_the_next_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "projects" / "-w" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(user_line("u1", "first") + user_line("u2", "sec")[:40])
    lines, warnings, cursor = items(path, LINE_LIMIT)
    assert (lines, warnings, cursor.offset) == ([], [], 0)
    path.write_bytes(user_line("u1", "first") + user_line("u2", "second") + b"\n")
    assert sync_claude(tmp_path)[0] == 2
    assert recorded_texts(tmp_path) == ["first", "second"]


def test_what_follows_the_records_of_a_line_is_warned_and_the_records_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(user_line("u1", "one") + b" " + user_line("u2", "two") + b"garbage\n"
                     + user_line("u3", "x") + b"\n")
    lines, warnings, _ = items(path, LINE_LIMIT)
    assert [ln.number for ln in lines] == [1, 2, 3]
    assert [(w.line, w.why.split(" (")[0]) for w in warnings] == [
        (1, "2 JSON records on one line"), (2, "not JSON after its 2 records")]


def test_records_sharing_a_line_keep_their_own_bytes_even_where_a_byte_is_not_utf8(tmp_path: Path) -> None:
    first, second = b'{"uuid":"u1","text":"caf\xe9 latte"}', b'{"uuid":"u2","text":"next"}'
    path = tmp_path / "r.jsonl"
    path.write_bytes(first + second + b"\n")
    lines, _, _ = items(path, LINE_LIMIT)
    assert [ln.raw for ln in lines] == [first, second]  # as a read resumed between them has them


@pytest.mark.parametrize("rest", [b"\n", b"\r\n", b"  \n", b"\n\n"],
                         ids=["lf", "crlf", "spaces", "then-a-blank-line"])
def test_lines_after_a_last_line_read_before_its_newline_are_numbered_as_a_fresh_read_numbers_them(
    tmp_path: Path, rest: bytes
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(user_line("u1", "a") + b"\n" + user_line("u2", "b"))  # taken whole, no newline yet
    first = items(path, LINE_LIMIT)
    assert [ln.number for ln in first[0]] == [1, 2]
    path.write_bytes(path.read_bytes() + rest + user_line("u3", "c") + b"\n" + user_line("u4", "d") + b"\n")
    later = [i for i in iter_jsonl(path, first[2]) if isinstance(i, Line | Checkpoint)]
    fresh = items(path, LINE_LIMIT)
    assert [ln.number for ln in later if isinstance(ln, Line)] == [ln.number for ln in fresh[0][2:]]
    assert later[-1] == Checkpoint(fresh[2])


def test_a_record_appended_to_a_last_line_read_before_its_newline_is_numbered_as_a_fresh_read_numbers_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(user_line("u1", "a"))
    first = items(path, LINE_LIMIT)
    path.write_bytes(user_line("u1", "a") + user_line("u2", "b") + b"\n" + user_line("u3", "c") + b"\n")
    later = [i.number for i in iter_jsonl(path, first[2]) if isinstance(i, Line)]
    assert later == [ln.number for ln in items(path, LINE_LIMIT)[0][1:]] == [2, 3]


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_an_unreadable_folder_is_named_by_the_sync_and_the_sessions_elsewhere_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str
) -> None:
    root = tmp_path / "store"
    for name, folder in (("a", "-w-a"), ("b", "-w-b")):
        native = f"{name * 8}-2222-4333-8444-555555555555"
        path = root / folder / (f"rollout-2026-01-01T00-00-00-{native}.jsonl" if harness == "codex"
                                else f"{native}.jsonl")
        path.parent.mkdir(parents=True)
        path.write_bytes(user_line("u1", "hello") + b"\n")
    locked = root / "-w-b"
    unreadable(monkeypatch, locked)
    with Record(tmp_path / "record.sqlite3") as record:
        report = sync(record, [harness], roots={harness: root})
        assert [s.native_id for s in record.sessions()] == ["aaaaaaaa-2222-4333-8444-555555555555"]
    assert report.errors == [f"{root}: cannot list: folder {locked} is unreadable (Permission denied); "
                             "the sessions in it are not read"]
