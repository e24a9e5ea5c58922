"""Erase reaches the places a harness writes an erased text again in another form: a bookkeeping line
carrying it after a label, a tool call's arguments kept in its result's record, an agent call's prompt as its
sub-agent's first message, a fork's copy of a short message, a title cut around a tag.

Each case was found by a probe that brought the words back through the CLI (session 15); each runs through
the CLI as the owner does and then looks for the words in every reply and every file of the record's home.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.keeping_sessions import ClaudeSession
from tests.llm_stub import Reply, Stub, completion, running_stub
from tests.test_erase import (
    SECRET,
    TOKEN,
    WORD,
    claude,
    entries,
    found,
    hits,
    home,
    listed,
    reader,
    run,
    secret_address,
)
from total_recall.llm.provider import Provider
from total_recall.mining.summaries import summarise_from, summary_cache
from total_recall.model import Address
from total_recall.record.database import Record

__all__ = ["claude", "reader"]  # the fixtures, imported for pytest


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


# -- round two: summaries, titles a harness writes later, forks' titles, repeated bookkeeping, snapshots --


def _two_blocks(claude: ClaudeSession, record: Record, stub: Stub, tmp_path: Path) -> None:
    """Block 1 over s1#1-6 quotes the secret of s1#3; block 2, over entries synced later, restates it (its
    prompt carried block 1, as every later block's does)."""
    provider = Provider.from_env(home=tmp_path, env=stub.env(), sleep=lambda _: None)
    stub.script(Reply(body=completion(f"- The owner gave the deploy token {TOKEN} (s1#3).")))
    summarise_from(record, session=1, provider=provider)
    claude.owner("Now deploy to production.").agent("Deploying.")
    run("sync")
    stub.script(Reply(body=completion(f"- Deployed with the token {TOKEN} (s1#3) (s1#8).")))
    summarise_from(record, session=1, provider=provider)


def test_erasing_an_entry_blanks_every_later_summary_block_its_words_may_have_reached(
    claude: ClaudeSession, tmp_path: Path, reader: sqlite3.Connection
) -> None:
    with running_stub() as stub, Record(home() / "record.sqlite3") as record:
        _two_blocks(claude, record, stub, tmp_path)
        assert TOKEN in stub.prompt(-1)  # block 1 went into block 2's prompt
        record.erase(Address.parse(secret_address()), "a deploy token")
        blocks = summary_cache(record, session=1, with_text=True)["blocks"]
    assert [(b["range"], b["erased_since"], b["text"]) for b in blocks] == [
        ("s1#1-6", ["s1#3"], None), ("s1#7-8", ["s1#3"], None)]
    assert found(WORD) == {}


def test_a_quarantined_entry_withholds_the_summary_blocks_written_before_and_keeps_them_out_of_prompts(
    claude: ClaudeSession, tmp_path: Path
) -> None:
    with running_stub() as stub, Record(home() / "record.sqlite3") as record:
        _two_blocks(claude, record, stub, tmp_path)
        record.quarantine(Address.parse(secret_address()), "not for windows")
        held = summary_cache(record, session=1, with_text=True)["blocks"]
        claude.owner("And roll back staging.").agent("Rolled back.")
        run("sync")
        provider = Provider.from_env(home=tmp_path, env=stub.env(), sleep=lambda _: None)
        stub.script(Reply(body=completion("- Rolled back staging (s1#10).")))
        reply = summarise_from(record, session=1, provider=provider)
        prompt = stub.prompt(-1)
        record.quarantine(Address.parse(secret_address()), undo=True)
        back = summary_cache(record, session=1, with_text=True)["blocks"]
    assert [(b["quarantined_since"], b["text"]) for b in held] == [(["s1#3"], None), (["s1#3"], None)]
    assert TOKEN not in prompt and TOKEN not in json.dumps(reply)
    assert TOKEN in back[0]["text"] and back[0]["quarantined_since"] == []


