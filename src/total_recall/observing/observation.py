"""What an observation is before it is stored (`Draft`), its vocabulary, and what a run reports.

An observation is a derived note over the record: text, a priority, a type, a confidence with the kind of
evidence behind it, an importance (0–10) and the entries it came from with the words of each it rests on.
The stored form is `record.observations.Observation`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from total_recall.errors import TotalRecallError
from total_recall.record.database import Record

Priority = Literal["high", "medium", "low"]
ObservationType = Literal["event", "fact", "preference", "goal", "habit", "rule", "context"]
SourceType = Literal["explicit", "implicit", "inference", "weak", "uncertain"]
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")
TYPES: tuple[ObservationType, ...] = ("event", "fact", "preference", "goal", "habit", "rule", "context")
SOURCE_TYPES: tuple[SourceType, ...] = ("explicit", "implicit", "inference", "weak", "uncertain")

# Seed 002's Dream Cycle: days an observation of each type stays relevant (None: for ever) and the
# importance it loses a day.
TTL_DAYS: dict[str, int | None] = {"event": 14, "fact": 90, "preference": 180, "goal": 365, "habit": 365,
                                   "rule": None, "context": 30}
DECAY_PER_DAY: dict[str, float] = {"event": 0.5, "fact": 0.1, "preference": 0.02, "goal": 0.0,
                                   "habit": 0.0, "rule": 0.0, "context": 0.1}
# Importance runs 0–10; a priority's starting importance.
IMPORTANCE: dict[str, float] = {"high": 8.0, "medium": 5.0, "low": 3.0}
MAX_TEXT = 400  # characters of one observation: a note, not a transcript
MAX_SOURCES = 12

# The block `for_session_start` hands a harness; the observer never reads an entry's words inside one.
BLOCK_OPEN = "[total-recall observations]"
BLOCK_CLOSE = "[end total-recall observations]"
INJECTED = re.compile(re.escape(BLOCK_OPEN) + r".*?(?:" + re.escape(BLOCK_CLOSE) + r"|\Z)", re.S)


class ObservationRejected(TotalRecallError):
    """An observation names an address the record cannot return, or quotes words its entry does not hold."""


class ObservingError(TotalRecallError):
    """An observing request that cannot be done as asked (no such proposal, backup or threshold)."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a draft came from: an entry address (`s3#12`) and the words of it the draft rests on."""

    address: str
    quote: str = ""


@dataclass(frozen=True, slots=True)
class Draft:
    """An observation before the verifier has passed it and the table holds it."""

    text: str
    priority: str
    type: str
    confidence: float
    source_type: str
    sources: tuple[Source, ...]
    importance: float | None = None  # None: the priority's
    origin: str = "mechanical"
    supersedes: tuple[int, ...] = ()  # held notes it replaces (the model observer's, checked)

    def weight(self) -> float:
        return self.importance if self.importance is not None else IMPORTANCE.get(self.priority, 3.0)


@dataclass(slots=True)
class ObserveReport:
    """What one observe run did; `skipped` counts by reason, `refused` names each note the verifier
    refused and why, `cost` the model's spend (zero without a model), `retired` the notes it retired,
    `reflected` what the reflector did when this run took the current notes past its threshold."""

    sessions: int = 0
    entries: int = 0
    added: int = 0
    reinforced: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    calls: int = 0
    cost: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    observer: str = "mechanical"
    seconds: float = 0.0
    retired: int = 0  # notes taken out of the current set: the owner took them back, or rewound past them
    superseded: int = 0  # held notes the model observer's new notes replace
    reflected: dict[str, Any] | None = None  # the reflector's report, when the run passed its size

    def skip(self, why: str, count: int = 1) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + count

    def to_json(self) -> dict[str, Any]:
        return {"observer": self.observer, "observed": {"sessions": self.sessions, "entries": self.entries},
                "added": self.added, "reinforced": self.reinforced, "skipped": dict(self.skipped),
                "tokens": self.tokens, "calls": self.calls, "cost": dict(self.cost),
                "errors": list(self.errors), "refused": list(self.refused), "retired": self.retired,
                "superseded": self.superseded, "reflected": self.reflected, "seconds": round(self.seconds, 3)}


def normalized(text: str) -> str:
    """The text as its content hash sees it: case, accents, white space and end punctuation aside."""
    flat = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(flat.split()).strip(" .!;:,")


def iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def utc_now() -> datetime:
    return datetime.now(UTC)


class Undone(Exception):
    """Raised inside `written` to roll its block back on purpose (a result that failed its checks)."""


@contextmanager
def written(record: Record) -> Iterator[None]:
    """One write transaction over the observation tables, committed at the end of the block or rolled
    back whole. Freed space is zeroed (`secure_delete`): an observation rewritten or dropped leaves no
    stale copy of its words for a later erase to miss."""
    with record.secure_delete():
        record.begin()
        try:
            yield
        except BaseException:
            record.rollback()
            raise
        record.commit()
