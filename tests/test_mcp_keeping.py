"""The keeping tools through a real MCP client on the demo store's record: compact leaves a verified
marker with its receipt, markers lists it, a cue replaces the mechanical lines it covers, receipts
accounts for everything."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_mcp import Served, calls, payload, text
from total_recall.config import demo_roots
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync

RULE = "Never restart the production database during the day."


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Served]:
    roots = {h: shutil.copytree(p, tmp_path / "stores" / h) for h, p in demo_roots().items()}
    env = {"TOTAL_RECALL_CLAUDE_ROOT": str(roots["claude-code"]),
           "TOTAL_RECALL_CODEX_ROOT": str(roots["codex"]), "HOME": str(tmp_path / "home"),
           "TOTAL_RECALL_HOME": str(tmp_path / "record"),
           "TOTAL_RECALL_SANDBOX": "1", "TOTAL_RECALL_VECTOR_BUDGET": "0"}
    record = tmp_path / "record" / "record.sqlite3"
    with Record(record) as opened_record:
        assert sync(opened_record, env=env).errors == []
    yield Served(record, env)


def test_compact_quotes_the_owners_rule_at_an_address_read_returns_and_writes_a_receipt(demo: Served) -> None:
    done, listed, account = calls(demo, [
        ("compact", {"session_id": "s1", "budget": 800}),
        ("markers", {"session_id": "s1"}),
        ("receipts", {"session_id": "s1"}),
    ])
    marker = payload(done)
    quoted = [q for q in marker["instructions"] if RULE in q["text"]]
    assert quoted, marker["text"]
    with Record(demo.record) as record:
        assert RULE in read(record, quoted[0]["address"])[0].text
    assert marker["text"].startswith(f"[total-recall marker {marker['range']}]")
    assert [m["id"] for m in payload(listed)["markers"]] == [marker["id"]]
    receipts = payload(account)["receipts"]
    assert [(r["controller"], r["marker"], r["knowledge"]) for r in receipts] == [
        ("mcp", marker["id"], "known input")]


def test_a_cue_replaces_the_mechanical_lines_and_the_owners_words_stay(demo: Served) -> None:
    line = "TLS renewal on shop.example.com: fixed; come back if certbot's deploy hook fails again"
    left, done = calls(demo, [("cue", {"session_id": "s1", "text": line}),
                              ("compact", {"session_id": "s1", "budget": 800})])
    assert payload(left)["text"] == line
    marker = payload(done)
    assert marker["cue"]["text"] == line and any(RULE in q["text"] for q in marker["instructions"])


def test_bad_compactions_are_refused_with_the_reason_naming_the_parameter(demo: Served) -> None:
    small, outside, multi, huge, bo, many, entries, tiny = calls(demo, [
        ("compact", {"session_id": "s1", "budget": 5}),
        ("compact", {"session_id": "s1", "budget": 800, "range": "s2#1-3"}),
        ("cue", {"session_id": "s1", "text": "two\nlines"}),
        ("compact", {"session_id": "s1", "budget": 100_001}),
        ("compact", {"session_id": "s1", "budget": 500, "bo": 900}),
        ("compact", {"session_id": "s1", "budget": 500, "keep_exchanges": 1001}),
        ("cue", {"session_id": "s1#4", "text": "one line"}),
        ("markers", {"session_id": "s1", "max_bytes": 10}),
    ])
    assert small.is_error and "too small" in text(small)
    assert outside.is_error and "not inside s1" in text(outside)
    assert multi.is_error and "one line" in text(multi)
    assert huge.is_error and "`budget` is out of range: 100001 — it must be at most 100000" in text(huge)
    assert bo.is_error and text(bo).startswith("compact: `bo` must be between 0 and the budget (500 tokens)")
    assert many.is_error and "`keep_exchanges` is out of range: 1001 — it must be at most 1000" in text(many)
    assert entries.is_error and "`session_id` must name a session (s1), not entries" in text(entries)
    assert tiny.is_error and "`max_bytes` is out of range: 10 — it must be at least 1024" in text(tiny)


def test_a_server_bound_to_a_harness_accounts_only_for_its_sessions(demo: Served) -> None:
    (done,) = calls(demo, [("compact", {"session_id": "s1", "budget": 800})])
    assert not done.is_error, text(done)
    everything = payload(calls(demo, [("receipts", {})])[0])
    assert [r["session"] for r in everything["receipts"]] == ["s1"]
    bound = payload(calls(demo, [("receipts", {})], "--harness", "codex")[0])
    assert bound["receipts"] == [] and all(u["harness"] == "codex" for u in bound["unreceipted"])


def test_a_server_bound_to_a_harness_refuses_to_compact_another_harness_s_session(demo: Served) -> None:
    with Record(demo.record) as record:
        codex = next(s.address for s in record.sessions() if s.harness == "codex")
    refused, empty = calls(demo, [("compact", {"session_id": "s1", "budget": 800}),
                                  ("markers", {"session_id": codex})], "--harness", "codex")
    assert refused.is_error and "s1 is a claude-code session" in text(refused)
    assert "bound to codex" in text(refused)
    listed = payload(empty)
    assert listed == {"session": codex, "markers": [], "max_bytes": 16384, "bytes": listed["bytes"]}
