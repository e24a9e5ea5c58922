"""The MCP server through a real client: the SDK's stdio client spawning `total-recall mcp` on the record
of every fixture store."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from tests.stores import fixture_stores
from total_recall.find.search import search
from total_recall.indexes import vectors
from total_recall.model import HARNESSES, Address
from total_recall.ops.replies import entry_json
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

EXE = Path(sys.executable).parent / "total-recall"
# The tools that sync, erase or hide entries, build indexes, add to the record's derived tables (summary
# blocks, markers, receipts, cues) or call an LLM endpoint; every other tool only reads.
WRITING_TOOLS = {"summarise_from", "cache_delete_latest", "prior_period_summary", "compact", "cue", "sync",
                 "erase", "quarantine", "index", "index_sessions", "mute", "unmute", "observe",
                 "export_observations", "reflect", "restore_observations", "nightly", "approve_proposal",
                 "reject_proposal", "retire_observation"}
# Of the record's tools, these change what a read shows (a client asks before calling them).
DESTRUCTIVE_TOOLS = {"erase", "quarantine"}
T = TypeVar("T")


@dataclass
class Served:
    """A record synced from every fixture store, and the environment a server needs to serve it."""

    record: Path
    env: dict[str, str]

    def open_record(self) -> Record:
        return Record(self.record)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with fixture_stores(tmp_path / "stores") as stores:
        env = {**stores.env, "HOME": str(tmp_path / "home"), "TOTAL_RECALL_HOME": str(tmp_path / "record"),
               "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
        record = tmp_path / "record" / "record.sqlite3"
        with Record(record) as opened_record:
            assert sync(opened_record, env=env).errors == []
        yield Served(record, env)


def run_client(served: Served, talk: Callable[[ClientSession], Awaitable[T]], *args: str) -> T:
    """Spawn `total-recall mcp ARGS` with the SDK's stdio client, initialize, run `talk` on the session."""

    async def main() -> T:
        params = StdioServerParameters(command=str(EXE), args=["mcp", *args], env=served.env)
        with open(served.record.parent / "server-stderr.log", "a", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read_stream, write_stream), \
                    ClientSession(read_stream, write_stream) as session:
                await session.initialize()
                return await talk(session)

    return anyio.run(main)


def calls(served: Served, requests: list[tuple[str, dict[str, Any]]], *args: str) -> list[CallToolResult]:
    """Each (tool, arguments) called in turn on one server."""

    async def talk(session: ClientSession) -> list[CallToolResult]:
        out = []
        for tool, arguments in requests:
            result = await session.call_tool(tool, arguments)
            assert isinstance(result, CallToolResult)
            out.append(result)
        return out

    return run_client(served, talk, "--no-sync", *args)


def call(served: Served, tool: str, arguments: dict[str, Any], *args: str) -> CallToolResult:
    return calls(served, [(tool, arguments)], *args)[0]


