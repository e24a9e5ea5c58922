"""What a reply over MCP says, through a real client on the real server, beside what the CLI says: the
notes the CLI prints on stderr (never a silent empty answer), the MCP spellings of other tools and their
parameters, a relative export path refused, closed input schemas with bounded lists of choices, and a cue
that shows nothing or hides a control character refused by name."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from mcp.types import CallToolResult

from tests.stores import synced_transcript
from tests.test_mcp_mining import Client, refused, serving, text
from total_recall.surfaces.cli import cli

TURNS = [("user", "Always run the linter before every push.", "2026-05-01T10:00:00Z"),
         ("assistant", "Will do.", "2026-05-01T10:01:00Z")]
RELATIVE = "tr-relative-export"  # a folder an export must never make in the server's own folder


def env_of(home: Path) -> dict[str, str]:
    return {"HOME": str(home.parent), "TOTAL_RECALL_HOME": str(home), "TOTAL_RECALL_SANDBOX": "1",
            "TOTAL_RECALL_VECTOR_BUDGET": "0", "TMPDIR": str(home.parent)}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcp_surface") / "record"
    synced_transcript(folder, TURNS).close()
    return folder


@pytest.fixture(scope="module")
def client(home: Path) -> Iterator[Client]:
    with serving(env_of(home), home.parent / "server.log") as c:
        yield c


@pytest.fixture(scope="module")
def empty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """A server on a home with no session recorded."""
    folder = tmp_path_factory.mktemp("mcp_surface_empty") / "record"
    with serving(env_of(folder), folder.parent / "server.log") as c:
        yield c


def run(home: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(home), *args], catch_exceptions=False)
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    value: dict[str, Any] = json.loads(text(result))
    return value


# -- notes --


def test_an_empty_answer_over_mcp_carries_the_note_the_cli_prints(client: Client, empty: Client,
                                                                    home: Path) -> None:
    got = client.call("sessions", {"directory": "zz-nowhere"})
    listed = answer(got)
    assert listed["sessions"] == [] and listed["notes"] == ["no session matches directory=zz-nowhere"]
    assert listed["bytes"] == len(text(got).encode())  # the reply's own size, its notes counted
    assert "note: no session matches --directory zz-nowhere" in run(home, "sessions", "--directory",
                                                                     "zz-nowhere").stderr
    found = answer(empty.call("search", {"query": "deploy"}))
    assert found["hits"] == [] and "holds no session yet" in found["notes"][0]
    assert "notes" not in answer(client.call("sessions", {}))  # nothing to note: no key
    lifted = answer(client.call("unmute", {"name": "never-muted"}))
    assert lifted["notes"] == ["nothing named 'never-muted' was muted, so nothing changed (muted now: none)"]


def test_observe_over_mcp_says_the_mechanical_observer_ran_and_which_tool_says_what_to_set(
        client: Client) -> None:
    observed = answer(client.call("observe", {}))
    assert observed["observer"] == "mechanical"
    assert observed["notes"] == ["no model configured: the mechanical observer ran (the `llm_status` tool "
                                 "says what to set)"]


# -- the surface's own spellings --


def test_a_refusal_over_mcp_names_the_tool_to_call_and_on_the_cli_the_command(client: Client,
                                                                              home: Path) -> None:
    message = refused(client.call("read", {"address": "#1"}))
    assert message.endswith("names no session: not an address (s3, s3#12, s3#10-20), nor a session's own "
                            "id, a prefix or a piece of one — the `sessions` tool lists them")
    assert "`total-recall sessions` lists them" in run(home, "read", "#1", code=2).stderr

    message = refused(client.call("retire_observation", {"observation": 999, "reason": "gone"}))
    assert message == ("retire_observation: no observation 999 (the `observations` tool with "
                       "`archived: true` lists them with their ids)")
    said = run(home, "observations", "retire", "999", "--reason", "gone", code=2).stderr
    assert "no observation 999 (`total-recall observations --archived` lists them with their ids)" in said


def test_no_tool_description_names_a_cli_flag(client: Client) -> None:
    for name, tool in client.tools().items():
        assert " --" not in (tool.description or "") and "`--" not in (tool.description or ""), name


# -- export paths --


def test_over_mcp_a_relative_export_path_is_refused_and_the_cli_writes_it_under_its_own_folder(
        client: Client, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    message = refused(client.call("export_observations", {"to": RELATIVE}))
    assert message.startswith(f"export_observations: `to` must be an absolute path (or ~/…), not "
                              f"'{RELATIVE}'")
    assert not (Path.cwd() / RELATIVE).exists()  # the server runs in this process's folder

    monkeypatch.chdir(tmp_path)
    written = json.loads(run(home, "observations", "export", "--to", RELATIVE, "--json").stdout)
    assert written["path"] == str(tmp_path / RELATIVE / "observations.md")
    assert (tmp_path / RELATIVE / "observations.md").is_file()


# -- schemas --


def test_every_input_schema_is_closed_and_a_list_of_choices_is_bounded_by_how_many_there_are(
        client: Client, home: Path) -> None:
    tools = client.tools()
    assert [name for name, t in tools.items() if t.input_schema.get("additionalProperties") is not False
            ] == []
    items = {(name, param): prop.get("maxItems") for name, t in tools.items()
             for param, prop in t.input_schema["properties"].items() if prop.get("type") == "array"}
    assert {key: most for key, most in items.items() if key[1] != "words"} == {
        ("sync", "harness"): 5, ("sessions", "harness"): 5, ("search", "harness"): 5,
        ("search", "author"): 5, ("extract_by_type", "types"): 6}

    message = refused(client.call("search", {"query": "deploy", "harness": ["codex"] * 10_000}))
    assert message == "search: `harness` holds 10000 values — it takes at most 5"
    said = run(home, "search", "deploy", *["--harness", "codex"] * 6, code=2).stderr
    assert "`--harness` holds 6 values — it takes at most 5" in said


# -- what a person writes --


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\ufeff", "\u200d \u2060"])
def test_a_cue_of_nothing_that_shows_is_refused_as_blank(client: Client, home: Path, invisible: str) -> None:
    assert refused(client.call("cue", {"text": invisible})).startswith("cue: a cue needs text")
    assert "a cue needs text" in run(home, "cue", invisible, code=2).stderr


@pytest.mark.parametrize("hidden", ["look\x00here", "look\x1b[31mhere"])
def test_a_cue_holding_a_control_character_is_refused_naming_text(client: Client, home: Path,
                                                                   hidden: str) -> None:
    assert refused(client.call("cue", {"text": hidden})).startswith(
        "cue: `text`: must be text without control characters")
    assert "`TEXT`: must be text without control characters" in run(home, "cue", hidden, code=2).stderr


@pytest.mark.parametrize("hidden", ["look\x00here", "look\x1b[31mhere"])
def test_a_mute_of_a_name_holding_a_control_character_is_refused_naming_it(client: Client, home: Path,
                                                                           hidden: str) -> None:
    for tool in ("mute", "unmute"):
        assert refused(client.call(tool, {"name": hidden})).startswith(
            f"{tool}: `name`: must be text without control characters")
        assert "`NAME`: must be text without control characters" in run(home, tool, hidden, code=2).stderr
    assert answer(client.call("unmute", {"all": True}))["names_muted"] == []  # nothing was muted meanwhile


def test_a_note_never_takes_a_reply_past_the_bytes_its_caller_allowed(empty: Client) -> None:
    for size in range(700, 960, 10):  # replies from well within the bound to filling it
        got = empty.call("search", {"query": "deploy " + "x" * size, "max_bytes": 1024})
        said = text(got)
        assert not got.is_error and len(said.encode()) <= 1024, (size, said)
        notes = json.loads(said).get("notes", [])
        assert all("holds no session yet" in n or n == "and 1 more notes" for n in notes)


def test_a_session_tool_on_an_empty_record_names_the_sync_tool_over_mcp_and_the_command_on_the_cli(
        empty: Client, tmp_path: Path) -> None:
    said = refused(empty.call("profile_session", {}))
    assert said.endswith("the record holds no sessions — the `sync` tool reads the agents' stores into it")
    cli_said = run(tmp_path / "record", "profile", code=2).stderr
    assert "— `total-recall sync` reads the agents' stores into it" in cli_said
