"""Bad input is refused by name, never a traceback, and a refusal stays within its bound: address numbers
past SQLite's integers, windows past 100 years, word lists SQLite cannot match, huge echoed values, and
line_histogram asked for any file but an overflow file — on the CLI (exit 2) and over MCP (a tool error)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.stores import synced_transcript
from tests.test_mcp_mining import Client, refused, serving
from total_recall.mining.scope import REPORT_MAX_BYTES
from total_recall.surfaces.cli import cli

HUGE = "99999999999999999999"  # > 2**63 - 1
TURNS = [("user", "which branch do we release from?", "2026-05-01T10:00:00Z"),
         ("assistant", "We release from main, tagged v1.2.", "2026-05-01T10:01:00Z")]
# Every command that works a window of hours, with what else it needs to run.
WINDOWED = [["list"], ["he-said-she-said", "--words", "release"], ["qa-pairs"], ["index-sessions"],
            ["dream", "release"], ["prior-period-summary"]]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("refusals") / "record"
    synced_transcript(folder, TURNS).close()
    return folder


def run(home: Path, *args: str, code: int = 2) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(home), *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


# -- the CLI: exit 2 and the name of what was wrong --


@pytest.mark.parametrize("args", [
    ["read", f"s{HUGE}#1"], ["erase", f"s{HUGE}#1", "--reason", "x"],
    ["quarantine", f"s{HUGE}", "--reason", "x"], ["search", "release", "--session", f"s{HUGE}"],
])
def test_an_address_number_past_the_records_integers_is_refused_by_name(home: Path, args: list[str]) -> None:
    assert "session number too large" in run(home, *args).stderr


def test_an_entry_number_past_the_records_integers_is_refused_by_name(home: Path) -> None:
    assert "entry number too large" in run(home, "read", f"s1#1-{HUGE}").stderr


@pytest.mark.parametrize("hours", ["1e308", "1000000000"])
@pytest.mark.parametrize("command", WINDOWED, ids=lambda c: c[0])
def test_a_window_wider_than_a_century_is_refused_naming_hours_on_every_windowed_command(
    home: Path, command: list[str], hours: str,
) -> None:
    result = run(home, *command, "--hours", hours)
    assert "--hours" in result.stderr and "hours_back" not in result.stderr and "876600" in result.stderr


def test_a_word_sqlite_cannot_match_is_refused_naming_words_without_echoing_it(home: Path) -> None:
    result = run(home, "he-said-she-said", "--all", "--words", "a" * 100_000)
    said = result.stderr
    assert "--words" in said and "words=" not in said and "(100000 bytes)" in said and len(said) < 400


def test_an_offset_past_the_records_integers_is_refused_by_name(home: Path) -> None:
    said = run(home, "extract", "s1", "--offset", HUGE).stderr
    assert "`--offset` is out of range" in said and "9223372036854775807" in said


def test_line_histogram_on_the_cli_reads_only_overflow_files(home: Path, tmp_path: Path) -> None:
    folder = home / "overflow"
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / "reply.md").write_text("one\ntwo\n", encoding="utf-8")
    (folder / "sneaky.md").unlink(missing_ok=True)
    (folder / "sneaky.md").symlink_to(home / "record.sqlite3")
    for path in ("/etc/passwd", str(home / "record.sqlite3"), str(folder / "sneaky.md"),
                 str(folder / ".." / "record.sqlite3"), "../record.sqlite3", str(tmp_path)):
        message = run(home, "line-histogram", path).stderr
        assert f"line-histogram reads only overflow files under {folder}: " in message, path
        assert "is not one" in message
    extracted = run(home, "line-histogram", "reply.md", "--mode", "extract", "--line", "2", code=0)
    assert extracted.stdout == "two\n"


# -- MCP: a tool error naming the parameter, never "Error executing tool", never over max_bytes --


@pytest.fixture(scope="module")
def client(home: Path) -> Iterator[Client]:
    env = {"HOME": str(home.parent), "TOTAL_RECALL_HOME": str(home), "TOTAL_RECALL_SANDBOX": "1",
           "TOTAL_RECALL_VECTOR_BUDGET": "0", "TMPDIR": str(home.parent)}
    with serving(env, home.parent / "server.log") as c:
        yield c


def test_over_mcp_an_address_number_past_the_records_integers_is_refused_by_name(client: Client) -> None:
    assert "session number too large" in refused(client.call("read", {"address": f"s{HUGE}#1"}))
    assert "entry number too large" in refused(client.call("read", {"address": f"s1#{HUGE}"}))


@pytest.mark.parametrize("hours", [1e308, 1e9])
@pytest.mark.parametrize(("tool", "extra"), [
    ("list_sessions", {}), ("extract_qa_pairs", {}), ("she_said_he_said_action", {"words": ["release"]}),
    ("index_sessions", {}), ("do_android_dream_of_electric_sheep", {"query": "release"}),
    ("prior_period_summary", {}),
])
def test_over_mcp_a_window_wider_than_a_century_is_refused_naming_hours_back(
    client: Client, tool: str, extra: dict[str, object], hours: float,
) -> None:
    message = refused(client.call(tool, {"hours_back": hours, **extra}))
    assert message.startswith(f"{tool}: `hours_back` is out of range") and "876600" in message


def test_over_mcp_a_word_sqlite_cannot_match_is_refused_naming_words(client: Client) -> None:
    message = refused(client.call("she_said_he_said_action", {"words": ["a" * 100_000], "all": True}))
    assert message.startswith("she_said_he_said_action: `words`") and len(message) < 400


def test_over_mcp_a_refusal_echoing_a_huge_session_id_stays_within_max_bytes(client: Client) -> None:
    huge = "x" * 1_000_000
    for max_bytes in (1024, None):
        args: dict[str, object] = {"session_id": huge}
        if max_bytes:
            args["max_bytes"] = max_bytes
        message = refused(client.call("profile_session", args))
        assert "session_id" in message and "'xxxx" in message and "(1000000 bytes)" in message
        assert len(message.encode()) <= (max_bytes or REPORT_MAX_BYTES)
    unknown = refused(client.call("list_sessions", {huge: 1, "max_bytes": 1024}))
    assert unknown.startswith("list_sessions: unrecognised field") and len(unknown.encode()) <= 1024


@pytest.mark.parametrize("path", ["/etc/passwd", "/proc/self/environ", "record.sqlite3", "../record.sqlite3"])
def test_over_mcp_line_histogram_reads_only_overflow_files(client: Client, home: Path, path: str) -> None:
    given = str(home / path) if path == "record.sqlite3" else path
    message = refused(client.call("line_histogram", {"file_path": given}))
    assert message.startswith(f"line_histogram reads only overflow files under {home / 'overflow'}: ")
    assert message.endswith(" is not one")


@pytest.mark.parametrize("since", ["garbage", "99999999999999999999", "999999999 days ago", "2026-13-01"])
def test_a_since_filter_that_names_no_time_is_refused_by_name(home: Path, since: str) -> None:
    result = run(home, "search", "deploy", "--since", since)
    assert "`--since`" in result.stderr and "is not a time" in result.stderr


@pytest.mark.parametrize("since", ["2026-01-01", "2026-01-01T09:00", "2026-01-01T09:00+02:00", "2026-01",
                                   "3 days ago", "yesterday", "last week", "May 2026"])
def test_a_since_filter_takes_iso_times_and_the_times_a_person_names(home: Path, since: str) -> None:
    run(home, "search", "deploy", "--since", since, code=0)


def test_a_query_naming_a_date_that_does_not_exist_is_searched_as_words(home: Path) -> None:
    run(home, "search", "what did we release on 2026-13-01 or 9999-12-31", code=0)


# -- addresses past a session's end, blank and long session names, a damaged or emptied record --


def test_reading_past_a_sessions_end_is_refused_naming_its_size(home: Path, client: Client) -> None:
    assert "s1#3: no such entry (s1 has 2 entries)" in run(home, "read", "s1#3").stderr
    assert "no such entry (s1 has 2 entries)" in refused(client.call("read", {"address": "s1#3-9"}))
    # A range that starts inside is read up to the end, as a page of what there is.
    assert "We release from main" in run(home, "read", "s1#2-9", code=0).stdout


def test_reading_from_an_offset_past_the_end_says_so_instead_of_printing_nothing(home: Path) -> None:
    result = run(home, "read", "s1", "--offset", "50", code=0)
    assert result.stdout == "" and "offset 50 is past the end" in result.stderr


@pytest.mark.parametrize("command", ["erase", "quarantine"])
def test_a_destructive_range_running_past_the_end_is_refused_and_does_nothing(home: Path, command: str
                                                                              ) -> None:
    assert "runs past the end of s1 (its last entry is s1#2)" in run(home, command, "s1#2-9", "--reason",
                                                                     "x").stderr
    assert "We release from main" in run(home, "read", "s1#2", code=0).stdout
    assert "quarantined" not in run(home, "read", "s1#2", code=0).stdout


def test_a_blank_session_means_what_an_empty_one_does_and_a_long_one_is_refused_unechoed(home: Path) -> None:
    assert run(home, "qa-pairs", "--session", "   ", "--json", code=0).stdout == run(
        home, "qa-pairs", "--json", code=0).stdout
    long = "z" * 600
    for args in (["extract", long], ["markers", long], ["cue", long, "note"],
                 ["dream", "x", "--session", long]):
        result = run(home, *args)
        assert "at most 500 characters" in result.stderr and long not in result.stderr


def test_compact_over_mcp_refuses_a_range_past_its_sessions_end_naming_it(client: Client) -> None:
    said = refused(client.call("compact", {"budget": 2000, "range": "s1#1-99"}))
    assert "runs past the end of s1" in said and "not inside" not in said


def _damaged(tmp_path: Path) -> Path:
    """A record whose schema is whole but one entry's row is damaged inside the file."""
    turns = [("user", "first message " * 20, "2026-05-01T10:00:00Z"),
             ("user", "ZQMARK " + "the payload of a long line " * 400, "2026-05-01T10:01:00Z")]
    home = tmp_path / "damaged"
    synced_transcript(home, turns).close()
    path = home / "record.sqlite3"
    data = bytearray(path.read_bytes())
    at = data.find(b"ZQMARK")
    data[at - 40:at] = b"\xff" * 40  # the cell's header, just before its text
    path.write_bytes(bytes(data))
    return home