@pytest.mark.parametrize("harness", ["vibe", "openclaw"])
def test_a_title_the_harness_writes_after_the_erase_is_not_taken_from_the_erased_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str
) -> None:
    prompt = "pin is TTLq9x-4417 pay the invoice from the shared account today, the usual way"
    if harness == "vibe":
        folder = tmp_path / "vibe" / "logs" / "session" / "session_20260701_101500_aaaabbbb"
        folder.mkdir(parents=True)
        monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(tmp_path / "vibe"))
        meta = {"session_id": "aaaabbbb-2b4d-4f6a-9e31-8a7d2c4b6f10", "title": "Untitled session",
                "start_time": "2026-07-01T10:15:00+00:00", "environment": {"working_directory": "/w"}}
        (folder / "meta.json").write_text(json.dumps(meta))
        (folder / "messages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (
            {"role": "user", "content": "hello", "message_id": "m0"},
            {"role": "user", "content": prompt, "message_id": "m1"})))
    else:
        folder = tmp_path / "oc" / "agents" / "main" / "sessions"
        folder.mkdir(parents=True)
        monkeypatch.setenv("TOTAL_RECALL_OPENCLAW_ROOT", str(tmp_path / "oc"))
        (folder / "s-later.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (
            {"type": "session", "version": 3, "id": "s-later", "timestamp": "2026-05-01T10:00:00Z",
             "cwd": "/w"},
            {"type": "message", "id": "n0", "parentId": None, "timestamp": "2026-05-01T10:00:00Z",
             "message": {"role": "user", "content": [{"type": "text", "text": "hello"}]}},
            {"type": "message", "id": "n1", "parentId": "n0", "timestamp": "2026-05-01T10:00:01Z",
             "message": {"role": "user", "content": [{"type": "text", "text": prompt}]}})))
    run("sync")
    [number] = [s["session"] for s in listed() if s["harness"] == harness]
    [said] = [e["address"] for e in entries(number) if e["text"] == prompt]
    run("erase", said, "--reason", "a pin")
    if harness == "vibe":  # Vibe rewrites meta.json at the turn's end: its title, the message cut at 50
        (folder / "meta.json").write_text(json.dumps(dict(meta, title=prompt[:50] + "…")))
    else:  # OpenClaw's store labels the session by it
        (folder / "sessions.json").write_text(json.dumps({"agent:main:x": {"sessionId": "s-later",
                                                                           "label": prompt}}))
    run("sync")
    assert everywhere("TTLq9x") == []


def test_a_fork_titled_after_its_parent_loses_the_title_with_the_erased_words(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch
                                                                             ) -> None:
    # OpenCode names a fork "<title> (fork #1)" and copies its messages with new ids and no parent link.
    import shutil

    from tests.conftest import SESSIONS

    root = tmp_path / "opencode"
    shutil.copytree(SESSIONS / "opencode" / "json_storage_legacy", root)
    monkeypatch.setenv("TOTAL_RECALL_OPENCODE_ROOT", str(root))
    storage = next(p for p in root.rglob("session") if p.is_dir()).parent
    [info_file] = list((storage / "session").glob("*/*.json"))
    info = json.loads(info_file.read_text())
    sid = info["id"]
    said = next(m for f in sorted((storage / "message" / sid).glob("*.json"))
                if (m := json.loads(f.read_text()))["role"] == "user")
    part = sorted((storage / "part" / said["id"]).glob("*.json"))[0]
    words = "please rotate the key OCq4f4f-walrus on the api gateway tonight"  # a copy by words: 40+
    part.write_text(json.dumps(dict(json.loads(part.read_text()), text=words)))
    info["title"] = words
    info_file.write_text(json.dumps(info))
    fork = dict(info, id=sid + "fork", title=f"{words} (fork #1)")
    (info_file.parent / f"{fork['id']}.json").write_text(json.dumps(fork))
    (storage / "message" / fork["id"]).mkdir()
    copy = dict(said, id=said["id"] + "f", sessionID=fork["id"])
    (storage / "message" / fork["id"] / f"{copy['id']}.json").write_text(json.dumps(copy))
    (storage / "part" / copy["id"]).mkdir()
    (storage / "part" / copy["id"] / "prt_copy.json").write_text(json.dumps(
        dict(json.loads(part.read_text()), id="prt_copy", messageID=copy["id"], sessionID=fork["id"])))
    # The fork goes on: an owner's message of its own, so it is not left with nothing but the erased copy.
    own = dict(said, id=said["id"] + "g", sessionID=fork["id"], time={"created": said["time"]["created"] + 5})
    (storage / "message" / fork["id"] / f"{own['id']}.json").write_text(json.dumps(own))
    (storage / "part" / own["id"]).mkdir()
    (storage / "part" / own["id"] / "prt_own.json").write_text(json.dumps(
        {"id": "prt_own", "messageID": own["id"], "type": "text", "text": "and the staging gateway too"}))
    run("sync")
    titles = sorted(s["title"] for s in listed())
    assert titles == sorted([words, f"{words} (fork #1)"]), titles
    [address] = [e["address"] for s in listed() if s["native_id"] == sid for e in entries(s["session"])
                 if e["text"] == words]
    assert len(run("erase", address, "--reason", "private", "--json")["erased"]) == 2  # and the fork's copy
    run("sync")
    assert everywhere("OCq4f4f") == []


