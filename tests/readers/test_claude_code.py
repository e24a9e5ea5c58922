"""Claude Code reader: uuid trees, one-block-per-line assistant messages, subagents, titles, damage."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROMPT_CULT, SESSIONS
from tests.readers.helpers import Read, read_all
from total_recall.model import EntryDraft, SessionDraft
from total_recall.readers import Checkpoint, Cursor, Item, Source, base
from total_recall.readers.claude_code import ClaudeCodeReader
from total_recall.record.branches import Link, active_branch

CC = SESSIONS / "claude_code"
WORKTREES = CC / "real_v2.1.114_worktrees"
MAIN_ID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
MAIN = WORKTREES / f"{MAIN_ID}.jsonl"
SUBAGENT = WORKTREES / MAIN_ID / "subagents" / "agent-aef063ba534d73153.jsonl"
LEGACY_AGENT = CC / "real_v2.0.37_legacy_sidechain_agent-3be551df.jsonl"
SUMMARIES = CC / "real_v1.0.51_summaries_326189cf.jsonl"
RECORDED = CC / "recorded_2.1.284" / "projects" / "-work-proj" / "609b44ad-7c18-4745-a70b-784281dce85e.jsonl"
KITCHEN = CC / "synthetic_kitchen_sink_all_record_types.jsonl"
DAG = CC / "synthetic_compact_after_rewind_dag.jsonl"
EDGE = CC / "synthetic_edge_cases_malformed.jsonl"
CULT = PROMPT_CULT / "derived" / "claude_projects" / "-Users-someone-code-myrepo"
CULT_FILE = CULT / "12345678-aaaa-bbbb-cccc-dddddddddddd.jsonl"
ALL_FILES = [MAIN, SUBAGENT, LEGACY_AGENT, SUMMARIES, RECORDED, KITCHEN, DAG, EDGE, CULT_FILE]
BLOCK_KIND = {"text": "message", "thinking": "thinking", "tool_use": "tool_call"}


def records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line that is a JSON object — the independent count."""
    out = []
    for n, text in enumerate(path.read_text().splitlines(), 1):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append((n, obj))
    return out


def src(path: Path) -> Source:
    return Source("claude-code", str(path), path)


def read(path: Path, cursor: Cursor | None = None) -> Read:
    return read_all(ClaudeCodeReader(), src(path), cursor)


def only_session(result: Read) -> SessionDraft:
    assert len(result.sessions) == 1
    return next(iter(result.sessions.values()))


