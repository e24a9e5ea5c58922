"""Parameter types several operations share, each holding its bounds and description once.

The bounds are the scope contract's (`mining/scope.py`): stated as minimum/maximum in every MCP schema
and checked by the parameter model on both surfaces, so a schema-honouring client never sends a value the
operation refuses, and the CLI refuses what MCP refuses, in the same words.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints
from pydantic_core import PydanticCustomError

from total_recall.mining.scope import (
    EXTRACT_MAX_BYTES,
    HOURS_MAX,
    LIMIT_MAX,
    MAX_BYTES_CEILING,
    MAX_BYTES_MIN,
    MAX_RECORD_BYTES_MIN,
    OFFSET_MIN,
    PERIOD_HOURS,
    REPORT_MAX_BYTES,
)
from total_recall.model import NUMBER_MAX

PATH_MAX = 4096  # Linux's PATH_MAX: no folder or file is named by more


def _control(char: str) -> bool:
    return unicodedata.category(char) == "Cc"


def _printable(text: str) -> str:
    """`text` when it holds no control character: SQLite's LIKE stops reading a pattern at a NUL (a
    `directory` of "\\x00zz" would filter nothing) and no path can hold one."""
    if any(_control(c) for c in text):
        raise PydanticCustomError("control_character",
                                  "must be text without control characters (a NUL, a tab, a line break)")
    return text


def _invisible(char: str) -> bool:
    """White space, a control character, or one that shows nothing (a zero-width space or joiner, a BOM,
    a direction mark: Unicode's format characters)."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf")


def _blank_as_space(text: str) -> str:
    """`text`, or a space when nothing of it shows (white space, control and zero-width characters): a NUL
    or a zero-width space is no more a reason (or a cue) than a space is, and the core's own "needs a
    reason" refuses all alike. A space, not "": over MCP the model runs twice (the SDK's, then ours), and
    "" would fail `min_length` there. Text that shows is refused when it holds a control character other
    than white space (a NUL, an escape): stored, it would cut or garble every line that shows it."""
    if text and all(_invisible(c) for c in text):
        return " "
    if any(_control(c) and not c.isspace() for c in text):
        raise PydanticCustomError("control_character",
                                  "must be text without control characters (a NUL, an escape)")
    return text


# A path or a filter matched against paths: bounded, and refused when it holds a control character.
PRINTABLE = AfterValidator(_printable)
# What a person writes (a reason, a cue): blank when nothing of it shows; no control character but white
# space in it otherwise.
BLANK_AS_SPACE = AfterValidator(_blank_as_space)

# Blank is empty (one meaning for "" and "  " in every operation), and no name is longer than the longest
# session id by far: a longer one is refused before it is echoed back in a "matches no session".
SessionName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500), Field(description=(
    "s7, the session's own id, or a unique prefix or piece of it; empty: the most recently active "
    "session."))]
WindowSession = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500), Field(description=(
    "One session (s7, its own id or a piece of it) instead of a window; not with `hours_back` or `all`."))]
# The core refuses a window out of range itself, naming the cheap forms; the schema states the bounds.
# NaN is no number of hours: refused as such (it would fail `le` and read "out of range: nan").
HoursBack = Annotated[float, Field(ge=0, le=HOURS_MAX, allow_inf_nan=False, description=(
    f"Sessions active in the last N hours (at most {HOURS_MAX}, 100 years); 0 or omitted: the default "
    "window (the last 240 hours), never unbounded."))]
Everything = Annotated[bool, Field(description="The whole record, on purpose; not with `hours_back`.")]
Directory = Annotated[str, Field(max_length=PATH_MAX, description=(
    "Only sessions whose working directory contains this (case-blind).")), PRINTABLE]
Limit = Annotated[int, Field(ge=1, le=LIMIT_MAX, description=f"How many at most (1-{LIMIT_MAX}).")]
ReplyBytes = Annotated[int, Field(ge=MAX_BYTES_MIN, le=MAX_BYTES_CEILING, description=(
    f"Reply budget in bytes ({MAX_BYTES_MIN}-{MAX_BYTES_CEILING}); what does not fit goes whole to a private "
    "overflow file the reply names."))]
PageOffset = Annotated[int | None, Field(ge=OFFSET_MIN, le=NUMBER_MAX, description=(
    "First record, from 0; omitted: the most recent `limit` records. Page with bounds.next_offset."))]
RecordBytes = Annotated[int | None, Field(ge=MAX_RECORD_BYTES_MIN, le=MAX_BYTES_CEILING, description=(
    f"Clamp each record to this many bytes ({MAX_RECORD_BYTES_MIN}-{MAX_BYTES_CEILING}); omitted: no "
    "clamp."))]
Since = Annotated[str, Field(max_length=200, description=(
    "Only from this time on: an ISO date or time (2026-11-01, 2026-11-01T09:00), a month or a year (May "
    "2026), N hours/days/weeks ago, yesterday, last week."))]


__all__ = [
    "BLANK_AS_SPACE",
    "EXTRACT_MAX_BYTES",
    "PATH_MAX",
    "PERIOD_HOURS",
    "PRINTABLE",
    "REPORT_MAX_BYTES",
    "Directory",
    "Everything",
    "HoursBack",
    "Limit",
    "PageOffset",
    "RecordBytes",
    "ReplyBytes",
    "SessionName",
    "Since",
    "WindowSession",
]