def text(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def payload(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    value: dict[str, Any] = json.loads(text(result))
    assert value == result.structured_content
    return value


def test_tools_list_has_every_tool_read_only_with_bounds_stated_as_min_and_max(served: Served) -> None:
    async def talk(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {t.name: t for t in run_client(served, talk, "--no-sync")}
    assert {"status", "harness", "list_sessions", "read", "search"} <= set(tools)
    assert {"sync", "sessions", "erase", "quarantine", "index"} <= set(tools)
    for name in ("sync", "index", *DESTRUCTIVE_TOOLS):
        annotations = tools[name].annotations
        assert annotations is not None
        assert annotations.destructive_hint is (name in DESTRUCTIVE_TOOLS), name
    for tool in tools.values():
        assert tool.description, tool.name
        assert tool.annotations is not None
        if tool.name in WRITING_TOOLS:
            assert tool.annotations.read_only_hint is False, tool.name
            continue
        assert tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.open_world_hint is False, tool.name
    read_props = tools["read"].input_schema["properties"]
    assert (read_props["limit"]["minimum"], read_props["limit"]["maximum"]) == (1, 1000)
    assert (read_props["max_bytes"]["minimum"], read_props["max_bytes"]["maximum"]) == (1024, 8_388_608)
    assert read_props["offset"]["minimum"] == 0
    assert tools["read"].input_schema["required"] == ["address"]
    search_props = tools["search"].input_schema["properties"]
    assert (search_props["limit"]["minimum"], search_props["limit"]["maximum"]) == (1, 1000)
    assert set(search_props) == {"query", "limit", "harness", "session_id", "directory", "author", "since",
                                 "group", "max_bytes"}
    assert (search_props["max_bytes"]["minimum"], search_props["max_bytes"]["maximum"]) == (1024, 8_388_608)
    assert search_props["harness"]["items"]["enum"] == ["claude-code", "codex", "opencode", "vibe",
                                                        "openclaw"]


def test_read_returns_an_entry_exactly_as_the_record_holds_it(served: Served) -> None:
    with served.open_record() as record:
        session = next(s for s in record.sessions() if s.entries >= 3)
        address = f"{session.address}#2"
        expected = entry_json(read(record, address)[0])
    got = payload(call(served, "read", {"address": address}))
    assert got["entries"] == [expected]
    assert got["address"] == address and got["harness"] == session.harness
    bounds = got["bounds"]
    assert (bounds["total_records"], bounds["returned_records"], bounds["truncated"]) == (1, 1, False)


def test_a_reply_over_max_bytes_is_cut_at_an_entry_and_the_pages_add_up_to_the_whole(served: Served) -> None:
    with served.open_record() as record:
        session = max(record.sessions(), key=lambda s: s.entries)
        whole = [entry_json(e) for e in read(record, session.address)]

    async def page_through(session: ClientSession) -> list[CallToolResult]:
        results: list[CallToolResult] = []
        offset: int | None = 0
        while offset is not None:
            result = await session.call_tool("read", {"address": address, "offset": offset,
                                                      "max_bytes": 20_000})
            assert isinstance(result, CallToolResult)
            results.append(result)
            offset = payload(result)["bounds"]["next_offset"]
        return results

    address = session.address
    results = run_client(served, page_through, "--no-sync")
    assert len(results) > 2
    pages: list[dict[str, Any]] = []
    for result in results:
        got = payload(result)
        bounds = got["bounds"]
        assert bounds["bytes"] == len(text(result).encode()) <= 20_000
        assert bounds["offset"] == len(pages)
        pages.extend(got["entries"])
        if bounds["next_offset"] is not None:
            assert bounds["truncated"] is True and "byte_cap" in bounds["truncation_reason"]
            assert f"offset={bounds['next_offset']}" in bounds["notice"]
    assert pages == whole


def test_one_entry_larger_than_max_bytes_comes_in_parts_that_add_up_to_its_text(served: Served) -> None:
    with served.open_record() as record:
        entries = [e for s in record.sessions() for e in read(record, s.address)]
    longest = max(entries, key=lambda e: len(e.text))
    assert len(longest.text) > 1024
    text_offset: int | None = 0
    parts = []
    while text_offset is not None:
        result = call(served, "read", {"address": longest.address, "max_bytes": 1024,
                                       "text_offset": text_offset})
        got = payload(result)
        assert not result.is_error and got["bounds"]["bytes"] == len(text(result).encode()) <= 1024
        [part] = got["entries"]
        assert part["part"]["start"] == text_offset and part["part"]["length"] == len(longest.text)
        parts.append(part["text"])
        text_offset = got["bounds"]["next_text_offset"]
    assert len(parts) > 1 and "".join(parts) == longest.text


def test_search_finds_a_fixture_word_and_every_hit_is_an_address_read_opens(served: Served) -> None:
    got = payload(call(served, "search", {"query": "fixture", "limit": 8}))
    hits = got["hits"]
    assert len(hits) == 8
    with served.open_record() as record:
        for hit in hits:
            Address.parse(hit["address"])
            [entry] = read(record, hit["address"])
            assert "fixture" in entry.text.lower(), hit


def test_search_takes_the_cli_filters(served: Served) -> None:
    with served.open_record() as record:
        held = [record.session(Address.parse(h.address).session) for h in search(record, "fixture", limit=50)]
        session = next(s for s in held if s.cwd)
    assert session.cwd is not None
    filtered, grouped_result, one, where = calls(served, [
        ("search", {"query": "fixture", "limit": 50, "harness": ["codex"], "author": ["owner"]}),
        ("search", {"query": "fixture", "group": True}),
        ("search", {"query": "fixture", "limit": 50, "session_id": session.native_id}),
        ("search", {"query": "fixture", "limit": 50, "directory": session.cwd})])
    got = payload(filtered)
    assert got["hits"] and {(h["harness"], h["author"]) for h in got["hits"]} == {("codex", "owner")}
    grouped = payload(grouped_result)
    assert grouped["groups"] and all("range" in g for g in grouped["groups"])
    assert {h["session"] for h in payload(one)["hits"]} == {session.address}
    with served.open_record() as record:
        folders = {record.session(Address.parse(h["address"]).session).cwd for h in payload(where)["hits"]}
    assert folders and all(session.cwd in (f or "") for f in folders)


def test_erase_and_quarantine_over_mcp_change_what_read_and_search_show(served: Served) -> None:
    with served.open_record() as record:
        hit = search(record, "fixture", limit=1)[0]
        other = next(f"{s.address}#1" for s in record.sessions() if s.entries and s.number != hit.session)
    erased, after, found, hidden, again, released, page = calls(served, [
        ("erase", {"address": hit.address, "reason": "pasted a key"}),
        ("read", {"address": hit.address}),
        ("search", {"query": "fixture", "limit": 1000}),
        ("quarantine", {"address": other, "reason": "wrong project"}),
        ("quarantine", {"address": other, "reason": "wrong project"}),
        ("quarantine", {"address": other, "undo": True}),
        ("read", {"address": other})])
    # The address, and the harness's own records of the same words (Claude Code logs a prompt again as
    # queue and attachment events): every copy goes, and the reply names each.
    reply = payload(erased)
    assert reply["erased"][0] == hit.address and {a.split("#")[0] for a in reply["erased"]} == {
        hit.address.split("#")[0]}
    assert {k: v for k, v in reply.items() if k != "erased"} == {
        "reason": "pasted a key", "overflow_files_removed": 0, "exports_rewritten": 0, "snapshots_removed": 0,
        "exports_left_alone": [], "wal_cleared": True}
    [entry] = payload(after)["entries"]
    assert entry["erased"] is not None and entry["text"].startswith("[erased ")
    assert not set(reply["erased"]) & {h["address"] for h in payload(found)["hits"]}
    assert payload(hidden) == {"quarantined": [other], "reason": "wrong project"}
    assert payload(again) == {"quarantined": [], "reason": "wrong project"}  # each change reported once
    assert payload(released) == {"released": [other], "reason": None}
    assert payload(page)["entries"][0]["quarantined"] is None


def test_an_unknown_parameter_is_rejected_by_name_with_the_accepted_list(served: Served) -> None:
    typo, unscoped = calls(served, [("read", {"adress": "s1"}), ("list_sessions", {"hour_back": 5})])
    assert typo.is_error
    assert text(typo).startswith("read: unrecognised field `adress` (did you mean `address`?)")
    assert text(typo).endswith("; read accepts: address, offset, limit, max_bytes, text_offset")
    assert unscoped.is_error
    assert text(unscoped).startswith("list_sessions: unrecognised field `hour_back` (did you mean "
                                     "`hours_back`?)")
    assert text(unscoped).endswith("; list_sessions accepts: hours_back, all, directory, max_bytes")


def test_an_out_of_bounds_value_is_rejected_naming_the_parameter_and_its_bound(served: Served) -> None:
    def out(name: str, given: int, bound: str) -> str:
        return f"`{name}` is out of range: {given} — it must be {bound}"

    cases: list[tuple[str, dict[str, Any], str]] = [
        ("search", {"query": "fixture", "limit": 1001}, out("limit", 1001, "at most 1000")),
        ("search", {"query": "fixture", "limit": 0}, out("limit", 0, "at least 1")),
        ("read", {"address": "s1", "limit": 1001}, out("limit", 1001, "at most 1000")),
        ("read", {"address": "s1", "max_bytes": 8388609}, out("max_bytes", 8388609, "at most 8388608")),
        ("read", {"address": "s1", "max_bytes": 1023}, out("max_bytes", 1023, "at least 1024")),
        ("read", {"address": "s1", "offset": -1}, out("offset", -1, "at least 0")),
        ("list_sessions", {"max_bytes": 8388609}, out("max_bytes", 8388609, "at most 8388608")),
        ("read", {}, "`address` is required")]
    results = calls(served, [(tool, arguments) for tool, arguments, _ in cases])
    for (tool, _, message), result in zip(cases, results, strict=True):
        assert result.is_error
        assert text(result).startswith(f"{tool}: {message}"), text(result)


def test_a_core_error_reaches_the_client_as_a_tool_error_with_the_core_message(served: Served) -> None:
    missing, malformed, empty = calls(served, [("read", {"address": "s9999"}),
                                               ("read", {"address": "banana"}), ("search", {"query": "  "})])
    assert missing.is_error and text(missing) == "read: s9999: no such session"
    # Not an address, so read takes it for a session's own id, which it names none of.
    assert malformed.is_error
    assert text(malformed).startswith("read: 'banana' names no session: not an address")
    assert empty.is_error and text(empty).startswith("search: empty query")


def test_the_status_tool_reports_sessions_and_entries_per_harness_and_the_record(served: Served) -> None:
    status, alias = calls(served, [("status", {}), ("harness", {})])
    got = payload(status)
    assert payload(alias) == got  # `harness`, seed 004's name, is the same tool
    with served.open_record() as record:
        sessions = record.sessions()
    assert got["server"] == "total-recall" and got["record"] == str(served.record)
    assert got["bound_harness"] is None
    assert [row["harness"] for row in got["harnesses"]] == list(HARNESSES)
    for row in got["harnesses"]:
        mine = [s for s in sessions if s.harness == row["harness"]]
        assert (row["sessions"], row["entries"]) == (len(mine), sum(s.entries for s in mine)), row
    assert got["sync"]["state"] == "off"


def test_list_sessions_is_most_recent_first_and_states_what_it_held_back(served: Served) -> None:
    default, everything = calls(served, [("list_sessions", {}),
                                         ("list_sessions", {"all": True, "max_bytes": 2048})])
    assert payload(default)["window"] == "the last 240 h (the default window)"
    got = payload(everything)
    with served.open_record() as record:
        total = len({(s.harness, s.native_id) for s in record.sessions()})
    assert got["window_count"] == total and 0 < got["returned"] == len(got["sessions"]) < total
    assert got["held_back"] == total - got["returned"]
    assert got["bytes"] == len(text(everything).encode()) <= 2048
    times = [s["last_active"] or "" for s in got["sessions"]]
    assert times == sorted(times, reverse=True)


def test_a_bound_server_sees_only_its_own_harness(served: Served) -> None:
    with served.open_record() as record:
        other = next(s for s in record.sessions() if s.harness != "codex")

    async def talk(session: ClientSession) -> list[CallToolResult]:
        calls: list[tuple[str, dict[str, Any]]] = [("list_sessions", {"all": True, "max_bytes": 8_388_608}),
                 ("search", {"query": "fixture", "limit": 50}),
                 ("harness", {}), ("read", {"address": other.address}),
                 ("search", {"query": "fixture", "harness": ["vibe"]}),
                 ("sessions", {"max_bytes": 8_388_608}), ("sessions", {"harness": ["vibe"]}),
                 ("erase", {"address": f"{other.address}#1", "reason": "not ours"}),
                 ("quarantine", {"address": f"{other.address}#1", "reason": "not ours"}),
                 ("search", {"query": "fixture", "session_id": other.native_id})]
        out = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert isinstance(result, CallToolResult)
            out.append(result)
        return out

    (listing, found, status, refused, refused_filter, sessions, refused_sessions, refused_erase,
     refused_quarantine, refused_session) = run_client(served, talk, "--harness", "codex")
    assert {s["harness"] for s in payload(listing)["sessions"]} == {"codex"}
    assert payload(found)["hits"] and {h["harness"] for h in payload(found)["hits"]} == {"codex"}
    assert payload(status)["bound_harness"] == "codex"
    assert [row["harness"] for row in payload(status)["harnesses"]] == ["codex"]
    assert refused.is_error
    assert text(refused) == (f"read: {other.address} is a {other.harness} session; "
                             "this server is bound to codex")
    assert refused_filter.is_error and "bound to codex" in text(refused_filter)
    assert {s["harness"] for s in payload(sessions)["sessions"]} == {"codex"}
    assert refused_sessions.is_error and "bound to codex" in text(refused_sessions)
    for tool, result in (("erase", refused_erase), ("quarantine", refused_quarantine)):
        assert result.is_error and text(result) == (f"{tool}: {other.address} is a {other.harness} session; "
                                                    "this server is bound to codex")
    assert refused_session.is_error and "bound to codex" in text(refused_session)
    with served.open_record() as record:  # the refused erase and quarantine changed nothing
        [entry] = read(record, f"{other.address}#1")
        assert entry.erased is None and entry.quarantined is None


def test_the_harness_variable_binds_the_server_and_the_flag_wins(served: Served) -> None:
    served.env["HARNESS"] = "vibe"
    assert payload(call(served, "harness", {}))["bound_harness"] == "vibe"
    assert payload(call(served, "harness", {}, "--harness", "opencode"))["bound_harness"] == "opencode"
    served.env["HARNESS"] = ""
    assert payload(call(served, "harness", {}))["bound_harness"] is None


@pytest.mark.parametrize("how", ["flag", "env"])
def test_an_unknown_harness_exits_2_with_a_message_before_serving(served: Served, how: str) -> None:
    args, env = ["mcp"], dict(served.env)
    if how == "flag":
        args += ["--harness", "nope"]
    else:
        env["HARNESS"] = "nope"
    done = subprocess.run([str(EXE), *args], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "unknown harness 'nope'" in done.stderr
    assert "claude-code|codex|opencode|vibe|openclaw" in done.stderr


def talk_raw(served: Served, args: list[str], frames: list[tuple[str, bool]], errlog: Path
             ) -> tuple[list[dict[str, Any]], str]:
    """Write each frame as one line to `total-recall mcp ARGS`, reading the answer of each frame marked as
    asking one (a server whose stdin closes stops serving); returns the answers and what stdout held after
    them. The server must exit 0 when stdin closes."""
    with open(errlog, "w", encoding="utf-8") as err:
        proc = subprocess.Popen([str(EXE), "mcp", *args], env=served.env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True)
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test instead of hanging it
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        answers = []
        for frame, asks in frames:
            proc.stdin.write(frame + "\n")
            proc.stdin.flush()
            if asks:
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait() == 0
    finally:
        watchdog.cancel()
    return answers, rest


def test_stdout_carries_nothing_but_the_protocol_and_logs_go_to_stderr(served: Served) -> None:
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search",
                                                                        "arguments": {"query": "fixture"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read",
                                                                        "arguments": {"address": "s9999"}}},
    ]
    errlog = served.record.parent / "raw-stderr.log"
    # With the start-up sync on: whatever it does, none of it may reach stdout.
    messages, rest = talk_raw(served, [], [(json.dumps(r), "id" in r) for r in requests], errlog)
    assert rest == ""
    assert [m["jsonrpc"] for m in messages] == ["2.0"] * 4
    assert [m["id"] for m in messages] == [1, 2, 3, 4]
    assert messages[0]["result"]["serverInfo"]["name"] == "total-recall"
    assert messages[2]["result"]["isError"] is False and messages[3]["result"]["isError"] is True
    logged = errlog.read_text(encoding="utf-8")
    assert "total-recall mcp" in logged and str(served.record) in logged


def claude_sessions(root: Path, files: int, lines: int) -> None:
    """`files` Claude Code sessions of `lines` owner messages each: a store whose first sync takes a while."""
    folder = root / "-work"
    folder.mkdir(parents=True)
    for f in range(files):
        sid = f"22222222-2222-4333-8444-{f:012d}"
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps({
            "type": "user", "uuid": f"{f:08d}-0000-4000-8000-{i:012d}", "sessionId": sid, "cwd": "/work",
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": f"Why does the deploy of site {f}-{i} fail on the cert?"},
        }) + "\n" for i in range(lines)))


