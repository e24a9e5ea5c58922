"""More bad input named back, never a traceback, never a silently wrong answer: a `directory` that is not
UTF-8, too long or holds a NUL, paths with a NUL, NUL-only reasons and cues, a bad flag a whole `--batch`
shares, an empty `--home`, huge values echoed whole, and JSON of the wrong type over MCP — on the CLI
(exit 2) and over MCP (a named tool error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import total_recall.ops.finding
from tests.test_input_refusals import client, home, run
from tests.test_mcp_mining import Client, refused, text
from total_recall.surfaces.cli import cli

__all__ = ["client", "home"]  # the fixtures: the record and a server on it

NOT_UTF8 = "proj\udcff\udcfe"  # what Python makes of the argv bytes b"proj\xff\xfe"
LONG_DIRECTORY = "x" * 60_000


def _batch(tmp_path: Path, *lines: str) -> str:
    batch = tmp_path / "queries.txt"
    batch.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(batch)


# -- directory --


@pytest.mark.parametrize("command", [["search", "deploy"], ["dream", "deploy", "--all"],
                                     ["search", "--batch"]], ids=lambda c: " ".join(c))
def test_a_directory_that_is_not_utf8_is_refused_naming_directory(
    home: Path, tmp_path: Path, command: list[str],
) -> None:
    args = [*command, _batch(tmp_path, "deploy", "branch")] if "--batch" in command else command
    result = run(home, *args, "--directory", NOT_UTF8, "--json")
    assert "`--directory`: input should be a valid string" in result.stderr
    assert json.loads(result.stdout)["error"]["kind"] == "BadParameter"  # the refusal, and no reply


@pytest.mark.parametrize("command", [["search", "deploy"], ["dream", "deploy", "--all"]], ids=lambda c: c[0])
def test_a_directory_longer_than_any_path_is_refused_naming_it_not_blaming_the_record(
    home: Path, command: list[str],
) -> None:
    message = run(home, *command, "--directory", LONG_DIRECTORY).stderr
    assert "`--directory`: string should have at most 4096 characters" in message
    assert "not a usable record" not in message and len(message) < 400


def test_over_mcp_a_directory_or_file_path_longer_than_any_path_is_refused_by_name(client: Client) -> None:
    message = refused(client.call("search", {"query": "deploy", "directory": "x" * 1_000_000}))
    assert message.startswith("search: `directory`: string should have at most 4096 characters")
    message = refused(client.call("line_histogram", {"file_path": "x" * 1_000_000}))
    assert message.startswith("line_histogram: `file_path`: string should have at most 4096 characters")
    assert len(message) < 400


@pytest.mark.parametrize(("tool", "args"), [
    ("compact", {"budget": 500, "range": "x" * 1_000}), ("receipts", {"session_id": "x" * 1_000}),
])
def test_over_mcp_a_range_or_session_longer_than_any_name_is_refused_by_name(
    client: Client, tool: str, args: dict[str, Any],
) -> None:
    [param] = [name for name in args if name != "budget"]
    assert refused(client.call(tool, args)).startswith(f"{tool}: `{param}`: string should have at most 500")


@pytest.mark.parametrize("tool", ["search", "sessions"])
def test_over_mcp_a_directory_holding_a_nul_is_refused_never_widened_to_every_folder(
    client: Client, tool: str,
) -> None:
    message = refused(client.call(tool, {"directory": "\x00zzzz", **({"query": "deploy"} if tool == "search"
                                                                      else {})}))
    assert message.startswith(f"{tool}: `directory`: must be text without control characters")


def test_over_mcp_an_export_path_holding_a_nul_is_refused_naming_to(client: Client) -> None:
    message = refused(client.call("export_observations", {"to": "\x00"}))
    assert message.startswith("export_observations: `to`: must be text without control characters")


# -- blank reasons and cues --


@pytest.mark.parametrize(("tool", "args", "why"), [
    ("erase", {"address": "s1#1", "reason": "\x00"}, "an erase needs a reason"),
    ("quarantine", {"address": "s1#1", "reason": "\x00 \x01"}, "a quarantine needs a reason"),
    ("cue", {"text": "\x00"}, "a cue needs text"),
])
def test_over_mcp_a_reason_or_cue_of_control_characters_is_refused_as_blank(
    client: Client, tool: str, args: dict[str, Any], why: str,
) -> None:
    message = refused(client.call(tool, args))
    blank = {name: "   " for name in ("reason", "text") if name in args}
    assert message.startswith(f"{tool}: {why}") and message == refused(client.call(tool, {**args, **blank}))
    entry = json.loads(text(client.call("read", {"address": "s1#1"})))
    assert [e["address"] for e in entry["entries"]] == ["s1#1"] and not entry["entries"][0].get("erased")


def test_a_reason_of_control_characters_is_refused_on_the_cli_and_nothing_is_erased(home: Path) -> None:
    assert "an erase needs a reason" in run(home, "erase", "s1#2", "--reason", "\x01\x02").stderr
    assert "We deploy from main" in run(home, "read", "s1#2", code=0).stdout


# -- --batch --


@pytest.mark.parametrize(("command", "flag", "words"), [
    (["search"], ["--limit", "0"], "`--limit` is out of range: 0"),
    (["search"], ["--since", "garbage"], "`--since` 'garbage' is not a time"),
    (["search"], ["--session", "s99999"], "no session s99999"),
    (["search"], ["--directory", "\x01"], "`--directory`: must be text without control characters"),
    (["push"], ["--session", "s99999"], "no session s99999"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_bad_flag_every_batch_line_shares_is_refused_once_before_any_line(
    home: Path, tmp_path: Path, command: list[str], flag: list[str], words: str,
) -> None:
    result = run(home, *command, "--batch", _batch(tmp_path, "deploy", "branch"), *flag, "--json")
    assert words in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout.count("\n") == 1 and words in json.loads(result.stdout)["error"]["message"]


def test_a_bad_batch_line_keeps_its_own_error_and_is_echoed_cut_short(home: Path, tmp_path: Path) -> None:
    lines = run(home, "search", "--batch", _batch(tmp_path, "deploy", "y" * 20_000), "--json",
                code=0).stdout.splitlines()
    good, bad = (json.loads(line) for line in lines)
    assert good["query"] == "deploy" and "error" not in good
    assert "`QUERY`: string should have at most 10000 characters" in bad["error"]
    assert bad["query"].endswith("… (20000 bytes)") and len(lines[1]) < 500


def test_a_defect_on_one_batch_line_is_said_on_its_line_and_the_batch_goes_on(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = total_recall.ops.finding.find

    def find(record: Any, query: str, **kw: Any) -> Any:
        if query == "boom":
            raise RuntimeError("a defect")
        return real(record, query, **kw)

    monkeypatch.setattr(total_recall.ops.finding, "find", find)
    result = CliRunner().invoke(cli, ["--home", str(home), "search", "--batch",
                                      _batch(tmp_path, "boom", "deploy"), "--json"], catch_exceptions=False)
    boom, deploy = (json.loads(line) for line in result.stdout.splitlines())
    assert boom["error"] == ("search: failed unexpectedly (RuntimeError: a defect); a Total Recall defect, "
                             "its traceback is on stderr")
    assert deploy["hits"] and result.exit_code == 1 and "RuntimeError: a defect" in result.stderr


# -- --home and echoes --


@pytest.mark.parametrize("given", ["", "  "])
def test_an_empty_home_is_refused_naming_home_and_no_record_is_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str,
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = CliRunner().invoke(cli, ["--home", given, "sessions"], catch_exceptions=False)
    assert result.exit_code == 2 and result.stderr.startswith("total-recall: --home is empty")
    assert list(here.iterdir()) == []


def test_a_note_naming_a_long_directory_echoes_it_cut_short(home: Path) -> None:
    note = run(home, "sessions", "--directory", "z" * 4_000, code=0).stderr
    assert note.startswith("total-recall: note: no session matches --directory 'zzz") and len(note) < 200


# -- JSON types over MCP --


@pytest.mark.parametrize(("tool", "args", "param"), [
    ("quarantine", {"address": "s1#1", "undo": "yes"}, "undo"),
    ("nightly", {"apply": "yes"}, "apply"),
    ("mute", {"all": 1}, "all"),
    ("read", {"address": "s1#1", "limit": True}, "limit"),
    ("read", {"address": "s1#1", "offset": True}, "offset"),
    ("list_sessions", {"hours_back": True}, "hours_back"),
    ("compact", {"budget": True}, "budget"),
    ("search", {"query": "deploy", "limit": "5"}, "limit"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_over_mcp_a_value_of_the_wrong_json_type_is_refused_never_coerced(
    client: Client, tool: str, args: dict[str, Any], param: str,
) -> None:
    message = refused(client.call(tool, args))
    assert message.startswith(f"{tool}: `{param}`: input should be a valid ")
    assert repr(args[param]) in message