def write_lines(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


# --- the real 2.1.114 transcript -------------------------------------------------------------


def test_every_assistant_content_block_becomes_one_entry_of_the_matching_kind() -> None:
    blocks = Counter(
        BLOCK_KIND[b["type"]]
        for _, o in records(MAIN)
        if o["type"] == "assistant"
        for b in o["message"]["content"]
    )
    assistant_lines = {n for n, o in records(MAIN) if o["type"] == "assistant"}
    got = Counter(e.kind for e in read(MAIN).entries if e.line in assistant_lines)
    assert got == blocks
    assert blocks == {"thinking": 14, "message": 8, "tool_call": 40}


def test_assistant_entries_are_keyed_and_grouped_by_their_17_message_ids() -> None:
    ids = {o["message"]["id"] for _, o in records(MAIN) if o["type"] == "assistant"}
    assert len(ids) == 17
    agent = [e for e in read(MAIN).entries if e.author == "agent"]
    assert {e.key.split(":")[0] for e in agent} == ids
    assert {e.group for e in agent if e.kind in ("message", "thinking")} <= ids
    assert all(e.native_id is not None and e.native_parent is not None for e in agent)


def test_tool_calls_and_results_pair_up_by_tool_use_id() -> None:
    use_ids = [
        b["id"]
        for _, o in records(MAIN)
        if o["type"] == "assistant"
        for b in o["message"]["content"]
        if b["type"] == "tool_use"
    ]
    entries = read(MAIN).entries
    calls = Counter(e.group for e in entries if e.kind == "tool_call")
    results = Counter(e.group for e in entries if e.kind == "tool_result")
    assert calls == results == Counter(use_ids)
    assert set(calls.values()) == {1}
    first = next(e for e in entries if e.kind == "tool_call")
    raw_block = json.loads(first.raw)["message"]["content"][0]
    assert first.tool == raw_block["name"]
    assert json.loads(first.text) == raw_block["input"]
    assert all(e.author == "tool" for e in entries if e.kind == "tool_result")


def test_session_takes_id_from_the_path_and_cwd_and_times_from_the_lines() -> None:
    lines = [o for _, o in records(MAIN)]
    stamps = [o["timestamp"] for o in lines if "timestamp" in o]
    session = only_session(read(MAIN))
    assert session.native_id == MAIN_ID
    assert session.cwd == next(o["cwd"] for o in lines if "cwd" in o) == "-experiments/worktrees"
    assert (session.started, session.ended) == (stamps[0], stamps[-1])
    assert session.parent_native is None and session.relation is None


def test_owner_words_are_owner_and_harness_wrappers_and_is_meta_are_harness() -> None:
    by_line = {e.line: e for e in read(MAIN).entries}
    lines = dict(records(MAIN))
    owner = sorted(n for n, e in by_line.items() if e.author == "owner")
    assert owner == [5, 117, 179]
    assert lines[179]["message"]["content"].startswith("<command-name>/exit</command-name>")
    assert lines[178]["isMeta"] is True and by_line[178].author == "harness"
    assert by_line[180].author == "harness"
    assert by_line[180].text == "<local-command-stdout>See ya!</local-command-stdout>"
    assert by_line[5].text == lines[5]["message"]["content"]


def test_id_less_bookkeeping_lines_become_distinct_meta_entries() -> None:
    lines = [n for n, o in records(MAIN) if o["type"] == "permission-mode"]
    assert len(lines) == 8
    entries = [e for e in read(MAIN).entries if e.line in lines]
    assert [e.text for e in entries] == ["permission-mode: acceptEdits"] * 8
    assert len({e.key for e in entries}) == 8
    assert all(e.kind == "meta" and e.author == "harness" and e.native_id is None for e in entries)


def test_system_lines_keep_their_content_verbatim() -> None:
    lines = dict(records(MAIN))
    away = [n for n, o in lines.items() if o.get("subtype") == "away_summary"]
    by_line = {e.line: e for e in read(MAIN).entries}
    assert [by_line[n].text for n in away] == [lines[n]["content"] for n in away]
    assert by_line[away[0]].kind == "meta" and by_line[away[0]].author == "harness"


# --- subagents -------------------------------------------------------------------------------


def test_a_new_layout_subagent_file_is_a_child_session_titled_by_its_sidecar() -> None:
    reader = ClaudeCodeReader()
    found = list(reader.sources(WORKTREES))
    assert [s.path for s in found] == [MAIN, SUBAGENT]  # a transcript before its subagents
    result = read_all(reader, found[1])
    session = only_session(result)
    assert session.native_id == "agent-aef063ba534d73153"
    assert session.parent_native == MAIN_ID and session.relation == "subagent"
    assert session.title == "Round 2: bob comparison"
    assert session.meta == {"agentType": "general-purpose", "description": "Round 2: bob comparison",
                            "entrypoint": "cli"}
    assert len(result.entries) == sum(
        len(o["message"]["content"]) if o["type"] == "assistant" else 1 for _, o in records(SUBAGENT)
    )
    assert all(e.sidechain for e in result.entries)
    # The task prompt was written by the parent agent, not typed by the owner.
    assert result.entries[0].author == "agent" and result.entries[0].text.startswith("You are **bob**")


def test_workflow_subagents_are_sources_but_journals_and_sidecars_are_not(tmp_path: Path) -> None:
    session = tmp_path / "proj" / MAIN_ID
    wf_agent = session / "subagents" / "workflows" / "wf1" / "agent-abc.jsonl"
    wf_agent.parent.mkdir(parents=True)
    shutil.copy(SUBAGENT, wf_agent)
    (wf_agent.parent / "journal.jsonl").write_text('{"type":"step"}\n')
    (wf_agent.parent / "agent-abc.meta.json").write_text('{"agentType":"x","description":"wf step"}')
    shutil.copy(MAIN, tmp_path / "proj" / f"{MAIN_ID}.jsonl")
    reader = ClaudeCodeReader()
    found = list(reader.sources(tmp_path))
    assert [s.path.name for s in found] == [f"{MAIN_ID}.jsonl", "agent-abc.jsonl"]
    sub = only_session(read_all(reader, found[1]))
    assert (sub.native_id, sub.parent_native, sub.relation) == ("agent-abc", MAIN_ID, "subagent")
    assert sub.meta == {"workflow": "wf1", "agentType": "x", "description": "wf step", "entrypoint": "cli"}
    assert sub.title == "wf step"


def test_a_broken_sidecar_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    agent = tmp_path / MAIN_ID / "subagents" / "agent-x.jsonl"
    agent.parent.mkdir(parents=True)
    shutil.copy(SUBAGENT, agent)
    (agent.parent / "agent-x.meta.json").write_text("{not json")
    result = read(agent)
    assert [w.path for w in result.warnings] == [str(agent.parent / "agent-x.meta.json")]
    assert only_session(result).parent_native == MAIN_ID
    assert result.entries


def test_an_old_layout_agent_file_gets_its_parent_from_the_session_id_field() -> None:
    parent = {o["sessionId"] for _, o in records(LEGACY_AGENT)}
    assert parent == {"58edcfae-5291-436c-91e4-54fbb188a0ca"}
    session = only_session(read(LEGACY_AGENT))
    assert session.parent_native == "58edcfae-5291-436c-91e4-54fbb188a0ca"
    assert session.relation == "subagent"


def test_an_old_layout_agent_file_is_a_subagent_from_its_name_before_any_line(tmp_path: Path) -> None:
    copy = tmp_path / "-proj" / "agent-3be551df.jsonl"
    copy.parent.mkdir()
    shutil.copy(LEGACY_AGENT, copy)
    items = list(ClaudeCodeReader().read(src(copy), Cursor()))
    first = items[0]
    assert isinstance(first, SessionDraft)
    assert (first.native_id, first.relation) == ("agent-3be551df", "subagent")
    updates = [i for i in items if isinstance(i, SessionDraft) and i.parent_native]
    assert [u.parent_native for u in updates] == ["58edcfae-5291-436c-91e4-54fbb188a0ca"]
    entries = [i for i in items if isinstance(i, EntryDraft)]
    assert [e.author for e in entries] == ["agent", "agent"] and entries[0].text == "Warmup"


# --- titles, compaction, summaries, the tree ---------------------------------------------------


def test_a_custom_title_beats_a_later_ai_title_and_any_summary() -> None:
    lines = [o for _, o in records(KITCHEN)]
    assert [o["type"] for o in lines if o["type"] in ("summary", "custom-title", "ai-title")] == [
        "summary",
        "custom-title",
        "ai-title",
    ]
    assert only_session(read(KITCHEN)).title == "Stage0 small fixture"


def test_an_ai_title_beats_summaries_and_the_last_summary_is_the_fallback(tmp_path: Path) -> None:
    summaries = [o["summary"] for _, o in records(SUMMARIES) if o["type"] == "summary"]
    assert len(summaries) == 4
    assert only_session(read(SUMMARIES)).title == summaries[-1]
    mixed = write_lines(
        tmp_path / "t.jsonl",
        [
            {"type": "ai-title", "aiTitle": "first ai", "sessionId": "t"},
            {"type": "summary", "summary": "later summary", "leafUuid": "x"},
            {"type": "ai-title", "aiTitle": "second ai", "sessionId": "t"},
        ],
    )
    assert only_session(read(mixed)).title == "second ai"
    assert only_session(read(CULT_FILE)).title == "Fix the flux capacitor"


def test_summary_records_are_kept_as_summary_entries() -> None:
    entries = [e for e in read(SUMMARIES).entries if e.line is not None and e.line <= 4]
    assert [e.kind for e in entries] == ["summary"] * 4
    assert entries[0].text == "Local Command Execution and Screen Clearing"


def test_compact_boundary_continues_the_chain_and_the_compact_summary_is_verbatim() -> None:
    lines = dict(records(DAG))
    entries = read(DAG).entries
    compaction = [e for e in entries if e.kind == "compaction"]
    summary = [e for e in entries if e.kind == "summary"]
    assert [(e.native_id, e.native_parent, e.text) for e in compaction] == [
        ("cb", "b2a2", "compact_boundary trigger=auto preTokens=150000")
    ]
    assert [(e.native_id, e.native_parent, e.author) for e in summary] == [("cs", "cb", "harness")]
    assert summary[0].text == lines[10]["message"]["content"][0]["text"]


def test_kitchen_sink_compactions_and_summaries_are_found() -> None:
    entries = read(KITCHEN).entries
    assert [(e.line, e.text) for e in entries if e.kind == "compaction"] == [
        (21, "compact_boundary trigger=auto preTokens=120000"),
        (51, "compact_boundary trigger=[trimmed for fixture] preTokens=0"),
    ]
    assert [(e.line, e.text) for e in entries if e.kind == "summary"] == [
        (6, "Claude Code: Context usage summary"),
        (22, "Summary of prior context."),
    ]
    s4 = next(e for e in entries if e.native_id == "s4")
    assert s4.native_parent == "s3"  # no parentUuid at all: logicalParentUuid carries the chain


def test_active_branch_follows_the_latest_leaf_back_across_the_compaction() -> None:
    nodes = [Link(e.native_id, e.native_parent, e.sidechain) for e in read(DAG).entries]
    active = active_branch(nodes)
    assert active == {"u1", "a1", "b2u", "b2a", "b2u2", "b2a2", "cb", "cs", "p1u", "p1a"}
    assert {n.native_id for n in nodes if n.native_id} - active == {"b1u", "b1a"}


def test_active_branch_ignores_sidechain_leaves_and_stops_at_unknown_parents() -> None:
    nodes = [
        Link("r", "elsewhere", False),
        Link("m1", "r", False),
        Link("side", "m1", True),
        Link(None, None, False),
        Link("m1", "r", False),
    ]
    assert active_branch(nodes) == {"r", "m1"}
    assert active_branch([Link("s1", None, True), Link("s2", "s1", True)]) == {"s1", "s2"}
    assert active_branch([]) == set()
    assert active_branch([Link("a", "b", False), Link("b", "a", False)]) == {"a", "b"}


# --- robustness, keys, resume ------------------------------------------------------------------


def test_malformed_lines_are_warnings_with_line_numbers_and_the_rest_is_read() -> None:
    result = read(EDGE)
    assert [w.line for w in result.warnings] == [10, 11, 13, 15, 16, 18]
    assert all(w.path == str(EDGE) for w in result.warnings)
    by_line: dict[int, list[EntryDraft]] = {}
    for e in result.entries:
        assert e.line is not None
        by_line.setdefault(e.line, []).append(e)
    assert sorted(by_line) == [n for n, _ in records(EDGE)]
    # edge_011 and edge_010 each appear twice (a damaged and a healthy copy): both survive.
    twins = [e for e in result.entries if e.native_id in ("edge_010", "edge_011")]
    assert len(twins) == 4 and len({e.key for e in twins}) == 4
    assert by_line[12][0].author == "owner" and "café" in by_line[12][0].text
    assert by_line[6][0].author == "harness" and by_line[8][0].author == "harness"
    assert by_line[7][0].author == "owner"


def test_every_uuid_line_yields_an_entry_so_the_tree_has_no_false_roots() -> None:
    for path in ALL_FILES:
        uuids = {o["uuid"] for _, o in records(path) if isinstance(o.get("uuid"), str)}
        seen = {e.native_id for e in read(path).entries}
        assert uuids <= seen, path.name


def test_keys_are_unique_within_each_session_where_the_fixture_has_real_ids() -> None:
    for path in ALL_FILES:
        keys = Counter(e.key for e in read(path).entries)
        dups = {k for k, n in keys.items() if n > 1}
        if path == KITCHEN:
            # The kitchen sink blanks many uuids and message ids to "[trimmed for fixture]".
            assert dups and all(k.startswith("[trimmed for fixture]") for k in dups)
        else:
            assert not dups, path.name


def test_a_replayed_assistant_block_gets_the_same_key_so_the_record_merges_it(tmp_path: Path) -> None:
    lines = [o for _, o in records(DAG)]
    replay = dict(lines[1], uuid="a1-replay", isSidechain=True)
    path = write_lines(tmp_path / "r.jsonl", [lines[0], lines[1], replay])
    entries = read(path).entries
    assert entries[1].key == entries[2].key == "msg_a1:" + entries[1].key.split(":")[1]
    assert entries[1].group == "msg_a1" and entries[2].sidechain


def test_user_wrappers_decide_between_owner_and_harness(tmp_path: Path) -> None:
    texts = {
        "<local-command-stdout>ok</local-command-stdout>": "harness",
        "<bash-stdout>x</bash-stdout><bash-stderr></bash-stderr>": "tool",  # what his `!` command printed
        "[Request interrupted by user]": "harness",
        "<command-name>/clear</command-name>\n<command-args></command-args>": "owner",
        "<bash-input>ls</bash-input>": "owner",
        "<system-reminder>note</system-reminder>\nwhy is it red?": "owner",
        "plain words": "owner",
    }
    objs = [
        {"type": "user", "uuid": f"u{i}", "parentUuid": None, "message": {"role": "user", "content": t}}
        for i, t in enumerate(texts)
    ]
    objs.append(
        {"type": "user", "uuid": "m", "isMeta": True, "message": {"role": "user", "content": "plain words"}}
    )
    entries = read(write_lines(tmp_path / "w.jsonl", objs)).entries
    assert [e.author for e in entries] == [*texts.values(), "harness"]
    assert [e.text for e in entries[:-1]] == list(texts)


def test_tool_result_lists_join_text_and_describe_images(tmp_path: Path) -> None:
    block = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [
            {"type": "text", "text": "line one"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
            {"type": "text", "text": "line two"},
        ],
    }
    obj = {"type": "user", "uuid": "u", "message": {"role": "user", "content": [block]}}
    (entry,) = read(write_lines(tmp_path / "i.jsonl", [obj])).entries
    assert (entry.author, entry.kind, entry.group) == ("tool", "tool_result", "t1")
    assert entry.text == "line one\n[image: image/png, 5 bytes]\nline two"


def test_recorded_2_1_284_keeps_queue_operations_attachments_and_cost_state() -> None:
    by_line = {e.line: e for e in read(RECORDED).entries}
    assert by_line[1].text == "queue-operation enqueue: run echo fixture please"
    assert by_line[1].author == "harness"
    assert by_line[3].author == "owner" and by_line[3].text == "run echo fixture please"
    reminder = "<system-reminder>\nToday's date is 2026-09-30.\n</system-reminder>"
    assert by_line[11].text == "attachment date\n" + reminder
    assert by_line[21].text == "cost-state" and by_line[21].kind == "meta"
    assert (by_line[14].group, by_line[15].group) == ("toolu_1", "toolu_1")


def test_a_transcript_without_ids_still_reads_with_content_keys() -> None:
    entries = read(CULT_FILE).entries
    assert [(e.author, e.kind) for e in entries] == [
        ("harness", "meta"),
        ("owner", "message"),
        ("agent", "thinking"),
        ("agent", "message"),
        ("agent", "tool_call"),
        ("tool", "tool_result"),
        ("harness", "meta"),
    ]
    assert entries[4].text == '{"path":"cap.py"}' and entries[5].text == "capacitor missing"
    assert len({e.key for e in entries}) == len(entries)


def test_an_empty_file_is_an_empty_session(tmp_path: Path) -> None:
    empty = tmp_path / "0ae44287-6fb8-4325-acd4-934696671e09.jsonl"
    empty.write_bytes(b"")
    result = read(empty)
    assert list(result.sessions) == ["0ae44287-6fb8-4325-acd4-934696671e09"]
    assert result.entries == [] and result.warnings == [] and result.cursor is not None


def test_resuming_from_a_mid_file_checkpoint_gives_the_tail_of_a_full_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(base, "READ_CHUNK", 8192)
    monkeypatch.setattr(base, "CHECKPOINT_BYTES", 1)
    full: list[Item] = list(ClaudeCodeReader().read(src(MAIN), Cursor()))
    marks = [i for i, item in enumerate(full) if isinstance(item, Checkpoint)]
    assert len(marks) > 10
    cut = marks[len(marks) // 2]
    mark = full[cut]
    assert isinstance(mark, Checkpoint) and 0 < mark.cursor.line < len(records(MAIN))
    tail = [i for i in full[cut:] if isinstance(i, EntryDraft)]
    resumed = read(MAIN, mark.cursor)
    assert resumed.entries == tail
    session = resumed.sessions[MAIN_ID]
    assert session.started is None and session.cwd is None  # already known, not overwritten
    assert session.ended == only_session(read(MAIN)).ended
    stateless = read(MAIN, Cursor(mark.cursor.offset, mark.cursor.line, mark.cursor.check))
    assert stateless.entries == tail and stateless.sessions[MAIN_ID].started is None


def test_a_subagent_fingerprint_covers_its_sidecar(tmp_path: Path) -> None:
    agent = tmp_path / MAIN_ID / "subagents" / "agent-x.jsonl"
    agent.parent.mkdir(parents=True)
    shutil.copy(SUBAGENT, agent)
    reader = ClaudeCodeReader()
    before = reader.fingerprint(src(agent))
    (agent.parent / "agent-x.meta.json").write_text('{"description":"late"}')
    assert reader.fingerprint(src(agent)) != before
    assert only_session(read(agent)).title == "late"


SPOTTER = CC / "real_v2.1.39_spotter"

def test_a_background_task_notification_with_the_harness_s_own_line_after_it_is_not_the_owner() -> None:
    path = SPOTTER / "-home-USER-projects-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    entries = read(path).entries
    [note] = [e for e in entries if e.text.startswith("<task-notification>")]
    assert note.author == "harness"
    owner = [e.text[:40] for e in entries if e.author == "owner"]
    assert owner == ["Work on bead spotter-dov. Run bd show sp", "main was clean; fix the issues"]


def test_a_user_line_whose_origin_is_not_a_human_is_the_harness_speaking(tmp_path: Path) -> None:
    # Newer Claude Code names who wrote a user line; only origin.kind "human" is the owner typing.
    path = write_lines(tmp_path / "p" / "s.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "origin": {"kind": "human"},
         "message": {"role": "user", "content": "List files"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
         "origin": {"kind": "task-notification"},
         "message": {"role": "user", "content": "3 background agents were stopped"}},
        {"type": "user", "uuid": "u3", "parentUuid": "u2", "sessionId": "s", "origin": {"kind": "peer"},
         "message": {"role": "user", "content": "A message from another session"}},
    ])
    assert [(e.author, e.text) for e in read(path).entries] == [
        ("owner", "List files"), ("harness", "3 background agents were stopped"),
        ("harness", "A message from another session")]
    # A kind not known to be the harness's stays the owner's (the kitchen-sink fixture has "cli").
    typed = write_lines(tmp_path / "p" / "t.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "t", "origin": {"kind": "cli"},
         "message": {"role": "user", "content": "Run the linter"}}])
    assert [e.author for e in read(typed).entries] == ["owner"]