def test_a_short_bookkeeping_line_the_harness_writes_again_stays_erased(claude: ClaudeSession) -> None:
    _append(claude, {"type": "agent-name", "agentName": "AGq3e-falcon"})
    run("sync")
    [line] = [e["address"] for e in entries("s1") if "AGq3e" in e["text"]]
    run("erase", line, "--reason", "private")
    _append(claude, {"type": "agent-name", "agentName": "AGq3e-falcon"})  # Claude Code writes it again
    run("sync")
    assert everywhere("AGq3e") == []


def test_erase_removes_the_store_copy_a_killed_sync_left_under_the_home(claude: ClaudeSession) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    left = home() / "snapshots" / f"opencode-{dead.stdout.strip()}-x1y2"
    left.mkdir(parents=True)
    (left / "opencode.db").write_text(f"a copy of the store holding {SECRET}")
    done = run("erase", secret_address(), "--reason", "a deploy token", "--json")
    assert done["snapshots_removed"] == 1 and not left.exists()
    assert found() == {}


# -- what erase must not take: words that are no copy (a review of the rules above found each) --


def test_the_same_short_words_erased_in_two_sessions_stay_erased_in_each_one_s_later_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = ClaudeSession(tmp_path / "cc", name="one"), ClaudeSession(tmp_path / "cc", name="two")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(first.root))
    for session in (first, second):
        session.owner("use LPq77 for the db").agent("Connecting.")
    run("sync")
    for s in listed():
        run("erase", f"{s['session']}#1", "--reason", "a password")
    _append(first, {"type": "last-prompt", "lastPrompt": "use LPq77 for the db"})
    run("sync")
    assert everywhere("LPq77") == []


def test_a_copy_in_a_fork_of_a_fork_goes_and_the_parent_keeps_its_own_words_when_a_fork_s_are_erased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    folder = tmp_path / "codex" / "2026" / "05" / "01"
    root, child, grandchild = ("33333333-3333-4333-8333-33333333333" + c for c in "abc")
    secret, again = "pin is PINq9d-4417", "ok, now run the full test suite"
    _rollout(folder, root, ["hello there", secret, again])
    _rollout(folder, child, ["hello there", secret, again, "now the docs please"], root)
    _rollout(folder, grandchild, ["hello there", secret, again, "now the docs please", "and ship"], child)
    run("sync", "--harness", "codex")
    numbers = {s["native_id"]: s["session"] for s in listed()}
    [said] = [e["address"] for e in entries(numbers[root]) if e["text"] == secret and e["author"] == "owner"]
    run("erase", said, "--reason", "a pin")
    assert everywhere("PINq9d") == []
    # The child's own line erased: the root's and the grandchild's same words were typed, or copied, apart.
    [line] = [e["address"] for e in entries(numbers[child]) if e["text"] == again and e["author"] == "owner"]
    erased = run("erase", line, "--reason", "not needed", "--json")["erased"]
    assert not any(a.startswith(numbers[root] + "#") for a in erased)
    assert [e["text"] for e in entries(numbers[root]) if e["author"] == "owner"][-1] == again


