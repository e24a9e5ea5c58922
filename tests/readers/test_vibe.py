"""Mistral Vibe reader: session folders, compaction children, subagents and the pre-2.0 single file."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROMPT_CULT, SESSIONS
from tests.readers.helpers import read_all, unreadable
from total_recall.erasure import erase
from total_recall.model import Address, Session, SyncReport
from total_recall.readers import Cursor, Source
from total_recall.readers.base import content_key, read_check
from total_recall.readers.vibe import VibeReader
from total_recall.record.database import Record
from total_recall.record.sync import sync

VIBE = SESSIONS / "vibe" / "logs" / "session"
FIRST = VIBE / "session_20260701_101500_5c0e7a91"
CHILD = VIBE / "session_20260701_103012_d41f03b7"
CULT = PROMPT_CULT / "rollouts" / "vibe_sessions"
CULT_SMALL = CULT / "session_20260523_203111_4a0051b6"
CULT_BIG = CULT / "session_20260623_114518_2a421f21"


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(s) for s in path.read_text().splitlines() if s.strip()]


def meta_of(folder: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((folder / "meta.json").read_text())
    return meta


def expected_count(messages: list[dict[str, Any]]) -> int:
    """Entries a message list should give, counted the simple way (compaction injections give two)."""
    n = 0
    for m in messages:
        if m["role"] == "assistant":
            n += bool(m.get("reasoning_content")) + bool(m.get("content")) + len(m.get("tool_calls", []))
        elif m["role"] == "user" and m.get("injected") and "compaction" in m["content"]:
            n += 2
        else:
            n += 1
    return n


def source(folder: Path) -> Source:
    return Source("vibe", str(folder / "messages.jsonl"), folder / "messages.jsonl")


def copy_session(folder: Path, into: Path) -> Path:
    target = into / folder.name
    shutil.copytree(folder, target)
    for p in [target, *target.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return target


def cursor_after(path: Path, lines: int) -> Cursor:
    offset = sum(len(s) for s in path.read_bytes().splitlines(keepends=True)[:lines])
    return Cursor(offset, lines, read_check(path, offset))


def test_every_messages_jsonl_under_the_root_is_a_source_including_subagents_and_single_files(
    tmp_path: Path,
) -> None:
    assert [s.path for s in VibeReader().sources(SESSIONS / "vibe")] == [
        FIRST / "messages.jsonl",
        CHILD / "messages.jsonl",
    ]
    session = copy_session(FIRST, tmp_path)
    sub = session / "agents" / "explore_20260701_101600_aa11bb22"
    sub.mkdir(parents=True)
    (sub / "messages.jsonl").write_text("")
    (tmp_path / "session_20250101_000000_deadbeef.json").write_text('{"metadata": {}, "messages": []}')
    (session / "meta.json.tmp").write_text("{")
    found = {(s.path, s.kind) for s in VibeReader().sources(tmp_path)}
    assert found == {
        (session / "messages.jsonl", "jsonl"),
        (sub / "messages.jsonl", "jsonl"),
        (tmp_path / "session_20250101_000000_deadbeef.json", "tree"),
    }


def test_the_first_fixture_session_has_owner_thinking_paired_tool_call_and_result_and_no_timestamps() -> None:
    meta = meta_of(FIRST)
    messages = lines_of(FIRST / "messages.jsonl")
    got = read_all(VibeReader(), source(FIRST))
    assert got.warnings == []
    draft = got.sessions[meta["session_id"]]
    assert (draft.title, draft.cwd, draft.started, draft.ended) == (
        meta["title"],
        meta["environment"]["working_directory"],
        meta["start_time"],
        meta["end_time"],
    )
    assert draft.parent_native is None and draft.relation is None
    assert draft.meta is not None
    assert draft.meta["git_branch"] == "main" and draft.meta["agent_profile"] == "default"
    assert draft.meta["stats"] == meta["stats"]
    assert len(got.entries) == expected_count(messages) == 5
    assert [(e.author, e.kind) for e in got.entries] == [
        ("owner", "message"),
        ("agent", "thinking"),
        ("agent", "tool_call"),
        ("tool", "tool_result"),
        ("agent", "message"),
    ]
    call, result = got.entries[2], got.entries[3]
    raw_call = messages[1]["tool_calls"][0]
    assert call.text == raw_call["function"]["arguments"] == '{"command": "pytest -q"}'
    assert (call.tool, call.group) == ("bash", raw_call["id"])
    assert (result.tool, result.group, result.text) == ("bash", raw_call["id"], messages[2]["content"])
    assert got.entries[1].text == messages[1]["reasoning_content"]
    # message_id keys, a line key for the id-less tool message, `:n` for the second entry of a line
    assert [e.key for e in got.entries] == [
        messages[0]["message_id"],
        messages[1]["message_id"],
        messages[1]["message_id"] + ":1",
        "L3",
        messages[3]["message_id"],
    ]
    assert all(e.timestamp is None for e in got.entries)
    assert [e.line for e in got.entries] == [1, 2, 2, 3, 4]
    assert got.cursor is not None and got.cursor.line == 4


def test_the_compaction_child_points_at_its_parent_and_its_injected_message_is_a_harness_summary() -> None:
    meta = meta_of(CHILD)
    messages = lines_of(CHILD / "messages.jsonl")
    got = read_all(VibeReader(), source(CHILD))
    draft = got.sessions[meta["session_id"]]
    assert draft.parent_native == meta_of(FIRST)["session_id"]
    assert draft.relation == "compaction"
    # Vibe's own title is its injected context cut at 50 characters: the child goes by its parent's title
    assert meta["title"] == "You are continuing a trajectory after a context co…"
    assert draft.title == meta_of(FIRST)["title"] == "Run the unit tests and tell me what fails."
    assert len(got.entries) == expected_count(messages) == 4
    marker, summary, owner, reply = got.entries
    assert (marker.author, marker.kind) == ("harness", "compaction")
    assert (summary.author, summary.kind, summary.text) == ("harness", "summary", messages[0]["content"])
    assert "<compaction_summary>" in summary.text
    assert (marker.key, summary.key) == (messages[0]["message_id"], messages[0]["message_id"] + ":1")
    assert (owner.author, owner.text) == ("owner", "Fix it.")
    assert (reply.author, reply.kind) == ("agent", "message")


def test_prompt_cult_sessions_read_with_injected_messages_as_harness_and_titles_from_meta() -> None:
    for folder in (CULT_SMALL, CULT_BIG):
        meta = meta_of(folder)
        messages = lines_of(folder / "messages.jsonl")
        got = read_all(VibeReader(), source(folder))
        assert got.warnings == []
        assert got.sessions[meta["session_id"]].title == meta["title"]
        assert len(got.entries) == expected_count(messages)
        owners = [m["content"] for m in messages if m["role"] == "user" and not m["injected"]]
        assert [e.text for e in got.entries if e.author == "owner"] == owners
        injected = [m for m in messages if m.get("injected")]
        harness = [e for e in got.entries if e.author == "harness"]
        compactions = [m for m in injected if "context compaction" in m["content"]]
        assert len([e for e in harness if e.kind == "compaction"]) == len(compactions)
        assert len([e for e in harness if e.kind == "message"]) == len(injected)
        calls = sum(len(m.get("tool_calls", [])) for m in messages)
        assert len([e for e in got.entries if e.kind == "tool_call"]) == calls
        assert len({e.key for e in got.entries}) == len(got.entries)
    big = read_all(VibeReader(), source(CULT_BIG))
    assert len([e for e in big.entries if e.kind == "compaction"]) == 8
    assert len([e for e in big.entries if e.author == "owner"]) == 33


# The state of a folder's cursor once it has waited its time for a readable meta.json (`vibe.META_WAIT`).
WAITED = Cursor(state={"held_until": "2000-01-01T00:00:00.000Z", "recheck_at": "2000-01-01T00:00:00.000Z"})


def test_a_broken_or_missing_meta_json_is_a_warning_and_the_folder_name_becomes_the_session_id(
    tmp_path: Path,
) -> None:
    session = copy_session(FIRST, tmp_path)
    (session / "meta.json").write_text('{"session_id": "5c0e7a91-')
    got = read_all(VibeReader(), source(session), WAITED)
    assert len(got.warnings) == 1 and "meta.json is not JSON" in got.warnings[0].why
    assert got.warnings[0].path == str(session / "meta.json")
    assert list(got.sessions) == [session.name]
    assert len(got.entries) == 5 and {e.session for e in got.entries} == {session.name}
    # with no title in meta, the first user line gives Vibe's fallback title
    assert got.sessions[session.name].title == "Run the unit tests and tell me what fails."
    (session / "meta.json").unlink()
    got = read_all(VibeReader(), source(session), WAITED)
    assert ["missing" in w.why for w in got.warnings] == [True]
    assert list(got.sessions) == [session.name] and len(got.entries) == 5


def test_a_bad_json_line_is_a_warning_with_its_line_number_and_the_rest_is_read(tmp_path: Path) -> None:
    session = copy_session(FIRST, tmp_path)
    lines = (session / "messages.jsonl").read_text().splitlines()
    lines.insert(2, '{"role": "tool", "content": ')
    lines.insert(4, "[1, 2]")
    (session / "messages.jsonl").write_text("\n".join(lines) + "\n")
    got = read_all(VibeReader(), source(session))
    warned = [(w.line, w.why.split(" (")[0]) for w in got.warnings]
    assert warned == [(3, "not JSON"), (5, "not a JSON object")]
    assert len(got.entries) == 5
    assert [e.line for e in got.entries] == [1, 2, 2, 4, 6]


def test_resuming_from_a_mid_file_cursor_gives_the_tail_of_a_full_read() -> None:
    path = CULT_BIG / "messages.jsonl"
    reader = VibeReader()
    full = read_all(reader, source(CULT_BIG))
    for cut in (1, 24, 25, 100, 170, 171):
        resumed = read_all(reader, source(CULT_BIG), cursor_after(path, cut))
        assert resumed.entries == [e for e in full.entries if e.line is not None and e.line > cut]
        assert resumed.sessions == full.sessions
        assert resumed.cursor is not None and full.cursor is not None
        # a bare cursor knows no ids met before it: it holds those met after
        ids, all_ids = resumed.cursor.state["ids"], full.cursor.state["ids"]
        assert ids.items() <= all_ids.items()
        assert replace(resumed.cursor, state={**resumed.cursor.state, "ids": all_ids}) == full.cursor


def test_resuming_never_retitles_a_session_whose_meta_has_no_title(tmp_path: Path) -> None:
    session = copy_session(FIRST, tmp_path)
    meta = meta_of(session)
    del meta["title"]
    (session / "meta.json").write_text(json.dumps(meta))
    full = read_all(VibeReader(), source(session))
    assert full.sessions[meta["session_id"]].title == "Run the unit tests and tell me what fails."
    resumed = read_all(VibeReader(), source(session), cursor_after(session / "messages.jsonl", 2))
    assert resumed.sessions[meta["session_id"]].title is None


def test_a_session_opening_with_a_system_line_takes_its_fallback_title_from_the_first_user_line(
    tmp_path: Path,
) -> None:
    # Older Vibe files (and sessions-chronicle's fixture of one) open with a `system` line.
    session = copy_session(FIRST, tmp_path)
    meta = meta_of(session)
    del meta["title"]
    (session / "meta.json").write_text(json.dumps(meta))
    lines = (session / "messages.jsonl").read_text()
    (session / "messages.jsonl").write_text(json.dumps({"role": "system", "content": "You are Vibe."}) + "\n"
                                            + lines)
    got = read_all(VibeReader(), source(session))
    assert got.sessions[meta["session_id"]].title == "Run the unit tests and tell me what fails."
    assert [e.author for e in got.entries][:2] == ["system", "owner"]


def test_a_parent_without_a_compaction_message_is_a_fork_and_agents_folders_are_subagents(
    tmp_path: Path,
) -> None:
    parent = copy_session(FIRST, tmp_path)
    parent_id = meta_of(parent)["session_id"]
    fork = copy_session(FIRST, tmp_path / "forks")
    meta = meta_of(fork) | {"session_id": "f0f0f0f0-fork", "parent_session_id": parent_id}
    (fork / "meta.json").write_text(json.dumps(meta))
    got = read_all(VibeReader(), source(fork))
    assert (got.sessions[meta["session_id"]].parent_native, got.sessions[meta["session_id"]].relation) == (
        parent_id,
        "fork",
    )
    sub = parent / "agents" / "explore_20260701_101600_aa11bb22"
    sub.mkdir(parents=True)
    (sub / "messages.jsonl").write_text(
        json.dumps({"role": "user", "content": "Find the parser.", "message_id": "u1"}) + "\n"
    )
    (sub / "meta.json").write_text(json.dumps({"session_id": "aa11bb22-1", "title": "Find the parser."}))
    got = read_all(VibeReader(), source(sub))
    draft = got.sessions["aa11bb22-1"]
    assert (draft.parent_native, draft.relation) == (parent_id, "subagent")
    # the parent agent's prompt, as the Claude Code and Codex readers label it
    assert [(e.author, e.text) for e in got.entries] == [("agent", "Find the parser.")]


def test_the_fingerprint_changes_when_only_meta_json_changes(tmp_path: Path) -> None:
    session = copy_session(FIRST, tmp_path)
    reader = VibeReader()
    before = reader.fingerprint(source(session))
    (session / "meta.json").write_text((session / "meta.json").read_text() + "\n\n")
    assert reader.fingerprint(source(session)) != before


@pytest.fixture
def single_file(tmp_path: Path) -> Path:
    doc = {
        "metadata": {
            "session_id": "0ld5e551-0000-4000-8000-000000000001",
            "start_time": "2025-06-01T09:00:00+00:00",
            "end_time": "2025-06-01T09:05:00+00:00",
            "environment": {"working_directory": "/home/user/old"},
            "git_branch": "dev",
        },
        "messages": [
            {"role": "system", "content": "You are Vibe."},
            {"role": "user", "content": "List the files here, please, and say which is biggest."},
            {
                "role": "assistant",
                "content": "Listing.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "index": 0,
                        "function": {"name": "bash", "arguments": '{"command":"ls -S"}'},
                        "type": "function",
                    }
                ],
            },
            {"role": "tool", "content": "big.bin\nsmall.txt", "name": "bash", "tool_call_id": "c1"},
            "not a message",
            {"role": "assistant", "content": "big.bin is the biggest."},
        ],
    }
    path = tmp_path / "session_20250601_090000_0ld5e551.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_pre_2_0_single_file_session_is_read_whole_with_stable_keys(single_file: Path) -> None:
    reader = VibeReader()
    [src] = list(reader.sources(single_file.parent))
    assert src.kind == "tree"
    got = read_all(reader, src)
    draft = got.sessions["0ld5e551-0000-4000-8000-000000000001"]
    assert (draft.cwd, draft.started) == ("/home/user/old", "2025-06-01T09:00:00+00:00")
    assert draft.meta == {"git_branch": "dev"}
    assert draft.title == "List the files here, please, and say which is biggest."[:50] + "…"
    assert [(e.author, e.kind, e.key) for e in got.entries] == [
        ("system", "message", "M1"),
        ("owner", "message", "M2"),
        ("agent", "message", "M3"),
        ("agent", "tool_call", "M3:1"),
        ("tool", "tool_result", "M4"),
        ("agent", "message", "M6"),
    ]
    assert got.entries[3].text == '{"command":"ls -S"}' and got.entries[4].group == "c1"
    assert [w.why for w in got.warnings] == ["message 5 is not a JSON object"]
    again = read_all(reader, src, got.cursor)
    assert [e.key for e in again.entries] == [e.key for e in got.entries]
    assert reader.fingerprint(src) == reader.fingerprint(src)


def test_a_single_file_that_is_not_json_is_a_source_error(tmp_path: Path) -> None:
    from total_recall.errors import SourceError

    path = tmp_path / "session_20250601_090000_broken00.json"
    path.write_text('{"metadata": {')
    with pytest.raises(SourceError, match="not JSON"):
        read_all(VibeReader(), Source("vibe", str(path), path, "tree"))


def test_a_session_first_read_with_only_a_system_line_is_titled_by_the_user_message_that_follows(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "logs" / "session" / "session_20260701_101500_eeeeffff"
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"session_id": "eeeeffff-2b4d-4f6a-9e31-8a7d2c4b6f10"}))
    path = folder / "messages.jsonl"
    path.write_text(json.dumps({"role": "system", "content": "You are Vibe."}) + "\n")
    source = next(VibeReader().sources(tmp_path))
    first = read_all(VibeReader(), source)
    assert first.sessions["eeeeffff-2b4d-4f6a-9e31-8a7d2c4b6f10"].title is None
    with path.open("a") as fh:
        said = {"role": "user", "content": "Sort the invoices by vendor", "message_id": "m1"}
        fh.write(json.dumps(said) + "\n")
    later = read_all(VibeReader(), source, first.cursor)
    assert later.sessions["eeeeffff-2b4d-4f6a-9e31-8a7d2c4b6f10"].title == "Sort the invoices by vendor"


# -- through the record: a store in a tmp folder synced, its sessions read back --

PARENT_ID = "5c0e7a91-2b4d-4f6a-9e31-8a7d2c4b6f10"
CHILD_ID = "d41f03b7-96e2-4c1a-b5d8-8a7d2c4b6f10"
SYSTEM = {"role": "system", "content": "You are Vibe."}


def synced(store: Path, home: Path) -> tuple[SyncReport, dict[str, Session]]:
    """Sync the Vibe store into the record at `home`; the report and the record's sessions by native id."""
    with Record(home / "record.sqlite3") as record:
        report = sync(record, ["vibe"], roots={"vibe": store})
        return report, {s.native_id: s for s in record.sessions(["vibe"])}


