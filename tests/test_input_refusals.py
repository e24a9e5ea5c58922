"""Bad input named back, never a traceback, never a silently wrong answer: `--since` text out of range or
only partly a time, `watch --for`/`--cooldown` beyond a finite bound, a `--batch` file that is not UTF-8,
and an `install --config` path under a file — on the CLI (exit 2) and, for `since`, over MCP."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.stores import synced_transcript
from tests.test_mcp_mining import Client, refused
from tests.test_refusals import client
from total_recall.surfaces.cli import cli

__all__ = ["client"]  # the fixture: a server on this module's `home`

TURNS = [("user", "which branch do we deploy from?", "2026-05-01T10:00:00Z"),
         ("assistant", "We deploy from main, tagged v1.2.", "2026-05-01T10:01:00Z")]
OUT_OF_RANGE = ["99999999999 days ago", "9999999999999 weeks ago", "0001-01-01T00:00+01:00",
                "9999-12-31T23:59:59-05:00", "1" * 150 + " days ago", "0000"]
# Each is only partly a time, or a time with trailing or leading words: once read as some other time.
NOT_A_TIME = ["-3 days ago", "May 99999", "Feb 30 2026", "nope 2026-11-01 nope", "2026-11-01 garbage",
              "1 day ago ago", "the 3 days ago thing", "yesterday yesterday", "٢٠٢٦-١١-٠١", "2026-02-30"]
STILL_TIMES = ["2026-01-01", "2026-01-01T09:00", "2026-01-01T09:00+02:00", "2026-01-01T09:00Z", "2026-01",
               "2026", "3 days ago", "an hour ago", "two weeks ago", "999999999 minutes ago", "yesterday",
               "today", "this morning", "last week", "this week", "last month", "May 2026", "in may 2026",
               "during October", "  Yesterday  "]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("input_refusals") / "record"
    synced_transcript(folder, TURNS).close()
    return folder


def run(home: Path, *args: str, code: int = 2, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(home), *args], env=env, catch_exceptions=False)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.output
    return result


# -- since --


@pytest.mark.parametrize("since", OUT_OF_RANGE, ids=lambda s: s[:30])
@pytest.mark.parametrize("command", [["sessions"], ["search", "deploy"]], ids=lambda c: c[0])
def test_a_since_beyond_the_years_a_date_can_hold_is_refused_as_out_of_range(
    home: Path, command: list[str], since: str,
) -> None:
    message = run(home, *command, "--since", since).stderr
    assert "is out of range" in message and repr(since)[:40] in message


@pytest.mark.parametrize("since", NOT_A_TIME)
@pytest.mark.parametrize("command", [["sessions"], ["search", "deploy"]], ids=lambda c: c[0])
def test_a_since_that_is_only_partly_a_time_is_refused_listing_the_forms_taken(
    home: Path, command: list[str], since: str,
) -> None:
    message = run(home, *command, "--since", since).stderr
    assert f"{since!r} is not a time" in message and "months ago" in message and "May 2026" in message


@pytest.mark.parametrize("since", STILL_TIMES)
def test_a_since_in_every_form_the_docs_promise_is_still_taken(home: Path, since: str) -> None:
    run(home, "sessions", "--since", since, code=0)
    run(home, "search", "deploy", "--since", since, code=0)


def test_a_since_before_the_session_keeps_it_and_one_after_it_leaves_it_out(home: Path) -> None:
    def listed(since: str) -> int:
        return len(json.loads(run(home, "sessions", "--since", since, "--json", code=0).stdout)["sessions"])

    assert listed("2026-05-01T09:59+00:00") == 1 and listed("2026-05-01T12:02+02:00") == 0
    assert listed("April 2026") == 1 and listed("June 2026") == 0


@pytest.mark.parametrize("query", ["deploy 99999999999 days ago", "deploy in May 0000", "deploy ٢٠٢٦-٠٥-٠١",
                                   "deploy in December 9999"])
def test_a_query_naming_a_time_no_date_can_hold_is_searched_as_words(home: Path, query: str) -> None:
    assert json.loads(run(home, "search", query, "--json", code=0).stdout)["query"] == query


@pytest.mark.parametrize(("tool", "extra"), [("sessions", {}), ("search", {"query": "deploy"})])
def test_over_mcp_a_since_out_of_range_or_partly_a_time_is_a_named_refusal(
    client: Client, tool: str, extra: dict[str, str],
) -> None:
    assert "'99999999999 days ago' is out of range" in refused(
        client.call(tool, {"since": "99999999999 days ago", **extra}))
    assert "'0001-01-01T00:00+01:00' is out of range" in refused(
        client.call(tool, {"since": "0001-01-01T00:00+01:00", **extra}))
    assert "'-3 days ago' is not a time" in refused(client.call(tool, {"since": "-3 days ago", **extra}))


# -- watch --


@pytest.mark.parametrize("value", ["inf", "nan", "99999999999999999999", "31622401", "-1", "soon"])
def test_watch_for_more_than_a_year_or_not_a_finite_number_is_refused_naming_for(
    home: Path, value: str,
) -> None:
    message = run(home, "watch", "--for", value).stderr
    assert "--for" in message and "a finite number of seconds" in message and "31622400" in message


@pytest.mark.parametrize("value", ["inf", "nan", "1e20", "86401", "-1"])
def test_watch_cooldown_beyond_a_day_or_not_a_finite_number_is_refused_naming_cooldown(
    home: Path, value: str,
) -> None:
    message = run(home, "watch", "--cooldown", value).stderr
    assert "--cooldown" in message and "a finite number of seconds" in message and "86400" in message


@pytest.mark.parametrize("value", ["inf", "nan", "1e20"])
def test_a_watch_cooldown_variable_beyond_a_day_is_refused_naming_the_variable(
    home: Path, value: str,
) -> None:
    message = run(home, "watch", env={"TOTAL_RECALL_WATCH_COOLDOWN": value}).stderr
    assert "TOTAL_RECALL_WATCH_COOLDOWN" in message and "86400" in message


# -- --batch --


@pytest.mark.parametrize("command", [["search"], ["push"]], ids=lambda c: c[0])
def test_a_batch_file_that_is_not_utf8_is_refused_naming_the_file_and_line_before_any_call(
    home: Path, tmp_path: Path, command: list[str],
) -> None:
    batch = tmp_path / "queries.txt"
    batch.write_bytes(b"deploy\nrelease \xff\xfe branch\nmain\n")
    result = run(home, *command, "--batch", str(batch), "--json")
    assert f"{batch} is not UTF-8 text (line 2)" in result.stderr
    assert f"{batch} is not UTF-8 text (line 2)" in json.loads(result.stdout)["error"]["message"]  # no call


def test_a_batch_file_with_windows_line_ends_is_read_a_call_a_line(home: Path, tmp_path: Path) -> None:
    batch = tmp_path / "queries.txt"
    batch.write_bytes(b"deploy\r\n\r\nbranch\r\n")
    lines = run(home, "search", "--batch", str(batch), "--json", code=0).stdout.splitlines()
    assert [json.loads(line)["query"] for line in lines] == ["deploy", "branch"]


# -- install --config --


@pytest.mark.parametrize("under", ["x", "deeper/x"])
def test_install_config_under_a_file_is_refused_naming_the_path_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, under: str,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    afile = tmp_path / "afile"
    afile.write_text("one line\n", encoding="utf-8")
    before = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.rglob("*") if p.is_file()}
    config = afile / under
    result = CliRunner().invoke(cli, ["install", "opencode", "--config", str(config), "--write"],
                                catch_exceptions=False)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{config}: cannot write it: {afile} is a file, not a folder; nothing written" in result.stderr
    after = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before