def test_erasing_a_sub_agent_session_leaves_its_parent_s_own_words_that_say_the_same(
    claude: ClaudeSession,
) -> None:
    claude.agent("Let me look at the failing test first.")
    folder = claude.path.parent / claude.id / "subagents"
    folder.mkdir(parents=True)
    child = ClaudeSession(claude.root.parent / "scratch", name="child").owner("Search for credentials.")
    child.agent("Let me look at the failing test first.").agent("Found DB_PASSWORD=Xq9 in deploy/env.sh")
    lines = [{**json.loads(x), "sessionId": claude.id, "isSidechain": True, "agentId": "a1b2c3"}
             for x in child.path.read_text(encoding="utf-8").splitlines()]
    (folder / "agent-a1b2c3.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    run("sync")
    [sub] = [s["session"] for s in listed() if s["session"] != "s1"]
    erased = run("erase", sub, "--reason", "held a password", "--json")["erased"]
    assert all(a.startswith(sub + "#") for a in erased)
    assert entries("s1")[-1]["text"] == "Let me look at the failing test first."


def test_erasing_a_one_word_answer_leaves_the_harness_s_state_lines_that_say_the_word(
    claude: ClaudeSession,
) -> None:
    _append(claude, {"type": "mode", "mode": "plan"})
    claude.agent("As a plan or as a patch?").owner("plan")
    run("sync")
    [answer] = [e["address"] for e in entries("s1") if e["text"] == "plan" and e["author"] == "owner"]
    assert run("erase", answer, "--reason", "typo", "--json")["erased"] == [answer]
    _append(claude, {"type": "mode", "mode": "plan"})
    run("sync")
    assert [e["text"] for e in entries("s1") if e["author"] == "harness"] == ["mode: plan", "mode: plan"]


def test_erasing_a_read_call_leaves_the_file_it_returned_though_its_record_names_the_path(
    claude: ClaudeSession,
) -> None:
    path = "/srv/acme-corp-client/settings.py"
    _turn(claude, "assistant", [{"type": "tool_use", "id": "toolu_r1", "name": "Read",
                                 "input": {"file_path": path}}])
    body = "TIMEZONE = 'UTC'\n"
    _turn(claude, "user", [{"type": "tool_result", "tool_use_id": "toolu_r1", "content": body}],
          toolUseResult={"type": "text", "file": {"filePath": path, "content": body}})
    run("sync")
    [call] = [e["address"] for e in entries("s1") if e["kind"] == "tool_call" and "acme" in e["text"]]
    assert run("erase", call, "--reason", "a client's name", "--json")["erased"] == [call]
    assert any(e["text"] == "TIMEZONE = 'UTC'\n" for e in entries("s1"))


def test_erasing_words_that_hold_a_branch_or_user_name_leaves_the_session_s_meta(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "vibe" / "logs" / "session" / "session_20260701_101500_ccccdddd"
    folder.mkdir(parents=True)
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(tmp_path / "vibe"))
    meta = {"session_id": "ccccdddd-2b4d-4f6a-9e31-8a7d2c4b6f10", "title": "Changelog",
            "start_time": "2026-07-01T10:15:00+00:00", "environment": {"working_directory": "/w"},
            "git_branch": "main", "username": "user"}
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "messages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (
        {"role": "user", "content": "keep the changelog maintained by the user", "message_id": "m1"},
        {"role": "assistant", "content": "Will do.", "message_id": "m2"})))
    run("sync")
    run("erase", "s1#1", "--reason", "private")
    run("sync")
    # The session's meta is kept for the observer and the filters, shown by no command: read as it is stored.
    db = sqlite3.connect(f"file:{home() / 'record.sqlite3'}?mode=ro", uri=True)
    [(branch, user)] = db.execute("SELECT json_extract(meta, '$.git_branch'), "
                                  "json_extract(meta, '$.username') FROM sessions").fetchall()
    db.close()
    assert (branch, user) == ("main", "user")
