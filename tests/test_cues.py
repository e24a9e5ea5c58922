"""Recall cues, the verbatim tail of whole exchanges, and receipts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.keeping_sessions import ClaudeSession
from total_recall.config import demo_roots
from total_recall.errors import AddressError, CueError, MarkerError, ReceiptError
from total_recall.keeping.cues import cues_for, leave_cue
from total_recall.keeping.marker import build_marker, save_marker
from total_recall.keeping.receipts import Receipt, list_receipts, write_receipt
from total_recall.keeping.tail import evictable_range, tail_start
from total_recall.keeping.verify import verify
from total_recall.model import Address
from total_recall.record.database import Record
from total_recall.record.reading import read
from total_recall.record.sync import sync


@pytest.fixture
def demo(tmp_path: Path) -> Record:
    record = Record(tmp_path / "record.sqlite3")
    assert sync(record, list(demo_roots()), roots=demo_roots()).errors == []
    return record


# -- cues --


def test_a_cue_covers_the_session_up_to_its_newest_entry(demo: Record) -> None:
    cue = leave_cue(demo, 1, "  TLS renewal fixed and committed; staging cert is the open thread  ")
    assert (cue.session, cue.covers, cue.text) == (1, "s1#1-90", "TLS renewal fixed and committed; staging "
                                                   "cert is the open thread")
    assert cues_for(demo, 1) == [cue]


def test_a_cue_replaces_the_mechanical_items_it_covers_and_the_instructions_stay(demo: Record) -> None:
    plain = build_marker(demo, Address.parse("s1#1-76"), budget=1500)
    assert plain.items and plain.cue is None
    cue = leave_cue(demo, 1, "TLS renewal fixed; come back here for the staging cert before the 22nd")
    marker = build_marker(demo, Address.parse("s1#1-76"), budget=1500)
    assert marker.cue is not None and (marker.cue.address, marker.cue.text) == (cue.covers, cue.text)
    assert marker.items == ()
    assert marker.instructions == plain.instructions
    assert {q.text for q in plain.strings} <= {q.text for q in marker.strings}
    assert f'cue for s1#1-90 (the agent\'s own note; it stands in for the items it covers): "{cue.text}"' \
        in marker.text
    verify(demo, marker)
    assert save_marker(demo, marker) > 0


def test_a_thread_with_no_cue_for_its_later_part_falls_back_to_the_mechanical_lines(tmp_path: Path) -> None:
    record = Record(tmp_path / "record.sqlite3")
    session = ClaudeSession(tmp_path / "claude")
    session.owner("Always keep the retry budget at 3.")
    session.tool("make test", "Exit code 1\nFAILED tests/test_retry.py - AssertionError: 4 != 3")
    number = session.sync(record)
    leave_cue(record, number, "Retry budget work: test fixed, nothing open")
    session.owner("Now look at the cache warmer, never touch prod while you do.")
    session.tool("make warm", "Exit code 2\nerror: cache warmer crashed on shard 7")
    session.agent("Decided: let's go with a lazy warmer instead.")
    number = session.sync(record)
    marker = build_marker(record, Address(number), budget=2000)
    assert marker.cue is not None and marker.cue.address == f"s{number}#1-3"
    assert [q.text for q in marker.instructions] == [
        "Always keep the retry budget at 3.", "Now look at the cache warmer, never touch prod while you do."]
    # the failure at #3 is covered by the cue; the ones after it are not
    assert {(i.kind, i.address) for i in marker.items} == {("failure", f"s{number}#6"),
                                                           ("decision", f"s{number}#7")}


def test_the_newest_cue_is_the_one_kept(demo: Record) -> None:
    leave_cue(demo, 1, "first note")
    newest = leave_cue(demo, 1, "second note, newer")
    marker = build_marker(demo, Address.parse("s1#1-50"), budget=1000)
    assert marker.cue is not None and marker.cue.text == newest.text


def test_a_cue_must_be_one_line_with_text(demo: Record) -> None:
    for text, why in (("", "needs text"), ("   ", "needs text"), ("one\ntwo", "one line"),
                      ("x" * 301, "at most 300")):
        with pytest.raises(CueError, match=why):
            leave_cue(demo, 1, text)
    with pytest.raises(AddressError):
        leave_cue(demo, 42, "no such session")
    assert cues_for(demo, 1) == []


def test_cues_are_append_only(demo: Record) -> None:
    cue = leave_cue(demo, 1, "a note")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        demo.execute("UPDATE cues SET text = 'rewritten' WHERE id = ?", (cue.id,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        demo.execute("DELETE FROM cues WHERE id = ?", (cue.id,))


# -- the verbatim tail --


def test_the_tail_is_whole_exchanges_with_both_sides(demo: Record) -> None:
    entries = read(demo, Address(1))
    owners = [e.seq for e in entries if e.author == "owner"]
    span = evictable_range(demo, 1)  # two exchanges kept: from the second-to-last owner message on
    assert span == Address(1, 1, owners[-2] - 1)
    tail = [e for e in entries if e.seq > (span.last or 0)]
    assert tail[0].author == "owner"
    assert {"owner", "agent"} <= {e.author for e in tail}  # the question and the answers to it
    assert evictable_range(demo, 1, keep_exchanges=1) == Address(1, 1, owners[-1] - 1)


def test_the_tail_can_be_empty_or_the_whole_session(demo: Record) -> None:
    assert evictable_range(demo, 1, keep_exchanges=0) == Address(1, 1, 90)
    assert evictable_range(demo, 1, keep_exchanges=50) is None
    assert tail_start(demo, 2, 1) is None  # a subagent session has no owner message: one exchange
    with pytest.raises(MarkerError, match="0 or more"):
        evictable_range(demo, 1, keep_exchanges=-1)
    with pytest.raises(AddressError):
        evictable_range(demo, 42)


def test_the_codex_tail_starts_at_an_owner_message(demo: Record) -> None:
    assert evictable_range(demo, 3, keep_exchanges=1) == Address(3, 1, 40)
    assert read(demo, "s3#41")[0].author == "owner"


# -- receipts --


def receipt(**fields: object) -> Receipt:
    base: dict[str, object] = dict(controller="cli", trigger="manual", decision="compacted",
                                   knowledge="known input", session=1, range="s1#1-76", tokens_before=9000,
                                   tokens_after=600, marker_id=None, source=None, note=None)
    base.update(fields)
    return Receipt(**base)  # type: ignore[arg-type]


def test_receipts_are_listed_newest_last_with_what_they_say(demo: Record) -> None:
    first = write_receipt(demo, receipt())
    second = write_receipt(demo, receipt(controller="claude-code", trigger="auto", decision="kept",
                                         knowledge="sent, unconfirmed", source="s1#67", note="harness"))
    write_receipt(demo, receipt(session=None, range=None, controller="provider-api", trigger="harness"))
    got = list_receipts(demo, 1)
    assert [r.id for r in got] == [first, second]
    assert got[1].source == "s1#67" and got[1].knowledge == "sent, unconfirmed" and got[1].created
    assert len(list_receipts(demo)) == 3


def test_a_receipt_with_a_value_outside_its_set_is_refused(demo: Record) -> None:
    for fields, why in (({"controller": "vim"}, "controller"), ({"trigger": "whim"}, "trigger"),
                        ({"decision": "maybe"}, "decision"), ({"knowledge": "guess"}, "knowledge"),
                        ({"tokens_before": -1}, "negative"), ({"session": 42}, "session")):
        with pytest.raises(ReceiptError, match=why):
            write_receipt(demo, receipt(**fields))
    assert list_receipts(demo) == []


def test_receipts_are_append_only(demo: Record) -> None:
    rid = write_receipt(demo, receipt())
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        demo.execute("UPDATE receipts SET decision = 'kept' WHERE id = ?", (rid,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        demo.execute("DELETE FROM receipts WHERE id = ?", (rid,))


def test_markers_are_kept_as_shown(demo: Record) -> None:
    mid = save_marker(demo, build_marker(demo, Address(1), budget=800))
    with pytest.raises(sqlite3.DatabaseError, match="kept as shown"):
        demo.execute("UPDATE markers SET body = '{}' WHERE id = ?", (mid,))
    with pytest.raises(sqlite3.DatabaseError, match="kept as shown"):
        demo.execute("DELETE FROM markers WHERE id = ?", (mid,))
