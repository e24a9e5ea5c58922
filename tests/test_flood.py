"""Flood control and the line histogram: an overflowing reply never exceeds its budget, never tears its
JSON, and loses nothing — the whole is in a private file that is gone a day later."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.mining_stores import mine
from tests.stores import synced_transcript
from total_recall.erasure import erase
from total_recall.errors import ScopeError
from total_recall.keeping.cues import leave_cue
from total_recall.mining.bounds import dump
from total_recall.mining.flood import MARKER, cap_text, fit_json, overflow_dir, overflow_folder, prune
from total_recall.mining.histogram import of_text
from total_recall.ops import Call, by_name
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli


@pytest.fixture(autouse=True)
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path / "tmp"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


def report(lines: int, width: int = 60) -> str:
    return "".join(f"line {n:05d} " + "x" * (n % width) + "\n" for n in range(1, lines + 1))


def overflow_file(reply: str) -> Path:
    return Path(
        next(line for line in reply.splitlines() if line.startswith("full_report: ")).split(": ", 1)[1]
    )


def line_histogram(file_path: str, **arguments: object) -> str:
    """What the line_histogram tool answers (it reads no record: only the overflow folder)."""
    op = by_name("line_histogram")
    assert op.text is not None
    call = Call(overflow_folder().parent / "record.sqlite3", "mcp")
    return op.text(op(call, file_path=file_path, **arguments))


def dump_file(name: str, text: str) -> Path:
    """A file in the overflow folder, the one place line_histogram reads."""
    path = overflow_dir() / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_reply_within_max_bytes_is_returned_whole_and_writes_no_file(private_tmp: Path) -> None:
    text = report(10)
    assert cap_text("tool", "s1", text, 16384) == text
    assert not overflow_folder().exists() and not (private_tmp / "total-recall").exists()


def test_a_reply_over_max_bytes_is_cut_at_a_line_and_the_whole_is_in_a_private_file(
    private_tmp: Path,
) -> None:
    text = report(2000)
    reply = cap_text("she_said_he_said_action", "s7", text, 4096)
    assert len(reply.encode()) <= 4096
    body, marker = reply.split(MARKER + "\n")
    assert body and text.startswith(body) and body.endswith("\n")  # whole lines, from the start
    path = overflow_file(reply)
    assert path.read_text(encoding="utf-8") == text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.parent == overflow_folder() == Path(os.environ["TOTAL_RECALL_HOME"]) / "overflow"
    assert not any(private_tmp.iterdir())  # nothing in the shared temp folder
    kept = body.count("\n")
    assert "tool: she_said_he_said_action" in marker
    assert (
        f"returned_bytes: {len(body.encode())} (lines 1-{kept}) of total_bytes: {len(text.encode())}"
        in marker
    )
    assert "total_lines: 2000" in marker and "older than 24 h are removed" in marker
    assert "Line Range" in marker and f"start={kept + 1}" in marker


@settings(max_examples=40, deadline=None)
@given(
    lines=st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=80),
    max_bytes=st.integers(min_value=1024, max_value=6000),
)
def test_a_capped_text_reply_never_exceeds_max_bytes(lines: list[str], max_bytes: int) -> None:
    text = "\n".join(line.replace("\n", " ") for line in lines)
    reply = cap_text("t", "prop", text, max_bytes)
    assert len(reply.encode()) <= max_bytes
    if reply != text:
        assert overflow_file(reply).read_bytes() == text.encode()


def test_a_budget_that_cannot_hold_the_marker_is_an_error_not_a_broken_cap() -> None:
    with pytest.raises(ScopeError, match="cannot hold even the overflow marker"):
        cap_text("t", "s1", report(500), 200)


def test_a_json_reply_shrinks_to_valid_json_with_held_back_and_the_whole_in_the_file() -> None:
    items = [{"address": f"s1#{n}", "text": "word " * (n % 40)} for n in range(300)]
    whole = {"session": "s1", "events": items}
    reply = fit_json("profile_session", "s1", whole, "events", 4096, keep="tail")
    returned = dump(reply)
    assert len(returned) == reply["bytes"] <= 4096
    parsed = orjson.loads(returned)  # never torn
    kept = parsed["events"]
    assert kept == items[len(items) - len(kept) :] and parsed["held_back"] == len(items) - len(kept)
    path = Path(parsed["overflow"]["file"])
    on_disk = orjson.loads(path.read_bytes())
    assert on_disk["events"] == items and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert parsed["overflow"]["total_bytes"] == path.stat().st_size


def test_a_json_reply_that_fits_only_gains_its_size_fields() -> None:
    reply = fit_json("t", "s1", {"events": [1, 2, 3]}, "events", 4096)
    assert reply["events"] == [1, 2, 3] and reply["max_bytes"] == 4096 and reply["bytes"] == len(dump(reply))
    assert "overflow" not in reply


def test_overflow_files_older_than_24_hours_are_pruned_on_the_next_capped_call() -> None:
    folder = overflow_dir()
    old, fresh = folder / "old_report.md", folder / "fresh_report.md"
    old.write_text("old")
    fresh.write_text("fresh")
    day_and_a_bit = time.time() - 25 * 3600
    os.utime(old, (day_and_a_bit, day_and_a_bit))
    cap_text("t", "s1", report(2000), 2048)
    assert not old.exists() and fresh.exists()


def test_pruning_keeps_files_younger_than_a_day() -> None:
    folder = overflow_dir()
    recent = folder / "recent.md"
    recent.write_text("x")
    hours_ago = time.time() - 23 * 3600
    os.utime(recent, (hours_ago, hours_ago))
    assert prune(folder) == 0 and recent.exists()


def test_a_loose_overflow_folder_is_made_private_again() -> None:
    folder = overflow_folder()
    folder.mkdir(mode=0o777, parents=True)
    folder.chmod(0o777)
    assert overflow_dir() == folder and stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_the_histogram_buckets_add_up_to_the_file_and_name_the_longest_line() -> None:
    text = report(1234) + "y" * 5000 + "\n" + report(10)
    h = of_text(text)
    assert h.total_lines == 1245 and h.total_bytes == len(text.encode())
    assert sum(n for _, _, n in h.buckets) == h.total_bytes and len(h.buckets) == 10
    assert (h.buckets[0][0], h.buckets[-1][1]) == (1, 1245)
    assert (h.longest_line, h.longest_bytes) == (1235, 5001)


def test_line_histogram_profiles_a_file_in_ten_buckets() -> None:
    path = dump_file("dump.jsonl", report(500))
    out = line_histogram(str(path))
    assert (
        f"File: {path}" in out and "Total lines: 500" in out and f"Total bytes: {path.stat().st_size}" in out
    )
    rows = [line for line in out.splitlines() if " | " in line and not line.startswith("Line Range")]
    assert len(rows) == 10 and rows[0].startswith("1-50 ") and rows[-1].startswith("451-500 ")


def test_line_histogram_extracts_one_line_or_a_range() -> None:
    path = dump_file("dump.txt", report(30))
    lines = report(30).splitlines(keepends=True)
    assert line_histogram(str(path), mode="extract", line=7) == lines[6]
    assert line_histogram(str(path), mode="extract", start=3, end=5) == "".join(lines[2:5])


def test_line_histogram_extracts_lines_from_an_overflow_file_to_continue_reading() -> None:
    text = report(3000)
    reply = cap_text("t", "s1", text, 2048)
    kept = reply.split(MARKER)[0].count("\n")
    rest = line_histogram(str(overflow_file(reply)), mode="extract", start=kept + 1, end=kept + 3)
    assert rest == "".join(text.splitlines(keepends=True)[kept : kept + 3])


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"mode": "extract", "end": 3}, "start is missing"),
        ({"mode": "extract", "start": 3}, "end is missing"),
        ({"mode": "extract", "start": 5, "end": 3}, "start=5 is past end=3"),
        ({"line": 3}, "mode is 'histogram'"),
        ({"mode": "extract", "line": 0}, "greater than or equal to 1"),
        ({"mode": "extract", "line": 2, "start": 1, "end": 2}, "not both"),
        ({"mode": "extract"}, "needs line=N"),
        ({"mode": "lines"}, "'histogram' or 'extract'"),
        ({"mode": "extract", "line": 99}, "it has 30 lines"),
    ],
)
def test_line_histogram_validates_its_selectors_as_a_set(kwargs: dict[str, object], needle: str) -> None:
    path = dump_file("dump.txt", report(30))
    with pytest.raises((ScopeError, ValidationError), match=needle):
        line_histogram(str(path), **kwargs)


def test_line_histogram_refuses_what_is_not_a_regular_file() -> None:
    folder = overflow_dir()
    fifo, sub = folder / "pipe", folder / "sub"
    os.mkfifo(fifo)
    sub.mkdir()
    for path in (sub, fifo):
        with pytest.raises(ScopeError, match="is not a regular file"):
            line_histogram(str(path))
    with pytest.raises(ScopeError, match="cannot open"):
        line_histogram(str(folder / "missing"))


def test_a_large_line_histogram_extract_is_flood_capped() -> None:
    path = dump_file("big.txt", report(5000))
    out = line_histogram(str(path), mode="extract", start=1, end=5000, max_bytes=4096)
    assert len(out.encode()) <= 4096 and MARKER in out
    assert overflow_file(out).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


# -- erase leaves no overflow file holding the erased text --

SECRET = "tok_live_9f8e7d6c5b4a3f2e1d0c"
# A long line with the secret in its middle: a snippet cut around a match holds only a piece of it.
ERASED = (
    "Deploy notes for the billing service, read them before the release on Friday:\n"
    + "the rotation script moved everything under /srv/billing/keys last week, and "
    + f"the deploy token is \"{SECRET}\" until the vault migration lands, "
    + "so paste it into the CI settings by hand and never commit it anywhere.\n"
    + "Ping me when the pipeline is green."
)


def secret_record() -> Record:
    """A record in the test's record home whose s1#2 holds the secret, among plain turns."""
    filler = [("user", f"filler question {n}: what is the status of the token rotation?",
               f"2026-05-01T10:{n:02d}:00Z") for n in range(10, 40)]
    turns = [("user", "what did we write down about the deploy?", "2026-05-01T10:00:00Z"),
             ("assistant", ERASED, "2026-05-01T10:01:00Z"), *filler]
    return synced_transcript(Path(os.environ["TOTAL_RECALL_HOME"]), turns)


