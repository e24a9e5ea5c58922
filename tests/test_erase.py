"""Erase follows the text everywhere (issue 15): into later generations of its source, out of every page
and WAL frame of the record, and over the text callers write (cues, receipts' notes).

The record's files are searched byte for byte while another connection holds the record open, as a running
MCP server does: closing the last connection would checkpoint the WAL and delete it by itself, which would
hide what the erase left behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.keeping_sessions import ClaudeSession
from tests.llm_stub import Reply, completion, running_stub
from total_recall.keeping.cues import cues_for, leave_cue
from total_recall.keeping.marker import build_marker, markers_for, save_marker
from total_recall.keeping.receipts import Receipt, list_receipts, write_receipt
from total_recall.llm.provider import Provider
from total_recall.mining.summaries import summarise_from, summary_cache
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

TOKEN = "tok-7f3a9c1e55"
# The word index splits the token at '-': its pages hold this part as a term of its own.
WORD = "7f3a9c1e55"
SECRET = f"the deploy token is {TOKEN}, keep it out of the logs"


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return json.loads(result.stdout) if "--json" in args and code == 0 else result


def home() -> Path:
    return Path(os.environ["TOTAL_RECALL_HOME"])


def found(token: str | bytes = WORD) -> dict[str, int]:
    """How often the token's bytes occur in each file under the record's home (record, WAL, SHM, locks)."""
    needle = token.encode() if isinstance(token, str) else token
    counts = {str(p.relative_to(home())): p.read_bytes().count(needle)
              for p in home().rglob("*") if p.is_file()}
    return {name: n for name, n in counts.items() if n}


@pytest.fixture
def reader() -> Iterator[sqlite3.Connection]:
    """Another connection on the record, idle between reads like a server's."""
    db = sqlite3.connect(home() / "record.sqlite3")
    db.execute("SELECT COUNT(*) FROM entries").fetchone()
    yield db
    db.close()


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeSession:
    """A Claude Code session whose third line holds the secret, synced into the record."""
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Set up the deploy for staging.").agent("Which token should the deploy use?")
    session.owner(SECRET).agent("Noted; I will not print it.")
    session.owner("Now run the test suite.").agent("Running the test suite now.")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(session.root))
    run("sync", "--json")
    return session


def entries(address: str) -> list[dict[str, Any]]:
    """`read ADDRESS --json`'s entries: the whole address, in one page."""
    page = run("read", address, "--json")
    assert page["bounds"]["next_offset"] is None
    return list(page["entries"])


def hits(query: str) -> list[dict[str, Any]]:
    """`search QUERY --json`'s hits, none held back."""
    reply = run("search", query, "--json")
    assert "held_back" not in reply
    return list(reply["hits"])


def listed() -> list[dict[str, Any]]:
    return list(run("sessions", "--json")["sessions"])


def secret_address() -> str:
    [entry] = [e for e in entries("s1") if TOKEN in e["text"]]
    return str(entry["address"])


def test_an_erased_token_leaves_no_byte_in_the_record_its_wal_or_its_index_pages(
    claude: ClaudeSession, reader: sqlite3.Connection
) -> None:
    assert found(), "the secret must be in the record before the erase"
    address = secret_address()
    assert run("erase", address, "--reason", "a deploy token", "--json")["erased"] == [address]
    assert found() == {}
    assert hits(TOKEN) == []
    # Nothing was rebuilt: the word index still answers for the rest.
    assert [h["address"] for h in hits("test suite")]


