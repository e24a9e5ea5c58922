"""The log-mining tools on the MCP server, through a real client: the SDK's stdio client spawning
`total-recall mcp` on the mining record (every fixture store plus a recent session per harness).

One server per module (and one bound to codex) answers every test: the SDK's import costs seconds per
spawn. Each tool's reply is compared with its operation called in this process on the same record.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.from_thread
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent, Tool

from tests.mining_stores import ANSWER, GIT_COMMAND, QUESTION, RECENT, Mined, mine, mined_record
from tests.stores import fixture_stores
from tests.test_mcp import EXE
from total_recall.find.search import search
from total_recall.mining.bounds import dump
from total_recall.mining.flood import MARKER
from total_recall.mining.indexing import INDEX_TOOL
from total_recall.mining.scope import MAX_BYTES_CEILING, sessions_by_activity
from total_recall.mining.scoped_search import DREAM_TOOL
from total_recall.model import Address
from total_recall.ops.replies import hit_json
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

MINING_TOOLS = {"list_sessions", "profile_session", "extract_messages", "extract_user_messages",
                "extract_by_type", "extract_qa_pairs", "todo_history", "she_said_he_said_action",
                "line_histogram", INDEX_TOOL, DREAM_TOOL}
WINDOW_TOOLS = {"list_sessions", "extract_qa_pairs", "she_said_he_said_action", INDEX_TOOL, DREAM_TOOL}
CHEAP_FORMS = ("hours_back=24 (a window in hours; 0 or omitted = the tool's default window), or "
               "directory='…' (a piece of the sessions' folder), or all=true on purpose for the whole record")


@dataclass
class Client:
    """An initialized SDK client session on a running `total-recall mcp`, driven from synchronous tests."""

    portal: anyio.from_thread.BlockingPortal
    session: ClientSession

    def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        result = self.portal.call(self.session.call_tool, tool, arguments)
        assert isinstance(result, CallToolResult)
        return result

    def tools(self) -> dict[str, Tool]:
        listed = self.portal.call(self.session.list_tools)
        return {t.name: t for t in listed.tools}


@contextmanager
def serving(env: dict[str, str], errlog: Path, *args: str) -> Iterator[Client]:
    """`total-recall mcp --no-sync ARGS` under the SDK's stdio client, kept open until the block ends."""
    with ExitStack() as stack:
        portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
        err = stack.enter_context(open(errlog, "a", encoding="utf-8"))
        params = StdioServerParameters(command=str(EXE), args=["mcp", "--no-sync", *args], env=env)
        read_stream, write_stream = stack.enter_context(
            portal.wrap_async_context_manager(stdio_client(params, errlog=err)))
        session = stack.enter_context(
            portal.wrap_async_context_manager(ClientSession(read_stream, write_stream)))
        portal.call(session.initialize)
        yield Client(portal, session)


@dataclass
class World:
    """The mining record, the environment its servers run in, and where their overflow files go."""

    mined: Mined
    env: dict[str, str]
    overflow: Path

    @property
    def record(self) -> Record:
        return self.mined.record

    def address(self, harness: str) -> str:
        return self.mined.session(harness, RECENT[harness])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = tmp_path_factory.mktemp("mcp-mining")
    with mined_record(base) as mined:
        tmp = base / "tmp"
        tmp.mkdir()
        env = {**mined.stores.env, "HOME": str(base / "home"), "TOTAL_RECALL_HOME": str(base),
               "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0", "TMPDIR": str(tmp)}
        assert mined.record.path == base / "record.sqlite3"
        yield World(mined, env, base / "overflow")


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[Client]:
    with serving(world.env, world.overflow.parent / "tmp" / "server.log") as c:
        yield c


@pytest.fixture(scope="module")
def codex(world: World) -> Iterator[Client]:
    """A server bound to codex."""
    with serving(world.env, world.overflow.parent / "tmp" / "codex.log", "--harness", "codex") as c:
        yield c


