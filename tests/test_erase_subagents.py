"""Erase follows an owner's words into the sub-agents his session started, and no further: the prompt a
parent agent gives a sub-agent quotes his message or repeats it, and the harness titles the sub-agent after
the description its task call gave; an entry of another session that only shares a native id with an erased
one keeps its words, and so does the sub-agent started with other words.

Each case was found by a probe through the CLI (2026-12-02); each runs through the CLI as the owner does and
then looks for the words in every reply and every file of the record's home (`everywhere`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_erase import entries, listed, run
from tests.test_erase_reach import everywhere

OWNER = "Investigate why the quokkaflute cache misses on cold start and report back"
SHORT = "check the quokkaflute keys"  # 16-39 characters: a copy only where it is repeated whole
OTHER = "Read src/cache.py and list every place the marmotlyre key is built, with line numbers"


def _prompt(shape: str) -> str:
    """The prompt the parent agent gives the sub-agent from the owner's message."""
    return f'The user asked: "{OWNER}". Look in src/cache.py first.' if shape == "quoted" else SHORT


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def _opencode(root: Path, said: str, prompt: str, description: str = "cold start cache",
              held: str | None = None) -> None:
    """An OpenCode store (the legacy JSON tree): the owner says `said`, the agent starts two sub-agents,
    the first with `prompt` and `description`, the second with `OTHER`; OpenCode titles each child
    "<description> (@general subagent)". `held`: a child not written yet."""
    st = root / "storage"
    _write(st / "session" / "proj1" / "ses_p.json", {
        "id": "ses_p", "title": "Cache investigation", "directory": "/w", "projectID": "proj1",
        "time": {"created": 1764000000000, "updated": 1764000009000}})
    _write(st / "message" / "ses_p" / "msg_p1.json",
           {"id": "msg_p1", "sessionID": "ses_p", "role": "user", "time": {"created": 1764000001000}})
    _write(st / "part" / "msg_p1" / "prt_p1a.json",
           {"id": "prt_p1a", "messageID": "msg_p1", "sessionID": "ses_p", "type": "text", "text": said})
    _write(st / "message" / "ses_p" / "msg_p2.json", {
        "id": "msg_p2", "sessionID": "ses_p", "role": "assistant", "modelID": "m", "providerID": "p",
        "time": {"created": 1764000002000, "completed": 1764000008000}})
    tasks = [("ses_c1", prompt, description), ("ses_c2", OTHER, "key sites")]
    for n, (child, given, desc) in enumerate(tasks):
        _write(st / "part" / "msg_p2" / f"prt_p2{n}.json", {
            "id": f"prt_p2{n}", "messageID": "msg_p2", "sessionID": "ses_p", "type": "tool",
            "callID": f"call_{n}", "tool": "task", "state": {
                "status": "completed",
                "input": {"description": desc, "prompt": given, "subagent_type": "general"},
                "output": "subagent finished", "title": desc, "metadata": {},
                "time": {"start": 1764000003000 + n, "end": 1764000007000}}})
        if child != held:
            _opencode_child(root, child, given, desc)


def _opencode_child(root: Path, child: str, given: str, desc: str) -> None:
    st = root / "storage"
    _write(st / "session" / "proj1" / f"{child}.json", {
        "id": child, "parentID": "ses_p", "title": f"{desc} (@general subagent)", "directory": "/w",
        "projectID": "proj1", "time": {"created": 1764000003500, "updated": 1764000006000}})
    for n, (role, text) in enumerate([("user", given), ("assistant", "found it in the loader")], 1):
        _write(st / "message" / child / f"msg_{child}_{n}.json", {
            "id": f"msg_{child}_{n}", "sessionID": child, "role": role, "modelID": "m", "providerID": "p",
            "time": {"created": 1764000003600 + n, "completed": 1764000005000}})
        _write(st / "part" / f"msg_{child}_{n}" / f"prt_{child}_{n}.json", {
            "id": f"prt_{child}_{n}", "messageID": f"msg_{child}_{n}", "sessionID": child, "type": "text",
            "text": text})


