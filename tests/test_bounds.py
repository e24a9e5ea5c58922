"""Bounded envelopes: what extraction returns is measured on the exact bytes returned, and never more."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.mining_stores import RECENT, Mined, mine, mined_record
from total_recall.errors import ScopeError
from total_recall.mining.bounds import dump
from total_recall.mining.scope import EXTRACT_MAX_BYTES
from total_recall.record.database import Record
from total_recall.record.sync import sync

BIG = "ef958aa1"  # the real Claude Code session with 180 entries


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mined]:
    with mined_record(tmp_path_factory.mktemp("bounds")) as m:
        yield m


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def by_type_lines(text: str) -> tuple[dict[str, Any], list[str], list[str]]:
    lines = text.splitlines()
    header = orjson.loads(lines[0].removeprefix("# "))
    records = [line for line in lines[1:] if not line.startswith("#")]
    trailers = [line for line in lines[1:] if line.startswith("#")]
    return header, records, trailers


@pytest.mark.parametrize("max_bytes", [1024, 1500, 2048, 3000, 4096, 7777, 16384, EXTRACT_MAX_BYTES])
def test_bounds_bytes_is_the_exact_size_of_the_returned_json_and_never_over_max_bytes(
    mined: Mined, max_bytes: int
) -> None:
    reply = mine(mined.record, "extract_messages", session_id=BIG, full=True, max_bytes=max_bytes,
                 max_record_bytes=900)
    returned = dump(reply)
    assert len(returned) == reply["bounds"]["bytes"] <= max_bytes
    assert reply["bounds"]["returned_records"] == len(reply["messages"]) > 0


@pytest.mark.parametrize("max_bytes", [1024, 2500, 9000, 60000])
def test_a_by_type_reply_states_its_own_byte_size_exactly(mined: Mined, max_bytes: int) -> None:
    text = mine(mined.record, "extract_by_type", session_id=BIG, max_bytes=max_bytes, max_record_bytes=800)
    header, records, _ = by_type_lines(text)
    assert len(text.encode()) == header["bounds"]["bytes"] <= max_bytes
    assert header["bounds"]["returned_records"] == len(records)


def test_omitting_offset_returns_the_most_recent_limit_records_and_says_it_cut_by_limit(mined: Mined) -> None:
    reply = mine(mined.record, "extract_messages", session_id=BIG, full=True, limit=5)
    b = reply["bounds"]
    assert b["returned_records"] == 5 and b["offset"] == b["total_records"] - 5
    assert b["truncated"] and b["truncation_reason"] == "record_limit" and b["next_offset"] is None
    assert f"earlier records: offset={b['total_records'] - 10}" in b["notice"]
    everything = mine(mined.record, "extract_messages", session_id=BIG, full=True, limit=1000,
                      max_bytes=8388608)
    assert [m["address"] for m in reply["messages"]] == [m["address"] for m in everything["messages"][-5:]]


def test_following_next_offset_pages_the_whole_session_exactly_once(mined: Mined) -> None:
    whole = mine(mined.record, "extract_messages", session_id=BIG, full=True, limit=1000, max_bytes=8388608)
    assert not whole["bounds"]["truncated"] and whole["bounds"]["notice"].startswith("complete")
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = mine(
            mined.record,
            "extract_messages",
            session_id=BIG,
            full=True,
            offset=offset,
            limit=40,
            max_bytes=6000,
            max_record_bytes=1000,
        )
        assert page["bounds"]["offset"] == offset
        seen.extend(m["address"] for m in page["messages"])
        offset = page["bounds"]["next_offset"]
        pages += 1
    assert seen == [m["address"] for m in whole["messages"]]
    assert pages > 2


def test_a_page_cut_by_the_byte_budget_says_byte_cap_and_where_to_go_on(mined: Mined) -> None:
    page = mine(mined.record, "extract_messages", session_id=BIG, full=True, offset=0, limit=100,
                max_bytes=3000, max_record_bytes=1000)
    b = page["bounds"]
    assert b["truncated"] and "byte_cap" in b["truncation_reason"].split(",")
    assert b["next_offset"] == b["returned_records"] and "did not fit max_bytes=3000" in b["notice"]


def test_an_offset_past_the_end_returns_nothing_without_claiming_truncation(mined: Mined) -> None:
    reply = mine(mined.record, "extract_messages", session_id=BIG, full=True, offset=5000)
    b = reply["bounds"]
    assert reply["messages"] == [] and not b["truncated"] and b["truncation_reason"] is None
    assert b["next_offset"] is None and "offset 5000 is past the end" in b["notice"]


def test_an_empty_selection_is_not_truncation(mined: Mined) -> None:
    opencode = mined.session("opencode", RECENT["opencode"])
    reply = mine(mined.record, "extract_user_messages", session_id=opencode)
    assert reply["user_messages"] == [] and reply["bounds"]["notice"] == "no records"
    assert not reply["bounds"]["truncated"]


def test_a_record_bigger_than_the_whole_budget_is_an_error_naming_both_ways_out(mined: Mined) -> None:
    with pytest.raises(ScopeError) as info:
        mine(mined.record, "extract_messages", session_id=BIG, full=True, offset=0, limit=1000,
             max_bytes=1024)
    message = str(info.value)
    assert "even one record" in message and "raise max_bytes" in message and "max_record_bytes" in message


def test_max_record_bytes_clamps_each_record_and_names_the_clamped_addresses(mined: Mined) -> None:
    reply = mine(
        mined.record,
        "extract_messages",
        session_id=BIG,
        full=True,
        offset=0,
        limit=1000,
        max_bytes=1024 * 1024,
        max_record_bytes=400,
    )
    b = reply["bounds"]
    clamped = [m for m in reply["messages"] if "clamped" in m]
    assert clamped and b["clamped_records"] == [m["address"] for m in clamped]
    assert "record_clamp" in b["truncation_reason"].split(",")
    for m in reply["messages"]:
        assert len(dump(m)) <= 400
    for m in clamped:
        assert f"read {m['address']} for the whole" in m["text"] and m["clamped"] > 400


def test_a_clamp_too_small_for_a_records_fixed_fields_is_an_error(tmp_path: Path) -> None:
    # An MCP tool's name stands in every record of its calls: a long one leaves no room under 256 bytes.
    tool = "mcp__" + "warehouse_inventory_" * 6 + "__list_every_pallet_position_in_the_north_building"
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "clamped", "cwd": "/w",
         "timestamp": "2026-11-16T10:00:00.000Z",
         "message": {"role": "user", "content": "List the pallets."}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "clamped", "cwd": "/w",
         "timestamp": "2026-11-16T10:00:01.000Z", "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_1", "name": tool, "input": {"building": "north" * 200}}]}},
    ]
    store = tmp_path / "projects" / "-w"
    store.mkdir(parents=True)
    (store / "clamped.jsonl").write_text("".join(orjson.dumps(x).decode() + "\n" for x in lines))
    with Record(tmp_path / "record.sqlite3") as record:
        assert sync(record, ["claude-code"], roots={"claude-code": tmp_path / "projects"}).errors == []
        with pytest.raises(ScopeError, match="cannot be clamped to max_record_bytes=256"):
            mine(record, "extract_by_type", session_id="clamped", types=["tool"], raw=True,
                 max_record_bytes=256, limit=1000, max_bytes=8388608)


def test_extract_by_type_lines_are_type_timestamp_json_with_a_header_and_a_truncation_line(
    mined: Mined,
) -> None:
    text = mine(mined.record, "extract_by_type", session_id=BIG, types=["tool", "thinking"], limit=10)
    header, records, trailers = by_type_lines(text)
    assert header["types"] == ["tool", "thinking"] and header["bounds"]["truncated"]
    b = header["bounds"]
    assert trailers == [
        f"# TRUNCATED (record_limit): records {b['offset']}..{b['offset'] + 10} of {b['total_records']}"
    ]
    for line in records:
        kind, ts, body = line.split(",", 2)
        record = orjson.loads(body)
        assert kind in ("tool", "thinking") and (ts == "0" or ts[:4].isdigit())
        assert record["address"].startswith("s") and record["injected"] is False
        assert (kind == "thinking") == (record["kind"] == "thinking")
