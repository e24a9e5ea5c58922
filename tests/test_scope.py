"""The scope contract: every rejection path by name, and the scopes a natural call gets."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.mining_stores import RECENT, Mined, mine, mined_record
from total_recall.errors import ScopeError
from total_recall.mining import scope
from total_recall.mining.scope import (
    LIMIT_MAX,
    LIMIT_MIN,
    LISTING_ROW_CAP,
    MAX_BYTES_CEILING,
    MAX_BYTES_MIN,
    PERIOD_HOURS,
    check_limit,
    check_max_bytes,
    check_max_record_bytes,
    check_offset,
    check_period,
    reject_unknown,
    resolve_session,
    sessions_by_activity,
)
from total_recall.ops import OPERATIONS, Call, by_name, params

CHEAP = ("hours_back=24", "directory=", "all=true")


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mined]:
    with mined_record(tmp_path_factory.mktemp("scope")) as m:
        yield m


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def rejected(call: Any, *needles: str) -> str:
    with pytest.raises(ScopeError) as info:
        call()
    message = str(info.value)
    for needle in needles:
        assert needle in message, (needle, message)
    return message


def test_the_bounds_are_exported_with_the_values_the_schemas_state() -> None:
    assert (LIMIT_MIN, LIMIT_MAX, MAX_BYTES_CEILING, LISTING_ROW_CAP) == (1, 1000, 8388608, 200)
    assert MAX_BYTES_MIN <= scope.REPORT_MAX_BYTES <= scope.EXTRACT_MAX_BYTES <= MAX_BYTES_CEILING


def test_an_unknown_parameter_is_rejected_by_name_with_the_accepted_list_and_a_close_match() -> None:
    message = rejected(
        lambda: reject_unknown(
            "list_sessions",
            {"hour_back": 5, "all": True, "directorys": "x"},
            ["hours_back", "all", "directory", "max_bytes"],
        ),
        "`hour_back`",
        "`directorys`",
        "did you mean `hours_back`",
        "list_sessions accepts: hours_back, all, directory, max_bytes",
    )
    assert "`all`" not in message
    reject_unknown("list_sessions", {"hours_back": 5}, ["hours_back"])  # known names pass


@pytest.mark.parametrize("hours", [-1, -0.5, math.nan, math.inf, -math.inf])
def test_a_negative_nan_or_infinite_hours_back_is_rejected_naming_the_cheap_forms(hours: float) -> None:
    rejected(
        lambda: check_period("list_sessions", hours_back=hours, all=None, directory=None, default_hours=240),
        "`hours_back` is out of range",
        *CHEAP,
    )


@pytest.mark.parametrize("hours", [True, "24", [24]])
def test_an_hours_back_that_is_not_a_number_is_rejected(hours: Any) -> None:
    rejected(
        lambda: check_period("t", hours_back=hours, all=None, directory=None, default_hours=24),
        "`hours_back` must be a number",
        *CHEAP,
    )


def test_all_with_a_real_hours_back_is_rejected_as_a_contradiction() -> None:
    rejected(
        lambda: check_period("t", hours_back=5, all=True, directory=None, default_hours=24),
        "all=true is the whole record",
        "hours_back=5 is a window",
        "pass one, not both",
        *CHEAP,
    )


def test_all_with_hours_back_zero_is_the_whole_record_because_zero_means_omitted() -> None:
    window = check_period("t", hours_back=0, all=True, directory=None, default_hours=24)
    assert window is not None and window.everything and window.hours is None


@pytest.mark.parametrize("hours", [None, 0, 0.0])
def test_zero_or_omitted_hours_back_is_the_tools_default_window_never_unbounded(hours: float | None) -> None:
    window = check_period("t", hours_back=hours, all=None, directory=None, default_hours=240)
    assert window is not None and window.hours == 240 and not window.everything and window.defaulted
    assert window.describe() == "the last 240 h (the default window)"


def test_a_directory_narrows_the_default_window_and_does_not_widen_it() -> None:
    window = check_period("t", hours_back=None, all=None, directory=" /work/tr ", default_hours=48)
    assert window is not None and window.hours == 48 and window.directory == "/work/tr"


def test_a_session_id_together_with_a_window_is_rejected() -> None:
    for extra in ({"hours_back": 3}, {"all": True}, {"directory": "proj"}):
        kwargs: dict[str, Any] = {"hours_back": None, "all": None, "directory": None, **extra}
        rejected(
            lambda kw=kwargs: check_period("t", default_hours=48, session_id="s3", takes_session=True, **kw),
            "`session_id` picks one session",
            "pass one, not both",
        )


def test_a_non_boolean_all_is_rejected() -> None:
    rejected(
        lambda: check_period("t", hours_back=None, all="yes", directory=None, default_hours=1),  # type: ignore[arg-type]
        "`all` must be true or false",
    )


@pytest.mark.parametrize("limit", [0, -1, 1001, 10**9])
def test_a_limit_outside_1_to_1000_is_rejected_and_says_how_to_page(limit: int) -> None:
    rejected(lambda: check_limit("extract_messages", limit), "`limit` is out of range", "1–1000", "offset")


@pytest.mark.parametrize("limit", [True, 5.0, "5"])
def test_a_limit_that_is_not_a_whole_number_is_rejected(limit: Any) -> None:
    rejected(lambda: check_limit("t", limit), "`limit` must be a whole number")


def test_limit_bounds_are_inclusive_and_omitted_is_100() -> None:
    assert (check_limit("t", None), check_limit("t", 1), check_limit("t", 1000)) == (100, 1, 1000)


@pytest.mark.parametrize("max_bytes", [MAX_BYTES_CEILING + 1, 0, MAX_BYTES_MIN - 1, -5])
def test_a_max_bytes_outside_its_range_is_rejected_naming_the_ceiling(max_bytes: int) -> None:
    rejected(
        lambda: check_max_bytes("t", max_bytes, 16384),
        "`max_bytes` is out of range",
        str(MAX_BYTES_CEILING),
        "omit it for the default 16384",
    )


def test_max_bytes_at_the_ceiling_is_accepted_and_omitted_is_the_tools_default() -> None:
    assert check_max_bytes("t", MAX_BYTES_CEILING, 1) == MAX_BYTES_CEILING
    assert check_max_bytes("t", None, 16384) == 16384


def test_a_negative_offset_is_rejected_and_omitted_means_the_most_recent() -> None:
    rejected(lambda: check_offset("t", -1), "`offset` is out of range", "count from 0")
    assert check_offset("t", None) is None and check_offset("t", 0) == 0


def test_a_max_record_bytes_out_of_range_is_rejected_and_omitted_means_no_clamp() -> None:
    rejected(lambda: check_max_record_bytes("t", 10), "`max_record_bytes` is out of range")
    rejected(lambda: check_max_record_bytes("t", MAX_BYTES_CEILING + 1), "`max_record_bytes` is out of range")
    assert check_max_record_bytes("t", None) is None


def test_every_numeric_is_checked_before_the_session_is_resolved(mined: Mined) -> None:
    # The session does not exist, but the bound is what the caller hears about first.
    with pytest.raises(ValidationError, match="limit"):
        mine(mined.record, "extract_messages", session_id="no-such-session", limit=0)


def test_an_omitted_session_id_is_the_most_recently_active_session(mined: Mined) -> None:
    newest = sessions_by_activity(mined.record)[0]
    assert resolve_session(mined.record, "t", None).address == newest.address
    assert resolve_session(mined.record, "t", "  ").address == newest.address
    assert newest.last_active is not None
    assert all(
        newest.last_active >= (c.last_active or newest.last_active)
        for c in sessions_by_activity(mined.record)
    )


def test_a_session_id_matches_the_address_the_native_id_a_prefix_or_a_piece(mined: Mined) -> None:
    address = mined.session("opencode", "ses_question0001")
    for query in (address, f"{address}#1", "ses_question0001", "ses_question", "SES_QUESTION", "question0"):
        assert resolve_session(mined.record, "t", query).address == address, query


def test_an_ambiguous_session_id_is_rejected_listing_the_candidates(mined: Mined) -> None:
    message = rejected(
        lambda: resolve_session(mined.record, "profile_session", "ses_todo"),
        "profile_session: session_id 'ses_todo' is ambiguous",
        "matches 2 sessions",
        "Pass more of the id",
    )
    assert "ses_todo0000000000000000000001aa" in message and "ses_todo0000000000000000000000bb" in message


def test_a_session_id_matching_nothing_names_what_was_tried(mined: Mined) -> None:
    rejected(
        lambda: resolve_session(mined.record, "t", "zzz-nothing"),
        "matches no session",
        "as an address (s7)",
        "the native id exactly",
        "a prefix",
        "a piece",
        "The most recent:",
    )


def test_an_address_past_the_last_session_names_the_range(mined: Mined) -> None:
    total = mined.record.counts()["sessions"]
    rejected(lambda: resolve_session(mined.record, "t", "s9999"), "no session s9999", f"s1–s{total}")


def test_a_harness_restriction_keeps_resolution_inside_that_harness(mined: Mined) -> None:
    vibe = resolve_session(mined.record, "t", None, "vibe")
    assert vibe.session.harness == "vibe" and vibe.session.native_id == RECENT["vibe"]
    codex_address = mined.session("codex", RECENT["codex"])
    rejected(lambda: resolve_session(mined.record, "t", codex_address, "vibe"), "is a codex session")
    rejected(lambda: resolve_session(mined.record, "t", RECENT["codex"], "vibe"), "among the vibe sessions")
    rejected(lambda: resolve_session(mined.record, "t", None, "cursor"), "unknown harness 'cursor'")


def test_an_empty_record_says_to_sync_first(tmp_path: Path) -> None:
    from total_recall.record.database import Record

    with Record(tmp_path / "empty.sqlite3") as empty:
        rejected(lambda: resolve_session(empty, "profile_session", None), "no sessions", "the `sync` tool")


def test_the_default_window_holds_the_recent_sessions_and_not_the_months_old_fixtures(mined: Mined) -> None:
    listed = mine(mined.record, "list_sessions")
    assert listed["window"] == "the last 240 h (the default window)"
    assert {r["native_id"] for r in listed["sessions"]} == set(RECENT.values())
    assert listed["window_count"] == len(RECENT)


def test_hours_back_counts_back_from_now(mined: Mined) -> None:
    # The recent sessions are 2 h old.
    assert mine(mined.record, "list_sessions", hours_back=1)["window_count"] == 0
    hours = (datetime.now(UTC) - datetime(2026, 9, 30, tzinfo=UTC)).total_seconds() / 3600
    wider = mine(mined.record, "list_sessions", hours_back=hours, max_bytes=MAX_BYTES_CEILING)
    assert {r["cwd"] for r in wider["sessions"]} >= {"/work/proj", "/work/tr-mining"}
    assert wider["window_count"] < mine(mined.record, "list_sessions", all=True)["window_count"]


def test_directory_is_a_case_insensitive_piece_of_the_sessions_folder(mined: Mined) -> None:
    listed = mine(mined.record, "list_sessions", all=True, directory="WORK/PROJ")
    assert listed["sessions"] and all("/work/proj" in r["cwd"] for r in listed["sessions"])


WINDOW_TOOLS = {"list_sessions": {}, "extract_qa_pairs": {}, "she_said_he_said_action": {"words": ["git"]},
                "index_sessions": {"budget_seconds": 0},
                "do_android_dream_of_electric_sheep": {"query": "git"}}


def test_every_window_tool_rejects_an_unscoped_contradiction_naming_the_cheap_forms(mined: Mined) -> None:
    for tool, extra in WINDOW_TOOLS.items():
        forms = ("session_id=",) if tool != "list_sessions" else ()
        rejected(lambda t=tool, e=extra: mine(mined.record, t, all=True, hours_back=2, **e), tool, *forms,
                 *CHEAP)
    with pytest.raises(ValidationError, match="hours_back"):
        mine(mined.record, "extract_qa_pairs", hours_back=math.nan)
    with pytest.raises(ValidationError, match="max_bytes"):
        mine(mined.record, "profile_session", max_bytes=MAX_BYTES_CEILING * 2)


def test_every_window_tool_has_the_same_default_window_and_says_so(mined: Mined) -> None:
    assert params.PERIOD_HOURS == PERIOD_HOURS == 240
    default = f"the last {PERIOD_HOURS} h (the default window)"
    assert mine(mined.record, "list_sessions")["window"] == default
    assert mine(mined.record, "index_sessions", budget_seconds=0)["scope"] == default
    counts = {"extract_qa_pairs": "sessions_scanned", "she_said_he_said_action": "sessions_scanned",
              "do_android_dream_of_electric_sheep": "sessions_searched"}
    for tool, counted in counts.items():
        reply = by_name(tool)(Call(mined.record.path, "mcp"), **WINDOW_TOOLS[tool])
        assert (reply["scope"], reply[counted]) == (default, len(RECENT)), tool
    windowed = [op for op in OPERATIONS if "hours_back" in op.params.model_fields]
    assert {op.name for op in windowed} >= set(WINDOW_TOOLS)
    assert all(f"the last {PERIOD_HOURS} hours" in op.doc for op in windowed)