def text(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def ok(result: CallToolResult) -> str:
    assert not result.is_error, text(result)
    return text(result)


def payload(result: CallToolResult) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(ok(result))
    assert value == result.structured_content
    return value


def refused(result: CallToolResult) -> str:
    assert result.is_error, text(result)
    return text(result)


def bounds_of(prop: dict[str, Any]) -> tuple[Any, Any]:
    """(minimum, maximum) of a schema property, inside its anyOf when it may also be null."""
    for schema in [prop, *prop.get("anyOf", [])]:
        if "minimum" in schema or "maximum" in schema:
            return schema.get("minimum"), schema.get("maximum")
    return None, None


def overflow_file(reply: str) -> Path:
    [line] = [line for line in reply.splitlines() if line.startswith("full_report: ")]
    return Path(line.removeprefix("full_report: "))


def is_private(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o600


# -- the tools' schemas --


def test_every_mining_tool_is_listed_with_its_effect_and_its_bounds_as_minimum_and_maximum(
        client: Client) -> None:
    tools = client.tools()
    assert set(tools) >= MINING_TOOLS
    stated = {"limit": (1, 1000), "max_bytes": (1024, 8_388_608), "offset": (0, 2**63 - 1),
              "max_record_bytes": (256, 8_388_608), "hours_back": (0, 876_600), "line": (1, None),
              "start": (1, None), "end": (1, None), "budget_seconds": (0, 600)}
    for name in MINING_TOOLS:
        tool = tools[name]
        # index_sessions syncs (it adds to the record, as `sync` does); the others only read.
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name != INDEX_TOOL), name
        assert tool.annotations.destructive_hint is False, name
        props = tool.input_schema["properties"]
        assert "max_bytes" in props, name
        for param, bound in stated.items():
            if param in props:
                assert bounds_of(props[param]) == bound, (name, param)
        if name in WINDOW_TOOLS:
            assert {"hours_back", "all", "directory"} <= set(props), name
            assert "(default: the last 240 hours)" in (tool.description or ""), name
            assert "the last 240 hours" in props["hours_back"]["description"], name
    assert set(tools["list_sessions"].input_schema["properties"]) == {"hours_back", "all", "directory",
                                                                       "max_bytes"}
    assert tools["she_said_he_said_action"].input_schema["required"] == ["words"]
    assert tools[DREAM_TOOL].input_schema["required"] == ["query"]
    assert tools["extract_by_type"].input_schema["properties"]["types"]["items"]["enum"] == [
        "user", "assistant", "tool", "thinking", "meta", "all"]
    assert bounds_of(tools["search"].input_schema["properties"]["max_bytes"]) == (1024, 8_388_608)


# -- each tool once, on the fixture record --


def test_list_sessions_defaults_to_the_recent_window_and_all_lists_the_whole_record(
        client: Client, world: World) -> None:
    recent = payload(client.call("list_sessions", {}))
    assert recent == json.loads(dump(mine(world.record, "list_sessions")))
    assert recent["window"] == "the last 240 h (the default window)"
    assert {row["session"] for row in recent["sessions"]} == {world.address(h) for h in RECENT}
    everything = payload(client.call("list_sessions", {"all": True, "max_bytes": MAX_BYTES_CEILING}))
    newest = [c.address for c in sessions_by_activity(world.record)]
    assert [row["session"] for row in everything["sessions"]] == newest
    assert (everything["window_count"], everything["held_back"]) == (len(newest), 0)


def test_the_session_tools_answer_exactly_what_their_core_function_returns(client: Client,
                                                                          world: World) -> None:
    claude, codex, vibe = (world.address(h) for h in ("claude-code", "codex", "vibe"))
    record = world.record
    cases = [
        ("profile_session", {"session_id": claude}),
        ("extract_messages", {"session_id": RECENT["codex"], "full": True, "limit": 3, "offset": 0}),
        ("extract_user_messages", {"session_id": codex}),
        ("extract_by_type", {"session_id": claude, "types": ["tool"], "max_record_bytes": 300}),
        ("todo_history", {"session_id": vibe}),
        ("extract_qa_pairs", {}),
        ("she_said_he_said_action", {"words": ["changelog", "tag"]}),
    ]
    for tool, arguments in cases:
        got = ok(client.call(tool, arguments))
        expected = mine(record, tool, **arguments)
        assert got == (expected if isinstance(expected, str) else dump(expected).decode()), tool
    profile, page = (payload(client.call(t, a)) for t, a in cases[:2])
    assert profile["session"] == claude and profile["event_counts"]["GitCommit"] == 1
    assert all(Address.parse(event["address"]).session == Address.parse(claude).session
               for event in profile["interesting_events"])
    assert page["bounds"]["returned_records"] == 3 and page["bounds"]["next_offset"] == 3
    assert page["bounds"]["bytes"] == len(dump(page))


def test_the_line_tools_carry_an_address_on_every_record(client: Client, world: World) -> None:
    claude = world.address("claude-code")
    lines = ok(client.call("extract_by_type", {"session_id": claude, "types": ["tool"]})).splitlines()
    assert lines[0].startswith("# {") and len(lines) == 9
    for line in lines[1:]:
        kind, _, record = line.split(",", 2)
        assert kind == "tool" and json.loads(record)["address"].startswith(f"{claude}#")
    todo = ok(client.call("todo_history", {"session_id": world.address("vibe")})).splitlines()
    assert [json.loads(line)["action"] for line in todo[1:]] == ["added", "added", "completed", "completed"]
    qa = ok(client.call("extract_qa_pairs", {"all": True}))
    assert f"QUESTION: {QUESTION}" in qa and f"  - {ANSWER}" in qa and "→ answered s" in qa
    said = ok(client.call("she_said_he_said_action", {"words": ["changelog"], "session_id": claude}))
    assert "HE SAID" in said and f"{claude}#" in said


def test_dream_searches_only_the_sessions_in_scope_one_hit_a_line(client: Client, world: World) -> None:
    claude = world.address("claude-code")
    recent = ok(client.call(DREAM_TOOL, {"query": "changelog"}))
    assert recent == mine(world.record, DREAM_TOOL, query="changelog")
    head, columns, *hits = recent.splitlines()
    assert head.startswith(f"# {DREAM_TOOL} · query 'changelog' · scope: the last 240 h (the default "
                           "window) · sessions searched: 5 (")
    assert columns == "address | score | timestamp | AUTHOR | snippet"
    in_window = {world.address(h) for h in RECENT}
    assert len(hits) == 10
    for line in hits:
        address, score, _, author, _ = line.split(" | ", 4)
        assert f"s{Address.parse(address).session}" in in_window and float(score) > 0
        assert author.split(" ")[0] in {"OWNER", "AGENT", "TOOL", "HARNESS", "SYSTEM"}
        assert "changelog" in read(world.record, address)[0].text.lower()
    one = ok(client.call(DREAM_TOOL, {"query": GIT_COMMAND.split("&&")[0], "session_id": claude,
                                      "limit": 3}))
    assert f"sessions searched: 1 ({claude})" in one.splitlines()[0]
    assert all(line.startswith(f"{claude}#") for line in one.splitlines()[2:])
    wide = ok(client.call(DREAM_TOOL, {"query": "fixture", "all": True, "limit": 5}))
    assert "scope: the whole record (all=true)" in wide and len(wide.splitlines()) == 7


def test_index_sessions_syncs_and_reports_per_session_what_is_indexed_and_pending(client: Client,
                                                                                 world: World) -> None:
    got = payload(client.call(INDEX_TOOL, {"all": True, "budget_seconds": 0, "max_bytes": MAX_BYTES_CEILING}))
    assert got["scope"] == "the whole record (all=true)"
    assert got["sync"]["entries_added"] == 0 and got["sync"]["errors"] == []
    assert got["meaning_vectors"] == {"available": None, "embedded": 0, "done": False, "budget_seconds": 0.0}
    rows = got["sessions"]
    assert [r["session"] for r in rows] == [c.address for c in sessions_by_activity(world.record)]
    assert got["totals"]["entries"] == sum(r["entries"] for r in rows) > 0
    assert got["totals"]["pending"] == got["totals"]["embeddable"] > 0  # nothing embedded in this record
    assert "budget_seconds is 0" in got["notice"]
    day = payload(client.call(INDEX_TOOL, {"budget_seconds": 0}))
    assert day["scope"] == "the last 240 h (the default window)"
    assert {r["session"] for r in day["sessions"]} == {world.address(h) for h in RECENT}


def test_index_sessions_makes_the_pending_meaning_vectors_within_its_budget(tmp_path: Path) -> None:
    # A record of one small store, so embedding all of it takes a moment.
    with fixture_stores(tmp_path / "stores") as stores:
        env = {**stores.env, "HOME": str(tmp_path / "home"), "TOTAL_RECALL_HOME": str(tmp_path / "record"),
               "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
        with Record(tmp_path / "record" / "record.sqlite3") as record:
            assert sync(record, ["vibe"], env=env).errors == []
        with serving(env, tmp_path / "server.log", "--harness", "vibe") as c:
            first = payload(c.call(INDEX_TOOL, {"all": True, "budget_seconds": 600}))
            again = payload(c.call(INDEX_TOOL, {"all": True, "budget_seconds": 600}))
    assert first["meaning_vectors"]["embedded"] == first["totals"]["embeddable"] > 0
    assert first["meaning_vectors"]["done"] is True
    assert first["totals"]["pending"] == 0 and first["notice"].endswith(
        f"meaning vectors: all {first['totals']['embeddable']} made")
    assert again["meaning_vectors"]["embedded"] == 0 and again["totals"] == first["totals"]


def test_line_histogram_profiles_a_file_and_extracts_its_lines(client: Client, world: World) -> None:
    world.overflow.mkdir(mode=0o700, exist_ok=True)
    path = world.overflow / "dump.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 41)), encoding="utf-8")
    assert "Total lines: 40" in ok(client.call("line_histogram", {"file_path": str(path)}))
    lines = ok(client.call("line_histogram", {"file_path": str(path), "mode": "extract", "start": 2,
                                              "end": 3}))
    assert lines == "line 2\nline 3\n"


# -- the scope contract's rejections, each by name --


def test_an_unknown_parameter_is_refused_by_name_with_the_accepted_list(client: Client) -> None:
    typo = refused(client.call("list_sessions", {"hour_back": 5}))
    assert typo.startswith("list_sessions: unrecognised field `hour_back` (did you mean `hours_back`?)")
    assert typo.endswith("list_sessions accepts: hours_back, all, directory, max_bytes")
    other = refused(client.call("profile_session", {"session": "s1"}))
    assert other.startswith("profile_session: unrecognised field `session` (did you mean `session_id`?)")
    assert other.endswith("profile_session accepts: session_id, max_bytes")


def test_a_window_outside_the_contract_is_refused_naming_the_cheap_forms(client: Client) -> None:
    both = refused(client.call("list_sessions", {"all": True, "hours_back": 5}))
    assert both == ("list_sessions: all=true is the whole record and hours_back=5 is a window — pass one, "
                    f"not both; pass {CHEAP_FORMS}")
    negative = refused(client.call("extract_qa_pairs", {"hours_back": -1}))
    assert negative == "extract_qa_pairs: `hours_back` is out of range: -1 — it must be at least 0"
    for tool, extra in ((DREAM_TOOL, {"query": "tag"}), (INDEX_TOOL, {}),
                        ("she_said_he_said_action", {"words": ["tag"]})):
        message = refused(client.call(tool, {**extra, "all": True, "hours_back": 2}))
        assert message.startswith(f"{tool}: all=true is the whole record") and CHEAP_FORMS in message
    mixed = refused(client.call(DREAM_TOOL, {"query": "tag", "session_id": "s1", "hours_back": 2}))
    assert mixed == (f"{DREAM_TOOL}: `session_id` picks one session and `hours_back`/`directory`/`all` pick "
                     "a window — pass one, not both")


def test_a_bound_out_of_range_is_refused_naming_the_parameter_and_its_bound(client: Client) -> None:
    def out(name: str, given: object, bound: str) -> str:
        return f"`{name}` is out of range: {given} — it must be {bound}"

    cases = [
        ("extract_messages", {"limit": 0}, out("limit", 0, "at least 1")),
        ("extract_messages", {"limit": 1001}, out("limit", 1001, "at most 1000")),
        ("extract_user_messages", {"offset": -1}, out("offset", -1, "at least 0")),
        ("extract_by_type", {"max_record_bytes": 100}, out("max_record_bytes", 100, "at least 256")),
        ("list_sessions", {"max_bytes": 8_388_609}, out("max_bytes", 8388609, "at most 8388608")),
        ("profile_session", {"max_bytes": 1023}, out("max_bytes", 1023, "at least 1024")),
        (DREAM_TOOL, {"query": "tag", "limit": 1001}, out("limit", 1001, "at most 1000")),
        (INDEX_TOOL, {"budget_seconds": 601}, out("budget_seconds", 601, "at most 600")),
        ("line_histogram", {"file_path": "/", "mode": "extract", "line": 0}, out("line", 0, "at least 1")),
        ("she_said_he_said_action", {"words": []}, "`words`: list should have at least 1 item"),
        ("extract_by_type", {"types": ["tools"]}, "`types`: input should be 'user', 'assistant'"),
        ("search", {"query": "tag", "max_bytes": 8_388_609}, out("max_bytes", 8388609, "at most 8388608")),
    ]
    for tool, arguments, message in cases:
        assert refused(client.call(tool, arguments)).startswith(f"{tool}: {message}"), (tool, arguments)
    empty = refused(client.call(DREAM_TOOL, {"query": "  "}))
    assert empty == f"{DREAM_TOOL}: `query` is empty — give some words, a path, a hash or an error line"


def test_an_ambiguous_or_unknown_session_id_is_refused_naming_what_it_matched(client: Client,
                                                                             world: World) -> None:
    ambiguous = refused(client.call("profile_session", {"session_id": "00000000-0000"}))
    assert ambiguous.startswith("profile_session: session_id '00000000-0000' is ambiguous — it matches 4 "
                                "sessions: ")
    assert ambiguous.endswith("Pass more of the id, or the address (s7)")
    assert all(world.address(h) in ambiguous for h in ("claude-code", "codex", "vibe", "openclaw"))
    unknown = refused(client.call("extract_messages", {"session_id": "no-such-session"}))
    assert unknown.startswith("extract_messages: session_id 'no-such-session' matches no session — tried "
                              "it as an address (s7), as the native id exactly, as a prefix of the native "
                              "id, as a piece of the native id. The most recent: ")
    total = len(world.record.sessions())
    assert refused(client.call("todo_history", {"session_id": "s9999"})) == (
        f"todo_history: no session s9999 — the record holds s1–s{total}")


def test_a_bound_server_refuses_a_session_of_another_harness_and_lists_only_its_own(codex: Client,
                                                                                   world: World) -> None:
    claude = world.address("claude-code")
    outside = f"{claude} is a claude-code session; this server is bound to codex"
    for tool, arguments in (("profile_session", {"session_id": claude}),
                            ("extract_messages", {"session_id": RECENT["claude-code"]}),
                            ("she_said_he_said_action", {"words": ["tag"], "session_id": claude}),
                            (DREAM_TOOL, {"query": "tag", "session_id": claude}),
                            (INDEX_TOOL, {"session_id": claude, "budget_seconds": 0})):
        assert refused(codex.call(tool, arguments)) == f"{tool}: {outside}", tool
    listed = payload(codex.call("list_sessions", {"all": True, "max_bytes": MAX_BYTES_CEILING}))
    assert listed["harness"] == "codex" and {row["harness"] for row in listed["sessions"]} == {"codex"}
    assert payload(codex.call("profile_session", {}))["session"] == world.address("codex")
    hits = ok(codex.call(DREAM_TOOL, {"query": "fixture", "all": True, "limit": 50})).splitlines()[2:]
    assert hits and {world.record.session(Address.parse(h.split(" | ")[0]).session).harness
                     for h in hits} == {"codex"}


# -- flood control --


def test_a_capped_text_reply_never_exceeds_max_bytes_and_its_file_holds_the_whole(client: Client,
                                                                                 world: World) -> None:
    whole = mine(world.record, "she_said_he_said_action", words=["git"], all=True,
                 max_bytes=MAX_BYTES_CEILING)
    assert len(whole.encode()) > 4096
    got = ok(client.call("she_said_he_said_action", {"words": ["git"], "all": True, "max_bytes": 2048}))
    assert len(got.encode()) <= 2048
    kept, marker = got.split(MARKER + "\n")
    assert whole.startswith(kept) and kept.endswith("\n")  # cut at a line boundary
    assert marker.startswith("tool: she_said_he_said_action\n")
    path = overflow_file(got)
    assert path.parent == world.overflow and is_private(path)
    assert path.read_text(encoding="utf-8") == whole
    profiled = ok(client.call("line_histogram", {"file_path": str(path)}))
    assert f"Total lines: {len(whole.splitlines())}" in profiled


def test_a_capped_json_reply_stays_valid_json_under_max_bytes_and_its_file_holds_the_whole(
        client: Client, world: World) -> None:
    def profile(address: str) -> dict[str, Any]:
        found: dict[str, Any] = mine(world.record, "profile_session", session_id=address,
                                     max_bytes=MAX_BYTES_CEILING)
        return found

    busiest = max(sessions_by_activity(world.record), key=lambda c: len(dump(profile(c.address))))
    whole = profile(busiest.address)
    got = payload(client.call("profile_session", {"session_id": busiest.address, "max_bytes": 2048}))
    assert got["bytes"] <= 2048 and got["held_back"] > 0
    events = whole["interesting_events"]
    assert got["interesting_events"] == events[len(events) - len(got["interesting_events"]):]
    path = Path(got["overflow"]["file"])
    assert path.parent == world.overflow and is_private(path)
    assert json.loads(path.read_text(encoding="utf-8"))["interesting_events"] == events


def test_search_and_dream_hold_back_what_does_not_fit_and_keep_the_whole_in_a_file(client: Client,
                                                                                   world: World) -> None:
    found = payload(client.call("search", {"query": "fixture", "limit": 200, "max_bytes": 2048}))
    assert found["bytes"] <= 2048 and found["held_back"] > 0
    expected = [hit_json(h) for h in search(world.record, "fixture", limit=200)]
    assert found["hits"] == expected[:len(found["hits"])]
    path = Path(found["overflow"]["file"])
    assert is_private(path) and json.loads(path.read_text(encoding="utf-8"))["hits"] == expected
    dreamt = ok(client.call(DREAM_TOOL, {"query": "fixture", "all": True, "limit": 200, "max_bytes": 2048}))
    assert len(dreamt.encode()) <= 2048 and MARKER in dreamt
    path = overflow_file(dreamt)
    assert is_private(path)
    assert path.read_text(encoding="utf-8") == mine(world.record, DREAM_TOOL, query="fixture", all=True,
                                                    limit=200, max_bytes=MAX_BYTES_CEILING)


def test_the_mining_tools_leave_the_stores_byte_identical(client: Client, world: World) -> None:
    for tool, arguments in (("list_sessions", {"all": True}), ("profile_session", {}),
                            ("extract_by_type", {"raw": True, "include_injected": True}),
                            (INDEX_TOOL, {"all": True, "budget_seconds": 0}),
                            (DREAM_TOOL, {"query": "tag", "all": True})):
        ok(client.call(tool, arguments))
    assert world.mined.stores.digest() == world.mined.digest
