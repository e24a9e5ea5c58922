"""OpenClaw / pi reader: v3 trees, compaction, schema drift, sessions.json titles, v1 files, archives."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.conftest import JARVIS as JARVIS_FIXTURES
from tests.conftest import SESSIONS
from tests.readers.helpers import read_all, unreadable
from total_recall.readers import Cursor, Source, openclaw
from total_recall.readers.base import read_check
from total_recall.readers.openclaw import OpenClawReader
from total_recall.record.database import Record
from total_recall.record.spans import owner_spans
from total_recall.record.sync import sync

OPENCLAW = SESSIONS / "openclaw"
EXCERPT = OPENCLAW / "agents" / "main" / "sessions" / "8555a0a4-0b79-459d-939c-e17cdbbf4fe2.EXCERPT.jsonl"
PI = next((OPENCLAW / "pi_recorded_0.87.1" / "sessions").rglob("*.jsonl"))
COMPACTION = OPENCLAW / "synthetic_pi_v3_compaction.jsonl"
DRIFT = OPENCLAW / "synthetic_schema_drift_compact.jsonl"
# Real pi sessions (badlogic/pi-mono, MIT; SOURCES.md): no `session_info`, no store beside them.
PI_RESUMED, PI_REAL = sorted((OPENCLAW / "pi_real").glob("*.jsonl"), reverse=True)
JARVIS = JARVIS_FIXTURES / "openclaw-session-synthetic.jsonl"
JARVIS_INDEX = JARVIS_FIXTURES / "openclaw-sessions-index-synthetic.json"
ALL = (EXCERPT, PI, COMPACTION, DRIFT, JARVIS)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(s) for s in path.read_text().splitlines() if s.strip()]


def source(path: Path) -> Source:
    return Source("openclaw", str(path), path)


def blocks(path: Path, block_type: str) -> list[dict[str, Any]]:
    out = []
    for obj in lines_of(path):
        content = obj.get("message", {}).get("content")
        out += [b for b in content if b.get("type") == block_type] if isinstance(content, list) else []
    return out


def roles(path: Path, role: str) -> list[dict[str, Any]]:
    return [o["message"] for o in lines_of(path) if o["type"] == "message" and o["message"]["role"] == role]


def cursor_after(path: Path, lines: int) -> Cursor:
    offset = sum(len(s) for s in path.read_bytes().splitlines(keepends=True)[:lines])
    return Cursor(offset, lines, read_check(path, offset))


def test_sources_are_every_jsonl_and_archived_transcript_but_never_sessions_json(tmp_path: Path) -> None:
    found = {s.path for s in OpenClawReader().sources(OPENCLAW)}
    assert found == {EXCERPT, PI, COMPACTION, DRIFT, PI_REAL, PI_RESUMED}
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    for name in ("a.jsonl", "a.jsonl.deleted.1772972135581", "b.jsonl.reset.2026-03-08T12:00:00.000Z"):
        (folder / name).write_text("")
    (folder / "sessions.json").write_text("{}")
    (folder / "a.jsonl.lock").write_text("")
    assert sorted(s.path.name for s in OpenClawReader().sources(tmp_path)) == [
        "a.jsonl",
        "a.jsonl.deleted.1772972135581",
        "b.jsonl.reset.2026-03-08T12:00:00.000Z",
    ]
    assert [s.path for s in OpenClawReader().sources(JARVIS)] == [JARVIS]


def test_every_fixture_file_reads_cleanly_and_every_tree_node_becomes_entries_with_its_links() -> None:
    for path in ALL:
        objs = lines_of(path)
        header, nodes = objs[0], objs[1:]
        got = read_all(OpenClawReader(), source(path))
        assert got.warnings == [], path
        assert list(got.sessions) == [header["id"]]
        assert got.sessions[header["id"]].cwd == header["cwd"]
        assert got.sessions[header["id"]].started == header["timestamp"]
        # every node (line after the header) gives entries keyed `id`, `id:1`, ... carrying id/parentId
        assert [e.key.split(":")[0] for e in got.entries if ":" not in e.key] == [n["id"] for n in nodes]
        links = {n["id"]: (n["id"], n["parentId"], n["timestamp"]) for n in nodes}
        for e in got.entries:
            assert (e.native_id, e.native_parent, e.timestamp) == links[e.native_id or ""]
        assert len({e.key for e in got.entries}) == len(got.entries)
        assert len([e for e in got.entries if e.kind == "tool_call"]) == len(blocks(path, "toolCall"))
        assert len([e for e in got.entries if e.kind == "thinking"]) == len(blocks(path, "thinking"))
        assert len([e for e in got.entries if e.kind == "tool_result"]) == len(roles(path, "toolResult"))
        assert len([e for e in got.entries if e.author == "owner"]) == len(roles(path, "user"))
        assert len([e for e in got.entries if e.kind == "compaction"]) == sum(
            n["type"] == "compaction" for n in nodes
        )
        assert got.cursor is not None and got.cursor.line == len(objs)


def test_the_real_excerpt_keeps_error_text_the_windows_cwd_and_marks_gateway_notices_as_harness() -> None:
    got = read_all(OpenClawReader(), source(EXCERPT))
    draft = got.sessions["8555a0a4-0b79-459d-939c-e17cdbbf4fe2"]
    assert draft.cwd == "C:\\Users\\downl\\Desktop\\clawdbot-main3\\clawdbot-main"
    errors = [m["errorMessage"] for m in roles(EXCERPT, "assistant") if m.get("errorMessage")]
    assert errors == ["fetch failed", "fetch failed"]
    assert [(e.key, e.text) for e in got.entries if e.text.startswith("error:")] == [
        ("9a533f48", "error: fetch failed"),
        ("54edd41e", "error: fetch failed"),
    ]
    notice = got.entries[0]
    assert (notice.author, notice.kind) == ("harness", "message")
    assert notice.text.startswith("⚠️ Agent failed before reply: No API key found")
    snapshots = [e.text for e in got.entries if e.text.startswith("custom: model-snapshot")]
    assert len(snapshots) == 2 and '"modelId":"gpt-5.4"' in snapshots[1]
    calls = [e for e in got.entries if e.kind == "tool_call"]
    raw_calls = blocks(EXCERPT, "toolCall")
    assert [c.text for c in calls] == [json.dumps(b["arguments"], separators=(",", ":")) for b in raw_calls]
    results = {e.group: e for e in got.entries if e.kind == "tool_result"}
    assert [results[c.group].tool for c in calls] == ["read", "read"]
    assert "ENOENT" in results[calls[1].group].text
    assert got.entries[-1].text.startswith("[[reply_to_current]]") and got.entries[-1].author == "agent"


def test_compaction_lines_give_a_compaction_marker_and_the_summary_verbatim() -> None:
    for path in (COMPACTION, JARVIS):
        got = read_all(OpenClawReader(), source(path))
        raw = [n for n in lines_of(path) if n["type"] == "compaction"]
        markers = [e for e in got.entries if e.kind == "compaction"]
        summaries = [e for e in got.entries if e.kind == "summary"]
        assert [m.text for m in markers] == [
            f"compaction: tokensBefore={n['tokensBefore']}, firstKeptEntryId={n['firstKeptEntryId']}"
            for n in raw
        ]
        assert [(s.text, s.key, s.author) for s in summaries] == [
            (n["summary"], n["id"] + ":1", "harness") for n in raw
        ]
    jarvis = read_all(OpenClawReader(), source(JARVIS))
    assert "tokensBefore=182000" in next(e.text for e in jarvis.entries if e.kind == "compaction")


def test_schema_drift_unknown_types_become_meta_and_string_tool_results_are_kept() -> None:
    got = read_all(OpenClawReader(), source(DRIFT))
    by_key = {e.key: e for e in got.entries}
    assert (by_key["unknown-1"].author, by_key["unknown-1"].kind) == ("harness", "meta")
    assert by_key["unknown-1"].text == 'compact {"note":"legacy event for drift coverage","agent":"openclaw"}'
    result = by_key["m3"]
    assert (result.kind, result.text, result.tool, result.group) == (
        "tool_result",
        "PASS\n",
        "diagnostic_tool",
        "tc-diagnose",
    )
    assert result.native_parent == "tc-diagnose"  # as written, even though it names a tool call
    assert (by_key["m4"].author, by_key["m4"].text) == ("system", "diagnostic summary updated")
    assert by_key["c1"].text == 'custom: ui_state {"phase":"diagnostic"}'
    assert [(e.author, e.kind) for e in got.entries if e.native_id == "m2"] == [
        ("agent", "message"),
        ("agent", "tool_call"),
    ]


def test_pi_recorded_session_takes_its_title_from_session_info_and_its_system_prompt_from_sections() -> None:
    got = read_all(OpenClawReader(), source(PI))
    draft = got.sessions["01a0f21b-0595-72a7-84dc-df0fc0d0de3f"]
    assert draft.title == "Fixture session"
    system = next(e for e in got.entries if e.author == "system")
    assert system.text.startswith("<cwd>\n/work/proj\n</cwd>")
    assert "You are an expert coding assistant" in system.text
    owners = [e.text for e in got.entries if e.author == "owner"]
    assert owners == ["run echo fixture please", "and once more"]
    assert [e.text for e in got.entries if e.kind == "meta"] == [
        "session_info: Fixture session",
        "model_change: fake/fake-model",
        "thinking_level_change: off",
    ]


def test_sessions_json_beside_the_file_gives_the_title_and_wins_over_session_info(tmp_path: Path) -> None:
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "0b7c2f1e-demo.jsonl"
    shutil.copyfile(JARVIS, path)
    index = json.loads(JARVIS_INDEX.read_text())
    index["agent:main:main"]["label"] = "deploy triage"
    index["agent:main:main"]["displayName"] = "Main chat"
    (folder / "sessions.json").write_text(json.dumps(index))
    got = read_all(OpenClawReader(), source(path))
    draft = got.sessions["0b7c2f1e-demo"]
    assert draft.title == "deploy triage"
    assert draft.meta is not None
    assert (draft.meta["session_key"], draft.meta["compactionCount"]) == ("agent:main:main", 1)
    with path.open("a") as fh:
        fh.write(
            json.dumps(
                {
                    "type": "session_info",
                    "id": "e10",
                    "parentId": "e9",
                    "timestamp": "2026-03-02T10:01:00.000Z",
                    "name": "renamed",
                }
            )
            + "\n"
        )
    assert read_all(OpenClawReader(), source(path)).sessions["0b7c2f1e-demo"].title == "deploy triage"
    del index["agent:main:main"]["label"]
    (folder / "sessions.json").write_text(json.dumps(index))
    assert read_all(OpenClawReader(), source(path)).sessions["0b7c2f1e-demo"].title == "Main chat"
    del index["agent:main:main"]["displayName"]
    (folder / "sessions.json").write_text(json.dumps(index))
    assert read_all(OpenClawReader(), source(path)).sessions["0b7c2f1e-demo"].title == "renamed"
    (folder / "sessions.json").write_text("{not json")
    broken = read_all(OpenClawReader(), source(path))
    assert ["sessions.json is not JSON" in w.why for w in broken.warnings] == [True]
    assert broken.sessions["0b7c2f1e-demo"].title == "renamed"


def test_a_subagent_in_sessions_json_points_at_the_session_that_spawned_it(tmp_path: Path) -> None:
    index = json.loads(JARVIS_INDEX.read_text())
    index["agent:main:subagent:3f2a"]["spawnedBy"] = "agent:main:main"
    (tmp_path / "sessions.json").write_text(json.dumps(index))
    path = tmp_path / "9a9a-subagent-demo.jsonl"
    path.write_text(
        json.dumps(
            {
                "type": "session",
                "version": 3,
                "id": "9a9a-subagent-demo",
                "timestamp": "2026-03-02T09:40:00.000Z",
                "cwd": "/w",
            }
        )
        + "\n"
    )
    draft = read_all(OpenClawReader(), source(path)).sessions["9a9a-subagent-demo"]
    assert (draft.parent_native, draft.relation) == ("0b7c2f1e-demo", "subagent")


def test_resuming_from_a_mid_file_cursor_gives_the_tail_of_a_full_read() -> None:
    for path in (JARVIS, EXCERPT, PI):
        full = read_all(OpenClawReader(), source(path))
        total = len(lines_of(path))
        for cut in range(1, total + 1):
            resumed = read_all(OpenClawReader(), source(path), cursor_after(path, cut))
            assert resumed.entries == [e for e in full.entries if (e.line or 0) > cut]
            assert list(resumed.sessions) == list(full.sessions)
            assert resumed.cursor == full.cursor


def test_bad_lines_are_warnings_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    text = JARVIS.read_text().splitlines()
    text.insert(3, '{"type": "message", "id": "x1", "message": "oops"}')
    text.insert(5, '{"type": "message", "id": "x2", ')
    path.write_text("\n".join(text) + "\n")
    got = read_all(OpenClawReader(), source(path))
    assert [(w.line, w.why.split(" (")[0]) for w in got.warnings] == [
        (4, "`message` is not a JSON object"),
        (6, "not JSON"),
    ]
    assert len(got.entries) == len(read_all(OpenClawReader(), source(JARVIS)).entries)


def test_pi_v1_files_read_in_order_with_line_keys_and_branched_from_as_a_fork(tmp_path: Path) -> None:
    path = tmp_path / "2024-12-03T14-00-00-000Z_aaaa-v1.jsonl"
    rows = [
        {
            "type": "session",
            "id": "aaaa-v1",
            "timestamp": "2024-12-03T14:00:00.000Z",
            "cwd": "/p",
            "provider": "anthropic",
            "modelId": "claude-sonnet-4-5",
            "thinkingLevel": "off",
            "branchedFrom": "/home/u/.pi/agent/sessions/--p--/2024-12-03T13-00-00-000Z_parent-v1.jsonl",
        },
        {
            "type": "message",
            "timestamp": "2024-12-03T14:00:01.000Z",
            "message": {"role": "user", "content": "Hello", "timestamp": 1733234401000},
        },
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Hi!"}],
                "timestamp": 1733234402345,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "bashExecution",
                "command": "ls -la",
                "output": "total 48\n",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "see"},
                    {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                ],
            },
        },
        {
            "type": "model_change",
            "timestamp": "2024-12-03T14:05:00.000Z",
            "provider": "openai",
            "modelId": "gpt-4o",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = read_all(OpenClawReader(), source(path))
    draft = got.sessions["aaaa-v1"]
    assert (draft.parent_native, draft.relation) == ("parent-v1", "fork")
    assert draft.meta == {
        "version": 1,
        "provider": "anthropic",
        "modelId": "claude-sonnet-4-5",
        "thinkingLevel": "off",
    }
    assert [(e.key, e.author, e.kind, e.text) for e in got.entries] == [
        ("L2", "owner", "message", "Hello"),
        ("L3", "agent", "message", "Hi!"),
        ("L4", "owner", "tool_call", "!ls -la"),
        ("L4:1", "tool", "tool_result", "total 48\n"),
        ("L5", "owner", "message", "see\n[image: image/png, 5 bytes]"),
        ("L6", "harness", "meta", "model_change: openai/gpt-4o"),
    ]
    assert all(e.native_id is None and e.native_parent is None for e in got.entries)
    assert [e.timestamp for e in got.entries[:3]] == [
        "2024-12-03T14:00:01.000Z",
        "2024-12-03T14:00:02.345Z",
        None,
    ]
    # v1 has no node ids: the owner's `!` command and its output are tied by their line's key.
    assert got.entries[2].group == got.entries[3].group == "L4"
    assert draft.title == "Hello"  # no `session_info`, no store: the first prompt's words, as pi's /resume


def test_a_file_without_a_header_takes_its_session_id_from_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "legacy-clawdbot.jsonl.deleted.1772972135581"
    path.write_text(
        json.dumps({"role": "user", "content": "hi", "timestamp": 1772972135581})
        + "\n"
        + json.dumps({"role": "assistant", "content": "hello"})
        + "\n"
    )
    got = read_all(OpenClawReader(), source(path))
    assert list(got.sessions) == ["legacy-clawdbot"]
    assert [(e.author, e.text, e.timestamp) for e in got.entries] == [
        ("owner", "hi", "2026-03-08T12:15:35.581Z"),
        ("agent", "hello", None),
    ]


def test_an_archived_copy_reads_as_the_same_session_with_the_same_keys(tmp_path: Path) -> None:
    archived = tmp_path / "0b7c2f1e-demo.jsonl.reset.2026-03-02T10:30:00.000Z"
    shutil.copyfile(JARVIS, archived)
    live = read_all(OpenClawReader(), source(JARVIS))
    old = read_all(OpenClawReader(), source(archived))
    assert list(old.sessions) == list(live.sessions)
    assert [e.key for e in old.entries] == [e.key for e in live.entries]



def test_a_pi_session_nothing_names_is_titled_by_its_first_prompt_as_pi_lists_it() -> None:
    got = read_all(OpenClawReader(), source(PI_REAL))
    title = got.sessions["ffae836b-9420-4060-ac13-7745215f90ff"].title
    assert title is not None and title.endswith("…") and len(title) <= 80
    first = next(e.text for e in got.entries if e.author == "owner" and e.kind == "message")
    assert first.startswith(title[:-1])


def test_a_session_info_name_then_the_store_label_outrank_the_first_prompt_on_later_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s1.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    user = {"type": "message", "id": "n1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "sort the invoices\nplease"}]}}
    path.write_text(json.dumps(header) + "\n" + json.dumps(user) + "\n")
    first = read_all(OpenClawReader(), source(path))
    assert first.sessions["s1"].title == "sort the invoices"
    named = {"type": "session_info", "id": "n2", "parentId": "n1", "timestamp": "2026-01-01T00:00:02Z",
             "name": "Invoices"}
    again = {**user, "id": "n3", "parentId": "n2"}
    with path.open("a") as fh:
        fh.write(json.dumps(named) + "\n" + json.dumps(again) + "\n")
    second = read_all(OpenClawReader(), source(path), first.cursor)
    assert second.sessions["s1"].title == "Invoices"
    (tmp_path / "sessions.json").write_text(json.dumps({"agent:main": {"sessionId": "s1", "label": "Books"}}))
    with path.open("a") as fh:
        fh.write(json.dumps({**user, "id": "n4", "parentId": "n3"}) + "\n")
    assert second.cursor is not None
    assert read_all(OpenClawReader(), source(path), second.cursor).sessions["s1"].title == "Books"


def test_a_read_resumed_from_a_cursor_saved_before_titles_titles_the_session_once(tmp_path: Path) -> None:
    path = tmp_path / PI_REAL.name
    shutil.copy(PI_REAL, path)
    whole = read_all(OpenClawReader(), source(path))
    assert whole.cursor is not None
    old = Cursor(whole.cursor.offset, whole.cursor.line, whole.cursor.check)  # an earlier version's: no state
    resumed = read_all(OpenClawReader(), source(path), old)
    assert resumed.sessions["ffae836b-9420-4060-ac13-7745215f90ff"].title == whole.sessions[
        "ffae836b-9420-4060-ac13-7745215f90ff"].title
    assert resumed.cursor is not None and resumed.cursor.state["title_rank"] == 0
    assert resumed.cursor.state == whole.cursor.state  # what a read of the whole file knows
    later = read_all(OpenClawReader(), source(path), resumed.cursor)
    assert later.sessions["ffae836b-9420-4060-ac13-7745215f90ff"].title is None  # nothing new to say


def test_an_owner_command_says_it_failed_was_cut_short_and_where_pi_kept_the_rest() -> None:
    got = read_all(OpenClawReader(), source(PI_REAL))
    results = [e for e in got.entries if e.tool == "bash" and e.kind == "tool_result"]
    assert not results[0].text.startswith("Exit code") and "[output truncated" not in results[0].text
    assert results[1].text.endswith(
        "\n[output truncated; the whole of it at "
        "/var/folders/49/l4171l3n219_xwq30fmyzr8w0000gn/T/pi-bash-a4cd2460b5b4e0be.log]")
    compaction = next(e for e in got.entries if e.kind == "compaction")
    assert compaction.text == "compaction: tokensBefore=175004, firstKeptEntryIndex=293"


def test_an_owner_command_that_failed_or_was_cancelled_says_so_first(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    rows = [{"type": "session", "id": "v1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"},
            {"type": "message", "timestamp": "2026-01-01T00:00:01Z",
             "message": {"role": "bashExecution", "command": "make test", "output": "1 failed",
                         "exitCode": 2, "cancelled": False, "truncated": False}},
            {"type": "message", "timestamp": "2026-01-01T00:00:02Z",
             "message": {"role": "bashExecution", "command": "sleep 99", "output": "",
                         "exitCode": None, "cancelled": True, "truncated": False}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    texts = [e.text for e in read_all(OpenClawReader(), source(path)).entries if e.kind == "tool_result"]
    assert texts == ["Exit code: 2\n1 failed", "Cancelled"]


def node(node_id: str, parent: str | None, role: str, text: str, ts: str = "2026-01-01T00:00:01Z") -> str:
    return json.dumps({"type": "message", "id": node_id, "parentId": parent, "timestamp": ts,
                       "message": {"role": role, "content": [{"type": "text", "text": text}]}}) + "\n"


HEADER = json.dumps({"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z",
                     "cwd": "/w"}) + "\n"


def test_a_node_id_reused_by_a_line_appended_later_is_kept_apart_as_a_read_of_the_whole_file_keeps_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text(HEADER + node("e1", None, "user", "ask") + node("e2", "e1", "assistant", "first reply"))
    first = read_all(OpenClawReader(), source(path))
    assert first.cursor is not None
    # A retry that wrote its reply under the id of the one it replaced.
    with path.open("a") as fh:
        fh.write(node("e2", "e1", "assistant", "retry reply reusing node id e2"))
    fresh = [(e.key, e.text) for e in read_all(OpenClawReader(), source(path)).entries]
    later = read_all(OpenClawReader(), source(path), first.cursor)
    assert [(e.key, e.text) for e in first.entries + later.entries] == fresh
    assert fresh[-1][0].startswith("e2~")
    # A cursor an earlier version saved holds no ids: its lines are read once to find them.
    old = replace(first.cursor, state={"title_rank": 0})
    assert [(e.key, e.text) for e in read_all(OpenClawReader(), source(path), old).entries] == fresh[2:]


def test_a_record_synced_before_the_reader_kept_node_ids_gains_only_the_new_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "agents" / "main" / "sessions"
    root.mkdir(parents=True)
    path = root / "s1.jsonl"
    path.write_text(HEADER + node("e1", None, "user", "ask") + node("e2", "e1", "assistant", "first reply"))

    def synced() -> int:
        with Record(tmp_path / "record.sqlite3") as record:
            report = sync(record, ["openclaw"], roots={"openclaw": tmp_path})
        assert report.errors == []
        return report.entries_added

    with monkeypatch.context() as m:  # the cursor an earlier version saved: no node ids in it
        m.setattr(openclaw._Session, "saved", lambda self: {"title_rank": self.title_rank}, raising=False)
        assert synced() == 2
    with path.open("a") as fh:
        fh.write(node("e3", "e2", "user", "again"))
    assert synced() == 1  # the lines already recorded keep their keys: nothing read twice
    with path.open("a") as fh:
        fh.write(node("e2", "e1", "assistant", "retry reply reusing node id e2"))
    assert synced() == 1
    assert synced() == 0


def test_a_session_read_from_its_transcript_and_an_earlier_archive_of_it_ends_at_its_latest_line(
    tmp_path: Path,
) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    early = HEADER + node("e1", None, "user", "hello", "2026-01-01T10:00:01Z") + node(
        "e2", "e1", "assistant", "hi", "2026-01-01T10:00:02Z")
    late = early + node("e3", "e2", "user", "more", "2026-01-01T11:00:00Z") + node(
        "e4", "e3", "assistant", "ok", "2026-01-01T11:00:05Z")
    (sessions / "s1.jsonl").write_text(late)
    (sessions / "s1.jsonl.reset.2026-01-01T10-30-00Z").write_text(early)
    with Record(tmp_path / "record.sqlite3") as record:
        assert sync(record, ["openclaw"], roots={"openclaw": tmp_path / "agents"}).errors == []
        [session] = record.sessions(["openclaw"])
    assert (session.entries, session.ended) == (4, "2026-01-01T11:00:05Z")


def test_a_cold_archive_reads_as_its_session_titled_by_the_store_beside_its_folder(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    cold = sessions / "cold" / ("3f2a9c0e" * 8 + ".jsonl.zst")
    cold.parent.mkdir(parents=True)
    cold.write_bytes(zstandard.ZstdCompressor().compress(JARVIS.read_bytes()))
    index = json.loads(JARVIS_INDEX.read_text())
    index["agent:main:main"]["label"] = "deploy triage"
    (sessions / "sessions.json").write_text(json.dumps(index))
    [found] = OpenClawReader().sources(tmp_path)
    assert found.path == cold
    got = read_all(OpenClawReader(), found)
    plain = read_all(OpenClawReader(), source(JARVIS))
    assert [(e.key, e.text) for e in got.entries] == [(e.key, e.text) for e in plain.entries]
    assert got.sessions["0b7c2f1e-demo"].title == "deploy triage" and got.warnings == []


def test_a_transcript_database_the_reader_does_not_read_is_said_once_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT)")
    con.close()
    (tmp_path / "agents" / "main" / "sessions").mkdir()
    shutil.copyfile(JARVIS, tmp_path / "agents" / "main" / "sessions" / JARVIS.name)
    warned = []
    for _ in range(2):
        with Record(tmp_path / "record.sqlite3") as record:
            report = sync(record, ["openclaw"], roots={"openclaw": tmp_path})
        assert report.errors == []
        warned.append([(w.path, w.why) for w in report.warnings])
    assert warned[0] == [(str(db), "OpenClaw's transcript database is not read: the sessions kept only in it "
                                  "are not recorded")]
    assert warned[1] == []  # unchanged since: nothing new to say


def test_a_store_written_with_a_utf8_bom_still_gives_the_title(tmp_path: Path) -> None:
    path = tmp_path / "0b7c2f1e-demo.jsonl"
    shutil.copyfile(JARVIS, path)
    index = json.loads(JARVIS_INDEX.read_text())
    index["agent:main:main"]["label"] = "deploy triage"
    (tmp_path / "sessions.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(index).encode())
    got = read_all(OpenClawReader(), source(path))
    assert got.sessions["0b7c2f1e-demo"].title == "deploy triage" and got.warnings == []


def test_a_session_ends_at_the_time_of_its_last_line(tmp_path: Path) -> None:
    stamps = [o["timestamp"] for o in lines_of(JARVIS) if "timestamp" in o]
    assert read_all(OpenClawReader(), source(JARVIS)).sessions["0b7c2f1e-demo"].ended == stamps[-1]
    path = tmp_path / "s1.jsonl"
    path.write_text(HEADER + node("e1", None, "user", "ask", "2026-01-01T00:00:05Z"))
    first = read_all(OpenClawReader(), source(path))
    assert first.sessions["s1"].ended == "2026-01-01T00:00:05Z"
    with path.open("a") as fh:
        fh.write(node("e2", "e1", "assistant", "reply", "2026-01-01T00:09:00Z"))
    later = read_all(OpenClawReader(), source(path), first.cursor)
    assert later.sessions["s1"].ended == "2026-01-01T00:09:00Z"


def test_an_unreadable_folder_is_named_by_the_sync_and_the_sessions_elsewhere_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for agent in ("main", "work"):
        folder = tmp_path / "agents" / agent / "sessions"
        folder.mkdir(parents=True)
        header = HEADER.replace('"s1"', f'"{agent}"')
        (folder / f"{agent}.jsonl").write_text(header + node("e1", None, "user", "hi"))
    locked = tmp_path / "agents" / "work" / "sessions"
    unreadable(monkeypatch, locked)
    with Record(tmp_path / "record.sqlite3") as record:
        report = sync(record, ["openclaw"], roots={"openclaw": tmp_path})
        assert [s.native_id for s in record.sessions()] == ["main"]
    assert report.errors == [f"{tmp_path}: cannot list: folder {locked} is unreadable (Permission denied); "
                             "the sessions in it are not read"]


def test_a_command_the_owner_ran_with_a_bang_is_his_command_as_he_typed_it() -> None:
    ran = [o["message"] for o in lines_of(PI_REAL) if o.get("message", {}).get("role") == "bashExecution"]
    calls = [e for e in read_all(OpenClawReader(), source(PI_REAL)).entries if e.kind == "tool_call"
             and e.author == "owner"]
    assert [m["command"] for m in ran] == ["ls", "find ."]
    assert [e.text for e in calls] == ["!ls", "!find ."]
    assert [[(s.tag, s.text_of(e.text)) for s in owner_spans(e.text)] for e in calls] == [
        [("command", "ls")], [("command", "find .")]]


def test_a_session_of_messages_from_a_channel_is_titled_by_the_owner_s_words_not_the_envelope() -> None:
    got = read_all(OpenClawReader(), source(EXCERPT))
    (draft,) = got.sessions.values()
    first = next(e for e in got.entries if e.author == "owner")
    assert first.text.startswith("Sender (untrusted metadata):\n```json\n")
    assert draft.title == "はくあ" and first.text.endswith("[Sun 2026-03-08 22:03 GMT+9] はくあ")