def _vibe(root: Path, said: str, prompt: str) -> None:
    """A Vibe session: the owner says `said`; the agent starts two sub-agents (one line, two task calls),
    the first with `prompt`, the second with `OTHER`; Vibe titles each by its first message."""
    parent = root / "logs" / "session" / "session_20261201_100000_11111111"
    calls = [{"id": f"call_{n}", "index": n, "type": "function",
              "function": {"name": "task", "arguments": json.dumps({"task": given, "agent": "explore"})}}
             for n, given in enumerate((prompt, OTHER))]
    sessions = [(parent, "11111111-aaaa-4aaa-8aaa-5c0e7a91aaaa", None, [
        {"role": "user", "content": said, "message_id": "pm1"},
        {"role": "assistant", "content": "", "message_id": "pm2", "tool_calls": calls},
        {"role": "tool", "content": "subagent done", "name": "task", "tool_call_id": "call_0"},
        {"role": "tool", "content": "subagent done too", "name": "task", "tool_call_id": "call_1"},
        {"role": "assistant", "content": "Done.", "message_id": "pm3"}])]
    for n, given in enumerate((prompt, OTHER)):
        said_there = [{"role": "user", "content": given, "message_id": f"cm{n}a"},
                      {"role": "assistant", "content": "found it in the loader", "message_id": f"cm{n}b"}]
        sessions.append((parent / "agents" / f"explore_20261201_10001{n}_2222222{n}",
                         f"2222222{n}-bbbb-4bbb-8bbb-d41f03b7bbbb", "11111111-aaaa-4aaa-8aaa-5c0e7a91aaaa",
                         said_there))
    for folder, sid, parent_id, lines in sessions:
        _write(folder / "meta.json", {
            "session_id": sid, "parent_session_id": parent_id, "start_time": "2026-12-01T10:00:00+00:00",
            "end_time": "2026-12-01T10:05:00+00:00", "environment": {"working_directory": "/w"},
            "title": str(lines[0]["content"])[:50] + "…", "title_source": "auto",
            "total_messages": len(lines)})
        (folder / "messages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _claude(root: Path, said: str, prompt: str) -> None:
    """A Claude Code session: the owner says `said`; the agent starts two sub-agents with Task calls, the
    first with `prompt`, the second with `OTHER`."""
    sid = "dddddddd-4444-4444-8444-444444444444"
    project = root / "projects" / "-w"

    def line(n: int, role: str, content: Any, node: str = "u", **extra: Any) -> dict[str, Any]:
        return {"type": role, "uuid": f"{node}{n}", "parentUuid": f"{node}{n - 1}" if n > 1 else None,
                "isSidechain": False, "sessionId": sid, "cwd": "/w", "version": "2.1.200",
                "timestamp": f"2026-12-01T10:00:{n:02d}.000Z", "message": {"role": role, "content": content},
                **extra}

    calls = [{"type": "tool_use", "id": f"t{n}", "name": "Task",
              "input": {"description": desc, "prompt": given, "subagent_type": "general-purpose"}}
             for n, (given, desc) in enumerate(((prompt, "find callers"), (OTHER, "key sites")))]
    parent = [line(1, "user", said), line(2, "assistant", calls),
              line(3, "user", [{"type": "tool_result", "tool_use_id": "t0", "content": "3 callers"},
                               {"type": "tool_result", "tool_use_id": "t1", "content": "2 sites"}])]
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in parent), encoding="utf-8")
    for n, given in enumerate((prompt, OTHER)):
        agent = f"abc12{n}"
        child = [line(1, "user", given, agent, isSidechain=True, agentId=agent),
                 line(2, "assistant", [{"type": "text", "text": "found it in the loader"}], agent,
                      isSidechain=True, agentId=agent)]
        path = project / sid / "subagents" / f"agent-{agent}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(x) + "\n" for x in child), encoding="utf-8")


HARNESSES = {"opencode": _opencode, "vibe": _vibe, "claude-code": _claude}


@pytest.mark.parametrize("shape", ["quoted", "short"])
@pytest.mark.parametrize("harness", sorted(HARNESSES))
def test_erasing_the_owner_s_message_takes_the_sub_agent_prompt_that_quotes_or_repeats_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str, shape: str
) -> None:
    root = tmp_path / harness
    HARNESSES[harness](root, OWNER if shape == "quoted" else SHORT, _prompt(shape))
    monkeypatch.setenv(f"TOTAL_RECALL_{harness.split('-')[0].upper()}_ROOT", str(root))
    run("sync", "--harness", harness)
    [parent] = [s["session"] for s in listed() if not s.get("parent")]
    [said] = [e["address"] for e in entries(parent) if e["author"] == "owner"]
    run("erase", said, "--reason", "private")
    assert everywhere("quokkaflute") == []
    # The sub-agents' own words stay, and so does the prompt the other one was given.
    children = [e for s in listed() if s.get("parent") for e in entries(s["session"])]
    assert [e["text"] for e in children if not e["erased"]].count("found it in the loader") == 2
    assert any(e["text"] == OTHER for e in children)