class RawServer:
    """`total-recall mcp` spoken to line by line, so a test chooses the moment its client goes."""

    def __init__(self, tmp_path: Path, **env: str) -> None:
        self.root = root = tmp_path / "claude"
        claude_sessions(root, files=4, lines=1000)
        self.record = tmp_path / "record" / "record.sqlite3"
        self.errlog = tmp_path / "server-stderr.log"
        # PYTHONPATH passes on: the server runs the code the test imports.
        env = {k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ} | {
               "HOME": str(tmp_path / "home"),
               "TOTAL_RECALL_HOME": str(self.record.parent), "TOTAL_RECALL_SANDBOX": "1",
               "TOTAL_RECALL_CLAUDE_ROOT": str(root), **env}
        with open(self.errlog, "w", encoding="utf-8") as err:
            self.proc = subprocess.Popen([str(EXE), "mcp"], env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=err, text=True)
        self.watchdog = threading.Timer(120, self.proc.kill)  # a hung server fails the test, never hangs it
        self.watchdog.start()
        self.ids = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "raw-test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        assert self.proc.stdout is not None
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def status(self) -> dict[str, Any]:
        answer = self.ask("tools/call", {"name": "harness", "arguments": {}})
        value: dict[str, Any] = json.loads(answer["result"]["content"][0]["text"])
        return value

    def ended(self) -> tuple[int, str]:
        """The exit code, once the server is gone, and everything it wrote to stderr."""
        try:
            code = self.proc.wait()
        finally:
            self.watchdog.cancel()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        return code, self.errlog.read_text(encoding="utf-8")


