"""The keeping commands: compact, markers, cue, receipts — their JSON shapes, their human renderings and
their exit-2 paths (refusals named by the CLI's own flags)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from total_recall.config import DEMO_RECORD_FILE, record_home
from total_recall.keeping.receipts import list_receipts
from total_recall.record.database import Record
from total_recall.surfaces.cli import cli

MARKER_KEYS = {"id", "session", "range", "instructions", "strings", "items", "pointers", "cue", "notices",
               "tokens", "text", "receipt"}


@pytest.fixture
def runner() -> CliRunner:
    r = CliRunner()
    assert r.invoke(cli, ["--demo", "sync", "--json"]).exit_code == 0
    return r


def run(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(cli, ["--demo", *args])


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_compact_json_has_the_marker_its_id_and_its_receipt(runner: CliRunner) -> None:
    out = as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    assert set(out) == MARKER_KEYS
    assert out["session"] == "s1" and out["range"] == "s1#1-76"  # everything before the last 2 exchanges
    assert all(set(q) == {"address", "text"} for q in out["strings"])
    assert all(set(q) == {"address", "text", "tag"} and q["tag"] in ("instruction", "statement", "question")
               for q in out["instructions"])
    assert all(set(i) == {"kind", "address", "line"} and i["kind"] in ("decision", "failure", "open")
               for i in out["items"])
    assert out["cue"] is None and isinstance(out["pointers"], list) and isinstance(out["notices"], list)
    assert out["text"].startswith("[total-recall marker s1#1-76]") and out["tokens"] <= 800
    rule = next(q for q in out["instructions"] if "Never restart the production database" in q["text"])
    read = as_json(run(runner, "read", rule["address"], "--json"))
    assert rule["text"] in read["entries"][0]["text"]
    with Record(record_home() / DEMO_RECORD_FILE) as record:
        [receipt] = [r for r in list_receipts(record, 1) if r.id == out["receipt"]]
    assert (receipt.controller, receipt.trigger, receipt.decision, receipt.knowledge) == (
        "cli", "manual", "compacted", "known input")
    assert (receipt.range, receipt.marker_id, receipt.tokens_after) == ("s1#1-76", out["id"], out["tokens"])
    assert receipt.tokens_before is not None and receipt.tokens_before > 10 * out["tokens"]


def test_compact_with_a_range_and_bo_prints_the_marker_and_tells_the_owner_when_bo_fills(
    runner: CliRunner,
) -> None:
    result = run(runner, "compact", "s1", "--range", "s1#1-90", "--budget", "500", "--bo", "60")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("[total-recall marker s1#1-90]")
    assert "note: Bo full (60 tokens)" in result.stderr


def test_markers_lists_what_compact_stored_newest_last(runner: CliRunner) -> None:
    first = as_json(run(runner, "compact", "s1", "--range", "s1#1-30", "--budget", "600", "--json"))
    second = as_json(run(runner, "compact", "s1", "--budget", "600", "--json"))
    listed = as_json(run(runner, "markers", "s1", "--json"))
    assert listed["session"] == "s1" and listed["max_bytes"] == 16384 and "held_back" not in listed
    assert [m["id"] for m in listed["markers"]] == [first["id"], second["id"]]
    assert listed["markers"][1]["text"] == second["text"] and listed["markers"][1]["withdrawn"] is None
    plain = run(runner, "markers", "s1")
    assert plain.exit_code == 0 and second["text"] in plain.stdout
    assert f"── marker {second['id']} · {second['range']} · " in plain.stdout


def test_cue_leaves_one_line_and_compact_keeps_it(runner: CliRunner) -> None:
    cue = as_json(run(runner, "cue", "s1", "TLS fixed; staging cert is the open thread", "--json"))
    assert cue == {"id": cue["id"], "session": "s1", "text": "TLS fixed; staging cert is the open thread",
                   "covers": "s1#1-90", "created": cue["created"]}
    out = as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    assert out["cue"] == {"address": "s1#1-90", "text": "TLS fixed; staging cert is the open thread"}
    assert out["items"] == []


@pytest.mark.parametrize(("args", "message"), [
    (("compact", "s9", "--budget", "500"), "no session s9"),
    (("compact", "s1", "--range", "s3#1-5", "--budget", "500"), "not inside s1"),
    (("compact", "s1", "--range", "s1#80-200", "--budget", "500"), "runs past the end of s1"),
    (("compact", "s1", "--range", "s1#x", "--budget", "500"), "not an address"),
    (("compact", "s1", "--budget", "12"), "too small"),
    (("compact", "s1", "--budget", "500", "--bo", "900"), "`--bo` must be between 0 and the budget"),
    (("compact", "s1", "--budget", "100001"),
     "`--budget` is out of range: 100001 — it must be at most 100000"),
    (("compact", "s1", "--budget", "500", "--bo", "100001"), "`--bo` is out of range"),
    (("compact", "s1", "--budget", "500", "--keep-exchanges", "1001"),
     "`--keep-exchanges` is out of range: 1001 — it must be at most 1000"),
    (("compact", "s1#4", "--budget", "500"), "`SESSION` must name a session (s1), not entries"),
    (("compact", "s2", "--budget", "500"), "nothing to compact in s2"),
    (("cue", "s1", "two\nlines"), "one line"),
    (("cue", "s1", "   "), "needs text"),
    (("cue", "s1", ""), "`TEXT`: string should have at least 1 character"),
    (("cue", "s1", "x" * 301), "`TEXT`: string should have at most 300 characters"),
    (("markers", "s9"), "no session s9"),
    (("markers", "s1", "--max-bytes", "10"), "`--max-bytes` is out of range: 10 — it must be at least 1024"),
    (("receipts", "--session", "s9"), "no session s9"),
])
def test_bad_input_exits_2_with_a_message_naming_it(runner: CliRunner, args: tuple[str, ...],
                                                     message: str) -> None:
    result = run(runner, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert as_json(run(runner, "markers", "s1", "--json"))["markers"] == []


def test_budget_is_required_and_positive(runner: CliRunner) -> None:
    assert run(runner, "compact", "s1").exit_code == 2
    assert run(runner, "compact", "s1", "--budget", "0").exit_code == 2


def test_compact_help_says_the_budget_it_requires_is_required() -> None:
    result = CliRunner().invoke(cli, ["compact", "--help"])
    assert result.exit_code == 0
    budget = result.output.split("--budget BUDGET", 1)[1].split("--range", 1)[0]
    assert "Required" in budget and "Required" not in result.output.split("--range", 1)[1]


def test_the_session_is_named_as_everywhere_and_empty_means_the_most_recent(runner: CliRunner) -> None:
    sessions = as_json(run(runner, "sessions", "--json"))["sessions"]
    recent, native = sessions[0]["session"], sessions[0]["native_id"]
    done = as_json(run(runner, "compact", native[:8], "--budget", "800", "--json"))
    assert done["session"] == recent
    assert as_json(run(runner, "markers", "--json"))["session"] == recent
    assert as_json(run(runner, "cue", native, "come back for the cert", "--json"))["session"] == recent


def test_cue_and_receipts_read_as_lines_without_json(runner: CliRunner) -> None:
    empty = run(runner, "receipts")
    assert (empty.exit_code, empty.stdout) == (0, "no receipts\n")
    cue = run(runner, "cue", "s1", "TLS fixed; staging cert is open")
    assert cue.exit_code == 0 and cue.stdout == "cue 1 for s1#1-90: TLS fixed; staging cert is open\n"
    done = as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    listed = run(runner, "receipts", "--session", "s1")
    assert listed.exit_code == 0
    [line] = listed.stdout.splitlines()
    assert line.startswith(f"#{done['receipt']:<4} ")
    assert f"cli          manual   compacted {done['range']}" in line
    assert line.endswith(f"known input marker {done['id']}")


def test_receipts_take_the_binding_and_a_reply_budget(runner: CliRunner) -> None:
    as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    assert [r["session"] for r in as_json(run(runner, "receipts", "--json"))["receipts"]] == ["s1"]
    bound = as_json(run(runner, "receipts", "--harness", "codex", "--json"))
    assert bound["receipts"] == [] and all(u["harness"] == "codex" for u in bound["unreceipted"])
    for _ in range(5):
        as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    got = as_json(run(runner, "receipts", "--max-bytes", "1024", "--json"))
    assert got["held_back"] > 0 and got["bytes"] <= 1024 and len(got["receipts"]) + got["held_back"] == 6
    plain = run(runner, "receipts", "--max-bytes", "1024")
    assert plain.exit_code == 0 and f"{got['held_back']} of 6 receipts held back" in plain.stderr


def test_markers_over_max_bytes_are_held_back_saying_where_the_whole_is(runner: CliRunner) -> None:
    for _ in range(3):
        as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    capped = run(runner, "markers", "s1", "--max-bytes", "4096")
    assert capped.exit_code == 0
    assert "note: " in capped.stderr and "held back" in capped.stderr and "overflow" not in capped.stdout
    # What fits is the newest: the marker an agent resuming the session needs first.
    every = as_json(run(runner, "markers", "s1", "--json", "--max-bytes", "1000000"))["markers"]
    size = max(len(json.dumps(m)) for m in every)
    kept = as_json(run(runner, "markers", "s1", "--json", "--max-bytes", str(size + 3000)))
    assert kept["held_back"] >= 1 and [m["id"] for m in kept["markers"]] == [m["id"] for m in every][-1:]