@pytest.mark.parametrize("args", [["read", "s1"], ["search", "payload"], ["sessions"],
                                  ["erase", "s1#2", "--reason", "x"]], ids=lambda a: a[0])
def test_a_record_damaged_inside_is_refused_by_name_never_a_traceback(tmp_path: Path, args: list[str]
                                                                       ) -> None:
    result = run(_damaged(tmp_path), *args)
    assert "not a usable record" in result.stderr and "Traceback" not in result.output


def test_an_emptied_record_file_is_said_before_a_new_record_is_made_in_it(tmp_path: Path) -> None:
    home = tmp_path / "emptied"
    synced_transcript(home, TURNS).close()
    (home / "record.sqlite3").write_bytes(b"")
    (home / "record.sqlite3-wal").unlink(missing_ok=True)
    exe = Path(sys.executable).parent / "total-recall"
    done = subprocess.run([str(exe), "--home", str(home), "sessions"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "TOTAL_RECALL_SANDBOX": "1"})
    assert done.returncode == 0, done.stderr
    assert "record.sqlite3 was an empty file" in done.stderr and "truncated or replaced" in done.stderr


def test_a_cli_refusal_names_flags_arguments_and_other_commands_as_the_cli_spells_them(home: Path) -> None:
    assert "`--since` 'garbage' is not a time" in run(home, "search", "release", "--since", "garbage").stderr
    said = run(home, "summarise-from", "zzz-no-such").stderr
    assert "TARGET 'zzz-no-such' matches no session" in said and "session_id" not in said
    rolled = run(home, "summarise-from", "s1#2").stderr
    assert "cache-delete-latest" in rolled and "cache_delete_latest" not in rolled