def holding(folder: Path, needle: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_erase_removes_every_overflow_file_holding_the_erased_text_and_keeps_the_rest(
    tmp_path: Path, private_tmp: Path,
) -> None:
    record = secret_record()
    # Real capped replies: a text report quoting the entry, a search-like report of snippets cut around
    # the match, a JSON reply escaping the entry's quotes and newlines, and one from before the overflow
    # folder moved under the record's home.
    said = mine(record, "she_said_he_said_action", words=["token"], session_id="s1", max_bytes=1024)
    dreamt = mine(record, "do_android_dream_of_electric_sheep", query="deploy token", session_id="s1",
                  max_bytes=1024)
    as_json = fit_json("search", "q", {"hits": [{"text": ERASED}] * 40}, "hits", 2048)
    legacy = private_tmp / "total-recall"
    legacy.mkdir(mode=0o700)
    (legacy / "old_reply.md").write_text(f"an old reply\n{ERASED}\n", encoding="utf-8")
    snippet = cap_text("t", "snip", f"…{ERASED[140:230]}…\n" + report(400), 1024)
    unrelated = cap_text("t", "other", report(400), 1024)
    files = [overflow_file(said), overflow_file(dreamt), Path(as_json["overflow"]["file"]),
             overflow_file(snippet)]
    assert all(SECRET.encode() in p.read_bytes() for p in files)
    assert len(holding(overflow_folder(), SECRET)) == 4 and holding(legacy, SECRET)

    done = erase(record, "s1#2", "a deploy token")

    assert done.erased == ["s1#2"] and sorted(done.purged) == sorted([*files, legacy / "old_reply.md"])
    assert holding(overflow_folder(), SECRET) == [] and holding(legacy, SECRET) == []
    assert holding(overflow_folder(), "the vault migration lands") == []
    assert overflow_file(unrelated).exists()


def test_the_erase_command_removes_the_overflow_files_that_held_the_text(tmp_path: Path) -> None:
    record = secret_record()
    said = mine(record, "she_said_he_said_action", words=["token"], session_id="s1", max_bytes=1024)
    record.close()
    home = Path(os.environ["TOTAL_RECALL_HOME"])
    result = CliRunner().invoke(cli, ["--home", str(home), "erase", "s1#2", "--reason", "a deploy token"])
    assert result.exit_code == 0, result.output
    assert "removed 1 overflow file that held their text" in result.stdout
    assert not overflow_file(said).exists() and holding(home / "overflow", SECRET) == []


def test_overflow_files_go_under_the_home_the_cli_names(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    (home / "overflow").mkdir(parents=True, mode=0o700)
    (home / "overflow" / "dump.txt").write_text(report(3000), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--home", str(home), "line-histogram", "dump.txt", "--mode", "extract",
                                      "--start", "1", "--end", "3000", "--max-bytes", "2048"])
    assert result.exit_code == 0, result.output
    assert overflow_file(result.stdout).parent == home / "overflow"
    assert not overflow_folder().exists()  # not the default home's


def test_erasing_a_cue_removes_the_overflow_files_that_held_its_text(tmp_path: Path) -> None:
    record = secret_record()
    cue = leave_cue(record, 1, f"rotation: the token {SECRET} stays until the vault migration")
    kept = cap_text("cue", "s1", f"{cue.text}\n" + report(400), 1024)
    unrelated = cap_text("t", "other", report(400), 1024)

    done = erase(record, f"cue:{cue.id}", "quotes the deploy token")

    assert done.erased == [f"cue:{cue.id}"] and done.purged == [overflow_file(kept)]
    assert holding(overflow_folder(), SECRET) == [] and overflow_file(unrelated).exists()