@pytest.mark.parametrize(
    "rewrite", ["same-size edit", "rewind and rewrite", "same-size edit of its own line"]
)
def test_an_erased_entry_stays_erased_after_its_file_is_rewritten_under_what_was_read(
    claude: ClaudeSession, reader: sqlite3.Connection, rewrite: str
) -> None:
    address = secret_address()
    run("erase", address, "--reason", "a deploy token")
    data = claude.path.read_bytes()
    if rewrite == "same-size edit":
        edited = data.replace(b"Set up the deploy for staging.", b"Set up the deploy for testing.")
        assert len(edited) == len(data)
    elif rewrite == "same-size edit of its own line":  # the same message (its uuid), its words edited
        edited = data.replace(TOKEN.encode(), TOKEN[:-1].encode() + b"6")
        assert len(edited) == len(data) and edited != data
    else:
        lines = data.splitlines(keepends=True)
        with claude.path.open("r+b") as fh:
            fh.truncate(len(lines[0]))
        edited = lines[0] + lines[1].replace(b"Which token", b"Which of the tokens") + b"".join(lines[2:])
    claude.path.write_bytes(edited)

    report = run("sync", "--json")
    assert report["generations"] == 1 and report["sessions_added"] == 1
    again = f"s2#{address.split('#')[1]}"
    [entry] = entries(again)
    assert entry["erased"] is not None
    assert entry["text"].startswith("[erased ") and "a deploy token" in entry["text"]
    assert all(WORD[:-1] not in e["text"] for e in entries("s2"))
    assert hits(TOKEN) == []
    assert all(WORD[:-1] not in json.dumps(hit) for hit in hits("deploy token"))
    assert found(WORD[:-1]) == {}
    # The new entry carries its own erasure, with the same reason, and kept nothing of its line.
    assert reader.execute(
        "SELECT x.reason, e.raw_id FROM erasures x JOIN entries e ON e.id = x.entry WHERE e.session = 2"
    ).fetchall() == [("a deploy token", None)]
    # The rest of the new generation is recorded as usual.
    kept = [e["text"] for e in entries("s2") if not e["erased"]]
    assert kept[-1] == "Running the test suite now." and len(kept) == 5


def test_a_cue_holding_a_secret_can_be_erased_and_leaves_no_trace_in_markers(
    claude: ClaudeSession, reader: sqlite3.Connection
) -> None:
    with Record(home() / "record.sqlite3") as record:
        plain = leave_cue(record, 1, "deploy set up; the staging token is tok-7f3a9c1e55 for now")
        marker = build_marker(record, Address.parse("s1#1-4"), budget=800)
        assert marker.cue is not None and TOKEN in marker.text
        save_marker(record, marker)
    run("erase", secret_address(), "--reason", "a deploy token")  # the entry goes; the cue still quotes it
    assert found() != {}

    result = run("erase", f"cue:{plain.id}", "--reason", "quotes the deploy token", "--json")
    assert result["erased"] == [f"cue:{plain.id}"] and result["reason"] == "quotes the deploy token"
    assert found() == {}
    again = run("erase", f"cue:{plain.id}", "--reason", "once more", "--json")
    assert again["erased"] == []  # erased before: nothing is erased now, as for an entry
    with Record(home() / "record.sqlite3") as record:
        assert cues_for(record, 1) == []
        [tomb] = cues_for(record, 1, include_erased=True)
        assert tomb.erased is not None and "quotes the deploy token" in tomb.text
        assert markers_for(record, 1) == []
        later = build_marker(record, Address.parse("s1#1-4"), budget=800)
        assert later.cue is None and TOKEN not in later.text


def test_a_receipt_note_holding_words_a_caller_wrote_can_be_erased(
    claude: ClaudeSession, reader: sqlite3.Connection
) -> None:
    words = "9b2d04e6c1"
    with Record(home() / "record.sqlite3") as record:
        receipt = write_receipt(record, Receipt("claude-code", "manual", "kept", "sent, unconfirmed", 1, None,
                                               None, None, None, None, f"custom instructions: keep {words}"))
    assert found(words)
    run("erase", f"receipt:{receipt}", "--reason", "quotes a token")
    with Record(home() / "record.sqlite3") as record:
        [kept] = list_receipts(record, 1)
    assert kept.note is not None and kept.note.startswith("[erased ") and "quotes a token" in kept.note
    assert (kept.id, kept.decision, kept.session) == (receipt, "kept", 1)
    assert found(words) == {}