def write_lines(path: Path, messages: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))


def append_line(path: Path, message: dict[str, Any]) -> None:
    with path.open("a") as fh:
        fh.write(json.dumps(message) + "\n")


def edit_meta(folder: Path, **changes: Any) -> None:
    """meta.json with `changes` (a value None drops the key)."""
    meta = {k: v for k, v in (meta_of(folder) | changes).items() if v is not None}
    (folder / "meta.json").write_text(json.dumps(meta))


def test_a_compaction_child_whose_messages_open_with_a_system_line_is_a_compaction_not_a_fork(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    copy_session(FIRST, store)
    child = copy_session(CHILD, store)
    write_lines(child / "messages.jsonl", [SYSTEM, *lines_of(CHILD / "messages.jsonl")])
    report, sessions = synced(store, tmp_path / "home")
    assert report.errors == []
    child_session = sessions[CHILD_ID]
    assert (child_session.relation, child_session.parent) == ("compaction", sessions[PARENT_ID].number)
    assert sessions[CHILD_ID].entries == expected_count(lines_of(CHILD / "messages.jsonl")) + 1


def test_a_child_synced_while_it_held_only_its_system_line_is_never_called_a_fork(tmp_path: Path) -> None:
    store = tmp_path / "store"
    copy_session(FIRST, store)
    child = copy_session(CHILD, store)
    messages = lines_of(CHILD / "messages.jsonl")
    write_lines(child / "messages.jsonl", [SYSTEM])
    _, sessions = synced(store, tmp_path / "home")
    assert sessions[CHILD_ID].relation is None  # not known yet: nothing past the system line
    for message in messages:
        append_line(child / "messages.jsonl", message)
    _, sessions = synced(store, tmp_path / "home")
    assert sessions[CHILD_ID].relation == "compaction"
    assert sessions[CHILD_ID].title == meta_of(FIRST)["title"]


def test_a_compaction_child_without_a_title_goes_by_its_parents_title_not_its_injected_context(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    parent = copy_session(FIRST, store)
    edit_meta(parent, title="Parser failures", title_source="manual")
    child = copy_session(CHILD, store)
    edit_meta(child, title=None)
    _, sessions = synced(store, tmp_path / "home")
    assert sessions[CHILD_ID].title == sessions[PARENT_ID].title == "Parser failures"


def test_a_chain_of_compactions_with_no_title_in_any_meta_goes_by_the_first_sessions_first_message(
    tmp_path: Path,
) -> None:
    # Vibe's own titles for the two children are their injected context cut at 50 characters.
    store = tmp_path / "store"
    edit_meta(copy_session(FIRST, store), title=None)
    copy_session(CHILD, store)
    second = store / "session_20260701_110000_9a8b7c6d"
    shutil.copytree(CHILD, second)
    edit_meta(second, session_id="9a8b7c6d-0000-4000-8000-8a7d2c4b6f10", parent_session_id=CHILD_ID)
    _, sessions = synced(store, tmp_path / "home")
    first_words = lines_of(FIRST / "messages.jsonl")[0]["content"]
    assert [s.title for s in sessions.values()] == [first_words] * 3
    assert sessions["9a8b7c6d-0000-4000-8000-8a7d2c4b6f10"].parent == sessions[CHILD_ID].number


def test_a_compaction_child_whose_parent_is_gone_is_titled_by_the_first_message_the_owner_typed_in_it(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    child = copy_session(CHILD, store)
    injected, *rest = lines_of(CHILD / "messages.jsonl")
    write_lines(child / "messages.jsonl", [injected])  # first synced before the owner said a word
    _, sessions = synced(store, tmp_path / "home")
    assert (sessions[CHILD_ID].relation, sessions[CHILD_ID].title) == ("compaction", None)
    for message in rest:
        append_line(child / "messages.jsonl", message)
    _, sessions = synced(store, tmp_path / "home")
    assert sessions[CHILD_ID].title == "Fix it."
    # a title given by hand is the owner's own, kept
    edit_meta(child, title="Parser fix, part two", title_source="manual")
    _, sessions = synced(store, tmp_path / "home")
    assert sessions[CHILD_ID].title == "Parser fix, part two"


def test_a_compaction_child_first_synced_after_its_parents_title_words_were_erased_is_not_titled_by_them(
    tmp_path: Path,
) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    copy_session(FIRST, store)
    synced(store, home)
    words = lines_of(FIRST / "messages.jsonl")[0]["content"]
    with Record(home / "record.sqlite3") as record:
        [parent] = record.sessions(["vibe"])
        [said] = [e for e in record.entries(Address(parent.number)) if e.text == words]
        erase(record, f"s{parent.number}#{said.seq}", "a test")
    # Compacted after the erase; its context quotes none of the erased words. Vibe's meta.json still titles
    # the parent by them.
    child = copy_session(CHILD, store)
    messages = lines_of(CHILD / "messages.jsonl")
    messages[0]["content"] = messages[0]["content"].replace(words, "(earlier request)")
    write_lines(child / "messages.jsonl", messages)
    _, sessions = synced(store, home)
    assert sessions[CHILD_ID].relation == "compaction"
    assert (sessions[PARENT_ID].title, sessions[CHILD_ID].title) == (None, None)


NEXT = {"role": "user", "content": "And the slow test?", "injected": False, "message_id": "5e6f7081-0000"}


def break_meta(folder: Path, how: str) -> str:
    """meta.json missing or cut in half (Vibe writes messages.jsonl first; a copy may be under way); returns
    its whole text."""
    good = (folder / "meta.json").read_text()
    if how == "missing":
        (folder / "meta.json").unlink()
    else:
        (folder / "meta.json").write_text(good[: len(good) // 2])
    return good


def waited(home: Path) -> None:
    """The record's Vibe cursors as they are once a held folder has waited its time."""
    db = sqlite3.connect(home / "record.sqlite3")
    with db:
        for key, state in db.execute("SELECT key, state FROM sources WHERE harness = 'vibe'").fetchall():
            db.execute("UPDATE sources SET state = ? WHERE key = ?",
                       (json.dumps(json.loads(state or "{}") | WAITED.state), key))
    db.close()


@pytest.mark.parametrize("first_sync", ["not JSON", "missing"])
def test_a_folder_first_synced_while_its_meta_json_is_unreadable_waits_for_it_and_takes_its_id(
    tmp_path: Path, first_sync: str
) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = copy_session(FIRST, store)
    good = break_meta(folder, first_sync)
    report, sessions = synced(store, home)
    assert sessions == {} and report.errors == []
    [said] = report.warnings
    assert said.path == str(folder / "meta.json") and "is read once it can be" in said.why
    (folder / "meta.json").write_text(good)
    append_line(folder / "messages.jsonl", NEXT)
    report, sessions = synced(store, home)
    assert (report.errors, report.warnings) == ([], [])
    [session] = sessions.values()  # meta.json's id, not the folder's name pinned for good
    assert (session.native_id, session.entries, session.cwd) == (PARENT_ID, 6, "/home/user/proj")


@pytest.mark.parametrize("first_sync", ["not JSON", "missing"])
def test_a_meta_json_unreadable_when_the_folder_is_first_synced_never_splits_it_into_two_sessions(
    tmp_path: Path, first_sync: str
) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = copy_session(FIRST, store)
    good = break_meta(folder, first_sync)
    synced(store, home)
    waited(home)  # meta.json never came: the folder is read under its name
    _, sessions = synced(store, home)
    assert list(sessions) == [folder.name]
    (folder / "meta.json").write_text(good)
    append_line(folder / "messages.jsonl", NEXT)
    report, sessions = synced(store, home)
    assert report.errors == []
    [session] = sessions.values()  # still the id the first read took, with every entry, and meta's fields
    assert (session.native_id, session.entries) == (folder.name, 6)
    assert (session.cwd, session.title) == ("/home/user/proj", meta_of(FIRST)["title"])


def test_a_meta_json_unreadable_at_a_later_sync_keeps_the_session_it_named(tmp_path: Path) -> None:
    store = tmp_path / "store"
    folder = copy_session(FIRST, store)
    synced(store, tmp_path / "home")
    (folder / "meta.json").write_text('{"session_id": "5c0e')
    append_line(folder / "messages.jsonl", NEXT)
    report, sessions = synced(store, tmp_path / "home")
    assert report.errors == []
    [warned] = report.warnings
    assert warned.why.startswith("meta.json is not JSON") and warned.why.endswith("kept from the first read")
    assert [(s.native_id, s.entries) for s in sessions.values()] == [(PARENT_ID, 6)]


def test_a_record_synced_before_the_session_id_was_kept_keeps_its_sessions(tmp_path: Path) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = copy_session(FIRST, store)
    good = (folder / "meta.json").read_text()
    synced(store, home)

    def cursor_from_before() -> None:  # what the reader wrote before it kept the id: `titled` alone
        db = sqlite3.connect(home / "record.sqlite3")
        with db:
            db.execute("UPDATE sources SET state = ? WHERE harness = 'vibe'", ('{"titled": true}',))
        db.close()

    cursor_from_before()
    append_line(folder / "messages.jsonl", NEXT)
    report, sessions = synced(store, home)
    assert report.errors == []
    assert [(s.native_id, s.entries) for s in sessions.values()] == [(PARENT_ID, 6)]
    # meta.json unreadable at the first sync after the upgrade: read again later, never a second session
    cursor_from_before()
    (folder / "meta.json").write_text(good[:40])
    append_line(folder / "messages.jsonl", NEXT | {"content": "Then the flaky one.", "message_id": "6f7-0"})
    report, sessions = synced(store, home)
    assert len(report.errors) == 1 and "meta.json is not JSON" in report.errors[0]
    assert [(s.native_id, s.entries) for s in sessions.values()] == [(PARENT_ID, 6)]
    (folder / "meta.json").write_text(good)
    report, sessions = synced(store, home)
    assert report.errors == []
    assert [(s.native_id, s.entries) for s in sessions.values()] == [(PARENT_ID, 7)]


def test_a_pre_2_0_compaction_file_is_titled_by_the_owners_first_message_not_its_injected_context(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    messages = [SYSTEM, *lines_of(CHILD / "messages.jsonl")]
    meta = {"session_id": CHILD_ID, "parent_session_id": PARENT_ID}
    (store / "session_20250601_090000_d41f03b7.json").write_text(json.dumps({"metadata": meta,
                                                                             "messages": messages}))
    _, sessions = synced(store, tmp_path / "home")
    assert (sessions[CHILD_ID].relation, sessions[CHILD_ID].title) == ("compaction", "Fix it.")


def test_a_sub_agents_prompt_is_the_agents_and_keeps_its_key(tmp_path: Path) -> None:
    # The Claude Code and Codex readers label the prompt a parent agent gives a sub-agent `agent`. The key is
    # the message id as before, so a record that holds it as the owner's keeps that entry and gains none.
    store = tmp_path / "store"
    sub = copy_session(FIRST, store) / "agents" / "explore_20260701_101600_9a8b7c6d"
    sub.mkdir(parents=True)
    (sub / "meta.json").write_text(json.dumps({"session_id": "9a8b7c6d-1", "parent_session_id": PARENT_ID}))
    write_lines(sub / "messages.jsonl", [
        {"role": "user", "content": "List the parser tests.", "injected": False, "message_id": "s1"},
        {"role": "assistant", "content": "tests/test_parser.py has 4.", "message_id": "s2"}])
    got = read_all(VibeReader(), source(sub))
    assert [(e.key, e.author) for e in got.entries] == [("s1", "agent"), ("s2", "agent")]
    report, _ = synced(store, tmp_path / "home")
    assert report.entries_added == 7


def test_a_session_folder_that_cannot_be_listed_is_an_error_naming_it_and_the_others_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    copy_session(FIRST, store)
    locked = copy_session(CHILD, store)
    unreadable(monkeypatch, locked)
    report, sessions = synced(store, tmp_path / "home")
    assert report.errors == [f"{store}: cannot list: folder {locked} is unreadable (Permission denied); the "
                             "sessions in it are not read"]
    assert list(sessions) == [PARENT_ID]


def test_a_utf8_bom_before_meta_json_or_a_pre_2_0_file_is_passed_over(
    tmp_path: Path, single_file: Path
) -> None:
    session = copy_session(FIRST, tmp_path / "store")
    (session / "meta.json").write_bytes(b"\xef\xbb\xbf" + (session / "meta.json").read_bytes())
    got = read_all(VibeReader(), source(session))
    assert got.warnings == []
    draft = got.sessions[PARENT_ID]
    assert (draft.cwd, draft.started) == ("/home/user/proj", meta_of(FIRST)["start_time"])
    single_file.write_bytes(b"\xef\xbb\xbf" + single_file.read_bytes())
    old = read_all(VibeReader(), Source("vibe", str(single_file), single_file, "tree"))
    assert list(old.sessions) == ["0ld5e551-0000-4000-8000-000000000001"]


def recorded(home: Path) -> list[tuple[str, str]]:
    """The key and text of every entry the record at `home` holds, in order."""
    db = sqlite3.connect(home / "record.sqlite3")
    rows = db.execute("SELECT key, text FROM entries ORDER BY session, seq").fetchall()
    db.close()
    return rows


def test_a_line_reusing_an_earlier_message_id_is_kept_whether_it_comes_in_the_same_sync_or_a_later_one(
    tmp_path: Path,
) -> None:
    said = {"role": "user", "content": "q", "injected": False, "message_id": "u1"}
    first = {"role": "assistant", "content": "first answer", "message_id": "X"}
    second = {"role": "assistant", "content": "second answer, same id", "message_id": "X"}
    at_once, bit_by_bit = tmp_path / "at_once", tmp_path / "bit_by_bit"
    write_lines(copy_session(FIRST, at_once) / "messages.jsonl", [said, first, second])
    folder = copy_session(FIRST, bit_by_bit)
    write_lines(folder / "messages.jsonl", [said, first])
    synced(bit_by_bit, tmp_path / "home2")
    append_line(folder / "messages.jsonl", second)
    report, _ = synced(bit_by_bit, tmp_path / "home2")
    assert report.entries_added == 1

    synced(at_once, tmp_path / "home1")
    assert recorded(tmp_path / "home2") == recorded(tmp_path / "home1")
    reused = f"X~{content_key(json.dumps(second))[:12]}"
    assert [k for k, _ in recorded(tmp_path / "home1")] == ["u1", "X", reused]


def test_a_record_synced_before_message_ids_were_kept_gains_no_entry_twice(tmp_path: Path) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = copy_session(FIRST, store)
    synced(store, home)
    db = sqlite3.connect(home / "record.sqlite3")
    with db:  # the cursor the reader wrote before: no `ids`
        db.execute("UPDATE sources SET state = ? WHERE harness = 'vibe'",
                   (json.dumps({"native": PARENT_ID, "titled": True}),))
    db.close()
    append_line(folder / "messages.jsonl", NEXT)
    report, sessions = synced(store, home)
    assert (report.entries_added, sessions[PARENT_ID].entries) == (1, 6)
    # read again whole (a new generation, say), every key is the one the record holds
    held = {key for key, _ in recorded(home)}
    assert {e.key for e in read_all(VibeReader(), source(folder)).entries} == held


def test_a_record_synced_before_the_reader_kept_message_ids_gains_only_the_new_line(tmp_path: Path) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = copy_session(FIRST, store)
    path = folder / "messages.jsonl"
    write_lines(path, [{"role": "user", "content": "ask", "message_id": "m1"},
                       {"role": "assistant", "content": "first reply", "message_id": "m2"}])
    assert synced(store, home)[0].entries_added == 2
    db = sqlite3.connect(home / "record.sqlite3")
    with db:  # the cursor an earlier version saved: no message ids in it
        db.execute("UPDATE sources SET state = json_remove(state, '$.ids') WHERE harness = 'vibe'")
    db.close()
    append_line(path, {"role": "user", "content": "again", "message_id": "m3"})
    assert synced(store, home)[0].entries_added == 1  # the lines already recorded keep their keys
    append_line(path, {"role": "assistant", "content": "retry reply reusing id m2", "message_id": "m2"})
    assert synced(store, home)[0].entries_added == 1
    assert synced(store, home)[0].entries_added == 0
    assert {e.key for e in read_all(VibeReader(), source(folder)).entries} == {k for k, _ in recorded(home)}


def test_an_image_in_list_content_leaves_a_marker(tmp_path: Path) -> None:
    folder = copy_session(FIRST, tmp_path)
    write_lines(folder / "messages.jsonl", [{"role": "user", "message_id": "m1", "content": [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJDREVGR0g="}},
        {"type": "image_url", "image_url": "https://example.com/cat.png"},
        {"type": "image_url"}]}])
    [entry] = read_all(VibeReader(), source(folder)).entries
    assert entry.text == ("What is in this picture?\n[image: image/png, 8 bytes]\n"
                          "[image: https://example.com/cat.png]\n[image]")
