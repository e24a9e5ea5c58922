"""Codex reader: envelope and legacy rollouts, event copies, compaction, subagents, zstd and resuming."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.conftest import PROMPT_CULT, SESSIONS
from tests.readers.helpers import Read, read_all
from total_recall.errors import SourceError
from total_recall.model import Address, EntryDraft, SessionDraft
from total_recall.readers import Checkpoint, Cursor, Source, base
from total_recall.readers.base import read_check
from total_recall.readers.codex import CodexReader

CODEX = SESSIONS / "codex"
RECORDED = next((CODEX / "recorded_0.158.0").rglob("*.jsonl"))
DAY = CODEX / "sessions" / "2026" / "02" / "23"
REAL = DAY / "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
TRUNCATED = DAY / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
SINK = CODEX / "synthetic_kitchen_sink_v0.146_all_record_types.jsonl"
MALFORMED = CODEX / "synthetic_malformed_rollout-66666666-6666-4666-8666-666666666666.jsonl"
UNKNOWN = CODEX / (
    "synthetic_tool_variety_unknown_type_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
)
FLAT = PROMPT_CULT / "rollouts" / "codex_small.jsonl"
FIXTURES = [RECORDED, REAL, TRUNCATED, SINK, MALFORMED, UNKNOWN, FLAT]
CONTEXT_STARTS = ("<environment_context>", "# AGENTS.md instructions", "<subagent_notification>")
CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call",
              "image_generation_call"}
OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output", "tool_search_output"}


def lines_of(path: Path) -> list[dict[str, Any] | None]:
    """Every line of a fixture, parsed independently (None where it is not JSON)."""
    out: list[dict[str, Any] | None] = []
    for text in path.read_text().splitlines():
        try:
            out.append(json.loads(text))
        except json.JSONDecodeError:
            out.append(None)
    return out


def items_of(obj: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """(kind, body) of a line: response items whether enveloped, bare or flattened; events as event:<type>."""
    if obj is None:
        return "", {}
    if obj.get("type") == "response_item":
        return "response", obj["payload"]
    if obj.get("type") == "event_msg":
        return "event:" + obj["payload"].get("type", ""), obj["payload"]
    if "payload" not in obj and ("role" in obj or obj.get("type") in CALL_TYPES | OUTPUT_TYPES | {"message"}):
        return "response", {"type": "message", **obj} if "type" not in obj else obj
    return str(obj.get("type")), obj.get("payload") or {}


def user_text(body: dict[str, Any]) -> str:
    content = body.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content or [] if p.get("type") == "input_text")


def expected_owner_texts(path: Path) -> list[str]:
    """Typed user messages: response-item user messages that are not context (in a rollout that logs the
    owner's messages as user_message events, not those before a message such an event copies that no event
    copies: the context Codex injects ahead of a turn's message), plus user_message events
    that have no response-item twin (same text anywhere in the file, or written on the line next to it)."""
    rows = [items_of(o) for o in lines_of(path)]
    user_lines = {i: user_text(b) for i, (k, b) in enumerate(rows)
                  if k == "response" and b.get("type") == "message" and b.get("role") == "user"}
    events = {i: b["message"] for i, (k, b) in enumerate(rows) if k == "event:user_message"}
    copied: set[int] = set()  # each event copies one message: the same text, else the one next to it
    for at, said in events.items():
        free = [i for i in user_lines if i not in copied]
        copies = [i for i in free if user_lines[i] == said] or [i for i in (at - 1, at + 1) if i in free]
        copied.update(copies[:1])
    owner = {i: t for i, t in user_lines.items()
             if not t.strip().startswith(CONTEXT_STARTS) and (i in copied or not any(c > i for c in copied))}
    for i, (kind, body) in enumerate(rows):
        if kind == "event:user_message":
            twin = body["message"] in user_lines.values() or {i - 1, i + 1} & set(user_lines)
            if not twin:
                owner[i] = body["message"]
    return [owner[i] for i in sorted(owner)]


def src(path: Path) -> Source:
    return Source("codex", str(path), path)


def read(path: Path, cursor: Cursor | None = None) -> Read:
    return read_all(CodexReader(), src(path), cursor)


def kinds(r: Read, author: str, kind: str) -> list[EntryDraft]:
    return [e for e in r.entries if e.author == author and e.kind == kind]


def shape(r: Read) -> list[tuple[Any, ...]]:
    return [(e.session, e.author, e.kind, e.text, e.key, e.line, e.group, e.tool, e.timestamp, e.raw)
            for e in r.entries]


def cursor_after(path: Path, lines: int) -> Cursor:
    """A cursor after the first `lines` lines, as a sync without saved reader state would hold it."""
    offset = sum(len(line) for line in path.read_bytes().splitlines(keepends=True)[:lines])
    return Cursor(offset, lines, read_check(path, offset))


def write_lines(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name[:40])
def test_owner_messages_are_the_typed_user_messages_of_each_fixture(path: Path) -> None:
    r = read(path)
    assert [e.text.split("\n[image")[0] for e in kinds(r, "owner", "message")] == expected_owner_texts(path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name[:40])
def test_every_tool_call_and_output_is_one_entry_and_results_share_their_call_group(path: Path) -> None:
    rows = [items_of(o) for o in lines_of(path)]
    calls = sum(1 for k, b in rows if k == "response" and b.get("type") in CALL_TYPES)
    outputs = sum(1 for k, b in rows if k == "response" and b.get("type") in OUTPUT_TYPES)
    r = read(path)
    assert len(kinds(r, "agent", "tool_call")) == calls
    tool_results = [e for e in r.entries if e.kind == "tool_result"]
    assert sum(1 for e in tool_results if e.group) == outputs
    call_groups = {e.group for e in kinds(r, "agent", "tool_call")}
    assert all(e.group in call_groups for e in tool_results if e.group)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name[:40])
def test_every_json_line_gives_at_least_one_entry_and_keys_are_unique(path: Path) -> None:
    r = read(path)
    parsed = {i + 1 for i, o in enumerate(lines_of(path)) if o is not None}
    assert {e.line for e in r.entries} == parsed
    assert len({e.key for e in r.entries}) == len(r.entries)
    assert all(e.key == f"L{e.line}" or e.key.startswith(f"L{e.line}:") for e in r.entries)
    assert len(r.sessions) == 1


def test_recorded_0_158_reads_the_ordinal_envelope_with_developer_context_as_harness() -> None:
    r = read(RECORDED)
    rows = lines_of(RECORDED)
    assert all("ordinal" in o for o in rows if o)  # the newest envelope
    (session,) = r.sessions.values()
    assert session.native_id == "01a0f21c-5c40-7f72-9aa9-ef0b43570680"
    assert session.cwd == "/work/proj"
    assert session.started == "2026-09-30T11:39:00.033Z"
    assert session.title == "run echo fixture please"
    assert session.meta is not None and session.meta["cli_version"] == "0.158.0"
    assert session.meta["originator"] == "codex_exec"
    assert len(r.entries) == len(rows) == 18
    by_line = {e.line: e for e in r.entries}
    assert (by_line[3].author, by_line[3].kind) == ("harness", "message")  # developer role
    assert by_line[3].text.startswith("<skills_instructions>")
    assert (by_line[4].author, by_line[4].kind) == ("harness", "message")  # environment context
    assert (by_line[7].author, by_line[7].text) == ("owner", "run echo fixture please")
    assert (by_line[9].kind, by_line[9].tool, by_line[9].text, by_line[9].group) == (
        "tool_call", "exec_command", '{"cmd":"echo fixture"}', "call_1")
    assert by_line[12].text == rows[11]["payload"]["output"] and by_line[12].group == "call_1"  # type: ignore[index]
    assert (by_line[15].author, by_line[15].text) == ("agent", "The command printed fixture.")
    assert {by_line[n].kind for n in (5, 6, 8, 10, 11, 13, 14, 16, 17, 18)} == {"meta"}
    assert by_line[10].text == "token_usage_record" and by_line[5].text.startswith("world_state")
    assert by_line[1].timestamp == rows[0]["timestamp"]  # type: ignore[index]


def test_event_copies_of_messages_and_reasoning_become_meta_beside_their_response_items() -> None:
    rows = [items_of(o) for o in lines_of(REAL)]
    r = read(REAL)
    assistant = sum(1 for k, b in rows if k == "response" and b.get("role") == "assistant")
    reasoning = sum(1 for k, b in rows if k == "response" and b.get("type") == "reasoning")
    copy_kinds = ("event:agent_message", "event:agent_reasoning", "event:user_message")
    events = sum(1 for k, _ in rows if k in copy_kinds)
    assert len(kinds(r, "agent", "message")) == assistant == 6
    assert len(kinds(r, "agent", "thinking")) == reasoning == 6
    copies = [e for e in r.entries if e.kind == "meta" and rows[e.line - 1][0] in copy_kinds]  # type: ignore[operator]
    assert len(copies) == events == 13
    assert all(e.text == rows[e.line - 1][1].get("message", rows[e.line - 1][1].get("text")) for e in copies)  # type: ignore[operator]
    # The developer-role messages, and the two user-role ones no user_message event copies (injected).
    developer = sum(1 for k, b in rows if k == "response" and b.get("role") == "developer")
    assert len(kinds(r, "harness", "message")) == developer + 2 == 6


def test_the_interrupted_session_ends_with_a_tool_call_that_has_no_result() -> None:
    r = read(TRUNCATED)
    last = r.entries[-1] if r.entries[-1].kind != "meta" else [e for e in r.entries if e.kind != "meta"][-1]
    assert last.kind == "tool_call" and last.tool == "exec_command"
    assert not [e for e in r.entries if e.kind == "tool_result"]
    assert last.group == lines_of(TRUNCATED)[17]["payload"]["call_id"]  # type: ignore[index]


def test_kitchen_sink_compacted_gives_a_compaction_and_a_verbatim_summary_without_replaying_history() -> None:
    rows = lines_of(SINK)
    compacted = [(i + 1, o["payload"]) for i, o in enumerate(rows) if o and o["type"] == "compacted"]
    r = read(SINK)
    by_key = {e.key: e for e in r.entries}
    for line, payload in compacted:
        assert by_key[f"L{line}"].kind == "compaction" and by_key[f"L{line}"].author == "harness"
        if payload["message"]:
            assert by_key[f"L{line}:1"].kind == "summary" and by_key[f"L{line}:1"].text == payload["message"]
        else:
            assert f"L{line}:1" not in by_key
    assert "w-2" in by_key["L26"].text and "previous w-1" in by_key["L26"].text
    context_compacted = sum(1 for o in rows if o and items_of(o)[0] == "event:context_compacted")
    assert len([e for e in r.entries if e.kind == "compaction"]) == len(compacted) + context_compacted == 7
    assert len([e for e in r.entries if e.kind == "summary"]) == 5
    # replacement_history items stay inside their line's raw record only
    assert all(e.line in {n for n, _ in compacted} for e in r.entries if b"replacement_history" in e.raw)
    assert {e.line for e in r.entries if e.line in {n for n, _ in compacted}} == {n for n, _ in compacted}


def test_kitchen_sink_identity_is_the_first_session_meta_and_later_ones_are_meta_entries() -> None:
    rows = lines_of(SINK)
    metas = [i + 1 for i, o in enumerate(rows) if o and o["type"] == "session_meta"]
    r = read(SINK)
    (session,) = r.sessions.values()
    first = rows[0]["payload"]  # type: ignore[index]
    assert session.native_id == first["id"] and session.cwd == first["cwd"]
    assert session.parent_native is None and session.relation is None  # the first header is a cli session
    assert session.meta is not None and session.meta["git"] == first["git"]
    later = [e for e in r.entries if e.line in metas[1:]]
    assert len(later) == len(metas) - 1 == 6
    assert all(e.kind == "meta" and e.text.startswith("session_meta (inherited)") for e in later)


def test_kitchen_sink_unknown_event_types_become_labelled_meta_and_the_thread_name_is_the_title() -> None:
    rows = lines_of(SINK)
    r = read(SINK)
    assert not r.warnings
    by_line = {e.line: e for e in r.entries if e.key == f"L{e.line}"}
    for n in (30, 59, 62, 66, 104):
        assert by_line[n].kind == "meta" and by_line[n].text.startswith(rows[n - 1]["payload"]["type"])  # type: ignore[index]
    assert by_line[32].text == "inter_agent_communication_metadata"
    assert by_line[80].text.startswith("ghost_snapshot")
    assert (by_line[39].kind, by_line[39].text) == ("thinking", "[encrypted reasoning]")
    assert (by_line[49].kind, by_line[49].tool) == ("tool_call", "image_generation")
    assert (by_line[14].tool, by_line[14].text) == ("web_search", "example")
    assert by_line[11].text == "a.txt\n"  # a single content item as output
    assert (by_line[33].author, by_line[33].kind) == ("agent", "message")
    assert r.sessions[rows[0]["payload"]["id"]].title == rows[54]["payload"]["thread_name"]  # type: ignore[index]


def test_a_first_session_meta_from_a_spawned_agent_sets_the_parent_and_copies_do_not(tmp_path: Path) -> None:
    child, parent, other = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "c"
    path = write_lines(tmp_path / f"rollout-2026-01-01T00-00-00-{child}.jsonl", [
        {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {
            "id": child, "cwd": "/w",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent}}}}},
        {"timestamp": "2026-01-01T00:00:01.000Z", "type": "session_meta", "payload": {
            "id": parent, "cwd": "/elsewhere", "forked_from_id": other}},
    ])
    r = read(path)
    s = r.sessions[child]
    assert (s.parent_native, s.relation, s.cwd) == (parent, "subagent", "/w")
    assert r.entries[1].text == f"session_meta (inherited): {parent}"
    fork = write_lines(tmp_path / "f.jsonl", [
        {"type": "session_meta", "payload": {"id": "f", "forked_from_id": "p"}}])
    assert (read(fork).sessions["f"].parent_native, read(fork).sessions["f"].relation) == ("p", "fork")
    top = write_lines(tmp_path / "t.jsonl", [{"type": "session_meta", "payload": {
        "id": "t", "parent_thread_id": "q", "source": {"subagent": "review"}}}])
    assert read(top).sessions["t"].relation == "subagent" and read(top).sessions["t"].parent_native == "q"


def test_the_unknown_top_level_type_is_a_meta_entry_and_custom_tool_list_output_is_joined() -> None:
    r = read(UNKNOWN)
    assert not r.warnings
    last = r.entries[-1]
    assert (last.kind, last.text, last.line) == ("meta", "future_synthetic_record", 14)
    by_line = {e.line: e for e in r.entries}
    assert (by_line[8].tool, by_line[8].group) == ("apply_patch", "call-custom-001")
    assert (by_line[9].text, by_line[9].group) == ("Done!", "call-custom-001")
    assert by_line[10].tool == "mcp__synthetic__lookup"
    assert by_line[5].text == "I will inspect the synthetic directory."  # summary, never the encrypted blob
    assert (by_line[3].kind, by_line[4].author) == ("meta", "owner")  # the event copy came first
    assert (by_line[12].kind, by_line[13].kind) == ("meta", "message")


def test_the_malformed_line_is_one_warning_and_an_event_only_message_is_the_owners() -> None:
    r = read(MALFORMED)
    assert len(r.warnings) == 1
    assert r.warnings[0].line == 3 and r.warnings[0].path == str(MALFORMED)
    (owner,) = kinds(r, "owner", "message")
    assert owner.text == "Safe line before malformed input." and owner.line == 2
    assert r.sessions["66666666-6666-4666-8666-666666666666"].title == owner.text


def test_a_zst_copy_reads_the_same_entries_as_the_plain_file(tmp_path: Path) -> None:
    for path in (SINK, REAL):
        packed = tmp_path / (path.name + ".zst")
        packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
        (source,) = CodexReader().sources(packed)
        assert source.key == str(tmp_path / path.name)
        plain, zst = read(path), read_all(CodexReader(), source)
        assert [s[:-1] for s in shape(zst)] == [s[:-1] for s in shape(plain)]
        assert [e.raw for e in zst.entries] == [e.raw for e in plain.entries]
        assert zst.sessions == plain.sessions and zst.cursor is not None and plain.cursor is not None
        assert zst.cursor.offset == plain.cursor.offset


def test_a_zst_payload_appended_to_as_several_frames_reads_whole(tmp_path: Path) -> None:
    data = REAL.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    packed = tmp_path / (REAL.name + ".zst")
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    packed.write_bytes(zstandard.ZstdCompressor().compress(data[:cut]) + skippable
                       + zstandard.ZstdCompressor(write_checksum=True).compress(data[cut:]))
    assert [s[:-1] for s in shape(read(packed))] == [s[:-1] for s in shape(read(REAL))]


def test_a_truncated_zst_raises_naming_the_path_after_the_lines_it_could_decode(tmp_path: Path) -> None:
    data = SINK.read_bytes()
    packed = zstandard.ZstdCompressor(write_checksum=True).compress(data)
    cut = tmp_path / "rollout-cut.jsonl.zst"
    cut.write_bytes(packed[:-3])
    got: list[EntryDraft] = []
    with pytest.raises(SourceError, match=str(cut)):
        for item in CodexReader().read(src(cut), Cursor()):
            assert not isinstance(item, Checkpoint) or item.cursor.offset < len(data)
            if isinstance(item, EntryDraft):
                got.append(item)
    assert got and got[0].line == 1
    assert [e.text for e in got] == [e.text for e in read(SINK).entries][: len(got)]


def test_plain_beside_zst_is_one_source_and_index_and_history_files_are_not_sources(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    shutil.copy(REAL, day / REAL.name)
    (day / (REAL.name + ".zst")).write_bytes(zstandard.ZstdCompressor().compress(REAL.read_bytes()))
    shutil.copy(MALFORMED, day / MALFORMED.name)
    (day / (MALFORMED.name + ".zst")).write_bytes(b"")
    only = day / (TRUNCATED.name + ".zst")
    only.write_bytes(zstandard.ZstdCompressor().compress(TRUNCATED.read_bytes()))
    (tmp_path / "session_index.jsonl").write_text('{"id":"x","thread_name":"n","updated_at":"t"}\n')
    (tmp_path / "history.jsonl").write_text('{"session_id":"x","ts":1,"text":"hi"}\n')
    sources = list(CodexReader().sources(tmp_path))
    assert [(s.key, s.path) for s in sources] == [
        (str(day / TRUNCATED.name), only),
        (str(day / REAL.name), day / REAL.name),
        (str(day / MALFORMED.name), day / MALFORMED.name),
    ]
    assert [s.path for s in CodexReader().sources(day / REAL.name)] == [day / REAL.name]


def test_the_legacy_pre_envelope_format_reads_header_items_and_skips_state_markers(tmp_path: Path) -> None:
    sid = "0197a000-0000-7000-8000-00000000abcd"
    png = "data:image/png;base64,iVBORw0KGgo="
    path = write_lines(tmp_path / f"rollout-2025-06-01T10-00-00-{sid}.jsonl", [
        {"id": sid, "timestamp": "2025-06-01T10:00:00.000Z", "instructions": "Be terse.",
         "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>\nBe terse.\n</user_instructions>"}]},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "fix the bug\nin a.py"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
        {"type": "local_shell_call", "call_id": "c1", "status": "completed",
         "action": {"type": "exec", "command": ["bash", "-lc", "ls"]}},
        {"type": "function_call_output", "call_id": "c1",
         "output": [{"type": "input_text", "text": "a.py"}, {"type": "input_image", "image_url": png}]},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]},
    ])
    r = read(path)
    s = r.sessions[sid]
    assert (s.started, s.title) == ("2025-06-01T10:00:00.000Z", "fix the bug")
    assert s.meta == {"git": {"branch": "main"}}
    got = [(e.line, e.author, e.kind, e.text, e.group) for e in r.entries]
    assert got == [
        (1, "harness", "meta", f"session_meta: {sid}", None),
        (1, "harness", "message", "Be terse.", None),
        (3, "harness", "message", "<user_instructions>\nBe terse.\n</user_instructions>", None),
        (4, "owner", "message", "fix the bug\nin a.py", None),
        (5, "agent", "thinking", "[encrypted reasoning]", None),
        (6, "agent", "tool_call", "bash -lc ls", "c1"),
        (7, "tool", "tool_result", "a.py\n[image: image/png, 8 bytes]", "c1"),
        (9, "agent", "message", "Fixed.", None),
        (10, "owner", "message", "thanks", None),
    ]
    assert [e.key for e in r.entries][:2] == ["L1", "L1:1"] and not r.warnings
    titles = [d for d in CodexReader().read(src(path), Cursor()) if isinstance(d, SessionDraft) and d.title]
    assert len(titles) == 1


def assert_every_checkpoint_resumes_to_the_tail(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With tiny chunks there is a checkpoint every few lines; each must resume to the rest of a full read."""
    monkeypatch.setattr(base, "READ_CHUNK", max(53, path.stat().st_size // 60))
    monkeypatch.setattr(base, "CHECKPOINT_BYTES", 1)
    items = list(CodexReader().read(src(path), Cursor()))
    checkpoints = [i for i, item in enumerate(items) if isinstance(item, Checkpoint)]
    assert len(checkpoints) > 2
    full = [item for item in items if isinstance(item, EntryDraft)]
    assert shape(Read(entries=full)) == shape(read(path))
    for i in checkpoints[:-1]:
        cursor = items[i].cursor  # type: ignore[union-attr]
        done = sum(1 for item in items[:i] if isinstance(item, EntryDraft))
        resumed = read(path, cursor)
        assert shape(resumed) == shape(Read(entries=full[done:])), f"after line {cursor.line}"


@pytest.mark.parametrize("path", [SINK, REAL, UNKNOWN, MALFORMED], ids=lambda p: p.name[:40])
def test_resuming_from_any_checkpoint_gives_the_tail_of_a_full_read(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_every_checkpoint_resumes_to_the_tail(path, monkeypatch)


def test_resuming_from_a_stateless_mid_file_cursor_gives_the_tail_of_a_full_read() -> None:
    full = read(RECORDED)
    resumed = read(RECORDED, cursor_after(RECORDED, 8))
    tail = [e for e in full.entries if e.line is not None and e.line > 8]
    assert shape(resumed) == shape(Read(entries=tail))
    assert resumed.sessions[full.entries[0].session].title is None  # the title was given before line 8
    assert list(resumed.sessions) == list(full.sessions)


def test_a_resumed_read_of_a_file_without_uuid_name_finds_its_id_in_the_first_line() -> None:
    full = read(SINK)
    resumed = read(SINK, cursor_after(SINK, 50))
    assert list(resumed.sessions) == list(full.sessions) == ["019fc8be-3658-7ca3-9e29-000000000000"]
    assert not [e for e in resumed.entries if e.text.startswith("session_meta:")]


def event(kind: str, text: str, ts: str = "2026-03-01T00:00:00.000Z") -> dict[str, Any]:
    key = "text" if kind == "agent_reasoning" else "message"
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": kind, key: text}}


def response(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"timestamp": "2026-03-01T00:00:01.000Z", "type": "response_item",
            "payload": {"type": "message", "role": role, "content": [{"type": part, "text": text}]}}


def test_a_live_file_read_between_an_event_copy_and_its_twin_does_not_duplicate_the_message(
    tmp_path: Path,
) -> None:
    path = write_lines(tmp_path / "rollout-2026-03-01T00-00-00-dddddddd-0000-4000-8000-000000000004.jsonl", [
        {"type": "session_meta", "payload": {"id": "dddddddd-0000-4000-8000-000000000004"}},
        response("user", "hello"),
        event("agent_message", "Hi there."),
    ])
    first = read(path)
    assert [(e.author, e.kind, e.text) for e in first.entries[1:]] == [
        ("owner", "message", "hello"), ("agent", "message", "Hi there.")]
    assert first.cursor is not None
    with path.open("a") as fh:
        fh.write(json.dumps(response("assistant", "Hi there.")) + "\n")
    second = read(path, first.cursor)
    got = [(e.line, e.author, e.kind, e.text) for e in second.entries]
    assert got == [(4, "harness", "meta", "Hi there.")]


def test_an_events_only_rollout_makes_each_event_the_conversation_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [{"type": "session_meta", "payload": {"id": "e"}}]
    for n in range(12):
        lines += [event("user_message", f"question {n}"), event("agent_reasoning", f"thought {n}"),
                  event("agent_message", f"answer {n}")]
    r = read(write_lines(tmp_path / "e.jsonl", lines))
    assert [(e.author, e.kind) for e in r.entries[1:4]] == [
        ("owner", "message"), ("agent", "thinking"), ("agent", "message")]
    assert [e.text for e in kinds(r, "owner", "message")] == [f"question {n}" for n in range(12)]
    assert [e.line for e in r.entries] == list(range(1, 38))
    assert r.sessions["e"].title == "question 0"
    assert_every_checkpoint_resumes_to_the_tail(tmp_path / "e.jsonl", monkeypatch)


def test_a_spawned_or_review_agent_s_user_turns_are_its_parent_agent_s_words(tmp_path: Path) -> None:
    # A sub-agent's "user" turn is what the parent agent asked of it (a spawn prompt, a generated review),
    # never the owner typing; the owner's turns stay the owner's in the parent's own rollout.
    child, parent = "aaaaaaaa-0000-4000-8000-000000000011", "bbbbbbbb-0000-4000-8000-000000000012"
    for source in ({"subagent": {"thread_spawn": {"parent_thread_id": parent}}}, {"subagent": "review"}):
        meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {
            "id": child, "cwd": "/w", "parent_thread_id": parent, "source": source}}
        for asked in (response("user", "Advise the next milestone"),  # as a response item
                      event("user_message", "Advise the next milestone")):  # in a rollout of events only
            path = write_lines(tmp_path / f"rollout-2026-01-01T00-00-00-{child}.jsonl", [meta, asked])
            said = [(e.author, e.text) for e in read(path).entries if e.kind == "message"]
            assert said == [("agent", "Advise the next milestone")]
    # A read resumed from a cursor saved before the reader kept that (no state) still knows it.
    meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {
        "id": child, "cwd": "/w", "parent_thread_id": parent, "source": {"subagent": "review"}}}
    path = write_lines(tmp_path / f"rollout-2026-01-01T00-00-00-{child}.jsonl", [
        meta, response("user", "Advise the next milestone"), response("user", "And the one after")])
    resumed = read(path, cursor_after(path, 2))
    assert [(e.author, e.text) for e in resumed.entries] == [("agent", "And the one after")]
    top = write_lines(tmp_path / f"rollout-2026-01-01T00-00-00-{parent}.jsonl", [
        {"type": "session_meta", "payload": {"id": parent, "cwd": "/w"}},
        response("user", "Plan the release")])
    assert [e.author for e in read(top).entries if e.kind == "message"] == ["owner"]


def test_a_second_rollout_file_of_the_same_thread_keeps_every_line_in_the_record(tmp_path: Path) -> None:
    # A thread's history continued in `…-<thread>_<rollout id>.jsonl` numbers its lines from 1 again.
    from total_recall.record.database import Record
    from total_recall.record.sync import sync

    thread = "dddddddd-0000-4000-8000-000000000021"
    day = tmp_path / "sessions" / "2026" / "01" / "01"
    meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta",
            "payload": {"id": thread, "cwd": "/w"}}
    day.mkdir(parents=True)
    write_lines(day / f"rollout-2026-01-01T00-00-00-{thread}.jsonl", [meta, response("user", "First try")])
    write_lines(day / f"rollout-2026-01-01T00-10-00-{thread}_rollout-b.jsonl",
                [meta, response("user", "Second try")])
    with Record(tmp_path / "rec" / "record.sqlite3") as record:
        assert sync(record, ["codex"], roots={"codex": tmp_path / "sessions"}).errors == []
        said = [e.text for s in record.sessions() for e in record.entries(Address(s.number))
                if e.author == "owner"]
    assert sorted(said) == ["First try", "Second try"]


def test_an_ide_or_desktop_prompt_titles_the_session_by_the_request_after_the_context_it_carries(
    tmp_path: Path,
) -> None:
    # The IDE extension's and the Desktop app's prompts, in the shapes public transcripts show.
    ide = ("# Context from my IDE setup:\n\n## Active file: src/app.py\n\n## Open tabs:\n- app.py: "
           "src/app.py\n\n## My request for Codex:\nfix the failing login test\n")
    desktop = ("# Files mentioned by the user:\n\n## shot.png: /tmp/shot.png\n\n## My request for Codex:\n\n"
               "why is the banner still shown?\n")
    pasted = ('# Files mentioned by the user:\n\n## a.png: /tmp/a.png\n\n## My request for Codex:\n\n'
              '<image name=[Image #1] path="/tmp/a.png">\n</image>\n')
    for n, (prompts, title) in enumerate([([ide], "fix the failing login test"),
                                          ([desktop], "why is the banner still shown?"),
                                          ([pasted, "look at the second tab"], "look at the second tab")]):
        native = f"dddddddd-0000-4000-8000-00000000003{n}"
        path = write_lines(tmp_path / f"rollout-2026-01-01T00-00-00-{native}.jsonl", [
            {"type": "session_meta", "payload": {"id": native, "cwd": "/w"}},
            *[item for asked in prompts for item in (response("user", asked), event("user_message", asked))]])
        got = read(path)
        assert got.sessions[native].title == title
        assert [e.text for e in got.entries if e.author == "owner"] == prompts  # the words kept whole


def test_a_session_ends_at_the_time_of_its_last_line_and_a_later_read_moves_the_end(tmp_path: Path) -> None:
    full = read(REAL)
    stamps = [o["timestamp"] for o in lines_of(REAL) if o and o.get("timestamp")]
    [session] = full.sessions.values()
    assert session.ended == stamps[-1]
    path = write_lines(tmp_path / "rollout-2026-03-01T00-00-00-dddddddd-0000-4000-8000-000000000041.jsonl", [
        {"type": "session_meta", "payload": {"id": "dddddddd-0000-4000-8000-000000000041"}},
        event("user_message", "hello", "2026-03-01T00:00:00.000Z")])
    first = read(path)
    assert first.sessions["dddddddd-0000-4000-8000-000000000041"].ended == "2026-03-01T00:00:00.000Z"
    with path.open("a") as fh:
        fh.write(json.dumps(event("agent_message", "hi", "2026-03-01T00:05:00.000Z")) + "\n")
    later = read(path, first.cursor)
    assert later.sessions["dddddddd-0000-4000-8000-000000000041"].ended == "2026-03-01T00:05:00.000Z"


def test_lines_appended_after_a_last_line_that_had_no_newline_keep_the_numbers_a_fresh_read_gives(
    tmp_path: Path,
) -> None:
    lines = [json.dumps(o) for o in lines_of(REAL)]
    assert len(lines) > 12
    path = tmp_path / REAL.name
    for nl in ("\n", "\r\n"):
        # A sync takes the whole last line though its newline is not written yet; the newline and the next
        # lines come before the next sync.
        path.write_text(nl.join(lines[:11]))
        first = read(path)
        assert first.cursor is not None and first.cursor.line == 11
        path.write_text(nl.join(lines) + nl)
        later = read(path, first.cursor)
        fresh = read(path)
        seen = [(e.key, e.line) for e in first.entries + later.entries]
        assert seen == [(e.key, e.line) for e in fresh.entries]
        assert later.cursor == fresh.cursor


@pytest.mark.parametrize(("path", "injected", "after"), [(TRUNCATED, [4, 5], [11]), (REAL, [4, 5], [])],
                         ids=["13-19-38", "20-34-25"])
def test_a_user_message_no_user_message_event_copies_is_context_the_harness_injected(
        path: Path, injected: list[int], after: list[int]) -> None:
    """Redaction leaves no words to know injected context by; these rollouts log what the owner typed as
    `user_message` events (line 10, copying line 9), so the user-role items before his with no event are
    not his. One after it, still waiting for its event when the read ends, stays his: a wrong call would
    take the owner's words, so only an event for a later message (or 64 lines) decides against him."""
    rows = [items_of(o) for o in lines_of(path)]
    users = [n for n, (k, b) in enumerate(rows, 1) if k == "response" and b.get("role") == "user"]
    assert [n for n, (k, _) in enumerate(rows, 1) if k == "event:user_message"] == [10]
    assert users == sorted([*injected, *after, 9])
    r = read(path)
    by_line = {e.line: e for e in r.entries}
    assert [(n, by_line[n].author, by_line[n].kind) for n in users] == [
        (n, "harness" if n in injected else "owner", "message") for n in users]
    assert r.sessions[by_line[9].session].title == user_text(rows[8][1])


def _turn(text: str, between: int = 0) -> list[dict[str, Any]]:
    """A turn of a rollout that logs the owner's messages as events: his message, `between` lines, its
    event copy."""
    at = "2026-01-01T00:00:00.000Z"
    said = {"timestamp": at, "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}
    tick = {"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": None}}
    filler = [tick] * between
    event = {"timestamp": at, "type": "event_msg", "payload": {"type": "user_message", "message": text}}
    return [said, *filler, event]


def test_an_owner_message_whose_event_comes_late_or_after_the_read_stays_his(tmp_path: Path) -> None:
    meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta",
            "payload": {"id": "11111111-2222-4333-8444-555555555555", "cwd": "/tmp/x"}}
    path = tmp_path / "rollout-2026-01-01T00-00-00-11111111-2222-4333-8444-555555555555.jsonl"
    late = [meta, *_turn("fix the build please"), *_turn("now deploy it to staging", between=20)]
    owner = [e.text for e in kinds(read(write_lines(path, late)), "owner", "message")]
    assert owner == ["fix the build please", "now deploy it to staging"]
    # The read ends before the event is written; the next read meets it.
    first = read(write_lines(path, late[:-1]))
    later = read(write_lines(path, late), first.cursor)
    owner = [e.text for e in kinds(first, "owner", "message") + kinds(later, "owner", "message")]
    assert owner == ["fix the build please", "now deploy it to staging"]