def test_the_sub_agent_claude_code_starts_to_compact_is_asked_by_the_harness_and_not_titled_by_it() -> None:
    # A real compaction agent (tests/fixtures): its prompt is Claude Code's own summary request.
    path = (SPOTTER / "-home-USER-projects-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569" / "subagents"
            / "agent-acompact-e1f845.jsonl")
    got = read(path)
    [asked] = [e for e in got.entries if e.text.startswith("Your task is to create a detailed summary")]
    assert asked.author == "harness"
    assert not any(e.author in ("owner", "agent") and e.kind == "message" and e.text.startswith("Your task")
                   for e in got.entries)
    assert all(not (s.title or "").startswith("Your task") for s in got.sessions.values())


def test_the_reason_the_owner_typed_when_refusing_a_tool_use_is_his_and_a_canned_one_is_not(
    tmp_path: Path,
) -> None:
    refused = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
               "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
               "the user said:\n")

    def result(uuid: str, call: str, text: str) -> dict[str, Any]:
        return {"type": "user", "uuid": uuid, "parentUuid": None, "sessionId": "s", "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": text,
                                         "is_error": True}]}}

    canned = "The user wants to clarify these questions.\n    This means they may"
    path = write_lines(tmp_path / "p" / "s.jsonl", [
        result("u1", "toolu_1", refused + "Use the staging bucket, not prod"),
        result("u2", "toolu_2", refused + canned),
        result("u3", "toolu_3", "The user doesn't want to proceed with this tool use. STOP what you are"),
    ])
    got = read(path).entries
    assert [e.text for e in got if e.author == "owner"] == ["Use the staging bucket, not prod"]
    assert len({e.key for e in got}) == len(got) and [e.kind for e in got].count("tool_result") == 3


