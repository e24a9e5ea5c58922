"""OpenCode reader: the recorded 1.18.33 SQLite dump, live WAL reads, half-done turns, the legacy tree."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import PROMPT_CULT, SESSIONS
from tests.readers.helpers import read_all, unreadable
from total_recall.config import record_home
from total_recall.errors import SourceError
from total_recall.readers import Cursor, Source
from total_recall.readers.base import LINE_LIMIT
from total_recall.readers.opencode import ABANDONED_MS, OpenCodeReader
from total_recall.record.database import Record
from total_recall.record.sync import sync

DUMP = SESSIONS / "opencode" / "sqlite_1.18.33" / "opencode.sql"
LEGACY = SESSIONS / "opencode" / "json_storage_legacy" / "storage"
DERIVED = PROMPT_CULT / "derived" / "opencode_fixture_from_tests.sql"
SID = "ses_f0de500f8ffeXvsiYJDOg5JtrU"
# Now: after every time in the dumps, and fresh, so a half-done turn at it is one still being written (one
# silent for an hour counts as abandoned, `opencode.ABANDONED_MS`).
LATER = int(time.time() * 1000)

reader = OpenCodeReader()


def build(folder: Path, sql: Path = DUMP, name: str = "opencode.db") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / name
    con = sqlite3.connect(db)
    con.executescript(sql.read_text())
    con.close()
    return db


def source(db: Path) -> Source:
    return Source("opencode", str(db), db, "sqlite")


def add_message(con: sqlite3.Connection, mid: str, at: int, info: dict[str, Any], sid: str = SID) -> None:
    con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, at, at, json.dumps(info)))


def add_part(con: sqlite3.Connection, pid: str, mid: str, at: int, data: dict[str, Any] | str,
             sid: str = SID) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    con.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, at, at, text))


def assistant(at: int, done: bool = True, **extra: Any) -> dict[str, Any]:
    time = {"created": at, "completed": at + 5} if done else {"created": at}
    return {"role": "assistant", "parentID": "msg_0f21aff2e001y84CAhBLtC5Dm9", "time": time, **extra}


def hashes(folder: Path, skip_shm: bool = False) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if not (skip_shm and p.name.endswith("-shm"))
    }


def test_sources_are_the_channel_dbs_and_the_legacy_tree_never_wal_or_shm(tmp_path: Path) -> None:
    for name in ("opencode.db", "opencode-dev.db", "opencode.db-wal", "opencode.db-shm",
                 "opencode-dev.db-wal", "other.db"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "storage" / "session").mkdir(parents=True)
    found = [(s.kind, Path(s.key).name) for s in reader.sources(tmp_path)]
    assert found == [("sqlite", "opencode-dev.db"), ("sqlite", "opencode.db"), ("tree", "storage")]
    assert [s.path for s in reader.sources(tmp_path / "opencode.db")] == [tmp_path / "opencode.db"]
    assert list(reader.sources(tmp_path / "opencode.db-wal")) == []
    assert [s.kind for s in reader.sources(tmp_path / "storage")] == ["tree"]


def test_the_recorded_db_yields_its_session_and_every_part_in_hydrate_order(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    types = Counter(dict(con.execute("SELECT json_extract(data, '$.type'), count(*) FROM part GROUP BY 1")))
    order = [r[0] for r in con.execute(
        "SELECT p.id FROM part p JOIN message m ON m.id = p.message_id ORDER BY m.time_created, m.id, p.id"
    )]
    roles = dict(con.execute(
        "SELECT p.id, json_extract(m.data, '$.role') FROM part p JOIN message m ON m.id = p.message_id"
    ))
    con.close()
    assert types == {"step-start": 2, "step-finish": 2, "text": 2, "tool": 1}

    got = read_all(reader, source(db))
    assert got.warnings == []
    session = got.sessions[SID]
    assert session.title == "The command printed fixture."
    assert session.cwd == "/work/proj"
    assert session.parent_native is None and session.relation is None
    assert session.started == "2026-09-30T11:37:30.632Z"
    assert session.ended == "2026-09-30T11:37:31.721Z"
    assert session.meta is not None
    assert session.meta["slug"] == "sunny-nebula" and session.meta["version"] == "1.18.33"
    assert session.meta["model"] == {"id": "fake-model", "providerID": "fake", "variant": "default"}
    assert session.meta["tokens"]["input"] == 170

    entries = got.of(SID)
    assert len(entries) == types["text"] + 2 * types["tool"] + types["step-start"] + types["step-finish"]
    rows = list(dict.fromkeys(e.row for e in entries))
    assert rows == [f"part:{pid}" for pid in order]
    kinds = Counter((e.author, e.kind) for e in entries)
    assert kinds == {("harness", "meta"): 4, ("owner", "message"): 1, ("agent", "message"): 1,
                     ("agent", "tool_call"): 1, ("tool", "tool_result"): 1}
    owner = next(e for e in entries if e.author == "owner")
    assert owner.text == '"run echo fixture please"'  # verbatim, quotes and all
    assert roles[owner.key] == "user"
    assert next(e.text for e in entries if e.author == "agent" and e.kind == "message") == (
        "The command printed fixture."
    )
    assert owner.timestamp == "2026-09-30T11:37:31.129Z"
    raw = orjson.loads(owner.raw)
    assert raw["id"] == owner.key and raw["message_id"] == "msg_0f21aff2e001y84CAhBLtC5Dm9"
    assert raw["session_id"] == SID and raw["data"]["type"] == "text"
    assert len({e.key for e in entries}) == len(entries)


def test_the_tool_part_becomes_a_call_and_a_result_with_the_real_output(tmp_path: Path) -> None:
    entries = read_all(reader, source(build(tmp_path))).of(SID)
    call, result = (e for e in entries if e.group == "call_1")
    assert (call.author, call.kind, call.tool) == ("agent", "tool_call", "bash")
    assert call.text == '{"command":"echo fixture"}'
    assert call.key == "prt_0f21b02d5001NcGUD0hmNfrPyr:call"
    assert (result.author, result.kind, result.tool) == ("tool", "tool_result", "bash")
    assert result.text == "fixture\n"
    assert result.key == "prt_0f21b02d5001NcGUD0hmNfrPyr:result"
    assert result.row == call.row == "part:prt_0f21b02d5001NcGUD0hmNfrPyr"
    assert result.timestamp == "2026-09-30T11:37:31.666Z"  # state.time.end


def test_reading_leaves_db_and_wal_byte_identical_and_sees_rows_still_in_the_wal(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = build(data)
    writer = sqlite3.connect(db)
    try:
        assert writer.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        add_message(writer, "msg_wal", LATER, assistant(LATER))
        add_part(writer, "prt_wal", "msg_wal", LATER, {"type": "text", "text": "only in the WAL"})
        writer.commit()
        assert (data / "opencode.db-wal").stat().st_size > 0
        names = sorted(p.name for p in data.iterdir())
        # Every SQLite reader marks its snapshot in the -shm shared memory, so that one file is not data.
        before = hashes(data, skip_shm=True)
        got = read_all(reader, source(db))
        assert sorted(p.name for p in data.iterdir()) == names
        assert hashes(data, skip_shm=True) == before
        assert [e.text for e in got.of(SID) if e.key == "prt_wal"] == ["only in the WAL"]
    finally:
        writer.close()


def test_a_wal_mode_db_whose_writer_closed_is_read_without_creating_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = build(data)
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    before = hashes(data)
    assert list(before) == ["opencode.db"]
    assert len(read_all(reader, source(db)).of(SID)) == 8
    assert hashes(data) == before


def test_the_fingerprint_covers_the_wal(tmp_path: Path) -> None:
    db = build(tmp_path)
    src = source(db)
    first = reader.fingerprint(src)
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        add_message(writer, "msg_fp", LATER, assistant(LATER))
        writer.commit()
        assert reader.fingerprint(src) != first
        assert reader.fingerprint(src).endswith(str((tmp_path / "opencode.db-wal").stat().st_mtime_ns))
    finally:
        writer.close()


def test_a_running_tool_waits_for_the_next_sync_then_is_read_from_the_cursor(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    add_message(con, "msg_run", LATER, assistant(LATER, done=False))
    running: dict[str, Any] = {"type": "tool", "tool": "bash", "callID": "call_2",
               "state": {"status": "running", "input": {"command": "sleep 1"}, "time": {"start": LATER}}}
    add_part(con, "prt_run1", "msg_run", LATER, {"type": "text", "text": "Running it."})
    add_part(con, "prt_run2", "msg_run", LATER + 1, running)
    con.commit()

    first = read_all(reader, source(db))
    assert not [e for e in first.entries if e.row in ("part:prt_run1", "part:prt_run2")]
    assert len(first.of(SID)) == 8
    assert first.cursor is not None

    again = read_all(reader, source(db), first.cursor)
    assert again.entries == []  # still running: nothing new, nothing repeated

    done = dict(running, state={**running["state"], "status": "completed", "output": "slept\n",
                                "time": {"start": LATER, "end": LATER + 1000}})
    con.execute("UPDATE part SET data = ?, time_updated = ? WHERE id = 'prt_run2'",
                (json.dumps(done), LATER + 1000))
    con.execute("UPDATE message SET data = ?, time_updated = ? WHERE id = 'msg_run'",
                (json.dumps(assistant(LATER, done=True)), LATER + 1005))
    con.commit()
    con.close()
    second = read_all(reader, source(db), first.cursor)
    assert SID in second.sessions
    assert [(e.key, e.text) for e in second.entries] == [
        ("prt_run1", "Running it."),
        ("prt_run2:call", '{"command":"sleep 1"}'),
        ("prt_run2:result", "slept\n"),
    ]


def test_an_unchanged_session_is_skipped_and_a_resumed_read_is_a_tail_of_a_full_read(tmp_path: Path) -> None:
    db = build(tmp_path)
    first = read_all(reader, source(db))
    assert first.cursor is not None
    skipped = read_all(reader, source(db), first.cursor)
    assert skipped.sessions == {} and skipped.entries == []

    con = sqlite3.connect(db)
    add_message(con, "msg_new1", LATER, {"role": "user", "time": {"created": LATER}})
    add_part(con, "prt_new1", "msg_new1", LATER, {"type": "text", "text": "and again"})
    add_message(con, "msg_new2", LATER + 10, assistant(LATER + 10))
    add_part(con, "prt_new2", "msg_new2", LATER + 10, {"type": "text", "text": "again it is"})
    con.commit()
    con.close()
    resumed = read_all(reader, source(db), first.cursor)
    full = read_all(reader, source(db))
    keys = [e.key for e in resumed.entries]
    assert keys == [e.key for e in full.entries][-len(keys):]
    assert keys[-2:] == ["prt_new1", "prt_new2"]
    assert len(keys) < len(full.entries)


def test_a_corrupt_row_gives_a_warning_naming_table_and_id_and_the_rest_is_read(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    con.execute("UPDATE part SET data = 'not json' WHERE id = 'prt_0f21b02d3001tOYcQAJkloLqkx'")
    con.execute("UPDATE part SET data = '[1, 2]' WHERE id = 'prt_0f21b033a001VTlTYA9mpcWy8P'")
    add_message(con, "msg_bad", LATER, assistant(LATER))
    con.execute("UPDATE message SET data = '{broken' WHERE id = 'msg_bad'")
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    assert {w.path for w in got.warnings} == {str(db)}
    whys = sorted(w.why for w in got.warnings)
    assert whys[0].startswith("message:msg_bad: data is not JSON")
    assert whys[1].startswith("part:prt_0f21b02d3001tOYcQAJkloLqkx: data is not JSON")
    assert whys[2] == "part:prt_0f21b033a001VTlTYA9mpcWy8P: data is not a JSON object (a list)"
    assert len(got.of(SID)) == 6


def test_a_file_that_is_not_sqlite_raises_source_error_naming_the_path(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    db.write_text("this is not a database at all, just some text\n" * 5)
    with pytest.raises(SourceError, match=str(db)):
        list(reader.read(source(db), Cursor()))
    other = tmp_path / "opencode-x.db"
    sqlite3.connect(other).execute("CREATE TABLE unrelated (x)").connection.close()
    with pytest.raises(SourceError, match=rf"{other}.*session"):
        list(reader.read(source(other), Cursor()))


def test_a_child_session_with_a_parent_id_is_a_subagent(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    con.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created,"
        " time_updated) VALUES ('ses_child', 'global', ?, 'kid', '/work/proj', 'Explore (@explore subagent)',"
        " '1.18.33', ?, ?)", (SID, LATER, LATER + 1))
    add_message(con, "msg_child", LATER, {"role": "user", "time": {"created": LATER}}, sid="ses_child")
    add_part(con, "prt_child", "msg_child", LATER, {"type": "text", "text": "find the thing"},
             sid="ses_child")
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    child = got.sessions["ses_child"]
    assert (child.parent_native, child.relation) == (SID, "subagent")
    assert [e.text for e in got.of("ses_child")] == ["find the thing"]
    assert got.sessions[SID].relation is None


def test_the_prompt_a_parent_agent_gives_a_child_session_is_the_agents_not_the_owners(tmp_path: Path) -> None:
    # As the Claude Code and Codex readers label a sub-agent's prompt. Only the author changes: the key is
    # the part's id as before, so a record holding it as the owner's gains no second copy.
    db = build(tmp_path)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,"
                " time_created, time_updated) VALUES ('ses_child', 'global', ?, 'kid', '/w', 'Explore',"
                " '1.18.33', ?, ?)", (SID, LATER, LATER + 1))
    add_message(con, "msg_child", LATER, {"role": "user", "time": {"created": LATER}}, sid="ses_child")
    add_part(con, "prt_child", "msg_child", LATER, {"type": "text", "text": "List every Python file."},
             sid="ses_child")
    add_part(con, "prt_child2", "msg_child", LATER, {"type": "text", "text": "Read a.py", "synthetic": True},
             sid="ses_child")
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    assert [(e.key, e.author) for e in got.of("ses_child")] == [
        ("prt_child", "agent"), ("prt_child2", "harness")]
    assert [e.author for e in got.of(SID) if e.kind == "message"] == ["owner", "agent"]

    storage = tmp_path / "legacy" / "storage"
    shutil.copytree(LEGACY, storage)
    info = json.loads((storage / "session" / "proj1" / "ses_test1.json").read_text())
    (storage / "session" / "proj1" / "ses_test1.json").write_text(json.dumps(info | {"parentID": "ses_top"}))
    tree = read_all(reader, Source("opencode", str(storage), storage, "tree"))
    assert [e.author for e in tree.of("ses_test1")] == ["agent", "agent"]


def test_every_part_type_maps_to_its_author_and_kind(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    t = LATER
    add_message(con, "msg_a", t, {"role": "user", "time": {"created": t}})
    add_part(con, "prt_a1", "msg_a", t, {"type": "text", "text": "look at this"})
    add_part(con, "prt_a2", "msg_a", t, {"type": "text", "text": "Called the Read tool", "synthetic": True})
    add_part(con, "prt_a3", "msg_a", t, {"type": "file", "mime": "image/png", "filename": "shot.png",
                                         "url": "data:image/png;base64,QUJDREVGR0g="})
    add_part(con, "prt_a4", "msg_a", t, {"type": "subtask", "agent": "explore", "description": "scan",
                                         "prompt": "List every reader."})
    add_part(con, "prt_a5", "msg_a", t, {"type": "brand-new", "x": 1})
    add_message(con, "msg_b", t + 10, assistant(t + 10))
    add_part(con, "prt_b1", "msg_b", t + 10, {"type": "reasoning", "text": "Thinking hard.", "time": {}})
    add_part(con, "prt_b2", "msg_b", t + 10, {"type": "reasoning", "text": "", "time": {}})
    add_part(con, "prt_b3", "msg_b", t + 10, {"type": "tool", "tool": "read", "callID": "c9", "state": {
        "status": "error", "input": {"filePath": "/nope"}, "error": "File not found", "time": {}}})
    add_part(con, "prt_b4", "msg_b", t + 10, {"type": "patch", "hash": "abc", "files": ["/a.py"]})
    add_message(con, "msg_c", t + 20, {"role": "user", "time": {"created": t + 20}})
    add_part(con, "prt_c1", "msg_c", t + 20, {"type": "compaction", "auto": True})
    add_message(con, "msg_d", t + 30, assistant(t + 30, mode="compaction", agent="compaction", summary=True))
    add_part(con, "prt_d1", "msg_d", t + 30, {"type": "text", "text": "Summary: we ran echo."})
    add_message(con, "msg_e", t + 40, assistant(t + 40, done=False, error={
        "name": "MessageAbortedError", "data": {"message": "The operation was aborted."}}))
    con.commit()
    con.close()
    got = {e.key: e for e in read_all(reader, source(db)).entries}
    assert (got["prt_a1"].author, got["prt_a1"].kind) == ("owner", "message")
    assert (got["prt_a2"].author, got["prt_a2"].kind) == ("harness", "message")
    assert got["prt_a3"].text == "file: shot.png (image/png) [image: image/png, 8 bytes]"
    assert got["prt_a4"].text == "subtask (explore): scan\nList every reader."
    assert (got["prt_a5"].kind, got["prt_a5"].text) == ("meta", "brand-new")
    b1 = got["prt_b1"]
    assert (b1.author, b1.kind, b1.text) == ("agent", "thinking", "Thinking hard.")
    assert "prt_b2" not in got
    assert (got["prt_b3:result"].text, got["prt_b3:call"].text) == ("File not found", '{"filePath":"/nope"}')
    assert got["prt_b4"].text == "patch abc: 1 files\n/a.py"
    assert (got["prt_c1"].author, got["prt_c1"].kind, got["prt_c1"].text) == (
        "harness", "compaction", "compaction (auto)")
    assert (got["prt_d1"].author, got["prt_d1"].kind) == ("harness", "summary")
    assert got["msg_e:error"].text == "error MessageAbortedError: The operation was aborted."


def fresh(db: Path) -> None:
    """The dump's rows as if just written: shifted so the newest is now (the dump dates from 1970)."""
    con = sqlite3.connect(db)
    shift = LATER - max(con.execute("SELECT max(time_updated) FROM part").fetchone()[0] or 0,
                        con.execute("SELECT max(time_updated) FROM message").fetchone()[0] or 0)
    for table in ("message", "part"):
        con.execute(f"UPDATE {table} SET time_created = time_created + ?, time_updated = time_updated + ?",
                    (shift, shift))
    con.commit()
    con.close()


