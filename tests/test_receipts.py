"""Receipts: every compaction and every decision not to compact has one; a harness compaction without one
is reported."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.keeping_helpers import Transcript, hook_json
from tests.stores import Stores, fixture_stores
from total_recall.keeping.audit import harness_compactions, unreceipted
from total_recall.keeping.claude_code import claude_code_hook
from total_recall.keeping.codex import receipt_compactions
from total_recall.keeping.controllers import provider_compacted
from total_recall.keeping.hooks import parse_payload
from total_recall.keeping.marker import markers_for
from total_recall.keeping.receipts import list_receipts
from total_recall.keeping.runtime import next_window
from total_recall.keeping.window import WindowPolicy, current_window
from total_recall.record.database import Record
from total_recall.record.sync import sync
from total_recall.surfaces.cli import cli


@dataclass
class Recorded:
    stores: Stores
    home: Path
    record: Record

    def cli(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--home", str(self.home), *args])

    def session_of(self, name: str) -> int:
        return next(s.number for s in self.record.sessions() if s.source.endswith(name))


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorded]:
    with fixture_stores(tmp_path / "stores") as stores:
        stores.point(monkeypatch)
        record = Record(tmp_path / "record" / "record.sqlite3")
        assert sync(record).errors == []
        yield Recorded(stores, tmp_path / "record", record)
        record.close()


def codex_records(record: Record) -> list[str]:
    return [c.address for c in harness_compactions(record) if c.harness == "codex"]


def test_the_fixtures_hold_compactions_of_every_harness_that_writes_them(record: Recorded) -> None:
    found = harness_compactions(record.record)
    assert {c.harness for c in found} >= {"claude-code", "codex", "openclaw", "vibe"}
    kitchen = record.session_of("synthetic_kitchen_sink_v0.146_all_record_types.jsonl")
    codex = [c for c in found if c.session == kitchen]
    # The `context_compacted` event is folded into the `compacted` record it announces.
    assert len(codex) == 6 and sum(len(c.echoes) for c in codex) == 1


def test_every_codex_compaction_in_the_record_gets_one_receipt_and_only_once(record: Recorded) -> None:
    wanted = codex_records(record.record)
    assert record.cli("sync").exit_code == 0  # a surface's sync writes them; the fixture's library sync not
    first = record.cli("receipts", "--json")
    assert first.exit_code == 0, first.output
    listed = json.loads(first.stdout)
    codex = [r for r in listed["receipts"] if r["controller"] == "codex"]
    assert sorted(r["source"] for r in codex) == sorted(wanted)
    for r in codex:
        assert (r["trigger"], r["decision"], r["knowledge"], r["marker"]) == (
            "harness", "compacted", "sent, unconfirmed", None)
        assert r["session"] == f"s{r['source'][1:].split('#')[0]}"
    again = json.loads(record.cli("receipts", "--json").stdout)
    assert again["receipts"] == listed["receipts"]
    assert not any(u["harness"] == "codex" for u in again["unreceipted"])
    assert receipt_compactions(record.record) == []


def test_harness_compactions_without_a_receipt_are_reported(record: Recorded) -> None:
    out = record.cli("receipts", "--json")
    unlisted = json.loads(out.stdout)["unreceipted"]
    compact = record.session_of("synthetic_compact_after_rewind_dag.jsonl")
    assert {"address": f"s{compact}#9", "harness": "claude-code", "session": f"s{compact}",
            "timestamp": "2025-07-01T10:30:00.000Z"} in unlisted
    assert {u["harness"] for u in unlisted} >= {"claude-code", "openclaw", "vibe"}
    assert set(unlisted[0]) == {"address", "harness", "session", "timestamp"}
    text = record.cli("receipts")
    assert text.exit_code == 0
    assert f"warning: {len(unlisted)} harness compaction(s) have no receipt" in text.stderr
    assert f"s{compact}#9" in text.stderr


def test_a_precompact_receipt_accounts_for_the_compaction_claude_code_writes_next(
        record: Recorded, tmp_path: Path) -> None:
    t = Transcript(record.stores.roots["claude-code"] / "-work-shop" / "1e2d3c4b-5a69.jsonl", "/work/shop")
    for n in range(3):
        t.owner(f"Step {n}: keep the DNS-01 challenge.")
        t.agent(f"Done with step {n}.")
    reply = claude_code_hook(record.record, parse_payload(hook_json("PreCompact", t, trigger="auto")))
    assert reply.context is None
    t.compacted("auto", "This session is being continued from a previous conversation.")
    t.owner("Go on.")
    t.compacted("auto", "This session is being continued again, and no hook ran this time.")
    assert sync(record.record, ["claude-code"]).errors == []
    session = next(s.number for s in record.record.sessions() if s.native_id == t.session_id)
    mine = [c.address for c in harness_compactions(record.record, session)]
    assert len(mine) == 2
    # The first compaction pairs with the hook's receipt; the second had none: the alarm.
    assert [c.address for c in unreceipted(record.record, session)] == [mine[1]]
    assert f"s{record.session_of('synthetic_compact_after_rewind_dag.jsonl')}#9" in [
        c.address for c in unreceipted(record.record)]


def test_a_provider_side_compaction_writes_a_receipt_and_nothing_else(record: Recorded) -> None:
    session = record.session_of("609b44ad-7c18-4745-a70b-784281dce85e.jsonl")
    receipt = provider_compacted(record.record, session, tokens_before=180_000, tokens_after=40_000,
                                 note="context management cleared old tool results")
    assert receipt.id is not None
    [stored] = list_receipts(record.record, session)
    assert stored.id == receipt.id
    assert (stored.controller, stored.trigger, stored.decision, stored.knowledge, stored.marker_id) == (
        "provider-api", "harness", "compacted", "sent, unconfirmed", None)
    assert (stored.tokens_before, stored.tokens_after) == (180_000, 40_000)
    assert markers_for(record.record, session) == []


def test_a_decision_not_to_compact_is_listed_with_the_compactions(record: Recorded) -> None:
    session = record.session_of("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    tokens = current_window(record.record, session).tokens
    # 85% full with the next call: over the notice share, well inside the default headroom.
    window = next_window(record.record, session, limit=int((tokens + 500) / 0.85), next_call_tokens=500,
                         policy=WindowPolicy(keep_exchanges=2))
    assert window.receipt_id is not None
    listed = json.loads(record.cli("receipts", "--session", f"s{session}", "--json").stdout)
    [receipt] = listed["receipts"]
    assert (receipt["id"], receipt["controller"], receipt["decision"], receipt["knowledge"]) == (
        window.receipt_id, "runtime", "kept", "known input")
    assert set(receipt) == {"id", "created", "controller", "trigger", "decision", "knowledge", "session",
                            "range", "tokens_before", "tokens_after", "marker", "source", "note"}
    text = record.cli("receipts", "--session", f"s{session}")
    assert "runtime" in text.stdout and "kept" in text.stdout


def test_receipts_of_a_session_the_record_does_not_hold_is_an_error(record: Recorded) -> None:
    bad = record.cli("receipts", "--session", "s999")
    assert bad.exit_code == 2 and "receipts: no session s999 — the record holds s1–" in bad.stderr
    worse = record.cli("receipts", "--session", "3#4")
    assert worse.exit_code == 2 and "'3#4' matches no session — tried it as an address (s7)" in worse.stderr
    entries = record.cli("receipts", "--session", "s3#4")
    assert entries.exit_code == 2 and "must name a session (s3), not entries" in entries.stderr