def test_a_session_opened_by_a_slash_command_with_a_request_is_titled_by_the_request(tmp_path: Path) -> None:
    asked = ("<command-message>handgemacht:create-beads</command-message>\n"
             "<command-name>/handgemacht:create-beads</command-name>\n"
             "<command-args>websearch how to set up credo and dialyzer</command-args>")
    path = write_lines(tmp_path / "p" / "s.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": asked}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
         "message": {"role": "user", "content": "create the beads"}}])
    assert only_session(read(path)).title == "websearch how to set up credo and dialyzer"
    short = write_lines(tmp_path / "q" / "t.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "t", "message": {"role": "user",
         "content": "<command-name>/model</command-name>\n<command-args>opus</command-args>"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "t",
         "message": {"role": "user", "content": "create the beads"}}])
    assert only_session(read(short)).title == "create the beads"


def test_a_message_typed_while_the_agent_worked_is_the_owner_s_once_from_its_queued_attachment(
    tmp_path: Path,
) -> None:
    # Claude Code folds a message typed mid-turn into the running turn as a `queued_command` attachment, with
    # no `user` line for it (the shape the public parsers describe; the kitchen-sink fixture has the line).
    said = "also check the README please"

    def queued(uuid: str, prompt: Any, **more: Any) -> dict[str, Any]:
        return {"type": "attachment", "uuid": uuid, "parentUuid": "a1", "sessionId": "s",
                "timestamp": "2026-10-01T10:00:03.000Z",
                "attachment": {"type": "queued_command", "prompt": prompt, "commandMode": "prompt", **more}}

    path = write_lines(tmp_path / "p" / "s.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "list the files"}},
        {"type": "queue-operation", "operation": "enqueue", "content": said, "sessionId": "s"},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "on it"}]}},
        {"type": "queue-operation", "operation": "remove", "sessionId": "s"},
        queued("q1", said),
        queued("q2", [{"type": "text", "text": "and the LICENSE"}], origin={"kind": "human"}),
        queued("q3", "a message from another session", origin={"kind": "peer"}),
        {"type": "attachment", "uuid": "q4", "parentUuid": "a1", "sessionId": "s",
         "attachment": {"type": "queued_command", "prompt": "<task-notification>done</task-notification>",
                        "commandMode": "task-notification"}},
    ])
    got = read(path).entries
    assert [e.text for e in got if e.author == "owner"] == ["list the files", said, "and the LICENSE"]
    assert [(e.author, e.kind) for e in got if e.native_id in ("q3", "q4")] == [
        ("harness", "message"), ("harness", "meta")]
    # The queue line carrying the words first stays the harness's echo of them, never a second message.
    [echo] = [e for e in got if said in e.text and e.author == "harness"]
    assert ClaudeCodeReader.echo is not None and ClaudeCodeReader.echo.match(echo.text)
    assert echo.kind == "meta"


