"""The keeping commands: compact, markers, cue — their JSON shapes and their exit-2 paths."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from total_recall.config import DEMO_RECORD_FILE, record_home
from total_recall.keeping.receipts import list_receipts
from total_recall.record.store import Store
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
    assert rule["text"] in read[0]["text"]
    with Store(record_home() / DEMO_RECORD_FILE) as store:
        [receipt] = [r for r in list_receipts(store, 1) if r.id == out["receipt"]]
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
    assert [m["id"] for m in listed] == [first["id"], second["id"]]
    assert listed[1]["text"] == second["text"] and listed[1]["withdrawn"] is None
    plain = run(runner, "markers", "s1")
    assert plain.exit_code == 0 and second["text"] in plain.output


def test_cue_leaves_one_line_and_compact_keeps_it(runner: CliRunner) -> None:
    cue = as_json(run(runner, "cue", "s1", "TLS fixed; staging cert is the open thread", "--json"))
    assert cue == {"id": cue["id"], "session": "s1", "text": "TLS fixed; staging cert is the open thread",
                   "covers": "s1#1-90", "created": cue["created"]}
    out = as_json(run(runner, "compact", "s1", "--budget", "800", "--json"))
    assert out["cue"] == {"address": "s1#1-90", "text": "TLS fixed; staging cert is the open thread"}
    assert out["items"] == []


@pytest.mark.parametrize(("args", "message"), [
    (("compact", "s9", "--budget", "500"), "s9: no such session"),
    (("compact", "s1", "--range", "s3#1-5", "--budget", "500"), "not inside s1"),
    (("compact", "s1", "--range", "s1#80-200", "--budget", "500"), "outside s1"),
    (("compact", "s1", "--range", "s1#x", "--budget", "500"), "not an address"),
    (("compact", "s1", "--budget", "12"), "too small"),
    (("compact", "s1", "--budget", "500", "--bo", "900"), "between 0 and the budget"),
    (("compact", "s1#4", "--budget", "500"), "names entries"),
    (("compact", "s2", "--budget", "500"), "nothing to compact in s2"),
    (("cue", "s1", "two\nlines"), "one line"),
    (("cue", "s1", ""), "needs text"),
    (("markers", "s9"), "no such session"),
])
def test_bad_input_exits_2_with_a_message_naming_it(runner: CliRunner, args: tuple[str, ...],
                                                     message: str) -> None:
    result = run(runner, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert as_json(run(runner, "markers", "s1", "--json")) == []


def test_budget_is_required_and_positive(runner: CliRunner) -> None:
    assert run(runner, "compact", "s1").exit_code == 2
    assert run(runner, "compact", "s1", "--budget", "0").exit_code == 2