def test_a_summary_block_over_an_erased_entry_is_withheld_and_its_text_leaves_the_record(
    claude: ClaudeSession, reader: sqlite3.Connection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_stub() as stub, Record(home() / "record.sqlite3") as record:
        stub.script(Reply(body=completion(f"- The owner gave the deploy token {TOKEN} (s1#3).")))
        provider = Provider.from_env(home=tmp_path, env=stub.env(), sleep=lambda _: None)
        summarise_from(record, session=1, provider=provider)
        assert found()
        record.erase(Address.parse(secret_address()), "a deploy token")
        [block] = summary_cache(record, session=1, with_text=True)["blocks"]
    assert block["erased_since"] == ["s1#3"] and block["text"] is None
    assert found() == {}


def test_erasing_a_cue_or_receipt_that_does_not_exist_is_refused_by_name(claude: ClaudeSession) -> None:
    assert "cue:99: no such cue" in run("erase", "cue:99", "--reason", "x", code=2).stderr
    assert "receipt:99: no such receipt" in run("erase", "receipt:99", "--reason", "x", code=2).stderr
    assert "expected cue:3" in run("erase", "cue:x", "--reason", "x", code=2).stderr


def test_a_session_title_taken_from_erased_words_goes_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Set up the deploy for staging.").agent("Done.")
    with session.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "summary", "summary": f"Deploy with token {TOKEN}",
                             "leafUuid": session.parent}) + "\n")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(session.root))
    run("sync")
    [shown] = listed()
    assert shown["title"] == f"Deploy with token {TOKEN}"
    db = sqlite3.connect(home() / "record.sqlite3")  # held open, as a server would
    try:
        run("erase", secret_address(), "--reason", "a deploy token")
        [shown] = listed()
        assert shown["title"] is None
        assert found() == {}
    finally:
        db.close()


def _copy_as(session: ClaudeSession, new_id: str, folder: Path | None = None, name: str | None = None
             ) -> Path:
    """The session's lines again in a file of a new session, as Claude Code's --resume and --fork-session
    start theirs: the same messages (their uuids) under the new session id."""
    lines = [json.loads(x) for x in session.path.read_text(encoding="utf-8").splitlines()]
    path = (folder or session.path.parent) / f"{name or new_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({**x, "sessionId": new_id}) + "\n" for x in lines), encoding="utf-8")
    return path


def test_erasing_a_later_generation_s_copy_erases_the_earlier_one_too(claude: ClaudeSession) -> None:
    first = secret_address()
    data = claude.path.read_bytes()
    claude.path.write_bytes(data.replace(b"deploy for staging.", b"deploy for testing."))
    assert run("sync", "--json")["generations"] == 1
    later = f"s2#{first.split('#')[1]}"
    assert TOKEN in entries(later)[0]["text"]
    assert sorted(run("erase", later, "--reason", "a deploy token", "--json")["erased"]) == [first, later]
    assert hits(TOKEN) == []
    assert found() == {}
    assert "Set up the deploy for staging." in entries("s1#1")[0]["text"]  # the rest of s1 stays


@pytest.mark.parametrize("when", ["copied before the erase", "copied after the erase"])
def test_a_resumed_session_s_copy_of_an_erased_message_is_erased_too(claude: ClaudeSession, when: str
                                                                     ) -> None:
    resumed = "9d1c6e2a-3b4f-4c5d-8e7f-0a1b2c3d4e5f"
    if when == "copied before the erase":
        _copy_as(claude, resumed)
        run("sync")
        copy = [e["address"] for e in entries("s2") if TOKEN in e["text"]]
        assert copy, "the resumed session must hold the message again"
        address = secret_address()
        erased = run("erase", address, "--reason", "a deploy token", "--json")["erased"]
        assert sorted(erased) == sorted([address, *copy])
    else:
        run("erase", secret_address(), "--reason", "a deploy token")
        _copy_as(claude, resumed)
        run("sync")
    assert [e for e in entries("s2") if e["erased"]], "the copy is recorded erased"
    assert all(TOKEN not in e["text"] for e in entries("s2"))
    assert hits(TOKEN) == []
    assert found() == {}
    # The same words said anew in a message of its own are the owner's to keep.
    assert [e["text"] for e in entries("s2") if not e["erased"]][-1] == "Running the test suite now."


def test_a_short_message_said_again_elsewhere_is_kept_and_a_long_one_copied_without_ids_is_not(
    claude: ClaudeSession,
) -> None:
    # A fork that gives its messages new ids (OpenCode) or none (Vibe, Codex rollouts): the same long text
    # is the same words; a short one ("yes, go ahead") may well be said anew, and is followed only by id.
    other = ClaudeSession(claude.root, name="other")
    other.owner("yes, go ahead").agent("Noted.")
    claude.owner("yes, go ahead").agent("Going ahead.")
    fork = ClaudeSession(claude.root, name="fork")
    fork.owner(SECRET).agent("Noted; I will not print it.")
    run("sync")
    run("erase", secret_address(), "--reason", "a deploy token")
    [said] = [e for e in entries("s1") if e["text"] == "yes, go ahead"]
    run("erase", said["address"], "--reason", "not needed")
    numbers = {s["native_id"]: s["session"] for s in listed()}
    # The other session's own short message stays; the fork's copy of the secret went with it.
    assert entries(numbers[other.id])[0]["text"] == "yes, go ahead"
    assert entries(numbers[fork.id])[0]["erased"] is not None
    assert all(TOKEN not in e["text"] for s in numbers.values() for e in entries(s))
    assert hits(TOKEN) == [] and found() == {}