def test_a_queued_message_that_opens_the_session_titles_it(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "p" / "s.jsonl", [
        {"type": "attachment", "uuid": "q1", "parentUuid": None, "sessionId": "s",
         "attachment": {"type": "queued_command", "prompt": "fix the login test", "commandMode": "prompt"}}])
    assert only_session(read(path)).title == "fix the login test"


def test_a_subagent_sidecar_written_with_a_utf8_bom_still_names_the_child(tmp_path: Path) -> None:
    agent = tmp_path / MAIN_ID / "subagents" / "agent-x.jsonl"
    agent.parent.mkdir(parents=True)
    shutil.copy(SUBAGENT, agent)
    (agent.parent / "agent-x.meta.json").write_bytes(b'\xef\xbb\xbf{"agentType":"x","description":"wf step"}')
    result = read(agent)
    assert result.warnings == [] and only_session(result).title == "wf step"


def test_a_result_claude_code_flagged_is_error_opens_with_an_error_line_unless_it_says_so_already() -> None:
    by_line = {e.line: e for e in read(SUMMARIES).entries if e.kind == "tool_result"}
    for line in (35, 42):  # `uv run ty check` failing: is_error, its text opening with a warning
        block = json.loads(SUMMARIES.read_text().splitlines()[line - 1])["message"]["content"][0]
        content = block["content"]
        assert block["is_error"] is True
        assert by_line[line].text == "Error\n" + content
        assert "error[call-non-callable]: Object of type" in content and content.startswith("WARN ty")
    flagged = [e for e in read(EDGE).entries if e.kind == "tool_result" and e.text.startswith("Error")]
    assert [e.text for e in flagged] == ["Error: Tool execution failed with error: Command not found"]
    refused = [e for e in read(KITCHEN).entries if e.text.startswith("The user doesn't want to proceed")]
    assert refused and all(e.kind == "tool_result" for e in refused)


def test_what_a_command_the_owner_ran_in_bash_mode_printed_is_its_tool_result() -> None:
    by_line = {e.line: e for e in read(SUMMARIES).entries}
    command = by_line[6]
    assert (command.author, command.text) == ("owner", "<bash-input>uv run ty check</bash-input>")
    output = by_line[7]
    assert (output.author, output.kind, output.tool) == ("tool", "tool_result", "bash")
    assert output.text.startswith("<bash-stdout>warning[possibly-unbound-attribute]")
    assert output.text.endswith("<bash-stderr>WARN ty is pre-release software and not ready for production "
                                "use. Expect to encounter bugs, missing features, and fatal errors.\n"
                                "</bash-stderr>")
