"""Erase reaches the places a harness writes an erased text again in another form: a bookkeeping line
carrying it after a label, a tool call's arguments kept in its result's record, an agent call's prompt as its
sub-agent's first message, a fork's copy of a short message, a title cut around a tag.

Each case was found by a probe that brought the words back through the CLI (session 15); each runs through
the CLI as the owner does and then looks for the words in every reply and every file of the record's home.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.keeping_sessions import ClaudeSession
from tests.test_erase import claude, entries, found, hits, listed, run

__all__ = ["claude"]  # the fixture, imported for pytest


def _append(session: ClaudeSession, line: dict[str, Any]) -> None:
    session.n += 1
    stamp = f"2026-11-16T10:{session.n // 60 % 60:02d}:{session.n % 60:02d}.000Z"
    with session.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"sessionId": session.id, "cwd": "/srv/app", "version": "2.1.0",
                             "timestamp": stamp, **line}) + "\n")


def _turn(session: ClaudeSession, role: str, content: Any, **extra: Any) -> str:
    session.n += 1
    node = f"00000000-0000-4000-8000-{session.n:012d}"
    stamp = f"2026-11-16T10:{session.n // 60 % 60:02d}:{session.n % 60:02d}.000Z"
    line = {"type": "user" if role == "user" else "assistant", "uuid": node, "parentUuid": session.parent,
            "isSidechain": False, "sessionId": session.id, "cwd": "/srv/app", "version": "2.1.0",
            "timestamp": stamp, "message": {"role": role, "content": content}, **extra}
    with session.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    session.parent = node
    return node


def everywhere(word: str) -> list[str]:
    """Where `word` still shows: the CLI's replies, and the bytes of every file under the home."""
    shown = [f"search {h['address']}" for h in hits(word)]
    shown += [f"session {s['session']}" for s in listed() if word in json.dumps(s)]
    shown += [f"s{s['session']} {e['address']}" for s in listed() for e in entries(s["session"])
              if word in e["text"]]
    for s in listed():
        raw = run("extract-by-type", s["session"], "--type", "all", "--include-injected", "--raw", "--full",
                  "--json")
        shown += [f"s{s['session']} raw source records"] if word in json.dumps(raw) else []
    return shown + [f"file {name}" for name in found(word)]


def test_a_last_prompt_line_the_harness_writes_after_the_erase_is_recorded_erased(
    claude: ClaudeSession,
) -> None:
    prompt = "use LPpw77 for the staging db"  # shorter than a copy by words alone (40 characters)
    claude.owner(prompt).agent("Connecting.")
    run("sync")
    [said] = [e["address"] for e in entries("s1") if e["text"] == prompt]
    run("erase", said, "--reason", "a password")
    # Claude Code ends the turn with its bookkeeping: the prompt again, after a label.
    _append(claude, {"type": "last-prompt", "lastPrompt": prompt})
    _append(claude, {"type": "queue-operation", "operation": "enqueue", "content": prompt})
    run("sync")
    run("index", "--rebuild")
    assert everywhere("LPpw77") == []
    assert [e["text"].startswith("[erased") for e in entries("s1")][-2:] == [True, True]


def test_a_last_prompt_line_already_synced_goes_with_the_prompt_at_any_length(claude: ClaudeSession) -> None:
    claude.owner("pw LPq8").agent("Ok.")
    _append(claude, {"type": "last-prompt", "lastPrompt": "pw LPq8"})
    run("sync")
    [said] = [e["address"] for e in entries("s1") if e["text"] == "pw LPq8"]
    erased = run("erase", said, "--reason", "a password", "--json")["erased"]
    assert len(erased) == 2 and everywhere("LPq8") == []


KEY = "API_KEY=WRk4a4a-live-0123"


@pytest.mark.parametrize("tool, result", [
    ("Write", {"type": "create", "filePath": "/srv/app/.env", "content": f"{KEY}\nDEBUG=0\n",
               "structuredPatch": []}),
    ("Edit", {"filePath": "/srv/app/.env", "oldString": "API_KEY=old", "newString": KEY,
              "originalFile": "API_KEY=old\n", "structuredPatch": [{"lines": ["-API_KEY=old", f"+{KEY}"]}]}),
])
def test_erasing_a_file_writing_call_takes_the_copy_its_result_record_keeps(
    claude: ClaudeSession, tool: str, result: dict[str, Any]
) -> None:
    args = ({"file_path": "/srv/app/.env", "content": result.get("content")} if tool == "Write"
            else {"file_path": "/srv/app/.env", "old_string": "API_KEY=old", "new_string": KEY})
    _turn(claude, "assistant", [{"type": "tool_use", "id": "toolu_w1", "name": tool, "input": args}])
    _turn(claude, "user", [{"type": "tool_result", "tool_use_id": "toolu_w1",
                            "content": "The file /srv/app/.env has been updated."}], toolUseResult=result)
    claude.agent("Done.")
    run("sync")
    [call] = [e["address"] for e in entries("s1") if e["kind"] == "tool_call" and "WRk4a4a" in e["text"]]
    erased = run("erase", call, "--reason", "a live key", "--json")["erased"]
    assert len(erased) == 2  # the call, and its result whose record held the key
    assert everywhere("WRk4a4a") == []
    assert entries("s1")[-1]["text"] == "Done."  # the rest of the session stays


