"""Every operation of the table through both surfaces: the CLI (`total-recall <command> --json`) and the MCP
server (the SDK's stdio client), each on its own copy of one record. The same call gives the same reply,
and the same bad call the same refusal, worded in each surface's names."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.types import CallToolResult, TextContent

from tests.stores import fixture_stores
from tests.test_mcp import Served, run_client
from total_recall.ops import OPERATIONS, Operation
from total_recall.record.database import Record
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli
from total_recall.surfaces.words import in_cli_words

# One valid call per operation, in MCP's names, run in the table's order on both copies (so an erase
# early on is seen by both surfaces' later reads alike). None: the operation has no call that works on
# the fixture record with no LLM configured; its refusal is compared instead (REFUSED).
CALLS: dict[str, dict[str, Any] | None] = {
    "sync": {"harness": ["codex"]},
    "status": {},
    "sessions": {"limit": 3},
    "read": {"address": "s1#1-4"},
    "erase": {"address": "s1#2", "reason": "pasted a key"},
    "quarantine": {"address": "s1#3", "reason": "wrong project"},
    "index": {"rebuild": True},
    "search": {"query": "certificate", "limit": 5},
    "assets": {"rebuild": True},
    "push": {"text": "the certificate renewal failed again on the shop"},
    "mute": {"name": "certbot"},
    "unmute": {"name": "certbot"},
    "compact": {"session_id": "s1", "budget": 2000},
    "markers": {"session_id": "s1"},
    "cue": {"session_id": "s1", "text": "Come back to this when the certificate expires"},
    "receipts": {},
    "observe": {"mechanical": True},
    "observations": {"limit": 5},
    "export_observations": {},
    "reflect": {"force": True},
    "observation_backups": {},
    "restore_observations": None,
    "retire_observation": None,
    "nightly": {},
    "proposals": {"status": "all"},
    "proposal": None,
    "approve_proposal": None,
    "reject_proposal": None,
    "list_sessions": {"all": True},
    "profile_session": {"session_id": "s1"},
    "extract_messages": {"session_id": "s1", "full": True, "limit": 5},
    "extract_user_messages": {"session_id": "s1", "limit": 5},
    "extract_by_type": {"session_id": "s1", "limit": 5},
    "extract_qa_pairs": {"all": True},
    "todo_history": {"session_id": "s1"},
    "she_said_he_said_action": {"words": ["certificate"], "all": True},
    "line_histogram": None,
    "index_sessions": {"all": True, "budget_seconds": 0},
    "do_android_dream_of_electric_sheep": {"query": "certificate", "all": True},
    "summary_cache": {"session_id": "s1"},
    "summarise_from": None,
    "cache_delete_latest": None,
    "prior_period_summary": None,
    "llm_status": {},
}
# Calls both surfaces must refuse alike, besides the out-of-range value every bounded operation gets.
REFUSED: dict[str, dict[str, Any]] = {
    "line_histogram": {"file_path": "/etc/passwd"},
    "summarise_from": {"target": "s1"},
    "cache_delete_latest": {"session_id": "s1"},
    "prior_period_summary": {"all": True},
    "read": {"address": "s999"},
    "search": {"query": "certificate", "session_id": "s999"},
    "sessions": {"since": "not a time"},
    "push": {"text": "renew it", "session_id": "s999"},
    "mute": {},
    "export_observations": {"to": "/notes.txt"},  # absolute: a relative one is the CLI's own folder
    "proposal": {"proposal": 99},
    "restore_observations": {"backup": 99},
    "retire_observation": {"observation": 99, "reason": "x"},
    "approve_proposal": {"proposal": 99},
    "reject_proposal": {"proposal": 99},
}
# Reply fields that differ between two homes or two moments, not between surfaces; and a receipt's
# `controller`, which records the surface that compacted (cli or mcp) on purpose.
VOLATILE = {"bytes", "overflow", "notice", "created", "at", "record", "first_seen", "server", "version",
            "sync", "day", "config_file", "home", "last_sync", "elapsed_s", "seconds", "processes",
            "controller", "updated"}


@dataclass
class Copies:
    cli: Path  # the CLI's home
    mcp: Served


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Copies]:
    base = tmp_path_factory.mktemp("ops")
    with fixture_stores(base / "stores") as stores:
        env = {**stores.env, "HOME": str(base / "home"), "TOTAL_RECALL_SANDBOX": "1",
               "TOTAL_RECALL_VECTOR_BUDGET": "0"}
        first = base / "first" / "record.sqlite3"
        with Record(first) as record:
            assert sync(record, env=env).errors == []
        homes = {}
        for name in ("cli", "mcp"):
            shutil.copytree(first.parent, base / name)
            homes[name] = base / name
        mcp_env = {**env, "TOTAL_RECALL_HOME": str(homes["mcp"])}
        yield Copies(homes["cli"], Served(homes["mcp"] / "record.sqlite3", mcp_env))


def cli_args(op: Operation[Any], arguments: dict[str, Any]) -> list[str]:
    """`arguments` (MCP's names) as the CLI spells them: positional, `--flag value`, a bare `--flag`."""
    words = op.command.split()
    for name in op.argument:
        if name in arguments:
            words.append(str(arguments[name]))
    for name, value in arguments.items():
        if name in op.argument:
            continue
        flag = op.flag(name)
        if value is True:
            words.append(flag)
        elif value is False:
            words.append(f"--no-{flag[2:]}")
        elif isinstance(value, list):
            for v in value:
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return [*words, "--json"]


def run_cli(home: Path, env: dict[str, str], args: list[str]) -> tuple[int, str, str]:
    got = CliRunner().invoke(cli, ["--home", str(home), *args], env={**env, "TOTAL_RECALL_HOME": str(home)})
    return got.exit_code, got.stdout, got.stderr


def text_of(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def steady(value: Any, homes: tuple[Path, ...]) -> Any:
    """`value` without what differs between two homes or moments (paths under them, sizes, times)."""
    if isinstance(value, dict):
        return {k: steady(v, homes) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [steady(v, homes) for v in value]
    if isinstance(value, str):
        for home in homes:
            value = value.replace(str(home), "<home>")
        return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?", "<time>", value)
    return value


def out_of_range(op: Operation[Any]) -> dict[str, Any] | None:
    """A call with one bounded parameter just past its bound (and any required ones from CALLS)."""
    base = dict(CALLS.get(op.name) or REFUSED.get(op.name) or {})
    for name, info in op.params.model_fields.items():
        for bound in info.metadata:
            if (le := getattr(bound, "le", None)) is not None and isinstance(le, int):
                return {**base, name: le + 1}
    return None


def test_every_operation_has_a_call_here() -> None:
    assert {op.name for op in OPERATIONS} == set(CALLS)


@pytest.fixture(scope="module")
def answers(copies: Copies) -> dict[str, Any]:
    """Every call of CALLS, REFUSED and out_of_range through both surfaces, in the table's order."""
    requests: list[tuple[str, str, dict[str, Any]]] = []
    for op in OPERATIONS:
        if CALLS[op.name] is not None:
            requests.append(("ok", op.name, CALLS[op.name] or {}))
        if op.name in REFUSED:
            requests.append(("refused", op.name, REFUSED[op.name]))
        if (bad := out_of_range(op)) is not None:
            requests.append(("range", op.name, bad))

    async def talk(session: ClientSession) -> list[CallToolResult]:
        return [await session.call_tool(name, arguments) for _, name, arguments in requests]

    mcp = run_client(copies.mcp, talk, "--no-sync")
    got: dict[str, Any] = {}
    for (kind, name, arguments), result in zip(requests, mcp, strict=True):
        op = next(o for o in OPERATIONS if o.name == name)
        code, out, err = run_cli(copies.cli, copies.mcp.env, cli_args(op, arguments))
        got[f"{kind}:{name}"] = (op, arguments, result, code, out, err)
    return got


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_an_operation_answers_the_same_call_alike_on_the_cli_and_over_mcp(
        op: Operation[Any], answers: dict[str, Any], copies: Copies) -> None:
    if CALLS[op.name] is None:
        pytest.skip(f"{op.name} needs what the fixture lacks; its refusal is compared in the next test")
    _, _, result, code, out, err = answers[f"ok:{op.name}"]
    assert not result.is_error, text_of(result)
    assert code == 0, err
    reply = in_mcp_words(orjson.loads(out), op)
    homes = (copies.cli, copies.mcp.record.parent)
    if op.text is not None:
        assert steady(text_of(result), homes) == steady(op.text(reply), homes)
    else:
        assert steady(result.structured_content, homes) == steady(reply, homes)


def in_mcp_words(value: Any, op: Operation[Any]) -> Any:
    """A CLI reply with what it says of itself in MCP's words: a reply names its scope (`(--all)`) and its
    tool (`dream`) as the surface that called does (`ops/mining.spelling`); the rest is the same."""
    if isinstance(value, dict):
        named = {k: op.name for k, v in value.items() if (k, v) == ("tool", op.command)}
        return {k: named.get(k) or in_mcp_words(v, op) for k, v in value.items()}
    if isinstance(value, list):
        return [in_mcp_words(v, op) for v in value]
    if isinstance(value, str) and "all" in op.params.model_fields:
        return value.replace(f"({op.flag('all')})", "(all=true)")
    return value


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_an_operation_refuses_the_same_bad_call_alike_in_each_surfaces_words(
        op: Operation[Any], answers: dict[str, Any], copies: Copies) -> None:
    cases = [answers[k] for k in (f"refused:{op.name}", f"range:{op.name}") if k in answers]
    if not cases:
        pytest.skip(f"{op.name} takes no parameter that can be out of range")
    homes = (copies.cli, copies.mcp.record.parent)
    for _, arguments, result, code, out, err in cases:
        assert result.is_error, (arguments, text_of(result))
        assert code == 2, (arguments, out)
        said = text_of(result)
        expected = f"total-recall: {in_cli_words(op, said)}"
        assert steady(err.strip(), homes) == steady(expected, homes), arguments


def test_the_package_exports_its_library_entry_points(tmp_path: Path) -> None:
    import total_recall

    assert set(total_recall.__all__) >= {"OPERATIONS", "Call", "by_name", "Record", "sync", "search", "read"}
    for name in total_recall.__all__:
        assert getattr(total_recall, name) is not None, name
    record = tmp_path / "record.sqlite3"
    reply = total_recall.by_name("status")(total_recall.Call(record, "cli"))
    assert reply["harnesses"] and reply["demo"] is False
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        total_recall.nothing  # noqa: B018
    assert sorted(total_recall.__all__) == sorted(["__version__", *total_recall._ENTRY_POINTS])


def test_help_lists_every_command_once_under_its_purpose_with_an_example_each() -> None:
    shown = CliRunner().invoke(cli, ["--help"]).stdout
    from total_recall.surfaces.cli import _PURPOSES

    headings = [f"{title}:" for title, _ in _PURPOSES.values()]
    assert all(shown.count(h) == 1 for h in headings), headings
    at = [shown.index(h) for h in headings]
    assert at == sorted(at)  # each purpose once, in the table's order
    assert shown.count("e.g. total-recall") == len(headings)
    listed = [line.split()[0] for line in shown.splitlines() if line.startswith("  ") and line.split()
              and not line.strip().startswith(("e.g.", "--", "-h"))]
    # A sub-command ("observations export") is listed under its parent's --help, not here.
    commands = {op.command for op in OPERATIONS if " " not in op.command}
    commands |= {"mcp", "hook", "install", "watch"}
    assert sorted(c for c in listed if c in commands) == sorted(commands)  # every command, once
    for op in OPERATIONS:
        own = CliRunner().invoke(cli, [*op.command.split(), "--help"]).stdout
        assert "Example:" in own and op.example in " ".join(own.split()), op.name
