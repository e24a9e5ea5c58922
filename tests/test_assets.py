"""Instant Recall's core: the asset index and the push, over a Claude Code config root and sessions
written in its native JSONL, synced into a temporary record."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from total_recall.assets import Setup, assets, mute, pointers, push, rebuild, search_assets, unmute
from total_recall.assets.corrections import called_names
from total_recall.erasure import erase
from total_recall.errors import AddressError
from total_recall.indexes import vectors
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli
from total_recall.syncing import sync

SECRET_PASSWORD = "hunter2-Secret-pw-77"
SECRET_TOKEN = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
SECRET_BEARER = "bearerValue0123456789abcdef"
EXE = Path(sys.executable).parent / "total-recall"


class Session:
    """One Claude Code session file (optionally a sub-agent's) under `root/projects`."""

    def __init__(self, root: Path, name: str, cwd: str, parent: Session | None = None, day: int = 1) -> None:
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
        self.cwd = cwd
        folder = root / "projects" / ("-" + cwd.strip("/").replace("/", "-"))
        if parent is None:
            self.path = folder / f"{self.id}.jsonl"
        else:
            self.id = "agent-" + self.id[:8]
            self.path = folder / parent.id / "subagents" / f"{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.sid = parent.id if parent is not None else self.id
        self.sidechain = parent is not None
        self.last: str | None = None
        self.n = 0
        self.day = day

    def _line(self, kind: str, message: dict[str, Any]) -> None:
        self.n += 1
        node = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.path}/{self.n}"))
        line = {"parentUuid": self.last, "isSidechain": self.sidechain, "type": kind, "message": message,
                "uuid": node, "sessionId": self.sid, "cwd": self.cwd, "version": "2.1.0",
                "timestamp": f"2026-11-{self.day:02d}T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z"}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        self.last = node

    def owner(self, text: str) -> Session:
        self._line("user", {"role": "user", "content": text})
        return self

    def agent(self, text: str) -> Session:
        self._line("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]})
        return self

    def call(self, tool: str, args: dict[str, Any], output: str = "ok", failed: bool = False) -> Session:
        call = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.path}/{self.n}').hex[:12]}"
        self._line("assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": call, "name": tool, "input": args}]})
        self._line("user", {"role": "user", "content": [
            {"tool_use_id": call, "type": "tool_result", "content": output, "is_error": failed}]})
        return self

    def bash(self, command: str, output: str = "ok") -> Session:
        return self.call("Bash", {"command": command}, output)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A config root (skills, a command, an agent, a malformed SKILL.md, an MCP server) and a history."""
    root = tmp_path / ".claude"
    write(root / "skills" / "portal-relay" / "SKILL.md",
          "---\nname: portal-relay\ndescription: Relays commands to a logged-in browser session. Use when a "
          "site needs the owner's own login.\n---\n# Portal relay\nStart the relay, then send commands.\n")
    write(root / "skills" / "broken" / "SKILL.md", "---\nname: broken\nthis line is not a key\n")
    write(root / "commands" / "release-notes.md",
          "---\ndescription: Draft release notes from the merged pull requests\n---\nRead the log.\n")
    write(root / "agents" / "code-reviewer.md",
          "---\nname: code-reviewer\ndescription: Reviews a diff for bugs and style, for use before a merge\n"
          "---\nYou review code.\n")
    write(tmp_path / ".claude.json", json.dumps({"mcpServers": {"ticket-tracker": {
        "command": "npx", "args": ["tracker-mcp", "--api-key", SECRET_TOKEN],
        "env": {"TRACKER_TOKEN": SECRET_TOKEN}}}}))
    project = tmp_path / "app"
    other = tmp_path / "other"
    write(project / ".claude" / "skills" / "db-snapshot" / "SKILL.md",
          "---\nname: db-snapshot\ndescription: Takes a snapshot of the staging database\n---\n")

    main = Session(root, "main", str(project))
    main.owner("download last quarter's report from the supplier portal")
    main.agent("I can't reach the supplier portal from here, it needs a login.")
    main.owner("you have the portal-relay skill for that")
    main.call("Skill", {"skill": "portal-relay"}, "relay started")
    main.owner("make a script that rotates the nginx logs")
    script = "#!/bin/sh\n# Rotate the nginx logs and compress the old ones\nlogrotate\n"
    main.call("Write", {"file_path": f"{project}/rotate_logs.sh", "content": script})
    main.bash(f"sh {project}/rotate_logs.sh", "rotated 3 files")
    main.owner("check the camera on the lab machine")
    main.bash("ssh -i ~/.ssh/lab_ed25519 pi@10.0.0.42 'v4l2-ctl --list-devices'", "/dev/video0")
    main.bash(f"sshpass -p {SECRET_PASSWORD} ssh pi@10.0.0.42 uptime", "up 3 days")
    main.bash(f"curl -H 'Authorization: Bearer {SECRET_BEARER}' http://10.0.0.42:8080/snapshot", "jpeg")
    main.owner("the lab machine is 10.0.0.42, its password is in the vault item lab-pi")
    main.agent("Let's go with postgres for the session cache store.")
    main.agent("Switching to redis for the session cache store instead.")
    main.call("Write", {"file_path": f"{project}/notes/plan.md", "content": "# Plan\nfirst draft\n"})
    main.call("Write", {"file_path": f"{project}/notes/plan.md", "content": "# Plan\nsecond draft\n"})
    main.bash("python train.py --epochs 40 --lr 3e-4 --warmup 500", "loss 0.12")
    main.owner("please don't mention the code-reviewer agent anymore")

    later = Session(root, "later", str(project), day=3)
    later.owner("train it again with the setup we used last time")

    elsewhere = Session(root, "elsewhere", str(other))
    elsewhere.owner("write a script that cleans the gpu cache")
    elsewhere.call("Write", {"file_path": f"{other}/gpu_clean.py", "content": "# Clean the gpu cache\n"})
    elsewhere.bash(f"python {other}/gpu_clean.py", "freed")

    sub = Session(root, "sub", str(project), parent=main, day=2)
    sub.owner("look for the cleanup helpers")

    record = Record(tmp_path / "home" / "record.sqlite3")
    report = sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    assert report.errors == []
    built = rebuild(record, {"claude-code": root})
    sessions = {s.native_id: s.number for s in record.sessions()}
    yield {"record": record, "report": built, "root": root, "tmp": tmp_path, "main": main, "later": later,
           "sessions": sessions, "sub": sessions[sub.id], "project": str(project), "other": str(other)}
    record.close()


def by_name(record: Record) -> dict[str, Any]:
    return {a.name: a for a in assets(record)}


def test_discovery_indexes_each_kind_and_warns_of_a_malformed_skill_by_path(owner: dict[str, Any]) -> None:
    found = by_name(owner["record"])
    kinds = {a.kind for a in found.values()}
    assert {"skill", "command", "agent", "mcp_server", "tool", "machine", "decision", "document",
            "approach"} <= kinds
    assert found["portal-relay"].kind == "skill"
    assert found["portal-relay"].source.endswith("skills/portal-relay/SKILL.md")
    assert found["release-notes"].kind == "command" and found["code-reviewer"].kind == "agent"
    assert found["db-snapshot"].scope == owner["project"]
    assert "broken" not in found
    assert any("broken/SKILL.md" in w and "malformed" in w for w in owner["report"].warnings)


def test_each_key_kind_keeps_where_it_came_from(owner: dict[str, Any]) -> None:
    relay = by_name(owner["record"])["portal-relay"]
    assert {k.text for k in relay.keys.names} >= {"portal-relay"}
    assert all(k.path and k.path.endswith("SKILL.md") for k in relay.keys.names)
    assert any("logged-in browser" in k.text for k in relay.keys.topics)
    uses = {k.text: k for k in relay.keys.uses}
    assert any(k.origin == "description" and "site needs" in k.text for k in uses.values())
    corrected = uses["download last quarter's report from the supplier portal"]
    main = owner["sessions"][owner["main"].id]
    assert corrected.origin in ("correction", "helped") and corrected.address == f"s{main}#1"
    tool = by_name(owner["record"])["rotate_logs.sh"]
    assert tool.kind == "tool" and tool.source.startswith("s")
    assert "Rotate the nginx logs" in tool.description


def test_a_request_sharing_no_word_with_the_description_reaches_the_skill_through_its_use_key(
        owner: dict[str, Any]) -> None:
    result = push(owner["record"], "grab the invoice PDF off the supplier portal please")
    assert result.pointers and result.pointers[0].name == "portal-relay"
    assert result.pointers[0].why in ("use", "overlay")
    assert result.tokens > 0 and all(len(p.line) < 400 for p in result.pointers)
    topic_only = push(owner["record"], "grab the invoice PDF off the supplier portal please",
                      setup=Setup.TOPIC)
    assert all(p.name != "portal-relay" for p in topic_only.pointers)


def test_a_named_asset_comes_first_whatever_its_score(owner: dict[str, Any]) -> None:
    result = push(owner["record"], "the weather is nice, and rotate_logs.sh exists too")
    assert result.pointers[0].name == "rotate_logs.sh" and result.pointers[0].why == "named"
    below = push(owner["record"], "the weather is nice, and rotate_logs.sh exists too", setup=Setup.CO_ACCESS)
    assert all(p.why != "named" for p in below.pointers)


def test_what_the_owner_called_an_asset_since_the_last_rebuild_names_it_on_the_next_push(
        owner: dict[str, Any]) -> None:
    record, later = owner["record"], owner["later"]
    elsewhere = Session(owner["root"], "elsewhere-later", owner["other"], day=4)
    elsewhere.owner("summarize what's open for the standup")
    elsewhere.agent("I can't see any of that from here.")
    elsewhere.owner("didn't we solve this with the tracker already?")
    elsewhere.call("mcp__ticket-tracker__list", {"state": "open"})
    later.owner("free some disk space on the web box")
    later.agent("Shall I write a cleanup script?")
    later.owner("isn't that what the log rotator is for?")
    later.bash(f"sh {owner['project']}/rotate_logs.sh", "rotated 2 files")
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    # no rebuild: the overlay reads the run of a script too, and "already" is no part of the name
    for asked, name in (("weekly report of the login bugs, via the tracker", "ticket-tracker"),
                        ("the release is friday; the log rotator should run first", "rotate_logs.sh")):
        first = push(record, asked, meaning=False).pointers[0]
        assert (first.name, first.why) == (name, "named")
    sub = push(record, "weekly report of the login bugs, via the tracker", session=owner["sub"],
               meaning=False)
    assert all(p.why != "named" for p in sub.pointers)  # said in a project out of the sub-agent's scope


def test_a_name_the_owner_said_is_cut_at_its_kind_word_and_before_a_stop_word() -> None:
    assert called_names("didn't we solve this with the editor already?") == ["editor already", "the editor"]
    assert called_names("nope, the notion skill covers this. try it") == ["notion skill", "the notion"]
    assert called_names("isn't that what the log cleanup script is for?") == ["log cleanup script",
                                                                               "log cleanup"]
    assert called_names("use the script") == []


def test_a_push_reads_the_same_from_memory_as_from_sql_and_drops_what_was_erased_since(
        owner: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pointers, "HELD_KEYS", 0)  # this small index is held too
    record = owner["record"]
    asked = ["grab the invoice PDF off the supplier portal please", "rotate the nginx logs",
             "take a snapshot of the staging database", "clean the gpu cache"]
    first = [push(record, a, meaning=False) for a in asked]  # the first push of the build goes by SQL
    again = [push(record, a, meaning=False) for a in asked]  # the others by the postings held in memory
    assert again == first and any(p.pointers for p in first)
    assert any(held is not None for held in pointers._postings.values())
    tool = by_name(record)["rotate_logs.sh"]
    erase(record, tool.source, "gone")
    after = push(record, "rotate the nginx logs", meaning=False)
    assert all(p.name != "rotate_logs.sh" for p in after.pointers)


def test_an_unrelated_request_pushes_nothing(owner: dict[str, Any]) -> None:
    assert push(owner["record"], "what is the capital of Australia?").pointers == []
    assert push(owner["record"], "").pointers == []


def test_a_machine_is_kept_with_where_its_login_lives_and_no_secret_is_stored(owner: dict[str, Any]) -> None:
    machine = by_name(owner["record"])["10.0.0.42"]
    assert "key file ~/.ssh/lab_ed25519" in machine.description
    assert "lab machine" in {k.text for k in machine.keys.names}
    dumped = json.dumps([a.__repr__() for a in assets(owner["record"])])
    for table in ("assets", "asset_keys", "asset_terms", "asset_builds", "asset_mutes"):
        dumped += json.dumps([list(r) for r in owner["record"].execute(f"SELECT * FROM {table}")])
    for secret in (SECRET_PASSWORD, SECRET_TOKEN, SECRET_BEARER):
        assert secret not in dumped
    result = push(owner["record"], "is the camera on the lab machine still working?")
    assert result.pointers[0].name == "10.0.0.42"


def test_a_superseded_decision_and_an_older_document_version_are_not_pushed_as_current(
        owner: dict[str, Any]) -> None:
    decisions = [a for a in assets(owner["record"], "decision") if "session cache" in a.name]
    assert [d.current for d in decisions] == [False, True]
    result = push(owner["record"], "which store holds the session cache: postgres or redis?")
    assert all(p.name != decisions[0].name for p in result.pointers)
    assert any(p.name == decisions[1].name for p in result.pointers)
    doc = by_name(owner["record"])["plan.md"]
    assert doc.kind == "document"
    main = owner["sessions"][owner["main"].id]
    writes = [e for e in owner["record"].entries(__import__("total_recall.model").model.Address(main))
              if e.tool == "Write" and "plan.md" in e.text]
    assert doc.source == writes[-1].address


def test_a_document_s_newest_version_is_the_last_written_whatever_order_its_sessions_sync_in(
        owner: dict[str, Any]) -> None:
    record, root, project = owner["record"], owner["root"], owner["other"]
    newer = Session(root, "pricing-newer", project, day=20)
    newer.owner("update the pricing page").call(
        "Write", {"file_path": f"{project}/pricing.md", "content": "# Pricing\nteam plan 12 EUR\n"})
    sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    older = Session(root, "pricing-older", project, day=5)  # found and synced after the newer one
    for draft in ("free plan only", "team plan 9 EUR"):
        older.owner("write the pricing page").call(
            "Write", {"file_path": f"{project}/pricing.md", "content": f"# Pricing\n{draft}\n"})
    sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    rebuild(record, {"claude-code": root})
    doc = by_name(record)["pricing.md"]
    assert doc.kind == "document" and "written 3 times" in doc.description
    number = next(s.number for s in record.sessions() if s.native_id == newer.id)
    assert doc.source.startswith(f"s{number}#")


def test_the_later_decision_by_time_is_current_whatever_order_its_sessions_sync_in(
        owner: dict[str, Any]) -> None:
    record, root, project = owner["record"], owner["root"], owner["other"]
    Session(root, "queue-later", project, day=20).owner("the background jobs keep timing out").agent(
        "Switching to RQ for the background jobs; the Celery workers are dropped.")
    sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    Session(root, "queue-earlier", project, day=5).owner("where should the background jobs run?").agent(
        "Let's go with Celery workers and Redis for the background jobs.")  # found and synced later
    sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    rebuild(record, {"claude-code": root})
    taken = {d.description[:14]: d.current for d in assets(record, "decision") if "jobs" in d.description}
    assert taken == {"Switching to R": True, "Let's go with ": False}


def test_the_owner_s_own_decisions_are_assets_and_the_later_one_on_a_subject_is_current(
        owner: dict[str, Any]) -> None:
    record, root, project = owner["record"], owner["root"], owner["other"]
    Session(root, "staging-first", project, day=5).owner(
        "ok, final call. Decided: staging deploys use blue-green with two colour pools.").agent("Noted.")
    Session(root, "staging-later", project, day=9).owner(
        "Decided: staging deploys switch to canary rollouts at five percent of traffic.").agent("Noted.")
    Session(root, "not-decisions", project, day=10).owner(
        "have we decided how the preview apps get their database?").agent("Not yet.").owner(
        "we haven't decided on the cache eviction either; let's use the portal-relay for the invoices")
    sync(record, ["claude-code"], roots={"claude-code": root / "projects"})
    rebuild(record, {"claude-code": root})
    taken = {" ".join(d.description.split()[:4]): d.current for d in assets(record, "decision")
             if d.scope == project}
    assert taken == {"Decided: staging deploys use": False, "Decided: staging deploys switch": True}
    found = search_assets(record, "staging deploys", cwd=project)
    decided = [p for p in found if p.kind == "decision"]
    assert [p.name for p in decided] == ["Decided: staging deploys switch to canary rollouts at five…"]
    # its pointer says what was decided once, then where: the name is the index's cut of the same text
    assert decided[0].line == "Decided: staging deploys switch to canary rollouts at five percent of " \
                              f"traffic. — {decided[0].source}"


def test_a_run_the_owner_points_back_to_becomes_an_approach(owner: dict[str, Any]) -> None:
    approach = next(a for a in assets(owner["record"], "approach"))
    assert "train.py --epochs 40" in approach.description
    assert any("setup we used" in k.text for k in approach.keys.uses)
    result = push(owner["record"], "train the model again with the setup we used")
    assert result.pointers and result.pointers[0].kind == "approach"


def test_an_erased_source_never_counts_and_erase_takes_its_words_out_of_the_index(
        owner: dict[str, Any]) -> None:
    record = owner["record"]
    main = owner["sessions"][owner["main"].id]
    erase(record, f"s{main}#1", "private")
    relay = by_name(record)["portal-relay"]
    assert all("quarter" not in k.text for k in relay.keys.uses)
    words = json.dumps([list(r) for r in record.execute("SELECT * FROM asset_keys")])
    assert "last quarter" not in words
    tool = by_name(record)["rotate_logs.sh"]
    write_entry = tool.source
    erase(record, write_entry, "gone")
    assert "rotate_logs.sh" not in by_name(record)
    assert all(p.name != "rotate_logs.sh" for p in push(record, "rotate_logs.sh please").pointers)


def test_a_quarantined_source_never_counts_until_released(owner: dict[str, Any]) -> None:
    record = owner["record"]
    from total_recall.model import Address

    tool = by_name(record)["rotate_logs.sh"]
    sources = [a for a in record.execute(
        "SELECT e.session, e.seq FROM asset_sources s JOIN entries e ON e.id = s.entry "
        "JOIN assets a ON a.id = s.asset WHERE a.name = 'rotate_logs.sh'")]
    for session, seq in sources:
        record.quarantine(Address(session, seq), "not now")
    assert all(p.name != "rotate_logs.sh" for p in push(record, "run rotate_logs.sh").pointers)
    assert "rotate_logs.sh" not in by_name(record)
    for session, seq in sources:
        record.quarantine(Address(session, seq), undo=True)
    assert push(record, "run rotate_logs.sh").pointers[0].name == tool.name


def test_the_owner_mutes_an_asset_and_lifts_it(owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "review this diff for bugs before the merge, code-reviewer agent"
    assert all(p.name != "code-reviewer" for p in push(record, asked).pointers)
    owner["later"].owner("you can mention code-reviewer again")
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    assert push(record, asked).pointers[0].name == "code-reviewer"  # the overlay: no rebuild
    mute(record, "release notes")
    assert all(p.name != "release-notes" for p in push(record, "draft the release-notes command").pointers)
    unmute(record, "release-notes")
    assert push(record, "draft the release-notes command").pointers[0].name == "release-notes"


def test_a_sub_agent_sees_only_its_parents_project_and_global_assets(owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "clean the gpu cache with gpu_clean.py"
    assert push(record, asked).pointers[0].name == "gpu_clean.py"
    hidden = push(record, asked, session=owner["sub"])
    assert all(p.name != "gpu_clean.py" for p in hidden.pointers)
    assert set(vars(type(hidden))) >= {"pointers", "tokens"} and not hasattr(hidden, "hidden")
    seen = {a.name for a in assets(record, session=owner["sub"])}
    assert "gpu_clean.py" not in seen and {"portal-relay", "db-snapshot", "rotate_logs.sh"} <= seen
    assert all(p.name != "gpu_clean.py" for p in search_assets(record, asked, session=owner["sub"]))


def test_a_correction_counts_on_the_next_push_without_a_rebuild_and_survives_one(
        owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "fill in the quarterly vendor spreadsheet for accounting"
    # by words (by meaning, a quarterly vendor task already sits near the supplier-portal request)
    assert all(p.name != "portal-relay" for p in push(record, asked, meaning=False).pointers)
    owner["later"].owner("fill in the quarterly vendor spreadsheet for accounting")
    owner["later"].agent("I have no access to that spreadsheet.")
    owner["later"].owner("use the portal-relay skill")
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    first = push(record, asked).pointers[0]
    assert first.name == "portal-relay" and first.why == "overlay"
    rebuild(record, {"claude-code": owner["root"]})
    again = push(record, asked).pointers[0]
    assert again.name == "portal-relay" and again.why in ("use", "named")


def test_bad_input_is_answered_or_refused_clearly(owner: dict[str, Any]) -> None:
    record = owner["record"]
    # only the message's head is read: a name a megabyte further on is not (its cost: bench/ownership.py)
    huge = "what is the capital of Australia? " + "x " * 500_000 + "use the portal-relay skill"
    assert push(record, huge).pointers == []
    assert push(record, huge[-200:]).pointers[0].name == "portal-relay"
    with pytest.raises(AddressError, match="s999"):
        push(record, "anything", session=999)
    assert push(record, "   ").pointers == []


@pytest.mark.parametrize("said", ["leave the ticket-tracker out of it from now on",
                                  "ticket-tracker is dead to me, quit recommending it",
                                  "I'm done with ticket-tracker"])
def test_a_mute_in_words_no_pattern_lists_hides_the_asset_before_and_after_a_rebuild(
        owner: dict[str, Any], said: str) -> None:
    record = owner["record"]
    asked = "open a ticket in ticket-tracker for the login bug"
    assert push(record, asked).pointers[0].name == "ticket-tracker"
    owner["later"].owner(said)
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    assert all(p.name != "ticket-tracker" for p in push(record, asked).pointers)
    rebuild(record, {"claude-code": owner["root"]})
    assert all(p.name != "ticket-tracker" for p in push(record, asked).pointers)


def test_a_sub_agents_push_equals_a_twin_records_that_never_held_the_other_project(
        owner: dict[str, Any]) -> None:
    record, tmp = owner["record"], owner["tmp"]
    # a path as long, of the same characters: a pointer's line is cut to its tokens
    twin_home = tmp.with_name(tmp.name[:-1] + ("8" if tmp.name.endswith("9") else "9"))
    twin_root = twin_home / ".claude"
    shutil.copytree(owner["root"], twin_root, ignore=shutil.ignore_patterns("*other*"))
    shutil.copy(tmp / ".claude.json", twin_home / ".claude.json")  # the global MCP server, held by both
    assert not list(twin_root.glob("projects/*other*"))
    twin = Record(twin_home / "home" / "record.sqlite3")
    sync(twin, ["claude-code"], roots={"claude-code": twin_root / "projects"})
    rebuild(twin, {"claude-code": twin_root})
    sub_twin = next(s.number for s in twin.sessions() if s.relation == "subagent")
    pushed = 0
    for asked in ("clean the gpu cache with gpu_clean.py", "write a script for the cache",
                  "rotate the nginx logs", "download the report from the supplier portal",
                  "take a snapshot of the staging database"):
        got = push(record, asked, session=owner["sub"], meaning=False)
        ref = push(twin, asked, session=sub_twin, meaning=False)
        pushed += len(got.pointers)
        assert [(p.name, p.score, p.why, p.line) for p in got.pointers] \
            == [(p.name, p.score, p.why, p.line.replace(str(twin_home), str(tmp))) for p in ref.pointers]
        assert got.tokens == ref.tokens
        # by meaning: the same pointers in the same order (the cosines are exact; the word half of a fused
        # score carries the word statistics' last digits, which the rounding above hides)
        meant, twin_meant = push(record, asked, session=owner["sub"]), push(twin, asked, session=sub_twin)
        assert [(p.name, p.why, p.line) for p in meant.pointers] \
            == [(p.name, p.why, p.line.replace(str(twin_home), str(tmp))) for p in twin_meant.pointers]
    assert pushed >= 3
    twin.close()


def test_a_correction_in_no_known_phrasing_ties_the_earlier_request_to_what_was_used(
        owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "compile the changelog for the sprint demo"
    assert all(p.name != "release-notes" for p in push(record, asked).pointers)
    later = owner["later"]
    later.owner("compile the changelog for the sprint demo")
    later.agent("I could write something from scratch. Shall I?")
    later.owner("lean on release-notes here")
    later.call("SlashCommand", {"command": "/release-notes"}, "drafted")
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    assert push(record, asked).pointers[0].name == "release-notes"  # the overlay
    rebuild(record, {"claude-code": owner["root"]})
    found = push(record, asked).pointers[0]
    assert found.name == "release-notes" and found.why == "use"
    uses = {k.text: k.origin for k in by_name(record)["release-notes"].keys.uses}
    assert uses.get("compile the changelog for the sprint demo") == "correction"
    assert "lean on release-notes here" not in uses


needs_vectors = pytest.mark.skipif(not vectors.available(), reason="the vectors extra is not installed")


@needs_vectors
def test_a_rebuild_embeds_each_use_key_and_asset_and_erase_takes_the_vectors_out_of_the_file(
        owner: dict[str, Any]) -> None:
    record = owner["record"]
    main = owner["sessions"][owner["main"].id]
    counts = record.execute("SELECT (SELECT COUNT(*) FROM asset_vectors WHERE key IS NULL), "
                            "(SELECT COUNT(*) FROM assets), (SELECT COUNT(*) FROM asset_vectors v JOIN "
                            "asset_keys k ON k.id = v.key WHERE k.field = 'use'), (SELECT COUNT(*) FROM "
                            "asset_keys WHERE field = 'use')").fetchone()
    assert counts[0] == counts[1] > 0 and counts[2] == counts[3] > 0
    said = record.execute("SELECT v.vec FROM asset_vectors v JOIN asset_keys k ON k.id = v.key "
                          "WHERE k.text = ?", ("download last quarter's report from the supplier portal",)
                          ).fetchone()[0]
    files = sorted(record.path.parent.glob("record.sqlite3*"))
    assert any(said in f.read_bytes() for f in files)
    erase(record, f"s{main}#1", "private")
    assert all(said not in f.read_bytes() for f in sorted(record.path.parent.glob("record.sqlite3*")))
    orphans = record.execute("SELECT COUNT(*) FROM asset_vectors WHERE (key IS NOT NULL AND key NOT IN "
                             "(SELECT id FROM asset_keys)) OR asset NOT IN (SELECT id FROM assets)")
    assert orphans.fetchone()[0] == 0
    rebuild(record, {"claude-code": owner["root"]})  # and a rebuild replaces them, the erased words gone
    assert all(said not in f.read_bytes() for f in sorted(record.path.parent.glob("record.sqlite3*")))


@needs_vectors
def test_assets_out_of_a_sub_agent_s_scope_take_no_place_among_its_nearest(owner: dict[str, Any]) -> None:
    record, other = owner["record"], owner["other"]
    asked = "download the monthly invoice and review the changes"
    for n in range(25):  # more near the request than a push by meaning looks at, all in the other project
        write(Path(other) / ".claude" / "skills" / f"invoice-{n}" / "SKILL.md",
              f"---\nname: invoice-{n}\ndescription: Downloads monthly invoice number {n} and reviews its "
              "changes\n---\n")
    rebuild(record, {"claude-code": owner["root"]})
    assert sum(p.name.startswith("invoice-") for p in push(record, asked, meaning=True).pointers) == 5
    sub = push(record, asked, session=owner["sub"], meaning=True).pointers
    assert [(p.name, p.why) for p in sub] == [("portal-relay", "meaning"), ("plan.md", "meaning")]


@needs_vectors
def test_the_push_by_meaning_finds_a_corrected_asset_a_word_push_misses(owner: dict[str, Any]) -> None:
    asked = "fetch the quarterly statement from the vendor website"
    assert all(p.name != "portal-relay" for p in push(owner["record"], asked, meaning=False).pointers)
    got = push(owner["record"], asked, meaning=True)
    assert got.pointers[0].name == "portal-relay" and got.pointers[0].why == "meaning"
    assert push(owner["record"], asked).pointers[0].name == "portal-relay"  # FULL goes by meaning when it can


@needs_vectors
def test_the_meaning_bar_keeps_an_unrelated_request_empty(owner: dict[str, Any]) -> None:
    for asked in ("what is the capital of Australia?", "tell me a joke", "what time is it in Tokyo",
                  "how do I reverse a list in python"):
        assert push(owner["record"], asked, meaning=True).pointers == [], asked


@needs_vectors
def test_assets_near_the_one_a_message_clears_join_it_and_never_come_alone(owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "download the monthly invoice and review the changes"  # the relay clears; the plan only nears
    got = push(record, asked, meaning=True).pointers
    assert [(p.name, p.why) for p in got] == [("portal-relay", "meaning"), ("plan.md", "meaning")]
    assert got[0].score > got[1].score
    # The agent the owner muted would open this push: what only comes beside it must not come either.
    diff = "look over my diff before I merge"
    assert push(record, diff, meaning=True).pointers == []
    unmute(record, "code-reviewer")
    assert [p.name for p in push(record, diff, meaning=True).pointers] == ["code-reviewer", "release-notes"]


@needs_vectors
def test_a_correction_synced_since_the_rebuild_counts_by_meaning_on_the_next_push(
        owner: dict[str, Any]) -> None:
    record = owner["record"]
    asked = "list the month's integrated changes for the users' newsletter"  # no word of the correction's
    assert push(record, asked, meaning=True).pointers == []
    owner["later"].owner("summarise what we merged this month for the customer update email")
    owner["later"].agent("I'd have to read every pull request by hand.")
    owner["later"].owner("use the release-notes command")
    sync(record, ["claude-code"], roots={"claude-code": owner["root"] / "projects"})
    assert push(record, asked, meaning=False).pointers == []  # words alone cannot reach it
    first = push(record, asked, meaning=True).pointers
    assert (first[0].name, first[0].why) == ("release-notes", "meaning")  # no rebuild in between
    from total_recall.model import Address

    n = owner["sessions"][owner["later"].id]
    record.quarantine(Address(n), "not now")  # the overlay's request counts for nothing while held
    assert push(record, asked, meaning=True).pointers == []
    record.quarantine(Address(n), undo=True)
    rebuild(record, {"claude-code": owner["root"]})
    assert push(record, asked, meaning=True).pointers[0].name == "release-notes"
    erase(record, f"s{n}", "the owner took it back")
    assert push(record, asked, meaning=True).pointers == []


@dataclass
class _Surfaces:
    """The CLI and the installed prompt hook over one record, as an owner meets them."""

    home: Path
    env: dict[str, str]
    session: Session

    def cli(self, *args: str) -> str:
        got = CliRunner().invoke(cli, ["--home", str(self.home), *args], env=self.env)
        assert got.exit_code == 0, (args, got.stdout, got.stderr)
        return got.stdout

    def hook(self, asked: str) -> str:
        """The prompt hook's answer (its additionalContext; "" when nothing is pushed), by words."""
        payload = {"hook_event_name": "UserPromptSubmit", "session_id": self.session.sid,
                   "transcript_path": "/dev/null", "cwd": self.session.cwd, "prompt": asked}
        done = subprocess.run([str(EXE), "--home", str(self.home), "hook", "claude-code"],
                              input=json.dumps(payload), capture_output=True, text=True, env=self.env,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def shown(self, asked: str) -> str:
        """All an owner can be shown of `asked`: `push --json`, `assets --json` and the prompt hook's."""
        return "\n".join([self.cli("push", asked, "--json"), self.cli("assets", "--json"), self.hook(asked)])

    def index_text(self) -> str:
        """Every word of the record's asset tables, read as another process would (read-only)."""
        db = sqlite3.connect(f"file:{self.home / 'record.sqlite3'}?mode=ro", uri=True)
        try:
            return json.dumps([list(r) for t in ("assets", "asset_keys", "asset_terms")
                               for r in db.execute(f"SELECT * FROM {t}")])
        finally:
            db.close()


def _surfaces(tmp_path: Path, session: Session) -> _Surfaces:
    import os

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "HOME", "TOTAL_RECALL_SANDBOX",
                                                         "TOTAL_RECALL_VECTOR_BUDGET")}
    env |= {"TOTAL_RECALL_CLAUDE_ROOT": str(tmp_path / ".claude" / "projects"),
            "TOTAL_RECALL_HOME": str(tmp_path / "home")}
    got = _Surfaces(tmp_path / "home", env, session)
    got.cli("sync", "--harness", "claude-code")
    got.cli("assets", "--rebuild")
    return got