def test_the_derived_subset_schema_reads_and_holds_back_its_unfinished_last_turn(tmp_path: Path) -> None:
    db = build(tmp_path, DERIVED)
    fresh(db)
    got = read_all(reader, source(db))
    assert set(got.sessions) == {"ses_fixture0001aaaa", "ses_todo0000000000000000000000bb",
                                 "ses_todo0000000000000000000001aa"}
    assert got.sessions["ses_fixture0001aaaa"].relation == "subagent"
    fixture = got.of("ses_fixture0001aaaa")
    # msg5 is the last assistant turn and never completed: it waits; msg2 was superseded, so it is final.
    assert [e.key for e in fixture] == ["part1", "part2:call", "part2:result", "part3", "part4", "part5"]
    assert fixture[4].kind == "compaction"

    con = sqlite3.connect(db)
    con.execute("""UPDATE message SET data = '{"role":"assistant","time":{"created":5000,"completed":5300}}'
                   WHERE id IN ('msg5', 'tmsg5')""")
    con.commit()
    con.close()
    assert got.cursor is not None
    more = read_all(reader, source(db), got.cursor)
    assert [w.why.split(":")[:2] for w in more.warnings] == [["part", "part_tw5"]]
    keys = [e.key for e in more.entries]
    assert keys == ["part6", "part7", "part_tw4:call", "part_tw4:result", "part_tw6:call", "part_tw6:result"]
    assert more.entries[-1].text == "aborted"