def _sub_agent(claude: ClaudeSession, tmp_path: Path, description: str) -> Path:
    """A sub-agent of `claude`'s session in Claude Code's layout, with the sidecar naming its task."""
    folder = claude.path.parent / claude.id / "subagents"
    child = ClaudeSession(tmp_path / "scratch", name="child").owner("look into zq7 quietly")
    path = _copy_as(child, claude.id, folder, "agent-a1b2c3d4")
    (folder / "agent-a1b2c3d4.meta.json").write_text(
        json.dumps({"agentType": "general-purpose", "description": description}), encoding="utf-8")
    return path


def test_erasing_a_whole_sub_agent_session_takes_the_title_its_sidecar_gave(
    claude: ClaudeSession, tmp_path: Path
) -> None:
    path = _sub_agent(claude, tmp_path, "zqtaskdesc01 research")
    run("sync")
    [child] = [s for s in listed() if s["title"] == "zqtaskdesc01 research"]
    run("erase", child["session"], "--reason", "private")
    assert all("zqtaskdesc01" not in json.dumps(s) for s in listed())
    assert found("zqtaskdesc01") == {}
    with path.open("a", encoding="utf-8") as fh:  # the sub-agent goes on: its source is read again
        fh.write(path.read_text(encoding="utf-8").splitlines()[0].replace("look into", "then look at") + "\n")
    run("sync")
    assert all("zqtaskdesc01" not in json.dumps(s) for s in listed())


def _started_sub_agent(claude: ClaudeSession, tmp_path: Path, word: str) -> str:
    """Sync a sub-agent titled "<word> research" by the call that started it; returns the call's address."""
    claude.tool(f"{word} research: dig through the audit logs", "started")
    _sub_agent(claude, tmp_path, f"{word} research")
    run("sync")
    [call] = [e["address"] for e in entries("s1") if word in e["text"] and e["kind"] == "tool_call"]
    return str(call)


def test_erasing_the_call_that_started_a_sub_agent_takes_the_description_it_gave(
    claude: ClaudeSession, tmp_path: Path
) -> None:
    call = _started_sub_agent(claude, tmp_path, "zqtaskdesc02")
    assert any(s["title"] == "zqtaskdesc02 research" for s in listed())
    run("erase", call, "--reason", "private")
    assert all("zqtaskdesc02" not in json.dumps(s) for s in listed())
    assert found("zqtaskdesc02") == {}


def test_quarantining_the_call_that_started_a_sub_agent_withholds_the_title_it_gave_until_released(
    claude: ClaudeSession, tmp_path: Path
) -> None:
    call = _started_sub_agent(claude, tmp_path, "zqtaskdesc04")
    run("quarantine", call, "--reason", "private")
    assert all(s["title"] != "zqtaskdesc04 research" for s in listed())
    run("quarantine", call, "--undo")
    assert any(s["title"] == "zqtaskdesc04 research" for s in listed())