def test_quarantined_words_never_show_in_a_push_the_hook_or_the_listing_nor_make_an_asset_match(
        tmp_path: Path) -> None:
    s = Session(tmp_path / ".claude", "lab", str(tmp_path / "lab"))
    s.owner("make a script that trims the web logs")  # 1
    s.call("Write", {"file_path": f"{s.cwd}/trim_web.sh",
                     "content": "#!/bin/sh\n# Trim logs of the zqwebtier nightly\n"})  # 2, 3
    s.bash(f"sh {s.cwd}/trim_web.sh")  # 4, 5
    s.owner("the lab box is reached by ssh lab@10.0.0.5, login kept in 1Password")  # 6
    s.bash("ssh lab@10.0.0.5 uptime", "up 3 days")  # 7, 8
    owner = _surfaces(tmp_path, s)
    machine, script = "ssh into the lab box 10.0.0.5", "trim the zqwebtier logs with trim_web.sh"
    assert "1Password" in owner.shown(machine) and "zqwebtier" in owner.shown(script)  # what is at stake
    n = json.loads(owner.cli("sessions", "--json"))["sessions"][0]["session"]
    owner.cli("quarantine", f"{n}#6", "--reason", "private")
    owner.cli("quarantine", f"{n}#2", "--reason", "private")
    assert "1Password" not in owner.shown(machine) and "zqwebtier" not in owner.shown(script)
    owner.cli("assets", "--rebuild")  # a rebuild reads the held entries again: they stay held
    assert "1Password" not in owner.shown(machine) and "zqwebtier" not in owner.shown(script)
    owner.cli("quarantine", f"{n}#6", "--undo")
    assert "1Password" in owner.shown(machine)
    owner.cli("erase", f"{n}#6", "--reason", "private")  # erase holds as quarantine does, and for good
    assert "1Password" not in owner.shown(machine) + owner.index_text()