def test_erasing_a_tool_output_takes_the_sub_agent_prompt_of_the_task_call_that_quoted_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = "DB_PASSWORD=quokkaflute-77 in deploy/env.sh"
    _claude(tmp_path / "claude", "look at the deploy env", f"Log in with {output} and list the tables.")
    [parent] = (tmp_path / "claude" / "projects" / "-w").glob("*.jsonl")
    lines = [json.loads(x) for x in parent.read_text(encoding="utf-8").splitlines()]
    ran = [dict(lines[1], uuid="b1", message={"role": "assistant", "content": [
               {"type": "tool_use", "id": "tb", "name": "Bash", "input": {"command": "cat deploy/env.sh"}}]}),
           dict(lines[2], uuid="b2", message={"role": "user", "content": [
               {"type": "tool_result", "tool_use_id": "tb", "content": output}]})]
    parent.write_text("".join(json.dumps(x) + "\n" for x in [lines[0], *ran, *lines[1:]]), encoding="utf-8")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(tmp_path / "claude"))
    run("sync", "--harness", "claude-code")
    [result] = [e["address"] for e in entries("s1") if e["text"] == output]
    run("erase", result, "--reason", "a password")
    assert everywhere("quokkaflute") == []
    children = [e for s in listed() if s.get("parent") for e in entries(s["session"])]
    assert [e["text"] for e in children if not e["erased"]].count("found it in the loader") == 2
    assert any(e["text"] == OTHER for e in children)


@pytest.mark.parametrize("when", ["titled before the erase", "read after the erase"])
def test_erasing_a_task_call_takes_the_opencode_sub_agent_title_its_description_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    root = tmp_path / "opencode"
    description = "audit the tapirbassoon payroll export"
    _opencode(root, "look into the payroll", "Read the payroll export and list its columns", description,
              held=None if when == "titled before the erase" else "ses_c1")
    monkeypatch.setenv("TOTAL_RECALL_OPENCODE_ROOT", str(root))
    run("sync", "--harness", "opencode")
    [call] = [e["address"] for e in entries("s1") if e["kind"] == "tool_call" and "tapirbassoon" in e["text"]]
    run("erase", call, "--reason", "private")
    if when == "read after the erase":
        _opencode_child(root, "ses_c1", "Read the payroll export and list its columns", description)
    run("sync", "--harness", "opencode")
    assert everywhere("tapirbassoon") == []
    # The other sub-agent keeps the title its own call gave.
    assert "key sites (@general subagent)" in [s["title"] for s in listed()]


QUEUED = "please look at this screenshot of the xylophonequail dialog and fix it"
QUEUED_SESSION = "cccccccc-3333-4333-8333-333333333333"