def test_erasing_a_bash_call_leaves_its_result_when_the_result_record_holds_none_of_its_arguments(
    claude: ClaudeSession,
) -> None:
    claude.tool("deploy --token BSHt0k3n-55-long-enough", "deployed 3 services")
    run("sync")
    [call] = [e["address"] for e in entries("s1") if "BSHt0k3n" in e["text"]]
    assert run("erase", call, "--reason", "a token", "--json")["erased"] == [call]
    assert any(e["text"] == "deployed 3 services" for e in entries("s1"))


def test_erasing_the_call_that_started_a_sub_agent_takes_the_prompt_it_was_given(
    claude: ClaudeSession,
) -> None:
    prompt = "Log into the vault with token SUBv4ult-998877 and list what is under /prod."
    _turn(claude, "assistant", [{"type": "tool_use", "id": "toolu_a1", "name": "Agent", "input": {
        "description": "Vault audit", "subagent_type": "general-purpose", "prompt": prompt}}])
    _turn(claude, "user", [{"type": "tool_result", "tool_use_id": "toolu_a1", "content": "3 found."}])
    folder = claude.path.parent / claude.id / "subagents"
    child = ClaudeSession(claude.root.parent / "scratch", name="child").owner(prompt).agent("3 found.")
    folder.mkdir(parents=True)
    lines = [{**json.loads(x), "sessionId": claude.id, "isSidechain": True, "agentId": "a1b2c3"}
             for x in child.path.read_text(encoding="utf-8").splitlines()]
    (folder / "agent-a1b2c3.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    run("sync")
    [call] = [e["address"] for e in entries("s1") if e["kind"] == "tool_call" and "SUBv4ult" in e["text"]]
    erased = run("erase", call, "--reason", "a vault token", "--json")["erased"]
    assert any(a.startswith("s2#") for a in erased)
    assert everywhere("SUBv4ult") == []


def _rollout(folder: Path, sid: str, said: list[str], fork: str | None = None) -> None:
    meta: dict[str, Any] = {"id": sid, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/work/cdx",
                            "originator": "codex_cli_rs", "cli_version": "0.146.0", "source": "cli"}
    if fork is not None:
        meta["forked_from_id"] = fork
    lines: list[dict[str, Any]] = [{"timestamp": "2026-05-01T10:00:00.000Z", "type": "session_meta",
                                    "payload": meta}]
    for n, text in enumerate(said):
        stamp = f"2026-05-01T1{1 if fork else 0}:00:{n:02d}.000Z"
        lines += [
            {"timestamp": stamp, "type": "event_msg", "payload": {"type": "user_message", "message": text}},
            {"timestamp": stamp, "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}},
            {"timestamp": stamp, "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Ok."}]}}]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"rollout-2026-05-01T1{1 if fork else 0}-00-00-{sid}.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


@pytest.mark.parametrize("when", ["forked before the erase", "forked after the erase"])
def test_a_fork_s_copy_of_a_short_erased_message_goes_with_it_and_its_own_words_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    folder = tmp_path / "codex" / "2026" / "05" / "01"
    parent, fork = "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
    secret = "pin is PINq8c-4417"  # 18 characters: no copy by words alone
    _rollout(folder, parent, ["hello there", secret])
    if when == "forked before the erase":
        _rollout(folder, fork, ["hello there", secret, "continue please"], parent)
    run("sync", "--harness", "codex")
    [said] = [e["address"] for e in entries("s1") if e["text"] == secret and e["author"] == "owner"]
    run("erase", said, "--reason", "a pin")
    if when == "forked after the erase":
        _rollout(folder, fork, ["hello there", secret, "continue please"], parent)
        run("sync", "--harness", "codex")
    assert everywhere("PINq8c") == []
    kept = [e["text"] for e in entries("s2") if e["author"] == "owner" and not e["erased"]]
    assert kept == ["hello there", "continue please"]


def test_a_title_cut_around_a_tag_in_the_first_prompt_goes_when_the_prompt_is_erased(
    claude: ClaudeSession,
) -> None:
    session = ClaudeSession(claude.root, name="tagged")
    session.owner("my pin is <ide_selection>x</ide_selection>TTLq2b-9911 so pay the invoice").agent("Paid.")
    run("sync")
    [number] = [s["session"] for s in listed() if s["native_id"] == session.id]
    run("erase", f"{number}#1", "--reason", "a pin")
    assert everywhere("TTLq2b") == [] and everywhere("my pin is") == []
