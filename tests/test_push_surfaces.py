"""The push where an owner meets it: the UserPromptSubmit hook on its short path (the installed
`total-recall` script, as Claude Code runs it), and `push`, `assets`, `mute` and `unmute` on the CLI."""

from __future__ import annotations

import json
import re
import select
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript
from total_recall.indexes import vectors
from total_recall.surfaces.cli import cli

EXE = Path(sys.executable).parent / "total-recall"
SESSION_ID = "5b2d8f10-6c4e-4a7b-9e21-0f3a1c2d4e5f"
# Shares no word with the skill's name or description, only with the request the owner corrected.
ASK = "Grab last quarter's statement from the bank website please"
needs_vectors = pytest.mark.skipif(not vectors.available(), reason="the vectors extra is not installed")


@dataclass
class Owner:
    home: Path
    env: dict[str, str]
    transcript: Transcript | None = None

    def cli(self, *args: str, code: int = 0, stdin: str | None = None) -> Result:
        got = CliRunner().invoke(cli, ["--home", str(self.home), *args], env=self.env, input=stdin)
        assert got.exit_code == code, (args, got.stdout, got.stderr)
        return got

    def hook(self, payload: object | str) -> subprocess.CompletedProcess[str]:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        done = subprocess.run([str(EXE), "--home", str(self.home), "hook", "claude-code"], input=text,
                              capture_output=True, text=True, env=self.env, timeout=60)
        assert done.returncode == 0, done.stderr  # a hook never breaks its harness
        return done