def _queued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code session in which the owner queued a message with a screenshot while the agent worked
    (its queue line echoes the words without the image), synced; returns its file."""
    queued = QUEUED
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    sid = QUEUED_SESSION
    common = {"isSidechain": False, "cwd": "/w", "sessionId": sid, "version": "2.1.200"}
    lines = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-12-01T10:00:00.000Z",
         "message": {"role": "user", "content": "start working on the dialog"}},
        {"type": "queue-operation", "operation": "enqueue", "content": queued, "sessionId": sid,
         "timestamp": "2026-12-01T10:00:02.000Z"},
        {**common, "type": "attachment", "uuid": "q1", "parentUuid": "u1",
         "timestamp": "2026-12-01T10:00:04.000Z",
         "attachment": {"type": "queued_command", "prompt": [{"type": "text", "text": queued}, image],
                        "commandMode": "prompt"}},
        {"type": "mode", "mode": "plan", "sessionId": sid, "timestamp": "2026-12-01T10:00:05.000Z"},
    ]
    path = tmp_path / "claude" / "projects" / "-w" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(tmp_path / "claude"))
    run("sync", "--harness", "claude-code")
    return path


def test_erasing_a_queued_prompt_with_an_image_takes_the_queue_line_that_echoes_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _queued(tmp_path, monkeypatch)
    [said] = [e["address"] for e in entries("s1") if e["author"] == "owner" and "xylophonequail" in e["text"]]
    assert len(run("erase", said, "--reason", "private", "--json")["erased"]) == 2
    assert everywhere("xylophonequail") == []
    kept = [e["text"] for e in entries("s1") if not e["erased"]]
    assert kept == ["start working on the dialog", "mode: plan"]


def test_a_queued_prompt_with_an_image_erased_leaves_its_words_said_alone_in_a_later_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its words without the image are what its queue line echoes, in its own session; said alone in a
    # rewritten file, they are another message.
    path = _queued(tmp_path, monkeypatch)
    alone = {"isSidechain": False, "cwd": "/w", "sessionId": QUEUED_SESSION, "version": "2.1.200",
             "type": "user", "uuid": "u9", "parentUuid": "q1", "timestamp": "2026-12-01T10:09:00.000Z",
             "message": {"role": "user", "content": QUEUED}}
    rewritten = path.read_bytes().replace(b"start working on the dialog", b"start on the dialog")
    path.write_bytes(rewritten + (json.dumps(alone) + "\n").encode())
    assert run("sync", "--harness", "claude-code", "--json")["generations"] == 1
    [said] = [e["address"] for e in entries("s1") if e["author"] == "owner" and "xylophonequail" in e["text"]]
    run("erase", said, "--reason", "private")
    assert [e["text"] for e in entries("s2") if not e["erased"] and e["text"] == QUEUED] == [QUEUED]


def test_erasing_an_openclaw_message_leaves_another_session_s_message_whose_node_id_collides_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # OpenClaw's node ids are 8 hex digits: two sessions may give theirs the same one.
    folder = tmp_path / "oc" / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    monkeypatch.setenv("TOTAL_RECALL_OPENCLAW_ROOT", str(tmp_path / "oc"))
    said = {"1": "please delete the staging bucket named ferretcornet right now",
            "2": "keep the production bucket named stoatpiccolo exactly as it is"}
    for n, text in said.items():
        sid = f"0000000{n}-0000-4000-8000-000000000000"
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (
            {"type": "session", "version": 3, "id": sid, "timestamp": "2026-12-01T10:00:00.000Z",
             "cwd": "/w"},
            {"type": "message", "id": "9f3a61c2", "parentId": None, "timestamp": "2026-12-01T10:00:01.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": text}]}})), encoding="utf-8")
    run("sync", "--harness", "openclaw")
    numbers = {s["native_id"][7]: s["session"] for s in listed()}
    erased = f"{numbers['1']}#1"
    assert run("erase", erased, "--reason", "private", "--json")["erased"] == [erased]
    assert [e["text"] for e in entries(numbers["2"])] == [said["2"]]


@pytest.mark.parametrize("shape", ["quoted", "short"])
@pytest.mark.parametrize("harness", ["opencode", "claude-code"])
def test_a_sub_agent_first_read_after_the_erase_gets_no_prompt_quoting_or_repeating_the_erased_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str, shape: str
) -> None:
    # Its prompt is the erased call's: the call that gave it held the owner's words, and went as a copy.
    root = tmp_path / harness
    HARNESSES[harness](root, OWNER if shape == "quoted" else SHORT, _prompt(shape))
    children = [p for p in root.rglob("*") if p.is_file()
                and ("ses_c1" in p.as_posix() or p.name == "agent-abc120.jsonl")]  # the first sub-agent's
    kept = {p: p.read_bytes() for p in children}
    for p in children:  # the first sub-agent is written after the sync that comes before the erase
        p.unlink()
    monkeypatch.setenv(f"TOTAL_RECALL_{harness.split('-')[0].upper()}_ROOT", str(root))
    run("sync", "--harness", harness)
    [parent] = [s["session"] for s in listed() if not s.get("parent")]
    [said] = [e["address"] for e in entries(parent) if e["author"] == "owner"]
    run("erase", said, "--reason", "private")
    for p, data in kept.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    run("sync", "--harness", harness)
    assert everywhere("quokkaflute") == []
    later = [e for s in listed() if s.get("parent") for e in entries(s["session"])]
    assert [e["text"] for e in later if not e["erased"]].count("found it in the loader") == 2


def test_an_erased_message_naming_a_sibling_sub_agent_s_description_leaves_that_sub_agent_its_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The owner's words hold "key sites", the description another task call gave its own sub-agent.
    said = "Investigate the cold start misses of the quokkaflute cache and list the key sites too"
    _opencode(tmp_path / "opencode", said, "look at the cache loader")
    monkeypatch.setenv("TOTAL_RECALL_OPENCODE_ROOT", str(tmp_path / "opencode"))
    run("sync", "--harness", "opencode")
    [parent] = [s["session"] for s in listed() if not s.get("parent")]
    [message] = [e["address"] for e in entries(parent) if e["author"] == "owner"]
    run("erase", message, "--reason", "private")
    run("sync", "--harness", "opencode")
    assert "key sites (@general subagent)" in [s["title"] for s in listed()]
    assert everywhere("quokkaflute") == []