def test_erasing_a_codex_message_takes_the_event_the_harness_logged_it_again_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A real rollout (tests/fixtures): Codex logs a reasoning summary once as the response item and once
    # more as an event of its own, which the reader keeps as a harness entry with the same text.
    import shutil

    from tests.conftest import SESSIONS

    shutil.copytree(SESSIONS / "codex" / "sessions", tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    run("sync", "--harness", "codex")
    said = entries("s1")
    [thought] = [e for e in said if e["kind"] == "thinking"][:1]
    echoes = [e["address"] for e in said
              if e["text"] == thought["text"] and e["address"] != thought["address"]]
    assert echoes, "the rollout logs the thought twice"
    erased = run("erase", thought["address"], "--reason", "private", "--json")["erased"]
    assert sorted(erased) == sorted([thought["address"], *echoes])
    assert all(e["text"] != thought["text"] for e in entries("s1"))


def test_a_copy_without_ids_read_after_the_erase_is_recorded_erased(claude: ClaudeSession) -> None:
    run("erase", secret_address(), "--reason", "a deploy token")
    fork = ClaudeSession(claude.root, name="fork-after")  # new uuids, as an OpenCode fork gives its copies
    fork.owner(SECRET).agent("Noted; I will not print it.")
    run("sync")
    [copy] = [s["session"] for s in listed() if s["native_id"] == fork.id]
    assert entries(copy)[0]["erased"] is not None and "a deploy token" in entries(copy)[0]["text"]
    assert hits(TOKEN) == [] and found() == {}


def test_an_erased_codex_message_leaves_no_other_line_that_repeats_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recorded rollout (Codex 0.158): the agent's last message is written again inside the task_complete
    # event's line; the entry cut from that line goes too, and so does the line itself.
    import shutil

    from tests.conftest import SESSIONS

    shutil.copytree(SESSIONS / "codex" / "recorded_0.158.0" / "sessions", tmp_path / "codex")
    monkeypatch.setenv("TOTAL_RECALL_CODEX_ROOT", str(tmp_path / "codex"))
    run("sync", "--harness", "codex")
    words = "The command printed fixture."
    [said] = [e for e in entries("s1") if e["author"] == "agent" and e["text"].startswith(words)]
    run("erase", said["address"], "--reason", "private")
    raw = run("extract-by-type", "s1", "--type", "all", "--include-injected", "--raw", "--json")
    assert words not in json.dumps(raw)
    assert found("The command printed fixture") == {}


def test_erasing_every_entry_of_a_session_one_by_one_takes_the_title_its_sidecar_gave(
    claude: ClaudeSession, tmp_path: Path
) -> None:
    _sub_agent(claude, tmp_path, "zqtaskdesc03 research")
    run("sync")
    [child] = [s for s in listed() if s["title"] == "zqtaskdesc03 research"]
    for e in entries(child["session"]):
        if not e["erased"]:
            run("erase", e["address"], "--reason", "gone")
    assert all("zqtaskdesc03" not in json.dumps(s) for s in listed())


@pytest.mark.parametrize("when", ["synced before the erase", "synced after the erase"])
def test_a_vibe_compaction_child_quoting_an_erased_message_loses_that_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    # The fixture's child (tests/fixtures/sessions/vibe) carries its parent's first message over word for
    # word in a <previous_user_message> block of Vibe's injected compaction message.
    import shutil

    from tests.conftest import SESSIONS

    asked = "Run the unit tests and tell me what fails."
    root = tmp_path / "vibe"
    shutil.copytree(SESSIONS / "vibe", root)
    child = root / "logs" / "session" / "session_20260701_103012_d41f03b7"
    kept = tmp_path / "child"
    if when == "synced after the erase":
        shutil.move(child, kept)
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(root))
    run("sync", "--harness", "vibe")
    [parent] = [s["session"] for s in listed() if s["parent"] is None]
    [message] = [e for e in entries(parent) if e["text"] == asked]
    run("erase", message["address"], "--reason", "private")
    if when == "synced after the erase":
        shutil.move(kept, child)
        run("sync", "--harness", "vibe")
    [copy] = [s["session"] for s in listed() if s["parent"] is not None]
    quoting = [e for e in entries(copy) if e["author"] == "harness" and e["kind"] != "compaction"]
    assert quoting and all(e["erased"] for e in quoting)
    assert [e["text"] for e in entries(copy) if e["author"] == "owner"] == ["Fix it."]
    assert all("what fails" not in h["snippet"] for h in hits("run the unit tests and tell me what fails"))
    assert found("tell me what fails") == {}