def assert_record_whole(server: RawServer, entries: int) -> None:
    """The record a server left behind opens, checks out, and a sync brings it to every entry once."""
    with Record(server.record) as record:
        assert record.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert sync(record, ["claude-code"], roots={"claude-code": server.root}).errors == []
        counted = record.db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM entries").fetchone()
    assert tuple(counted) == (entries, entries)


def embedded(record: Path) -> int:
    """How many meaning vectors the record holds (0 before it has the table)."""
    if not record.exists():
        return 0
    db = sqlite3.connect(f"file:{record}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


@pytest.mark.skipif(not vectors.available(), reason="the vectors extra is not installed")
def test_a_client_leaving_while_the_start_up_sync_embeds_ends_the_server_with_0(tmp_path: Path) -> None:
    # The client leaves once the sync has committed its first vectors and before the last: its thread is
    # inside onnxruntime, under which an interpreter shutting down aborted (-6). The record is looked at
    # every 50 ms, not the server: asking it would slow its sync down.
    server = RawServer(tmp_path, TOTAL_RECALL_VECTOR_BUDGET="120")
    deadline = time.monotonic() + 90
    while not (done := embedded(server.record)) and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    assert 0 < done < 4000, "the sync was not embedding when the client left"
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    code, stderr = server.ended()
    assert code == 0, stderr
    assert "Traceback" not in stderr and "terminate" not in stderr
    assert_record_whole(server, 4000)


def test_sigterm_during_the_start_up_sync_ends_the_server_with_0_quietly(tmp_path: Path) -> None:
    server = RawServer(tmp_path, TOTAL_RECALL_VECTOR_BUDGET="0")
    assert server.status()["sync"]["state"] == "running"
    server.proc.send_signal(signal.SIGTERM)
    code, stderr = server.ended()
    assert code == 0, stderr
    assert "Traceback" not in stderr and "terminate" not in stderr
    assert_record_whole(server, 4000)


def test_a_tool_that_fails_unexpectedly_names_what_failed_and_logs_it(
    served: Served, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # An operation's defect (here a read that breaks inside): the agent gets the tool and the cause, not
    # the SDK's bare "Error executing tool read", and the server's log keeps the traceback.
    from mcp.server.mcpserver.exceptions import ToolError

    from total_recall.ops import record as record_ops
    from total_recall.surfaces.mcp import Binding, build_server

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the page cache went away")

    monkeypatch.setattr(record_ops, "read_entries", broken)
    server = build_server(Binding(served.record))
    with pytest.raises(ToolError) as refused:
        anyio.run(server.call_tool, "read", {"address": "s1#1"})
    assert str(refused.value).startswith("read: failed unexpectedly (RuntimeError: the page cache went away)")
    assert any("read failed unexpectedly" in r.getMessage() and r.exc_info for r in caplog.records)


def test_a_frame_the_server_cannot_read_is_answered_under_its_id_and_the_next_one_is_served(
    served: Served,
) -> None:
    # The SDK's reader drops such a frame, and a client would wait for ever for its answer.
    frames = [
        '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
        '"capabilities": {}, "clientInfo": {"name": "raw-test", "version": "0"}}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", '
        '"arguments": {"query": "abc \\ud800 def"}}}',  # a lone surrogate escape
        '{"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "read", '
        '"arguments": {"address": "s1", "offset": ' + "1" * 5000 + "}}}",  # a number past the parser's
        "not json at all",
        "",  # a blank line is no frame: no answer
        '{"jsonrpc": "2.0", "id": 4, "method": 123}',  # JSON, but no JSON-RPC message
        '{"jsonrpc": "2.0", "method": "tools/call", "params": {"id": 77, "arguments": {"q": "\\ud800"}}, '
        '"id": "a\\"b"}',  # the frame's own id comes after one in its params, and holds an escape
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}',
    ]
    asked = [(f, bool(f) and "notifications/" not in f) for f in frames]
    answers, rest = talk_raw(served, ["--no-sync"], asked, served.record.parent / "raw-stderr.log")
    assert rest == ""
    assert [a["id"] for a in answers] == [1, 2, "big", None, 4, 'a"b', 3]
    assert [a["error"]["code"] for a in answers[1:6]] == [-32700] * 3 + [-32600, -32700]
    assert all(a["error"]["message"].startswith("the frame could not be read: Invalid JSON")
               for a in answers[1:4])
    assert "hex escape" in answers[1]["error"]["message"] and "out of range" in answers[2]["error"]["message"]
    assert {t["name"] for t in answers[6]["result"]["tools"]} >= {"search", "read"}