def test_an_erased_request_leaves_no_word_in_an_approach_it_was_keyed_by(tmp_path: Path) -> None:
    s = Session(tmp_path / ".claude", "deploy", str(tmp_path / "svc"))
    s.owner("set up the zqtitle01 deployment pipeline for the zqprojx service")  # 1
    s.bash("./deploy.sh --service zqprojx --stage prod", "deployed")  # 2, 3
    later = Session(tmp_path / ".claude", "deploy-later", str(tmp_path / "svc"), day=3)
    later.owner("ship zqprojx again, the same setup we used")
    owner = _surfaces(tmp_path, later)
    asked = "the zqtitle01 deployment pipeline"
    assert "zqtitle01" in owner.shown(asked)  # the approach, keyed by the request before its run
    assert "zqprojx" in owner.hook(asked)  # matched by the request's words alone
    n = next(x["session"] for x in json.loads(owner.cli("sessions", "--json"))["sessions"]
             if x["native_id"] == s.sid)
    owner.cli("quarantine", f"{n}#1", "--reason", "private")
    assert "zqtitle01" not in owner.shown(asked) and owner.hook(asked) == ""
    owner.cli("quarantine", f"{n}#1", "--undo")
    owner.cli("erase", f"{n}#1", "--reason", "private")  # no rebuild: the erase takes the words out itself
    assert "zqtitle01" not in owner.shown(asked) + owner.index_text() and owner.hook(asked) == ""
    approach = json.loads(owner.cli("assets", "--kind", "approach", "--json"))["assets"]
    assert [a["name"] for a in approach] == ["./deploy.sh --service zqprojx --stage prod"]  # the run stays
