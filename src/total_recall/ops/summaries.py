"""The summary operations: summary_cache, summarise_from, cache_delete_latest, prior_period_summary, and
llm_status.

`summary_cache` and `llm_status` only read; `summarise_from` and `prior_period_summary` call the configured
LLM endpoint (the provider is built per call from the environment and the record home's `llm.toml`, so
without a key every other operation works and these name what to set); `cache_delete_latest` drops the
newest cached block (logged), never an entry. A session is named as everywhere (`Call.session`), within the
binding; summarise_from's `target` may also name its entries (s7#41, s7#41-80), starting where the
session's cache ends (the blocks are a chain). On the demo's record the prior period ends at the demo's
newest entry, not now.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from total_recall.errors import AddressError, ScopeError
from total_recall.mining import summaries
from total_recall.mining.scope import check_period, demo_until, iso
from total_recall.model import NUMBER_MAX, Address
from total_recall.ops.mining import spelling
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import PERIOD_HOURS, Directory, Everything, HoursBack, SessionName
from total_recall.record.database import Record

# The entries part of a target: `#41` or `#41-80` after the session's name (s7, or its own id).
_ENTRIES = re.compile(r"#\d+(?:-\d+)?\s*$")


# -- summary_cache --


class SummaryCacheParams(Params):
    session_id: SessionName = ""
    with_text: Annotated[bool, Field(description="Include each block's summary text.")] = False


def summary_cache(call: Call, p: SummaryCacheParams) -> Reply:
    with call.record() as record:
        number = call.session(record, "summary_cache", p.session_id).number
        return summaries.summary_cache(record, session=number, with_text=p.with_text)


# -- summarise_from --


class SummariseFromParams(Params):
    target: Annotated[str, Field(max_length=500, description=(
        "A session (s7, its own id or a piece of it; empty: the most recently active) to continue where its "
        "cache ends, the entry s7#41 to start at, or a range s7#41-80 to end the block at 80; an entry or a "
        "range starts where the cache ends (s7#1 when it holds no block)."
    ))] = ""
    through: Annotated[int | None, Field(ge=1, le=NUMBER_MAX, description=(
        "Stop at this entry number (a smaller block); omitted: the session's end."))] = None


def summarise_from(call: Call, p: SummariseFromParams) -> Reply:
    with call.record() as record:
        number, first, last = _target(call, record, p.target)
        if last is not None and p.through is not None:
            raise ScopeError("summarise_from: `target` names a range and `through` its end — pass one, not "
                             "both")
        return summaries.summarise_from(record, session=number, from_seq=first,
                                        through=p.through if last is None else last, ranged=last is not None)


def _target(call: Call, record: Record, target: str) -> tuple[int, int | None, int | None]:
    """The session `target` names (through the one resolver, within the binding), the entry an address in
    it starts at (None for a session alone) and the entry a range ends at (None unless it is a range).

    Raises:
        ScopeError: no session or several match, or a malformed entry part.
        OutsideBinding: another harness's session.
    """
    text = target.strip()
    entries = _ENTRIES.search(text)
    if entries is None or not text[:entries.start()]:
        return call.session(record, "summarise_from", text, "target").number, None, None
    session = call.session(record, "summarise_from", text[:entries.start()], "target")
    part = entries.group().strip()
    try:
        address = Address.parse(f"s{session.number}{part}")
    except AddressError as exc:
        raise ScopeError(f"summarise_from: `target` {exc}") from exc
    return session.number, address.first, address.last if "-" in part else None


# -- cache_delete_latest --


class CacheDeleteLatestParams(Params):
    session_id: SessionName = ""
    reason: Annotated[str, Field(max_length=500, description="Why (kept in the deletion log).")] = (
        "deleted on request")


def cache_delete_latest(call: Call, p: CacheDeleteLatestParams) -> Reply:
    with call.record() as record:
        number = call.session(record, "cache_delete_latest", p.session_id).number
        status = summaries.cache_delete_latest(record, session=number, reason=p.reason)
    return {**status, "reason": p.reason.strip()}


# -- prior_period_summary --


class PriorPeriodParams(Params):
    hours_back: HoursBack = 0
    all: Everything = False
    directory: Directory = ""


def prior_period_summary(call: Call, p: PriorPeriodParams) -> Reply:
    window = check_period("prior_period_summary", hours_back=p.hours_back or None, all=p.all or None,
                          directory=p.directory or None, default_hours=PERIOD_HOURS)
    assert window is not None  # it takes no session_id, so there is always a window
    with call.record() as record:
        # The demo's sessions are fixed in time: its period ends at its newest entry, not now.
        newest = demo_until(record) if call.demo else None
        until = newest or datetime.now(UTC)
        if newest is not None and not window.everything:
            call.notes.append(f"the demo's sessions are fixed in time: the period counts back from its "
                              f"newest entry, {iso(newest)}, not from now")
        return summaries.prior_period_summary(record, since=window.cutoff(until), until=until,
                                              directory=window.directory, harness=call.harness,
                                              spelling=spelling(call, _op("prior_period_summary")))


def _op(name: str) -> Operation[Any]:
    return next(op for op in OPERATIONS if op.name == name)


# -- llm_status --


class LLMStatusParams(Params):
    pass


def llm_status(call: Call, p: LLMStatusParams) -> Reply:
    """The LLM settings in effect for the record's home and today's usage; never the key itself."""
    from total_recall.llm.settings import load_settings
    from total_recall.llm.usage import DailyUsage

    llm = load_settings(home=call.record_path.parent)
    today = DailyUsage(llm.home, llm.max_day_tokens, time.time).today()
    return {**llm.describe(), "today": {"day": today.day, "tokens": today.tokens, "calls": today.calls,
                                        "estimated_calls": today.estimated_calls}}


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "summary_cache", "mining", Effect.READS, SummaryCacheParams, summary_cache, argument=("session_id",),
        flags={"with_text": "text"}, example="total-recall summary-cache s3 --text",
        doc="The summary blocks cached for a session, each naming the exact entry range it summarises, and "
            "the tail no block covers yet (what the next summarise_from would cost). Calls no LLM and writes "
            "nothing."),
    Operation(
        "summarise_from", "mining", Effect.CALLS_OUT, SummariseFromParams, summarise_from,
        argument=("target",), example="total-recall summarise-from s3#1-40",
        doc="Summarise a session from the first entry no cached block covers, with the configured LLM, and "
            "cache the result as the next block (every statement cites its entries; citations are checked "
            "against the record). The cache is a chain: each block continues the one before and carries it "
            "in its prompt, so a block starts where the cache ends — a session alone starts there and runs "
            "to its end, an entry (s3#41) or a range (s3#41-80) must start there too, and a range ends the "
            "block at its last entry (s3#1-40 on a session with no block yet). Needs an LLM endpoint: the "
            "error names what to set when none is."),
    Operation(
        "cache_delete_latest", "mining", Effect.DROPS, CacheDeleteLatestParams, cache_delete_latest,
        argument=("session_id",), example="total-recall cache-delete-latest s3 --reason 'missed a step'",
        doc="Delete the newest cached summary block of a session (the deletion is logged), so summarise_from "
            "can redo that period. The record itself is never touched."),
    Operation(
        "prior_period_summary", "mining", Effect.CALLS_OUT, PriorPeriodParams, prior_period_summary,
        flags={"hours_back": "hours"},
        example="total-recall prior-period-summary --hours 72 --directory webshop",
        doc="Orient yourself in a past period across sessions: the sessions, the owner's instructions word "
            "for word and the commits straight from the record, then an LLM summary of the state and the "
            f"goals, each statement cited. The period is the last {PERIOD_HOURS} hours unless a window or "
            "the whole record is asked for. Needs an LLM endpoint: the error names what to set when none "
            "is."),
    Operation(
        "llm_status", "setup", Effect.READS, LLMStatusParams, llm_status, binds=False,
        example="total-recall llm-status",
        doc="Which LLM endpoint, model and key variable the LLM-backed operations use, their limits, and "
            "today's token usage. Never shows the key."),
)
