"""What a newcomer meets first on the command line: the help (in the CLI's own spellings, while the MCP tools
keep the parameter names), one form for every refusal (one line on stderr, and one JSON object under
`--json`), `cue` with a text alone, and the small things a first session trips over."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result

from tests.observing_owner import Owner
from tests.stores import empty_roots
from total_recall.ops import OPERATIONS
from total_recall.surfaces.cli import cli


def demo(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, ["--demo", *args], env=env)


@pytest.fixture
def synced() -> None:
    assert demo("sync", "--json").exit_code == 0


def reply(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- cue --


def test_cue_with_only_a_text_leaves_it_on_the_most_recently_active_session_and_says_which(
        synced: None) -> None:
    newest = reply(demo("sessions", "--limit", "1", "--json"))["sessions"][0]["session"]
    given = demo("cue", "TLS renewal: fixed; come back if the deploy hook fails again")
    assert given.exit_code == 0, given.output
    assert f"for {newest}#" in given.stdout  # the reply names the session it went to
    both = reply(demo("cue", "s1", "TLS renewal: fixed", "--json"))
    assert (both["session"], both["text"]) == ("s1", "TLS renewal: fixed")
    missing = demo("cue")
    assert missing.exit_code == 2 and missing.stderr == "total-recall: cue: `TEXT` is required\n"
    forgotten = demo("cue", "s1")  # a session named and its text forgotten: no cue reading "s1"
    assert forgotten.exit_code == 2
    said = "total-recall: cue: `TEXT` is required (s1 names a session: give the text after it)\n"
    assert forgotten.stderr == said


# -- help --


@pytest.mark.parametrize(("command", "spelled"), [
    (["unmute"], "--all The push itself: back on after `mute` with `--all`."),
    (["mute"], "(`--all`: turn the push off)"),
    (["index"], "with `--rebuild` the word"),
    (["nightly"], "unless `--apply`;"),
    (["quarantine"], "`--undo` shows them"),
    (["observe"], "with `--mechanical`,"),
    (["dream"], "not with `--hours` or `--all`."),
    (["index-sessions"], "within --budget;"),
    (["list"], "As many rows as --max-bytes holds"),
], ids=lambda v: v[0] if isinstance(v, list) else None)
def test_help_names_the_parameters_as_the_cli_spells_them(command: list[str], spelled: str) -> None:
    shown = CliRunner().invoke(cli, [*command, "--help"])
    assert shown.exit_code == 0 and spelled in " ".join(shown.stdout.split()), shown.stdout


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.command)
def test_no_help_text_names_a_parameter_as_the_mcp_tool_does(op: Any) -> None:
    words = [*op.command.split(" "), "--help"]
    shown = " ".join(CliRunner().invoke(cli, words).stdout.split())
    for param in op.params.model_fields:
        if op.flag(param) != param:
            assert f"`{param}`" not in shown, param
        if "_" in param:
            # the reply's JSON keys keep their one spelling
            assert param not in re.sub(r"bounds\.next_\w+", "", shown), param


@pytest.mark.parametrize(("command", "flag", "bound"), [
    ("index", "--budget BUDGET", "[0<=x<=86400]"),
    ("sessions", "--limit LIMIT", "How many at most (1-1000)."),
    ("compact", "--budget BUDGET", "[1<=x<=100000]"),
])
def test_help_states_each_number_s_bounds(command: str, flag: str, bound: str) -> None:
    shown = " ".join(CliRunner().invoke(cli, [command, "--help"]).stdout.split())
    assert bound in shown.split(f" {flag} ", 1)[1].split(" --", 1)[0]


def test_the_mcp_tools_keep_the_parameter_names_the_cli_help_translates(tmp_path: Path) -> None:
    from total_recall.surfaces.mcp import Binding, build_server

    server = build_server(Binding(tmp_path / "record.sqlite3"))
    tools = {t.name: t for t in anyio.run(server.list_tools)}
    assert "with `rebuild` the word" in (tools["index"].description or "")
    assert "(`all`: turn the push off)" in (tools["mute"].description or "")
    assert "`mute` with `all`" in tools["unmute"].input_schema["properties"]["all"]["description"]
    dream = tools["do_android_dream_of_electric_sheep"].input_schema["properties"]["session_id"]
    assert "not with `hours_back` or `all`" in dream["description"]


# -- refusals --


@pytest.mark.parametrize(("args", "line"), [
    (["read", "s1", "--limit", "abc"], "total-recall: read: `--limit`: 'abc' is not a whole number\n"),
    (["status", "--harness", "nope"],
     "total-recall: status: `--harness`: 'nope' is not one of 'claude-code', 'codex', 'opencode', 'vibe', "
     "'openclaw'\n"),
    (["observations", "--type", "bogus"],
     "total-recall: observations: `--type`: 'bogus' is not one of 'event', 'fact', 'preference', 'goal', "
     "'habit', 'rule', 'context'\n"),
    (["list", "--hours", "nan"], "total-recall: list: `--hours`: 'nan' is not a number\n"),
    (["list", "--hours", "inf"], "total-recall: list: `--hours`: 'inf' is not a finite number\n"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_value_click_refuses_is_one_line_as_the_parameter_model_s_refusals_are(
        args: list[str], line: str) -> None:
    refused = demo(*args)
    assert refused.exit_code == 2 and refused.stderr == line and refused.stdout == ""


def test_a_refusal_under_json_is_one_json_object_on_stdout_too(synced: None) -> None:
    nothing = demo("read", "s999", "--json")
    assert nothing.exit_code == 2 and nothing.stderr.startswith("total-recall: read: ")
    error = json.loads(nothing.stdout)["error"]
    assert error["kind"] == "AddressError" and f"total-recall: {error['message']}\n" == nothing.stderr
    bad = demo("read", "s1", "--limit", "abc", "--json")
    assert bad.exit_code == 2
    assert json.loads(bad.stdout) == {"error": {"kind": "BadParameter",
                                                "message": "read: `--limit`: 'abc' is not a whole number"}}
    out_of_range = demo("sessions", "--limit", "0", "--json")
    assert out_of_range.exit_code == 2 and json.loads(out_of_range.stdout)["error"]["kind"] == "BadParameter"
    missing = demo("read", "--json")
    assert missing.exit_code == 2 and "Usage: " in missing.stderr  # click's usage block stays on stderr
    assert json.loads(missing.stdout)["error"] == {"kind": "UsageError",
                                                   "message": "read: missing argument 'ADDRESS'"}


@pytest.mark.parametrize(("group", "env", "said"), [
    (["--home", "rel"], {}, "--home names 'rel', a relative path"),
    ([], {"TOTAL_RECALL_HOME": "rel"}, "TOTAL_RECALL_HOME names 'rel', a relative path"),
    ([], {"TOTAL_RECALL_HOME": "~nouser-zq7/x"}, "there is no home folder for that ~user"),
], ids=["relative --home", "relative TOTAL_RECALL_HOME", "~nouser home"])
def test_a_home_the_group_refuses_under_json_is_one_json_object_on_stdout_too(
        group: list[str], env: dict[str, str], said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    refused = CliRunner().invoke(cli, [*group, "sessions", "--limit", "2", "--json"], env=env)
    assert refused.exit_code == 2 and said in refused.stderr
    error = json.loads(refused.stdout)["error"]
    assert error["kind"] == "ConfigError" and f"total-recall: {error['message']}\n" == refused.stderr
    after_dashes = CliRunner().invoke(cli, [*group, "sessions", "--", "--json"], env=env)
    assert after_dashes.exit_code == 2 and after_dashes.stdout == ""  # a value there, not the flag
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize("typed", [
    ["--limit", "abc", "--batch", "{batch}"],
    ["--batch", "{batch}", "--limit", "abc"],
    ["--limit", "abc", "--batch={batch}"],
], ids=" ".join)
def test_a_value_click_refuses_under_batch_is_one_json_line_wherever_batch_stands(
        typed: list[str], tmp_path: Path) -> None:
    batch = tmp_path / "queries.txt"
    batch.write_text("deploy\nrelease\n", encoding="utf-8")
    refused = demo("search", *(t.format(batch=batch) for t in typed), "--json")
    assert refused.exit_code == 2
    said = "search: `--limit`: 'abc' is not a whole number"
    assert refused.stdout == json.dumps({"error": {"kind": "BadParameter", "message": said}},
                                        separators=(",", ":")) + "\n"


def test_an_unknown_command_keeps_click_s_usage_and_its_suggestion() -> None:
    typo = CliRunner().invoke(cli, ["sesions"])
    assert typo.exit_code == 2 and "Usage: " in typo.stderr and "No such command 'sesions'" in typo.stderr


def test_the_group_s_own_option_after_a_command_says_to_give_it_before() -> None:
    late = CliRunner().invoke(cli, ["sessions", "--demo"])
    assert late.exit_code == 2
    assert "give it before the command (total-recall --demo sessions …)" in late.stderr


# -- small things --


def test_total_recall_alone_shows_the_help_and_exits_0() -> None:
    bare = CliRunner().invoke(cli, [])
    assert bare.exit_code == 0 and "Usage: " in bare.stdout and "The record:" in bare.stdout


def test_unmuting_a_name_never_muted_says_nothing_was_muted_by_that_name(synced: None) -> None:
    never = demo("unmute", "typo")
    assert never.exit_code == 0  # as a mute of a name no asset has yet is no error
    assert "nothing named 'typo' was muted, so nothing changed (muted now: none)" in never.stderr
    assert demo("mute", "portal relay").exit_code == 0
    lifted = demo("unmute", "Portal-Relay")
    assert lifted.exit_code == 0 and "was muted" not in lifted.stderr


def test_an_observation_the_owner_retired_reads_retired_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    empty_roots(tmp_path, monkeypatch)
    owner = Owner(tmp_path / "claude-code", tmp_path / "record")
    said = owner.session("0a1b2c3d-2b1d-4c8e-9f60-3d4e5f6a7b8c")
    said.owner("Deploys wait for the Friday freeze to lift.")
    said.agent("OK.")
    assert owner.run("sync", "--harness", "claude-code").exit_code == 0
    assert owner.run("observe", "--mechanical").exit_code == 0
    [freeze] = owner.json("observations")["observations"]
    assert owner.run("observations", "retire", str(freeze["id"]), "--reason", "gone").exit_code == 0
    listed = owner.run("observations", "--archived").stdout
    assert "(retired by the owner: gone)" in listed and "retired: retired" not in listed


@pytest.mark.parametrize("columns", ["60", "80"])
def test_the_sync_panel_prints_the_record_path_whole(tmp_path: Path, columns: str) -> None:
    home = tmp_path / "a-record-home-whose-name-is-long-enough-to-fold"
    done = CliRunner().invoke(cli, ["--home", str(home), "--demo", "sync"], env={"COLUMNS": columns})
    assert done.exit_code == 0, done.output
    assert f"Record: {home / 'demo.sqlite3'}\n" in done.stdout


def test_nan_hours_over_mcp_are_refused_as_no_number_not_as_out_of_range(tmp_path: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from total_recall.surfaces.mcp import Binding, build_server

    server = build_server(Binding(tmp_path / "record.sqlite3"))
    with pytest.raises(ToolError) as refused:
        anyio.run(server.call_tool, "list_sessions", {"hours_back": float("nan")})
    assert "`hours_back`: input should be a finite number" in str(refused.value), str(refused.value)
