"""Mistral Vibe reader: session folders, compaction children, subagents and the pre-2.0 single file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROMPT_CULT, SESSIONS
from tests.readers.helpers import read_all
from total_recall.readers import Cursor, Source
from total_recall.readers.base import read_check
from total_recall.readers.vibe import VibeReader

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
    # Vibe's own fallback title, kept as written in meta.json
    assert draft.title == "You are continuing a trajectory after a context co…" == meta["title"]
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


def test_a_broken_or_missing_meta_json_is_a_warning_and_the_folder_name_becomes_the_session_id(
    tmp_path: Path,
) -> None:
    session = copy_session(FIRST, tmp_path)
    (session / "meta.json").write_text('{"session_id": "5c0e7a91-')
    got = read_all(VibeReader(), source(session))
    assert len(got.warnings) == 1 and "meta.json is not JSON" in got.warnings[0].why
    assert got.warnings[0].path == str(session / "meta.json")
    assert list(got.sessions) == [session.name]
    assert len(got.entries) == 5 and {e.session for e in got.entries} == {session.name}
    # with no title in meta, the first user line gives Vibe's fallback title
    assert got.sessions[session.name].title == "Run the unit tests and tell me what fails."
    (session / "meta.json").unlink()
    got = read_all(VibeReader(), source(session))
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
        assert resumed.cursor == full.cursor


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
    assert [(e.author, e.text) for e in got.entries] == [("owner", "Find the parser.")]


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
