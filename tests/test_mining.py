"""The log-mining tools over a record synced from every harness's fixture store."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from pydantic import ValidationError

from tests.mining_stores import (
    ANSWER,
    CWD,
    GIT_COMMAND,
    QUESTION,
    RECENT,
    Mined,
    long_titled_vibe_session,
    mine,
    mined_record,
)
from total_recall.errors import ScopeError
from total_recall.mining.bounds import dump
from total_recall.mining.flood import MARKER
from total_recall.mining.listing import harness_status
from total_recall.mining.timeline import WITHHELD
from total_recall.model import HARNESSES, Address

HARNESS_TODO_TOOL = {"claude-code": "TodoWrite", "codex": "update_plan", "vibe": "todo"}


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mined]:
    with mined_record(tmp_path_factory.mktemp("mining")) as m:
        yield m


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Mined]:
    """A record of its own, for tests that erase or quarantine."""
    with mined_record(tmp_path / "fresh") as m:
        yield m


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def todo_events(text: str) -> tuple[dict[str, object], list[dict[str, object]]]:
    lines = text.splitlines()
    return orjson.loads(lines[0].removeprefix("# ")), [orjson.loads(line) for line in lines[1:]]


def test_status_names_every_harness_with_its_sessions_entries_and_last_sync(mined: Mined) -> None:
    status = harness_status(mined.record)
    assert status["record"] == str(mined.record.path) and status["serves"] == list(HARNESSES)
    for row in status["harnesses"]:
        assert row["sessions"] > 0 and row["entries"] > 0 and row["last_sync"] and row["sources"] > 0
    assert status["totals"] == mined.record.counts()


def test_a_bound_status_serves_one_harness_and_names_the_others(mined: Mined) -> None:
    status = harness_status(mined.record, "vibe")
    assert status["serves"] == ["vibe"] and [r["harness"] for r in status["harnesses"]] == ["vibe"]
    assert "bound to vibe" in status["notice"] and "codex" in status["notice"]
    with pytest.raises(ScopeError, match="unknown harness 'vibee'"):
        harness_status(mined.record, "vibee")


def test_a_listing_is_most_recent_first_and_states_what_the_window_holds(mined: Mined) -> None:
    listed = mine(mined.record, "list_sessions", all=True, max_bytes=8388608)
    rows = listed["sessions"]
    stamps = [r["last_active"] or "" for r in rows]
    assert stamps == sorted(stamps, reverse=True)
    assert listed["window_count"] == len(rows) == listed["returned"] and listed["held_back"] == 0
    assert len(dump(listed)) == listed["bytes"]
    assert {r["harness"] for r in rows} == set(HARNESSES)


def test_a_listing_prints_as_many_rows_as_max_bytes_holds_and_counts_the_rest(mined: Mined) -> None:
    listed = mine(mined.record, "list_sessions", all=True, max_bytes=3000)
    assert 0 < listed["returned"] < listed["window_count"]
    assert listed["held_back"] == listed["window_count"] - listed["returned"]
    assert len(dump(listed)) == listed["bytes"] <= 3000 and "raise max_bytes" in listed["notice"]
    wider = mine(mined.record, "list_sessions", all=True, max_bytes=8388608)
    assert listed["sessions"] == wider["sessions"][: listed["returned"]]


def test_a_listing_row_links_children_to_their_parent(mined: Mined) -> None:
    rows = mine(mined.record, "list_sessions", all=True, harness="vibe", max_bytes=8388608)["sessions"]
    child = next(r for r in rows if r["relation"] == "compaction")
    parent = next(r for r in rows if r["session"] == child["parent"])
    assert child["session"] in parent["children"] and parent["child_count"] == 1


def test_a_listing_row_larger_than_the_whole_budget_goes_to_flood_control_whole(tmp_path: Path) -> None:
    with mined_record(tmp_path / "long", long_titled_vibe_session) as m:
        listed = mine(m.record, "list_sessions", harness="vibe", max_bytes=1024)
        assert len(dump(listed)) == listed["bytes"] <= 1024
        assert listed["sessions"] == [] and listed["held_back"] == listed["window_count"] == 2
        whole = orjson.loads(Path(listed["overflow"]["file"]).read_bytes())
        assert [r["title"] for r in whole["sessions"]] == ["t" * 2000, "ship 1.2"]
        assert "held back" in listed["notice"] and listed["overflow"]["file"] in listed["notice"]


@pytest.mark.parametrize("harness", sorted(RECENT))
def test_profile_finds_the_interesting_events_of_every_harness(mined: Mined, harness: str) -> None:
    profile = mine(mined.record, "profile_session", session_id=RECENT[harness])
    counts = profile["event_counts"]
    events = profile["interesting_events"]
    assert profile["harness"] == harness and len(dump(profile)) == profile["bytes"]
    assert all(e["address"].startswith(profile["session"] + "#") for e in events)
    if harness == "opencode":
        assert counts == {}  # the question session has no owner words, todo or git
        return
    assert counts["UserMessage"] >= 1
    assert {"GitCommit", "GitPush", "GitTag"} <= set(counts)
    git = next(e for e in events if e["event_type"] == "GitCommit")
    assert "git commit" in git["summary"]
    if harness in HARNESS_TODO_TOOL:
        assert counts["TodoCreate"] == 1 and counts["TodoUpdate"] == 1
    if harness == "codex":
        assert counts["Compaction"] == 1


def test_profile_reads_opencode_todo_git_and_compaction_from_prompt_cults_rows(mined: Mined) -> None:
    todo = mine(mined.record, "profile_session",
                session_id="ses_todo0000000000000000000001aa")["event_counts"]
    # Its last turn never finished; the rows are decades old, so it counts as abandoned and is read as it
    # stands (`readers/opencode.ABANDONED_MS`): its todo write adds a second list.
    assert todo["TodoCreate"] == 2 and todo["TodoUpdate"] >= 1 and todo["Compaction"] == 1
    git = mine(mined.record, "profile_session", session_id="ses_fixture0001aaaa")
    assert git["event_counts"]["GitCommit"] == 1
    commit = next(e for e in git["interesting_events"] if e["event_type"] == "GitCommit")
    assert commit["summary"] == "git commit -m x"


def test_profile_of_real_fixtures_finds_compactions_todos_and_owner_words(mined: Mined) -> None:
    claude = mine(mined.record, "profile_session", session_id="real_v1.0.51")["event_counts"]
    assert claude["TodoCreate"] == 1 and claude["TodoUpdate"] == 3 and claude["UserMessage"] >= 1
    for native, compactions in (("019fc8be", 7), ("d41f03b7", 1), ("019e19b4", 2)):  # codex, vibe, openclaw
        profile = mine(mined.record, "profile_session", session_id=native)
        assert profile["event_counts"]["Compaction"] == compactions, native


def test_a_prompt_that_mentions_git_commit_is_not_a_commit(mined: Mined) -> None:
    # ef958aa1 spawns agents whose prompts say "commit"; its only git commands are merges and logs.
    profile = mine(mined.record, "profile_session", session_id="ef958aa1", max_bytes=8388608)
    assert "GitCommit" not in profile["event_counts"]


def test_a_profile_over_its_budget_keeps_the_latest_events_and_spills_the_whole(mined: Mined) -> None:
    profile = mine(mined.record, "profile_session", session_id="ef958aa1", max_bytes=2048)
    assert len(dump(profile)) == profile["bytes"] <= 2048 and profile["held_back"] > 0
    whole = orjson.loads(Path(profile["overflow"]["file"]).read_bytes())
    kept, every = profile["interesting_events"], whole["interesting_events"]
    assert kept == every[len(every) - len(kept) :]


@pytest.mark.parametrize("harness", sorted(HARNESS_TODO_TOOL))
def test_todo_history_replays_every_harnesss_spelling_of_the_todo_tool(mined: Mined, harness: str) -> None:
    header, events = todo_events(mine(mined.record, "todo_history", session_id=RECENT[harness]))
    assert header["tools"] == [HARNESS_TODO_TOOL[harness]] and header["calls"] == 2
    assert [(e["action"], e["todo"]) for e in events] == [
        ("added", "write the changelog"),
        ("added", "tag v1.2"),
        ("completed", "write the changelog"),
        ("completed", "tag v1.2"),
    ]
    assert all(str(e["address"]).startswith(str(header["session"]) + "#") for e in events)


def test_todo_history_of_opencode_follows_renames_removals_and_json_in_a_string(mined: Mined) -> None:
    todo = mine(mined.record, "todo_history", session_id="ses_todo0000000000000000000001aa")
    header, events = todo_events(todo)
    assert header["tools"] == ["todowrite"]
    assert [(e["action"], e["todo"]) for e in events] == [
        ("added", "item00: first task"),
        ("added", "item01: second task"),
        ("in_progress", "item00: first task"),  # this flush's input was JSON inside a string
        ("updated", "item00: first task renamed"),
        ("removed", "item01: second task"),
        # the last turn, never finished and decades old: read as it stands (`opencode.ABANDONED_MS`)
        ("added", "item02: after compaction"),
        ("removed", "item00: first task renamed"),
    ]
    assert "status" not in events[-1]


def test_todo_history_reads_claude_codes_task_tools(mined: Mined) -> None:
    header, events = todo_events(mine(mined.record, "todo_history", session_id="ef958aa1"))
    assert header["tools"] == ["TaskCreate", "TaskUpdate"] and len(events) == 18
    assert events[6] == {**events[6], "action": "in_progress", "todo": "Research plan mode (alice)"}


def test_todo_history_without_todo_calls_is_an_empty_history_not_an_error(mined: Mined) -> None:
    header, events = todo_events(mine(mined.record, "todo_history", session_id=RECENT["openclaw"]))
    assert events == [] and header["calls"] == 0 and "looked for" in str(header["notice"])


def test_todo_history_from_the_last_compaction_starts_afresh(mined: Mined) -> None:
    _, events = todo_events(mine(mined.record, "todo_history", session_id=RECENT["codex"], full=False))
    assert [e["action"] for e in events] == ["added", "added"]  # the state before is not known


def test_extract_messages_starts_at_the_last_compaction_unless_full(mined: Mined) -> None:
    recent = mine(mined.record, "extract_messages", session_id=RECENT["codex"])
    assert (
        recent["since"] == recent["messages"][0]["address"] and recent["messages"][0]["kind"] == "compaction"
    )
    whole = mine(mined.record, "extract_messages", session_id=RECENT["codex"], full=True)
    assert whole["since"] is None and whole["messages"][0]["text"] == "plan the 1.2 release, then tag it"
    assert whole["bounds"]["total_records"] > recent["bounds"]["total_records"]
    assert all(m["kind"] != "meta" for m in whole["messages"])


def test_extract_user_messages_keeps_the_owners_words_and_skips_the_injected(mined: Mined) -> None:
    reply = mine(mined.record, "extract_user_messages", session_id="01a0f21c")  # the recorded codex session
    assert [m["text"] for m in reply["user_messages"]] == ["run echo fixture please"]
    everything = mine(mined.record, "extract_messages", session_id="01a0f21c", full=True)
    assert any(m.get("injected") for m in everything["messages"])  # the harness context is there
    wrapped = mine(mined.record, "extract_user_messages", session_id="real_v1.0.51")["user_messages"]
    assert any(m.get("wrapped") and "<" not in m["text"] for m in wrapped)


def test_extract_by_type_can_carry_the_source_record_of_each_entry(mined: Mined) -> None:
    text = mine(mined.record, "extract_by_type", session_id=RECENT["vibe"], types=["user"], raw=True)
    line = text.splitlines()[1]
    kind, ts, body = line.split(",", 2)
    record = orjson.loads(body)
    assert (kind, ts) == ("user", "0") and record["source"]["content"] == "ship 1.2: changelog, then tag"


def test_extract_by_type_skips_injected_records_unless_asked(mined: Mined) -> None:
    plain = mine(mined.record, "extract_by_type", session_id="01a0f21c", limit=1000)
    injected = mine(mined.record, "extract_by_type", session_id="01a0f21c", limit=1000, include_injected=True)
    assert '"injected":true' not in plain and '"injected":true' in injected
    assert any(line.startswith("meta,") for line in injected.splitlines())


def test_extract_by_type_rejects_an_unknown_type(mined: Mined) -> None:
    with pytest.raises(ValidationError, match="'user', 'assistant', 'tool', 'thinking', 'meta' or 'all'"):
        mine(mined.record, "extract_by_type", types=["tools"])


def test_she_said_he_said_action_works_on_every_harness_not_only_opencode(mined: Mined) -> None:
    out = mine(mined.record, "she_said_he_said_action", words=["branch", "TAG"])
    assert "scope: the last 240 h (the default window)" in out
    assert "sessions: 5 scanned, 5 with matches" in out
    for harness in ("claude-code", "codex", "vibe", "openclaw"):
        address = mined.session(harness, RECENT[harness])
        assert f"## {address} · {harness}" in out
    openclaw = mined.session("openclaw", RECENT["openclaw"])
    assert f"HE SAID  {openclaw}#1 " in out and f"SHE SAID {openclaw}#4 " in out
    assert f"THEY DID {openclaw}#2 " in out and "[branch, TAG]" in out


def test_she_said_he_said_action_scopes_by_session_and_directory(mined: Mined) -> None:
    one = mine(mined.record, "she_said_he_said_action", words=["fixture"], session_id="01a0f21c")
    assert "sessions: 1 scanned, 1 with matches" in one and "exec_command" in one
    mine_cwd = mine(mined.record, "she_said_he_said_action", words=["fixture"], all=True, directory=CWD)
    assert "/work/proj" not in mine_cwd
    with pytest.raises(ScopeError, match="`words` is required"):
        mine(mined.record, "she_said_he_said_action", words=[" ", ""])


def test_she_said_he_said_action_never_matches_harness_injected_text(mined: Mined) -> None:
    out = mine(mined.record, "she_said_he_said_action", words=["environment_context"], all=True)
    assert "hits: 0" in out and "no matches" in out


def test_qa_pairs_pair_owner_questions_and_question_tools_with_both_addresses(mined: Mined) -> None:
    out = mine(mined.record, "extract_qa_pairs")
    claude = mined.session("claude-code", RECENT["claude-code"])
    assert f"the owner asked {claude}#1 → answered {claude}#2" in out
    assert f"the agent asked (AskUserQuestion) {claude}#3 → answered {claude}#4" in out
    for harness, tool in (("vibe", "ask_user_question"), ("opencode", "question")):
        address = mined.session(harness, RECENT[harness])
        assert (
            f"the agent asked ({tool}) {address}#1" in out or f"the agent asked ({tool}) {address}#4" in out
        )
    assert out.count(f"QUESTION: {QUESTION}") == 3 and out.count(f"  - {ANSWER}\n") >= 3
    real = mine(mined.record, "extract_qa_pairs", session_id="ef958aa1")
    assert (
        "the owner asked" in real
        and "Q: Well, the subagents seem to be either stuck or done... can you check?" in real
    )


def test_a_quarantined_entry_never_comes_back_from_any_mining_tool(fresh: Mined) -> None:
    address = fresh.session("openclaw", RECENT["openclaw"])
    secret = "tag the release and push the branch"
    fresh.record.quarantine(Address.parse(f"{address}#1"), "private")
    messages = mine(fresh.record, "extract_messages", session_id=address, full=True)
    assert messages["messages"][0]["text"] == WITHHELD and messages["messages"][0]["quarantined"] == "private"
    replies = [
        dump(messages).decode(),
        dump(mine(fresh.record, "extract_user_messages", session_id=address)).decode(),
        mine(fresh.record, "extract_by_type", session_id=address, raw=True, include_injected=True),
        mine(fresh.record, "she_said_he_said_action", words=["release"], session_id=address),
        dump(mine(fresh.record, "profile_session", session_id=address)).decode(),
        mine(fresh.record, "extract_qa_pairs", session_id=address),
    ]
    for reply in replies:
        assert secret not in reply
    assert "1 quarantined hits withheld" in replies[3]


def test_an_erased_entry_comes_back_as_its_tombstone(fresh: Mined) -> None:
    address = fresh.session("codex", RECENT["codex"])
    fresh.record.erase(Address.parse(f"{address}#2"), "typo")
    first = mine(fresh.record, "extract_messages", session_id=address, full=True)["messages"][0]
    assert (
        first["address"] == f"{address}#2"
        and first["text"].startswith("[erased ")
        and "typo" in first["erased"]
    )
    profile = mine(fresh.record, "profile_session", session_id=address)
    assert profile["erased"] == 1 and profile["interesting_events"][0]["erased"]


def test_every_tool_leaves_every_store_byte_identical(mined: Mined, tmp_path: Path) -> None:
    record = mined.record
    harness_status(record)
    mine(record, "list_sessions", all=True)
    for harness, native in RECENT.items():
        mine(record, "profile_session", session_id=native)
        mine(record, "extract_messages", session_id=native, full=True)
        mine(record, "extract_user_messages", session_id=native)
        mine(record, "extract_by_type", session_id=native, raw=True, include_injected=True)
        mine(record, "todo_history", session_id=native)
        assert harness in HARNESSES
    mine(record, "she_said_he_said_action", words=["git"], all=True, max_bytes=1024)
    out = mine(record, "extract_qa_pairs", all=True, max_bytes=1024)
    assert MARKER in out or len(out.encode()) <= 1024
    with pytest.raises(ScopeError, match="reads only overflow files"):  # a store is not one
        mine(record, "line_histogram", file_path=str(mined.stores.roots["opencode"] / "opencode.db"))
    assert mined.stores.digest() == mined.digest
    assert GIT_COMMAND  # the recent sessions ran it; the stores still hold exactly what they held