def test_the_legacy_json_tree_reads_its_session_with_its_two_messages() -> None:
    src = next(reader.sources(LEGACY.parent))
    assert (src.kind, src.path) == ("tree", LEGACY)
    got = read_all(reader, src)
    assert got.warnings == []
    info = json.loads((LEGACY / "session" / "proj1" / "ses_test1.json").read_text())
    session = got.sessions["ses_test1"]
    assert (session.title, session.cwd) == (info["title"], info["directory"])
    assert session.started == "2023-11-14T22:13:20.000Z"
    texts = [json.loads((LEGACY / "part" / m / "part1.json").read_text())["text"]
             for m in ("msg_test1", "msg_test2")]
    entries = got.of("ses_test1")
    assert [(e.author, e.kind, e.text) for e in entries] == [
        ("owner", "message", texts[0]), ("agent", "message", texts[1])]
    assert [e.row for e in entries] == ["part/msg_test1/part1.json", "part/msg_test2/part1.json"]
    assert len({e.key for e in entries}) == 2  # both parts are named part1
    assert entries[0].raw == (LEGACY / "part" / "msg_test1" / "part1.json").read_bytes()


def test_the_legacy_tree_warns_on_a_bad_file_and_skips_unchanged_sessions(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    (storage / "part" / "msg_test2" / "part2.json").write_text("{not json")
    src = next(reader.sources(tmp_path))
    before = reader.fingerprint(src)
    got = read_all(reader, src)
    assert [w.path for w in got.warnings] == [str(storage / "part" / "msg_test2" / "part2.json")]
    assert len(got.of("ses_test1")) == 2
    assert got.cursor is not None
    assert read_all(reader, src, got.cursor).entries == []

    (storage / "part" / "msg_test2" / "part3.json").write_text(json.dumps({"type": "text", "text": "P.S."}))
    assert reader.fingerprint(src) != before
    again = read_all(reader, src, got.cursor)
    assert [e.text for e in again.entries][-1] == "P.S."
    assert again.entries[-1].key == "msg_test2/part3"


def test_a_part_over_the_line_limit_is_skipped_with_a_warning_and_the_others_are_read(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    add_message(con, "msg_big", LATER, {"role": "user", "time": {"created": LATER}})
    # Built inside SQLite: a text part whose JSON is just over the 32 MiB limit (hex doubles the bytes).
    con.execute("INSERT INTO part VALUES ('prt_big', 'msg_big', ?, ?, ?, "
                "printf('{\"type\":\"text\",\"text\":\"%s\"}', hex(zeroblob(?))))",
                (SID, LATER, LATER, LINE_LIMIT // 2))
    add_part(con, "prt_small", "msg_big", LATER, {"type": "text", "text": "next to a huge part"})
    con.commit()
    size = con.execute("SELECT length(CAST(data AS BLOB)) FROM part WHERE id = 'prt_big'").fetchone()[0]
    con.close()
    got = read_all(reader, source(db))
    assert [w.why for w in got.warnings] == [
        f"part:prt_big: data of {size} bytes is over the {LINE_LIMIT}-byte limit; skipped"]
    assert got.warnings[0].path == str(db)
    assert [e.text for e in got.of(SID) if e.key == "prt_small"] == ["next to a huge part"]
    assert not any(e.key.startswith("prt_big") for e in got.entries)


def test_a_legacy_part_file_over_the_line_limit_is_skipped_with_a_warning(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    folder = next(p for p in (storage / "part").iterdir() if p.is_dir())
    big = folder / "prt_zzzz_huge.json"
    with big.open("wb") as fh:
        fh.truncate(LINE_LIMIT + 1)  # sparse: its size is all the reader may look at
    full = read_all(reader, Source("opencode", str(storage), storage, "tree"))
    assert [(w.path, w.why) for w in full.warnings] == [
        (str(big), f"data of {LINE_LIMIT + 1} bytes is over the {LINE_LIMIT}-byte limit; skipped")]
    assert full.entries


def test_the_private_copy_is_gone_after_a_read_even_one_abandoned_midway_or_killed(tmp_path: Path) -> None:
    db = build(tmp_path / "data")
    snapshots = record_home() / "snapshots"
    stream = reader.read(source(db), Cursor())
    next(stream)  # the copy exists while the read is under way
    assert [p.name.split("-")[1] for p in snapshots.iterdir()] == [str(os.getpid())]
    stream.close()
    assert list(snapshots.iterdir()) == []
    # A copy left by a process that was killed is removed by the next read.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    left = snapshots / f"opencode-{gone.stdout.strip()}-abc123"
    left.mkdir()
    (left / "opencode.db").write_bytes(b"a private copy")
    read_all(reader, source(db))
    assert list(snapshots.iterdir()) == []


def test_a_settled_user_message_with_no_parts_is_said_and_one_still_being_written_is_not(
    tmp_path: Path,
) -> None:
    # OpenCode writes a message's row before its parts: a later assistant turn settles it.
    db = build(tmp_path)
    con = sqlite3.connect(db)
    add_message(con, "msg_zz1", LATER, {"role": "user", "time": {"created": LATER}})
    add_message(con, "msg_zz2", LATER + 10, assistant(LATER + 10))
    add_message(con, "msg_zz3", LATER + 20, {"role": "user", "time": {"created": LATER + 20}})
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    assert [w.why for w in got.warnings] == [
        "message:msg_zz1: a user message with no parts, so no words to read"]
    assert {w.path for w in got.warnings} == {str(db)}


def test_a_turn_left_half_done_for_an_hour_is_read_as_it_stands(tmp_path: Path) -> None:
    # OpenCode killed mid-turn leaves its last assistant message without `time.completed` for good.
    db = build(tmp_path)
    con = sqlite3.connect(db)
    old = LATER - 2 * 3_600_000
    add_message(con, "msg_dead", old, assistant(old, done=False))
    add_part(con, "prt_dead1", "msg_dead", old, {"type": "text", "text": "Deploying the fix now"})
    add_part(con, "prt_dead2", "msg_dead", old + 1, {
        "type": "tool", "tool": "bash", "callID": "call_9",
        "state": {"status": "running", "input": {"command": "make deploy"}, "time": {"start": old + 1}}})
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    assert [(e.key, e.text) for e in got.entries if e.row in ("part:prt_dead1", "part:prt_dead2")] == [
        ("prt_dead1~cut", "Deploying the fix now"), ("prt_dead2:call~cut", '{"command":"make deploy"}')]
    assert got.cursor is not None and "recheck_at" not in got.cursor.state


def test_a_turn_still_being_written_names_when_to_look_again_and_sync_looks_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = build(tmp_path / "store")
    con = sqlite3.connect(db)
    add_message(con, "msg_live", LATER, assistant(LATER, done=False))
    add_part(con, "prt_live", "msg_live", LATER, {"type": "text", "text": "Thinking about it"})
    con.commit()
    con.close()
    first = read_all(reader, source(db))
    assert first.cursor is not None
    in_an_hour = datetime.fromtimestamp((LATER + 3_600_000) / 1000, UTC)
    assert first.cursor.state["recheck_at"] == in_an_hour.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    with Record(tmp_path / "record.sqlite3") as record:
        roots = {"opencode": tmp_path / "store"}
        assert sync(record, ["opencode"], roots=roots).sources_read == 1
        assert sync(record, ["opencode"], roots=roots).sources_read == 0  # unchanged, and not due yet
    # An hour later (the record's cursor moved back, as time moving on would): read again, unchanged.
    rec = sqlite3.connect(tmp_path / "record.sqlite3")
    [(state,)] = rec.execute("SELECT state FROM sources WHERE harness = 'opencode'").fetchall()
    rec.execute("UPDATE sources SET state = ? WHERE harness = 'opencode'",
                (json.dumps({**json.loads(state), "recheck_at": "2000-01-01T00:00:00.000Z"}),))
    rec.commit()
    rec.close()
    with Record(tmp_path / "record.sqlite3") as record:
        assert sync(record, ["opencode"], roots=roots).sources_read == 1


def test_an_empty_database_opencode_has_just_created_is_an_empty_store_not_an_error(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(b"")
    got = read_all(reader, source(db))
    assert (got.sessions, got.entries, got.warnings) == ({}, [], [])
    with Record(tmp_path / "record.sqlite3") as record:
        report = sync(record, ["opencode"], roots={"opencode": tmp_path})
    assert report.errors == [] and report.entries_added == 0


def test_a_session_whose_turns_are_only_in_the_newer_session_message_table_is_warned_not_silent(
    tmp_path: Path,
) -> None:
    # OpenCode's schema holds `session_message` from 1.18 (the recorded store's is empty); a capture of
    # `opencode serve` 1.18.18 kept its turns there. Until it is read, such a session is said, not empty.
    db = build(tmp_path)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, "
                "time_updated) SELECT 'ses_newer', project_id, 'newer', directory, 'Ping', version, ?, ? "
                "FROM session LIMIT 1", (LATER, LATER))
    said = {"id": "msg_n1", "text": "Reply with one word: PONG", "type": "user"}
    con.execute("INSERT INTO session_message VALUES ('msg_n1', 'ses_newer', 'user', 1, ?, ?, ?)",
                (LATER, LATER, json.dumps(said)))
    con.commit()
    con.close()
    got = read_all(reader, source(db))
    assert [w.why for w in got.warnings] == ["session:ses_newer: 1 message(s) only in `session_message`, the "
                                             "newer format this reader does not read yet; not recorded"]
    again = read_all(reader, source(db), got.cursor)
    assert again.warnings == []  # said once


def test_a_turn_read_as_abandoned_that_opencode_finishes_after_all_keeps_both_its_words(
    tmp_path: Path,
) -> None:
    # A tool waiting an hour for the owner's permission leaves its turn as silent as a killed OpenCode.
    db = build(tmp_path)
    con = sqlite3.connect(db)
    old = LATER - 2 * 3_600_000
    add_message(con, "msg_slow", old, assistant(old, done=False))
    add_part(con, "prt_slow1", "msg_slow", old, {"type": "text", "text": "The command pri"})
    running: dict[str, Any] = {"type": "tool", "tool": "bash", "callID": "call_s", "state": {
        "status": "running", "input": {"command": "make"}, "time": {"start": old}}}
    add_part(con, "prt_slow2", "msg_slow", old + 1, running)
    con.commit()
    first = read_all(reader, source(db))
    con.execute("UPDATE part SET data = ?, time_updated = ? WHERE id = 'prt_slow1'",
                (json.dumps({"type": "text", "text": "The command printed fixture."}), LATER))
    done = dict(running, state={**running["state"], "status": "completed", "output": "built\n",
                                "time": {"start": old, "end": LATER}})
    con.execute("UPDATE part SET data = ?, time_updated = ? WHERE id = 'prt_slow2'",
                (json.dumps(done), LATER))
    con.execute("UPDATE message SET data = ?, time_updated = ? WHERE id = 'msg_slow'",
                (json.dumps(assistant(old, done=True)), LATER))
    con.commit()
    con.close()
    assert first.cursor is not None
    later = read_all(reader, source(db), first.cursor)
    texts = [e.text for e in first.entries + later.entries if e.row in ("part:prt_slow1", "part:prt_slow2")]
    assert "The command pri" in texts and "The command printed fixture." in texts and "built\n" in texts
    keys = [e.key for e in first.entries + later.entries]
    assert len(keys) == len(set(keys))


def test_a_tool_completing_in_place_is_read_though_no_count_of_the_store_changed(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    old = LATER - 2 * 3_600_000
    add_message(con, "msg_t", old, assistant(old, done=True))
    running: dict[str, Any] = {"type": "tool", "tool": "bash", "callID": "call_t", "state": {
        "status": "running", "input": {"command": "make"}, "time": {"start": old}}}
    add_part(con, "prt_t", "msg_t", old, running)
    con.commit()
    first = read_all(reader, source(db))
    done = dict(running, state={**running["state"], "status": "completed", "output": "made\n",
                                "time": {"start": old, "end": LATER}})
    con.execute("UPDATE part SET data = ?, time_updated = ? WHERE id = 'prt_t'", (json.dumps(done), LATER))
    con.commit()
    con.close()
    assert first.cursor is not None
    assert "made\n" in [e.text for e in read_all(reader, source(db), first.cursor).entries]


def test_a_legacy_folder_that_cannot_be_listed_is_named_in_a_warning_not_read_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    src = Source("opencode", str(storage), storage, "tree")
    for folder in (storage / "message" / "ses_test1", storage / "part" / "msg_test2", storage / "session"):
        with monkeypatch.context() as m:
            unreadable(m, folder)
            got = read_all(reader, src)
        warned = [(w.path, w.why.split(" (")[0]) for w in got.warnings]
        assert warned == [(str(folder), "folder is unreadable")]
        assert "Permission denied" in got.warnings[0].why
    # Readable again: what it holds is read then, though the files in it did not change.
    with monkeypatch.context() as m:
        unreadable(m, storage / "part" / "msg_test2")
        first = read_all(reader, src)
    assert [e.row for e in first.entries] == ["part/msg_test1/part1.json"]
    assert first.cursor is not None
    later = read_all(reader, src, first.cursor)
    assert [e.row for e in later.entries][-1] == "part/msg_test2/part1.json"


def test_an_opencode_root_or_storage_folder_that_cannot_be_listed_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(tmp_path)
    shutil.copytree(LEGACY, tmp_path / "storage")
    unreadable(monkeypatch, tmp_path / "storage")
    found = []
    with pytest.raises(OSError, match=f"folder {tmp_path / 'storage'} is unreadable"):
        found += reader.sources(tmp_path)
    assert [s.kind for s in found] == ["sqlite"]  # the databases beside it are still read
    with Record(tmp_path / "record.sqlite3") as record:
        report = sync(record, ["opencode"], roots={"opencode": tmp_path})
    assert [e for e in report.errors if str(tmp_path / "storage") in e and "unreadable" in e]
    assert report.entries_added == 8


def test_a_user_part_caught_half_written_at_one_sync_is_read_at_the_next(tmp_path: Path) -> None:
    # OpenCode writes a legacy part file in place: a sync can find it cut short, with the reply after it.
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    src = Source("opencode", str(storage), storage, "tree")
    messages, parts = storage / "message" / "ses_test1", storage / "part" / "msg_test1"
    (messages / "msg_test1.json").write_text(json.dumps(
        {"id": "msg_test1", "sessionID": "ses_test1", "role": "user", "time": {"created": LATER}}))
    (parts / "part1.json").unlink()
    said = json.dumps({"id": "prt_u1", "messageID": "msg_test1", "type": "text", "text": "Help with Rust?"})
    (parts / "prt_u1.json").write_text(said[:30])
    reply = {"id": "msg_test2", "sessionID": "ses_test1", "role": "assistant", "time": {"created": LATER + 5}}
    (messages / "msg_test2.json").write_text(json.dumps(reply))  # still streaming
    first = read_all(reader, src)
    assert [(w.path, w.why.split(" (")[0]) for w in first.warnings] == [
        (str(parts / "prt_u1.json"), "a part of message msg_test1 could not be read")]
    assert first.entries == []

    (parts / "prt_u1.json").write_text(said)
    (messages / "msg_test2.json").write_text(json.dumps(reply | {"time": {"created": LATER + 5,
                                                                           "completed": LATER + 9}}))
    assert first.cursor is not None
    second = read_all(reader, src, first.cursor)
    answer = json.loads((storage / "part" / "msg_test2" / "part1.json").read_text())["text"]
    assert [(e.author, e.text) for e in second.entries] == [("owner", "Help with Rust?"), ("agent", answer)]
    assert second.warnings == []


def test_a_settled_user_message_with_no_parts_is_looked_at_again_when_its_part_comes(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    add_message(con, "msg_zz1", LATER, {"role": "user", "time": {"created": LATER}})
    add_message(con, "msg_zz2", LATER + 10, assistant(LATER + 10))
    add_part(con, "prt_zz2", "msg_zz2", LATER + 10, {"type": "text", "text": "Which file?"})
    con.commit()
    first = read_all(reader, source(db))
    add_part(con, "prt_zz1", "msg_zz1", LATER + 20, {"type": "text", "text": "the late words"})
    con.commit()
    con.close()
    assert first.cursor is not None
    second = read_all(reader, source(db), first.cursor)
    assert [e.key for e in second.entries] == ["prt_zz1", "prt_zz2"]  # the reply again: the record has it


NO_PARTS = "message:msg_zz1: a user message with no parts, so no words to read"


def test_a_user_message_still_without_parts_an_hour_on_no_longer_holds_back_where_reads_resume(
    tmp_path: Path,
) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    old = LATER - 2 * ABANDONED_MS
    add_message(con, "msg_zz1", old, {"role": "user", "time": {"created": old}})  # never gets a part
    add_message(con, "msg_zz2", old + 10, assistant(old + 10))
    add_part(con, "prt_zz2", "msg_zz2", old + 10, {"type": "text", "text": "Which file?"})
    con.commit()
    got = read_all(reader, source(db))
    assert [w.why for w in got.warnings] == [NO_PARTS]
    for n in (3, 4, 5):  # the session goes on: one more turn a sync
        add_message(con, f"msg_zz{n}", LATER + n, assistant(LATER + n))
        add_part(con, f"prt_zz{n}", f"msg_zz{n}", LATER + n, {"type": "text", "text": f"reply {n}"})
        con.commit()
        assert got.cursor is not None
        got = read_all(reader, source(db), got.cursor)
        # the last message read is looked at again (a part may land on it after its row), nothing before it
        assert ([e.key for e in got.entries], got.warnings) == ([f"prt_zz{n - 1}", f"prt_zz{n}"], [])
    con.close()


def test_a_young_user_message_without_parts_is_looked_at_again_at_each_sync_but_said_once(
    tmp_path: Path,
) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    add_message(con, "msg_zz1", LATER, {"role": "user", "time": {"created": LATER}})
    add_message(con, "msg_zz2", LATER + 10, assistant(LATER + 10))
    add_part(con, "prt_zz2", "msg_zz2", LATER + 10, {"type": "text", "text": "Which file?"})
    con.commit()
    first = read_all(reader, source(db))
    assert [w.why for w in first.warnings] == [NO_PARTS]
    add_message(con, "msg_zz3", LATER + 20, assistant(LATER + 20))
    add_part(con, "prt_zz3", "msg_zz3", LATER + 20, {"type": "text", "text": "Still there?"})
    con.commit()
    assert first.cursor is not None
    second = read_all(reader, source(db), first.cursor)
    assert ([e.key for e in second.entries], second.warnings) == (["prt_zz2", "prt_zz3"], [])
    add_part(con, "prt_zz1", "msg_zz1", LATER + 30, {"type": "text", "text": "the late words"})
    con.commit()
    con.close()
    assert second.cursor is not None
    third = read_all(reader, source(db), second.cursor)
    assert [e.key for e in third.entries] == ["prt_zz1", "prt_zz2", "prt_zz3"]

@pytest.fixture
def legacy(tmp_path: Path) -> tuple[Path, Source]:
    """A copy of the legacy JSON tree fixture, and the source a read takes it as."""
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    return storage, Source("opencode", str(storage), storage, "tree")



def test_a_legacy_part_file_broken_for_good_is_said_once_and_the_reads_after_it_move_on(
    legacy: tuple[Path, Source],
) -> None:
    storage, src = legacy
    broken = storage / "part" / "msg_test2" / "part2.json"
    broken.write_text("{not json")
    got = read_all(reader, src)
    assert [w.path for w in got.warnings] == [str(broken)]
    for n in (3, 4):  # the session goes on (its fixture times are long past: nothing there is young)
        at = 1700000000000 + n * 1000
        (storage / "message" / "ses_test1" / f"msg_test{n}.json").write_text(json.dumps(
            {"id": f"msg_test{n}", "sessionID": "ses_test1", "role": "user", "time": {"created": at}}))
        (storage / "part" / f"msg_test{n}").mkdir()
        (storage / "part" / f"msg_test{n}" / "part1.json").write_text(json.dumps(
            {"id": "part1", "messageID": f"msg_test{n}", "type": "text", "text": f"and {n}?"}))
        assert got.cursor is not None
        got = read_all(reader, src, got.cursor)
        keys = [f"msg_test{n - 1}/part1", f"msg_test{n}/part1"]  # the last message read again, and the new
        assert ([e.key for e in got.entries], got.warnings) == (keys, [])


def test_a_legacy_message_file_broken_for_good_no_longer_holds_back_where_reads_resume(
    legacy: tuple[Path, Source],
) -> None:
    storage, src = legacy
    broken = storage / "message" / "ses_test1" / "msg_test0.json"
    broken.write_text('{"id": "msg_test0", "role": "us')
    long_ago = (LATER - 2 * ABANDONED_MS) / 1000
    os.utime(broken, (long_ago, long_ago))
    got = read_all(reader, src)
    assert ([w.path for w in got.warnings], len(got.entries)) == ([str(broken)], 2)
    (storage / "part" / "msg_test2" / "part2.json").write_text(json.dumps(
        {"id": "part2", "messageID": "msg_test2", "type": "text", "text": "P.S."}))
    assert got.cursor is not None
    again = read_all(reader, src, got.cursor)
    assert ([e.key for e in again.entries], again.warnings) == (["msg_test2/part1", "msg_test2/part2"], [])


def test_a_utf8_bom_before_a_legacy_json_file_is_passed_over(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(LEGACY, storage)
    for path in {storage / "session" / "proj1" / "ses_test1.json", *storage.glob("*/*/*1.json")}:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    got = read_all(reader, Source("opencode", str(storage), storage, "tree"))
    assert got.warnings == []
    assert got.sessions["ses_test1"].title == "OpenCode JSON Session"
    assert [e.author for e in got.of("ses_test1")] == ["owner", "agent"]


def test_a_title_or_folder_stored_as_a_blob_or_number_is_read_as_text(tmp_path: Path) -> None:
    db = build(tmp_path)
    con = sqlite3.connect(db)
    con.execute("UPDATE session SET title = x'c3a9ff00', directory = x'2f77', slug = x'6b6964'")
    con.commit()
    con.close()
    session = read_all(reader, source(db)).sessions[SID]
    assert (session.title, session.cwd) == ("\u00e9\ufffd\x00", "/w")
    assert session.meta is not None and session.meta["slug"] == "kid"
    with Record(tmp_path / "record.sqlite3") as record:
        assert sync(record, ["opencode"], roots={"opencode": tmp_path}).errors == []
        [recorded] = record.sessions(["opencode"])
    assert json.dumps([recorded.title, recorded.cwd])
