"""The keeping operations: compact, markers, cue, receipts.

`compact` and `cue` add to the record's derived tables (a marker with its receipt, a cue) and never change
an entry; `markers` and `receipts` only read (the receipts of Codex compactions are written at sync). A
session is named as everywhere (`Call.session`: s7, its own id or a piece of it; empty: the most recently
active session), within the binding.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from total_recall.errors import MarkerError
from total_recall.keeping.compaction import account
from total_recall.keeping.compaction import compact as compact_range
from total_recall.keeping.cues import MAX_CUE_CHARS, leave_cue
from total_recall.keeping.marker import markers_for
from total_recall.keeping.tail import DEFAULT_KEEP_EXCHANGES
from total_recall.mining.flood import fit_json
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import BLANK_AS_SPACE, REPORT_MAX_BYTES, ReplyBytes, SessionName
from total_recall.ops.replies import account_json, compaction_json, cue_json, stored_marker_json
from total_recall.record.sessions import resolve_address

MARKER_BUDGET_MAX = 100_000
KEEP_EXCHANGES_MAX = 1000


# -- compact --


class CompactParams(Params):
    budget: Annotated[int, Field(ge=1, le=MARKER_BUDGET_MAX, description=(
        "Required: tokens for the whole marker (an estimate calibrated on cl100k; treat it as ±20%)."))]
    session_id: SessionName = ""
    range: Annotated[str, Field(max_length=500, description=(
        "The range to compact (s7#10-200, or with the session's own id for s7), inside the session; empty: "
        "everything before the verbatim tail of the last keep_exchanges whole exchanges."))] = ""
    bo: Annotated[int | None, Field(ge=0, le=MARKER_BUDGET_MAX, description=(
        "Tokens for the owner's instructions (default: half the budget); when they overflow, the oldest "
        "become pointers, then one directory line, and a notice says so."))] = None
    keep_exchanges: Annotated[int, Field(ge=0, le=KEEP_EXCHANGES_MAX, description=(
        "Whole exchanges (an owner message and all that follows it) kept verbatim after the range."))] = (
        DEFAULT_KEEP_EXCHANGES)


def compact(call: Call, p: CompactParams) -> Reply:
    if p.bo is not None and p.bo > p.budget:  # checked before the record is touched
        raise MarkerError(f"compact: `bo` must be between 0 and the budget ({p.budget} tokens); got {p.bo}")
    with call.record() as record:
        span = resolve_address(record, p.range) if p.range.strip() else None
        if span is not None and not p.session_id:
            # The range names its session: the most recently active one is no default for it.
            number = call.check(record, span).session
        else:
            number = call.session(record, "compact", p.session_id).number
        done = compact_range(record, number, budget=p.budget, span=span, bo=p.bo,
                             keep_exchanges=p.keep_exchanges, controller=call.surface)
    return compaction_json(done)


# -- markers --


class MarkersParams(Params):
    session_id: SessionName = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def markers(call: Call, p: MarkersParams) -> Reply:
    with call.record() as record:
        session = call.session(record, "markers", p.session_id)
        stored = markers_for(record, session.number, include_withdrawn=True)
    whole = {"session": session.address, "markers": [stored_marker_json(m) for m in stored]}
    return fit_json("markers", session.address, whole, "markers", p.max_bytes, keep="tail")  # the newest


# -- cue --


class CueParams(Params):
    session_id: SessionName = ""
    text: Annotated[str, Field(min_length=1, max_length=MAX_CUE_CHARS, description=(
        "One present-tense line for your future self: what this thread is and when to come back to it "
        "(not a summary: the record holds the content).")), BLANK_AS_SPACE]


def cue(call: Call, p: CueParams) -> Reply:
    with call.record() as record:
        number = call.session(record, "cue", p.session_id).number
        return cue_json(leave_cue(record, number, p.text))


# -- receipts --


class ReceiptsParams(Params):
    session_id: Annotated[str, Field(max_length=500, description=(
        "One session (s7, its own id, or a unique prefix or piece of it); empty: every session."))] = ""
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def receipts(call: Call, p: ReceiptsParams) -> Reply:
    with call.record() as record:
        number = call.session(record, "receipts", p.session_id).number if p.session_id.strip() else None
        whole = account_json(account(record, number, call.harness))
    return fit_json("receipts", p.session_id.strip() or "all", whole, "receipts", p.max_bytes)


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "compact", "keeping", Effect.ADDS, CompactParams, compact, argument=("session_id",),
        example="total-recall compact s3 --budget 2000",
        doc="Compact a range of a session into a verified marker built from the record, store it and write "
            "its receipt; never changes an entry. The marker quotes the owner's instructions word for word, "
            "the exact strings (paths, hashes, error lines, commands, URLs) and one line per decision, "
            "failure or open item, each with the address `read` opens."),
    Operation(
        "markers", "keeping", Effect.READS, MarkersParams, markers, argument=("session_id",),
        example="total-recall markers s3",
        doc="The markers stored for a session, newest last, each with its range, quotes and addresses (a "
            "withdrawn one says why, never its words)."),
    Operation(
        "cue", "keeping", Effect.ADDS, CueParams, cue, argument=("session_id", "text"),
        example="total-recall cue s3 'TLS renewal: fixed; come back if the deploy hook fails again'",
        doc="Leave a recall cue for a session: one present-tense line saying what this thread is and when "
            "to come back to it, covering the session up to its newest entry. Compaction keeps the newest "
            "cue in place of the mechanical decision/failure/open lines it covers; the owner's instructions "
            "and the exact strings are kept regardless."),
    Operation(
        "receipts", "keeping", Effect.READS, ReceiptsParams, receipts, flags={"session_id": "session"},
        example="total-recall receipts --session s3",
        doc="The receipts of every compaction and every decision not to compact (controller, trigger, range, "
            "tokens before/after, marker, and whether its input is known or only sent); `unreceipted` lists "
            "the compactions seen in harness stores that no receipt accounts for: the alarm. Reads only "
            "(the receipts of Codex compactions are written when a sync brings them in)."),
)