def test_a_title_taken_from_a_quarantined_message_is_withheld_until_its_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Vibe titles a session with its first message (the fixture's meta.json): a quarantine hides those
    # words from the session list and from the header of a summary's prompt (a read still shows the entry,
    # labelled), and a release shows them again.
    import shutil

    from tests.conftest import SESSIONS

    asked = "Run the unit tests and tell me what fails."
    shutil.copytree(SESSIONS / "vibe", tmp_path / "vibe")
    monkeypatch.setenv("TOTAL_RECALL_VIBE_ROOT", str(tmp_path / "vibe"))
    run("sync", "--harness", "vibe")
    [parent] = [s for s in listed() if s["parent"] is None]
    assert parent["title"] == asked
    [message] = [e for e in entries(parent["session"]) if e["text"] == asked]
    run("quarantine", message["address"], "--reason", "private")
    assert all(s["title"] != asked for s in listed())
    with running_stub() as stub, Record(home() / "record.sqlite3") as record:
        stub.script(Reply(body=completion("- Ran the tests (s1#2).")))
        provider = Provider.from_env(home=tmp_path, env=stub.env(), sleep=lambda _: None)
        summarise_from(record, session=int(parent["session"][1:]), provider=provider)
        assert "what fails" not in stub.prompt()
    run("quarantine", message["address"], "--undo")
    assert [s["title"] for s in listed() if s["parent"] is None] == [asked]


def test_a_summary_written_after_an_erase_keeps_no_line_citing_it_and_no_quote_of_it(
    claude: ClaudeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model may hold erased words from elsewhere (a copy, an earlier block): a line citing the erased
    # entry is withheld, and so is a quote that is its whole text, wherever it stands.
    run("erase", secret_address(), "--reason", "a deploy token")
    answer = (f"- Instructions: \"{SECRET}\" (s1#3).\n- Then: the owner said “{SECRET}”.\n"
              "- Ran the test suite (s1#5).")
    with running_stub() as stub, Record(home() / "record.sqlite3") as record:
        stub.script(Reply(body=completion(answer)))
        provider = Provider.from_env(home=tmp_path, env=stub.env(), sleep=lambda _: None)
        reply = summarise_from(record, session=1, provider=provider)
        [block] = summary_cache(record, session=1, with_text=True)["blocks"]
    assert TOKEN not in block["text"] and TOKEN not in reply["text"]
    assert "Ran the test suite (s1#5)" in block["text"] and "[erased]" in block["text"]
    assert {"address": "s1#3", "why": "erased: what the model says of it is withheld"} in block["unverified"]
    assert found() == {}


@pytest.mark.parametrize("when", ["synced before the erase", "synced after the erase"])
def test_a_compaction_summary_listing_an_erased_message_loses_that_entry(claude: ClaudeSession, when: str
                                                                         ) -> None:
    # Claude Code's compaction summary lists "All user messages" word for word, one to a line.
    def compact() -> None:
        _compact_summary(claude, "Set up the deploy for staging.", SECRET, "Now run the test suite.")
        run("sync")

    secret = secret_address()
    if when == "synced before the erase":
        compact()
    run("erase", secret, "--reason", "a deploy token")
    if when == "synced after the erase":
        compact()
    [summary] = [e for e in entries("s1") if e["kind"] == "summary"]
    assert summary["erased"] is not None
    assert hits(TOKEN) == [] and found() == {}
    assert [e["text"] for e in entries("s1") if e["author"] == "owner" and not e["erased"]] == [
        "Set up the deploy for staging.", "Now run the test suite."]


def test_erasing_a_session_leaves_another_session_s_summary_and_interruptions_that_only_say_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Run the full test suite now" typed in both sessions, and the harness's "[Request interrupted by
    # user]" in both: the other session's own words and its summary's list of them are no copies.
    root = tmp_path / "claude"
    sessions = {}
    for name, first in (("a", SECRET), ("b", "Fix the flaky parser in the CLI")):
        s = sessions[name] = ClaudeSession(root, name=name)
        s.owner(first).agent("Working on it.").owner("[Request interrupted by user]")
        s.owner("Run the full test suite now")
    _compact_summary(sessions["b"], "Fix the flaky parser in the CLI", "Run the full test suite now")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(root))
    run("sync")
    number = {s["native_id"]: s["session"] for s in listed()}
    run("erase", number[sessions["a"].id], "--reason", "a deploy token")
    assert not any(e["erased"] for e in entries(number[sessions["b"].id]))
    later = ClaudeSession(root, name="c")
    later.owner("Unrelated work on the docs site").owner("[Request interrupted by user]")
    run("sync")
    [third] = [s for s in listed() if s["native_id"] == later.id]
    assert not any(e["erased"] for e in entries(third["session"]))


def test_a_quote_of_an_erased_prompt_that_ended_in_a_newline_is_erased_when_synced_later(
    claude: ClaudeSession,
) -> None:
    claude.owner("Rotate the staging certificates on web-3 tonight\n").agent("Will do.")  # pasted, newline
    run("sync")
    [prompt] = [e for e in entries("s1") if e["text"].startswith("Rotate the staging")]
    run("erase", prompt["address"], "--reason", "private")
    _compact_summary(claude, "Set up the deploy for staging.",
                     "Rotate the staging certificates on web-3 tonight")
    run("sync")
    [summary] = [e for e in entries("s1") if e["kind"] == "summary"]
    assert summary["erased"] is not None and found("web-3 tonight") == {}


def _compact_summary(session: ClaudeSession, *said: str) -> None:
    """Append Claude Code's compaction summary listing the owner's messages, one to a line."""
    text = ("This session is being continued from a previous conversation that ran out of context.\n"
            "Summary:\n6. All user messages:\n" + "".join(f'   - "{s}"\n' for s in said))
    line = {"parentUuid": session.parent, "isSidechain": False, "type": "user", "isCompactSummary": True,
            "message": {"role": "user", "content": text}, "uuid": f"c0mpact-{session.n}", "cwd": "/srv/app",
            "timestamp": "2026-11-16T11:00:00.000Z", "sessionId": session.id, "version": "2.1.0"}
    with session.path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def test_erasing_several_texts_at_once_takes_every_other_line_holding_one_whole_and_no_line_holding_a_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A single word (no word inside it; another line holds it inside a longer word), and two lines a source
    # line holds JSON-escaped: where looking for a text only in the lines holding its longest inner word
    # could miss it.
    bare = "ghp0123456789abcdefABCDEFxyz"
    two_lines = "first step of the rollout plan\nsecond step of the rollout plan"
    session = ClaudeSession(tmp_path / "claude")
    session.owner(bare).owner(two_lines).agent("Saved both to the notes.")
    session.tool("cat notes.txt", f"notes:{bare}\n{two_lines}\n")
    session.tool("cat part.txt", "the second step of the rollout plan")
    session.tool("cat key.txt", f"key_{bare}")
    monkeypatch.setenv("TOTAL_RECALL_CLAUDE_ROOT", str(session.root))
    run("sync")
    said = entries("s1")
    [first, second] = [e["address"] for e in said if e["text"] in (bare, two_lines)]
    run("erase", f"{first}-{second.split('#')[1]}", "--reason", "private")
    kept = {e["text"] for e in entries("s1") if not e["erased"]}
    assert "the second step of the rollout plan" in kept
    assert not any(bare in text or "first step" in text for text in kept)
    assert found(bare) == {} and found("first step of the rollout") == {}


def test_an_erase_landing_between_two_commits_of_a_running_sync_reaches_the_copies_read_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from total_recall.readers import base
    from total_recall.record import read_ahead
    from total_recall.record import sync as syncing

    # Chunks of one line, a commit at every checkpoint, all in this process: the erase gets in after the
    # commit that holds the secret, as another process's would between a long sync's commits.
    monkeypatch.setattr(base, "CHECKPOINT_BYTES", 1)
    monkeypatch.setattr(base, "READ_CHUNK", 64)
    monkeypatch.setattr(read_ahead, "FLUSH_BYTES", 1)
    monkeypatch.setattr(syncing, "COMMIT_BYTES", 1)
    monkeypatch.setattr(syncing, "START_AFTER_BYTES", 1 << 40)
    session = ClaudeSession(tmp_path / "claude")
    session.owner(SECRET)
    for n in range(12):
        session.agent(f"Working on step {n} of the deploy.")
    session.agent(SECRET)  # the agent says it back word for word, later in the same file
    path = tmp_path / "home" / "record.sqlite3"
    real_commit = Record.commit
    erased: list[str] = []

    def commit_then_erase(self: Record) -> None:
        real_commit(self)
        if erased or self.path != path:
            return
        row = self.db.execute("SELECT session, seq FROM entries WHERE text = ?", (SECRET,)).fetchone()
        if row is not None:
            with Record(path) as other:  # the owner's erase, between this commit and the next begin
                erased.extend(other.erase(Address(row[0], row[1], row[1]), "a deploy token"))

    monkeypatch.setattr(Record, "commit", commit_then_erase)
    with Record(path) as record:
        session.sync(record)
        assert erased
        texts = [r[0] for r in record.db.execute("SELECT text FROM entries ORDER BY session, seq")]
    assert texts[-1] != SECRET and "a deploy token" in texts[-1]
    assert TOKEN.encode() not in path.read_bytes()