def prompt(text: str, session: str = SESSION_ID) -> dict[str, str]:
    return {"hook_event_name": "UserPromptSubmit", "session_id": session, "transcript_path": "/dev/null",
            "cwd": "/work/shop", "prompt": text}


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Owner]:
    import os

    root = tmp_path / "claude" / "projects"
    skill = tmp_path / "claude" / "skills" / "portal-relay"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: portal-relay\ndescription: Relays commands to a logged-in browser session. Use when a "
        "site needs the owner's login or blocks scripted downloads.\n---\n# Portal relay\n", encoding="utf-8")
    t = Transcript(root / "-work-shop" / f"{SESSION_ID}.jsonl", "/work/shop")
    t.owner("Grab the monthly statement from the bank website.")
    t.agent("I can't reach that site from here: it needs a login.")
    t.owner("You have the portal-relay skill for that, use it.")
    t.agent("Right, using portal-relay.")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "HOME", "TOTAL_RECALL_SANDBOX",
                                                         "TOTAL_RECALL_VECTOR_BUDGET")}
    env |= {"TOTAL_RECALL_CLAUDE_ROOT": str(root), "TOTAL_RECALL_HOME": str(tmp_path / "record")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    o = Owner(tmp_path / "record", env, t)
    o.cli("sync", "--harness", "claude-code")
    o.cli("assets", "--rebuild")
    yield o


def test_the_prompt_hook_hands_back_the_skill_the_owner_already_has(owner: Owner) -> None:
    done = owner.hook(prompt(ASK))
    said = json.loads(done.stdout)["hookSpecificOutput"]
    assert said["hookEventName"] == "UserPromptSubmit"
    assert "portal-relay" in said["additionalContext"]


def test_the_prompt_hook_says_nothing_when_nothing_clears_the_bar_or_the_push_is_off(owner: Owner) -> None:
    assert owner.hook(prompt("What is the capital of Australia?")).stdout == ""
    owner.cli("mute", "--all")
    assert owner.hook(prompt(ASK)).stdout == ""
    off = json.loads(owner.cli("push", ASK, "--json").stdout)  # every route: the push itself says it is off
    assert off == {"pointers": [], "tokens": 0, "off": True}
    owner.cli("unmute", "--all")
    assert "portal-relay" in owner.hook(prompt(ASK)).stdout
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["off"] is False


def test_the_prompt_hook_survives_bad_input_and_hands_other_events_to_the_full_path(owner: Owner) -> None:
    for bad in ("", "{not json", "[]", json.dumps({**prompt(ASK), "prompt": 42})):
        done = owner.hook(bad)
        assert done.stdout == ""
    started = owner.hook({"hook_event_name": "SessionStart", "session_id": SESSION_ID, "source": "startup",
                          "transcript_path": "/dev/null", "cwd": "/work/shop"})
    assert "Traceback" not in started.stderr
    huge = owner.hook(prompt("x " * 600_000 + ASK))  # a 1.2 MB paste: cut, read, answered
    assert "Traceback" not in huge.stderr


def test_the_prompt_hook_reads_a_cut_emoji_as_a_replacement_character_and_pushes(owner: Owner) -> None:
    # Node's JSON.stringify writes a lone surrogate escape for half an emoji: valid JSON, refused by orjson.
    stdin = json.dumps(prompt(ASK + " \ud83d"))
    assert "\\ud83d" in stdin
    done = owner.hook(stdin)
    assert "portal-relay" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"], done.stderr


NO_SESSION = object()  # stands for a payload without a session_id


@pytest.mark.parametrize(("session_id", "named"), [
    (NO_SESSION, "no 'session_id' string"), (123, "no 'session_id' string"),
    (["x"], "no 'session_id' string"),
    ("../../etc/passwd", "session_id '../../etc/passwd' is not a harness session id")])
def test_the_prompt_hook_refuses_a_session_id_the_full_path_refuses_and_pushes_nothing(
        owner: Owner, session_id: object, named: str) -> None:
    payload: dict[str, object] = {**prompt(ASK), "session_id": session_id}
    if session_id is NO_SESSION:
        del payload["session_id"]
    done = owner.hook(payload)
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("total-recall hook claude-code: ") and named in line and "nothing done" in line


def test_the_prompt_hook_names_a_mistyped_cwd_as_ignored_and_pushes_for_no_project(owner: Owner) -> None:
    done = owner.hook({**prompt(ASK), "cwd": {"a": 1}})
    assert "portal-relay" in done.stdout
    [line] = done.stderr.splitlines()
    assert line.startswith("total-recall hook claude-code: UserPromptSubmit: cwd {'a': 1} ")
    assert line.endswith("ignored (pushed for no project)")


def test_a_mute_said_in_a_turn_counts_from_the_next_prompt_once_the_stop_hook_synced_it(owner: Owner) -> None:
    assert owner.transcript is not None
    assert "portal-relay" in owner.hook(prompt(ASK)).stdout
    owner.transcript.owner("Please don't mention portal-relay.")
    owner.transcript.agent("Understood, I won't.")
    stop = {"hook_event_name": "Stop", "session_id": SESSION_ID, "cwd": "/work/shop",
            "transcript_path": str(owner.transcript.path), "permission_mode": "default",
            "stop_hook_active": False}
    refused = owner.hook({**stop, "session_id": "../x"})  # bad input: nothing done
    assert refused.stdout == "" and "session_id" in refused.stderr
    assert "portal-relay" in owner.hook(prompt(ASK)).stdout
    stopped = owner.hook(stop)
    assert (stopped.stdout, stopped.stderr) == ("", "")
    assert owner.hook(prompt(ASK)).stdout == ""


def test_the_prompt_hook_imports_nothing_of_the_write_side_or_the_full_cli(owner: Owner) -> None:
    # What a process imports is most of the hook's time, before every prompt: the push reads, so the
    # indexes, the compressor, hashing, logging and the CLI's own libraries stay out.
    run = ("import io, sys\n"
           f"sys.argv = ['total-recall', '--home', {str(owner.home)!r}, 'hook', 'claude-code']\n"
           f"sys.stdin = io.StringIO({json.dumps(prompt(ASK))!r})\n"
           "from total_recall.surfaces.entry import main\n"
           "main()\n"
           "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, env=owner.env,
                          timeout=60)
    assert "portal-relay" in done.stdout, done.stderr
    loaded = set(done.stderr.split())
    assert "total_recall.assets.pointers" in loaded
    heavy = {"click", "pydantic", "mcp", "rich", "numpy", "onnxruntime", "zstandard", "hashlib", "logging",
             "total_recall.indexes", "total_recall.surfaces.cli", "total_recall.ops"}
    assert not heavy & loaded


def test_the_prompt_hook_makes_no_record_where_there_is_none(tmp_path: Path, owner: Owner) -> None:
    elsewhere = Owner(tmp_path / "nothing-here", owner.env)
    assert elsewhere.hook(prompt(ASK)).stdout == ""
    assert not (tmp_path / "nothing-here").exists()


def test_push_on_the_cli_gives_pointers_with_why_and_tokens(owner: Owner) -> None:
    got = json.loads(owner.cli("push", ASK, "--json").stdout)
    assert set(got) == {"pointers", "tokens", "off"} and got["off"] is False
    first = got["pointers"][0]
    assert set(first) == {"asset", "kind", "name", "line", "source", "score", "why"}
    assert first["name"] == "portal-relay" and first["kind"] == "skill" and got["tokens"] > 0
    named = json.loads(owner.cli("push", "run portal-relay on the bank site", "--json").stdout)
    assert named["pointers"][0]["name"] == "portal-relay" and named["pointers"][0]["why"] == "named"
    shown = owner.cli("push", ASK).stdout
    assert shown.startswith("You already have") and "portal-relay" in shown


def test_push_batch_answers_one_json_line_per_request(owner: Owner, tmp_path: Path) -> None:
    requests = tmp_path / "requests.txt"
    requests.write_text(f"{ASK}\n\nWhat is the capital of Australia?\n", encoding="utf-8")
    lines = [json.loads(x) for x in owner.cli("push", "--batch", str(requests), "--json").stdout.splitlines()]
    assert [x["text"] for x in lines] == [ASK, "What is the capital of Australia?"]
    assert lines[0]["pointers"] and lines[1]["pointers"] == []


def test_mute_keeps_an_asset_out_until_unmuted(owner: Owner) -> None:
    muted = json.loads(owner.cli("mute", "portal relay", "--json").stdout)
    assert muted["names_muted"] == ["portal relay"] and muted["assets"]
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["pointers"] == []
    owner.cli("unmute", "portal-relay")
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["pointers"]
    refused = owner.cli("mute", code=2)
    assert "give a `NAME`, or `--all`" in refused.stderr


def test_assets_lists_each_asset_with_its_keys_and_their_addresses(owner: Owner) -> None:
    listed = json.loads(owner.cli("assets", "--kind", "skill", "--json").stdout)["assets"]
    relay = next(a for a in listed if a["name"] == "portal-relay")
    assert set(relay) >= {"asset", "kind", "name", "description", "keys", "source", "updated"}
    assert relay["asset"].startswith("a") and relay["source"].endswith("SKILL.md")
    uses = relay["keys"]["uses"]
    assert any(k["address"] for k in uses), uses  # the owner's correction, with where it was said
    refused = owner.cli("assets", "--kind", "nonsense", code=2).stderr
    assert "`--kind`: 'nonsense' is not one of 'skill'" in refused
    assert "portal-relay" in owner.cli("assets").stdout


def test_push_refuses_an_unknown_session_by_name(owner: Owner) -> None:
    refused = owner.cli("push", ASK, "--session", "s999", code=2)
    assert "s999" in refused.stderr and "Traceback" not in refused.stderr


def test_an_agent_built_on_the_package_gets_the_pointers_for_its_next_call(owner: Owner) -> None:
    from total_recall.keeping.runtime import next_pointers
    from total_recall.record.database import Record

    with Record(owner.home / "record.sqlite3") as record:
        assert any("portal-relay" in line for line in next_pointers(record, 1, ASK, cwd="/work/shop"))
        assert next_pointers(record, 1, "What is the capital of Australia?") == []
    owner.cli("mute", "--all")
    with Record(owner.home / "record.sqlite3") as record:
        assert next_pointers(record, 1, ASK) == []


# Shares no word with the skill or the request the owner corrected; only its meaning is theirs.
MEANT = "fetch my latest account summary from the online banking portal"
READY = re.compile(r"push socket (\S+) ready")


@dataclass
class Server:
    proc: subprocess.Popen[str]
    socket: Path


@pytest.fixture
def server(owner: Owner) -> Iterator[Server]:
    """The real `total-recall mcp --no-sync`, as Claude Code keeps it for a session, with its push socket."""
    proc = subprocess.Popen([str(EXE), "--home", str(owner.home), "mcp", "--no-sync"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=owner.env)
    try:
        yield Server(proc, _ready(proc, within=60.0))
    finally:
        proc.kill()
        proc.wait(timeout=30)


def _ready(proc: subprocess.Popen[str], within: float) -> Path:
    """The socket the server says is ready, waiting on its stderr (bounded: `within` seconds)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + within
    said = []
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([proc.stderr], [], [], left)
        if not readable:
            break
        line = proc.stderr.readline()
        if not line:
            break
        said.append(line)
        if found := READY.search(line):
            return Path(found.group(1))
    raise AssertionError(f"the server never said its push socket was ready: {said}")


@needs_vectors
def test_the_prompt_hook_asks_the_running_server_which_pushes_by_meaning(owner: Owner,
                                                                          server: Server) -> None:
    assert server.socket.parent == owner.home and server.socket.name == f"push-{server.proc.pid}.sock"
    assert stat.S_IMODE(server.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(owner.home.stat().st_mode) == 0o700
    said = json.loads(owner.hook(prompt(MEANT)).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "portal-relay" in said
    assert owner.hook(prompt("What is the capital of Australia?")).stdout == ""


@needs_vectors
def test_the_prompt_hook_falls_back_to_words_when_the_server_is_gone(owner: Owner, server: Server) -> None:
    server.proc.kill()
    server.proc.wait(timeout=30)
    assert server.socket.exists()  # killed: it could not clean up
    assert owner.hook(prompt(MEANT)).stdout == ""  # words alone miss it, and the hook still exits 0
    assert "portal-relay" in owner.hook(prompt(ASK)).stdout
    assert not server.socket.exists()  # the stale socket was removed by the hook that found it


@needs_vectors
def test_the_prompt_hook_ignores_a_push_socket_open_to_others(owner: Owner, server: Server) -> None:
    server.socket.chmod(0o666)  # as another user's, or a tampered one, would be
    assert owner.hook(prompt(MEANT)).stdout == ""  # not asked: the words answer
    server.socket.chmod(0o600)
    assert "portal-relay" in owner.hook(prompt(MEANT)).stdout


def test_the_mcp_server_removes_its_push_socket_when_it_stops(owner: Owner, server: Server) -> None:
    assert server.proc.stdin is not None
    server.proc.stdin.close()  # the client closes the stream: the server ends
    assert server.proc.wait(timeout=30) == 0
    assert not server.socket.exists()


def test_a_sync_indexes_what_the_owner_owns_at_most_daily(tmp_path: Path, owner: Owner) -> None:
    fresh = Owner(tmp_path / "fresh-home", {**owner.env, "TOTAL_RECALL_HOME": str(tmp_path / "fresh-home")})
    first = json.loads(fresh.cli("sync", "--harness", "claude-code", "--json").stdout)
    assert first["assets"]["assets"] >= 1  # the skill, with the owner's correction as a use
    assert "portal-relay" in fresh.hook(prompt(ASK)).stdout  # pushed with no command of its own
    again = json.loads(fresh.cli("sync", "--harness", "claude-code", "--json").stdout)
    assert again["assets"] is None  # fresh: the next rebuild comes within a day, the overlay meanwhile
    other = Owner(tmp_path / "other-home", {**owner.env, "TOTAL_RECALL_HOME": str(tmp_path / "other-home")})
    assert "indexed for the push" in other.cli("sync", "--harness", "claude-code").stdout


OTHER_ID = "7c1e9a42-3b5d-4f60-8a17-2d9e0b4c6f13"


def _other_project(owner: Owner, tmp_path: Path) -> None:
    """A second project with a skill of its own, in a session the record holds."""
    other = tmp_path / "other"
    skill = other / ".claude" / "skills" / "vault-deployer"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: vault-deployer\ndescription: Rolls the cluster out to "
                                    "staging with helm.\n---\n", encoding="utf-8")
    root = Path(owner.env["TOTAL_RECALL_CLAUDE_ROOT"])
    t = Transcript(root / "-other" / f"{OTHER_ID}.jsonl", str(other))
    t.owner("Roll the cluster out to staging.")
    t.agent("Done.")
    owner.cli("sync", "--harness", "claude-code")
    owner.cli("assets", "--rebuild")


def test_a_hook_fired_inside_a_sub_agent_pushes_only_what_its_parent_s_project_may_see(
        owner: Owner, tmp_path: Path) -> None:
    _other_project(owner, tmp_path)
    ask = "Run vault-deployer for the shop please"
    assert "vault-deployer" in owner.hook(prompt(ask)).stdout  # the main session sees every project
    # Claude Code names the parent's session and the sub-agent's own id; the record has not read it yet.
    inside = {**prompt(ask), "agent_id": "a0123456789abcdef", "agent_type": "general-purpose"}
    assert "vault-deployer" not in owner.hook(inside).stdout
    assert "vault-deployer" not in owner.hook(prompt(ask, session="agent-affffffffffffffff")).stdout
    assert "portal-relay" in owner.hook({**inside, "prompt": ASK}).stdout  # a global skill: in its scope


def test_a_mute_said_in_the_prompt_itself_counts_on_that_prompt(owner: Owner) -> None:
    said = f"Don't bring up portal-relay. {ASK}"
    assert "portal-relay" not in owner.hook(prompt(said)).stdout
    assert json.loads(owner.cli("push", said, "--json").stdout)["pointers"] == []
    assert "portal-relay" in owner.hook(prompt(ASK)).stdout  # said once, in a prompt not yet synced


def test_unmute_lifts_a_mute_the_owner_said_before_the_index_was_rebuilt(owner: Owner) -> None:
    root = Path(owner.env["TOTAL_RECALL_CLAUDE_ROOT"])
    t = Transcript(root / "-work-shop" / "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl", "/work/shop")
    t.owner("Please don't mention portal-relay again.")
    owner.cli("sync", "--harness", "claude-code")
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["pointers"] == []
    lifted = owner.cli("unmute", "portal-relay")
    assert "nothing named" not in lifted.stderr, lifted.stderr
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["pointers"]
    owner.cli("assets", "--rebuild")  # his words logged now, before the unmute in time: still lifted
    assert json.loads(owner.cli("push", ASK, "--json").stdout)["pointers"]


def test_a_push_bound_to_another_harness_shows_nothing_said_in_this_one(owner: Owner) -> None:
    root = Path(owner.env["TOTAL_RECALL_CLAUDE_ROOT"])
    t = Transcript(root / "-work-shop" / "3f2e1d0c-9b8a-4766-8544-332211009988.jsonl", "/work/shop")
    t.owner("Decided: we use pnpm, never npm, for the shop frontend.")
    owner.cli("sync", "--harness", "claude-code")
    owner.cli("assets", "--rebuild")
    everything = json.loads(owner.cli("assets", "--json").stdout)["assets"]
    assert any(a["kind"] == "decision" and "pnpm" in a["name"] for a in everything)
    bound = json.loads(owner.cli("assets", "--harness", "codex", "--json").stdout)["assets"]
    assert [a["name"] for a in bound] == ["portal-relay"]  # the config root's file: no harness's words
    # Its own description's use stays; the owner's request, said in a Claude Code session, does not.
    assert [k["origin"] for k in bound[0]["keys"]["uses"]] == ["description"]
    relay = next(a for a in everything if a["name"] == "portal-relay")
    assert any(k["address"] for k in relay["keys"]["uses"])
    ask = "install the shop frontend packages with pnpm"
    assert any("pnpm" in p["line"] for p in json.loads(owner.cli("push", ask, "--json").stdout)["pointers"])
    pushed = json.loads(owner.cli("push", ask, "--harness", "codex", "--json").stdout)["pointers"]
    assert not any("pnpm" in p["line"] for p in pushed)
