"""The scope contract: the natural call is the cheap call, and breadth is asked for, never a default.

Session tools work on one session: `session_id` matches our address (`s7`), a native id, a prefix of one,
or a piece of one; omitted, the most recently active session. Window tools work on the sessions active in
the last `hours_back` hours (0 or omitted = the tool's own default window, never "no bound"), narrowed by
`directory`, or on the whole record with `all=true` on purpose. Every request outside these forms is
rejected with the cheap forms named — never clamped, never silently run wide — because the error is the
documentation. The same house rule holds for every bound (`limit`, `offset`, `max_bytes`,
`max_record_bytes`) and for parameter names a tool does not know.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from total_recall.errors import AddressError, ScopeError
from total_recall.model import HARNESSES, NUMBER_MAX, Address, Session, echoed
from total_recall.record.database import Record
from total_recall.record.queries import last_entry_times
from total_recall.record.sessions import TIERS, matching

# The bounds every tool states in its schema as minimum/maximum, so a schema-honouring client cannot send
# a value the handler rejects.
LIMIT_MIN = 1
LIMIT_MAX = 1000
LIMIT_DEFAULT = 100
OFFSET_MIN = 0
# The smallest budget that still holds an overflow marker naming its file.
MAX_BYTES_MIN = 1024
MAX_BYTES_CEILING = 8 * 1024 * 1024
MAX_RECORD_BYTES_MIN = 256
# Reports and listings: about 4k tokens, what a caller can hold without planning for it.
REPORT_MAX_BYTES = 16384
# Extraction envelopes: about 32k tokens; page with offset for more.
EXTRACT_MAX_BYTES = 131072
# A listing is bounded by the store query before the byte budget decides.
LISTING_ROW_CAP = 200
HOURS_MIN = 0
# A window reaches back at most 100 years: time arithmetic past year 1 overflows, and nothing is older.
HOURS_MAX = 876_600
# Every window tool's default window: what a call that names no window works on.
PERIOD_HOURS = 240

_WINDOW_FORMS = (
    "hours_back=24 (a window in hours; 0 or omitted = the tool's default window), "
    "or directory='…' (a piece of the sessions' folder), or all=true on purpose for the whole record"
)


def cheap_forms(takes_session: bool) -> str:
    """The forms a window tool's rejections name: the calls that are cheap on purpose."""
    return "pass " + ("session_id='s7' (one session), or " if takes_session else "") + _WINDOW_FORMS


def reject_unknown(tool: str, given: Mapping[str, object], accepted: Sequence[str]) -> None:
    """Reject parameter names `tool` does not take: a typo (`hour_back`) would otherwise be a call run on
    the default scope instead of the one that was asked for.

    Raises:
        ScopeError: naming each unknown key, a close accepted name when there is one, and the accepted list.
    """
    unknown = [key for key in given if key not in accepted]
    if not unknown:
        return
    parts = []
    for key in unknown[:10]:
        close = difflib.get_close_matches(key, list(accepted), n=1) if len(key) <= 100 else []
        name = key if len(key) <= 80 else echoed(key)
        parts.append(f"`{name}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    if len(unknown) > 10:
        parts.append(f"and {len(unknown) - 10} more")
    noun = "field" if len(unknown) == 1 else "fields"
    raise ScopeError(
        f"{tool}: unrecognised {noun} {', '.join(parts)} — a typo is a call run on the wrong scope; "
        f"{tool} accepts: {', '.join(accepted) or 'no parameters'}"
    )


# What an omitted bound becomes: a number (the default) or None (no offset, no clamp).
_Default = TypeVar("_Default", int, None)


def _bounded(tool: str, name: str, value: object, default: _Default, low: int, high: int | None,
             rule: str) -> int | _Default:
    """`value` as a whole number in `low`..`high` (None: no upper bound), or `default` when it is omitted.

    Raises:
        ScopeError: not a whole number, or out of range (then `rule` says what the range is).
    """
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScopeError(f"{tool}: `{name}` must be a whole number, not {echoed(value)}")
    if value < low or (high is not None and value > high):
        raise ScopeError(f"{tool}: `{name}` is out of range: {value} — {rule}")
    return value


def check_limit(tool: str, limit: int | None) -> int:
    """`limit` (records per call): omitted = 100; 1–1000 otherwise."""
    return _bounded(tool, "limit", limit, LIMIT_DEFAULT, LIMIT_MIN, LIMIT_MAX,
                    f"limit runs {LIMIT_MIN}–{LIMIT_MAX} (omit it for {LIMIT_DEFAULT}); page with offset and "
                    "next_offset instead of raising it")


def check_offset(tool: str, offset: int | None) -> int | None:
    """`offset` (0-based first record): omitted = the most recent `limit` records."""
    return _bounded(tool, "offset", offset, None, OFFSET_MIN, NUMBER_MAX,
                    f"offsets count from 0 to {NUMBER_MAX}; omit it for the most recent records")


def check_max_bytes(tool: str, max_bytes: int | None, default: int) -> int:
    """`max_bytes` (the reply's budget): omitted = the tool's default; 1 KiB to the 8 MiB ceiling."""
    return _bounded(tool, "max_bytes", max_bytes, default, MAX_BYTES_MIN, MAX_BYTES_CEILING,
                    f"max_bytes runs {MAX_BYTES_MIN}–{MAX_BYTES_CEILING} (8 MiB); omit it for the default "
                    f"{default}")


def check_max_record_bytes(tool: str, max_record_bytes: int | None) -> int | None:
    """`max_record_bytes` (clamp each record to this): omitted = no clamp."""
    return _bounded(tool, "max_record_bytes", max_record_bytes, None, MAX_RECORD_BYTES_MIN, MAX_BYTES_CEILING,
                    f"it runs {MAX_RECORD_BYTES_MIN}–{MAX_BYTES_CEILING}; omit it for no per-record clamp")


def check_harness(tool: str, harness: str | None) -> str | None:
    if harness is None or harness == "":
        return None
    if harness not in HARNESSES:
        raise ScopeError(f"{tool}: unknown harness {echoed(harness)} — known: {', '.join(HARNESSES)}")
    return harness


def check_flag(tool: str, name: str, value: bool | None) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ScopeError(f"{tool}: `{name}` must be true or false, not {echoed(value)}")
    return value


@dataclass(frozen=True, slots=True)
class Spelling:
    """How the surface that called spells a tool and its parameters in the words a reply says of itself (its
    scope, a hint to widen it, a report's header). The core's words are MCP's — the tool's name,
    `hours_back=N`, `all=true` — unless `names` maps them to the surface's own: the CLI's command and flags
    (`dream`, `--hours N`, `--all`). A refusal needs none of this (the CLI rewords its errors); a reply's text
    does, and only its own words: a session's are never respelled."""

    names: Mapping[str, str] = field(default_factory=dict)

    def name(self, name: str) -> str:
        """A tool or a parameter as the surface names it: `all` or `--all`."""
        return self.names.get(name, name)

    def given(self, param: str, value: str = "true") -> str:
        """A parameter given a value: `hours_back=48` or `--hours 48`; a flag set, `all=true` or `--all`."""
        if param not in self.names:
            return f"{param}={value}"
        return self.names[param] if value == "true" else f"{self.names[param]} {value}"

    def widen(self) -> str:
        return f"widen with {self.given('hours_back', 'N')} or {self.given('all')}"


MCP = Spelling()


@dataclass(frozen=True, slots=True)
class Period:
    """Which sessions a window tool works on: active in the last `hours` hours (None with `everything`),
    whose folder holds `directory`.

    The hours count back from now, or on the bundled demo's record from `until`, its newest entry: the
    demo's sessions are fixed in time, and counted from now every window of it would soon be empty."""

    hours: float | None
    directory: str | None
    everything: bool
    defaulted: bool
    until: datetime | None = None

    def cutoff(self, now: datetime) -> datetime | None:
        return None if self.hours is None else (self.until or now) - timedelta(hours=self.hours)

    def describe(self, spelling: Spelling = MCP) -> str:
        where = f", folder containing {echoed(self.directory)}" if self.directory else ""
        if self.everything:
            return f"the whole record ({spelling.given('all')}){where}"
        hours = f"{self.hours:g}"
        default = " (the default window)" if self.defaulted else ""
        if self.until is not None:
            return f"the last {hours} h of the demo{default}, up to its newest entry {iso(self.until)}{where}"
        return f"the last {hours} h{default}{where}"


def demo_until(record: Record) -> datetime | None:
    """When the demo's record ends, the moment its windows count back from: its newest activity (None: it
    holds no timed session)."""
    ranked = sessions_by_activity(record)
    return ranked[0].last_active if ranked else None


def check_period(
    tool: str,
    *,
    hours_back: float | None,
    all: bool | None,
    directory: str | None,
    default_hours: float = PERIOD_HOURS,
    session_id: str | None = None,
    takes_session: bool = False,
    until: datetime | None = None,
) -> Period | None:
    """The window a window tool works, or None when `session_id` picks one session instead; `until`: the
    moment its hours count back from (None: now; the demo's record: its newest entry, `demo_until`).

    Raises:
        ScopeError: a negative, NaN or infinite hours_back, all=true with a real hours_back, a session_id
            with a window, a value of the wrong type — each naming the cheap forms.
    """
    forms = cheap_forms(takes_session)
    everything = check_flag(tool, "all", all)
    hours: float | None = None
    if hours_back is not None:
        if isinstance(hours_back, bool) or not isinstance(hours_back, int | float):
            raise ScopeError(f"{tool}: `hours_back` must be a number of hours, not {echoed(hours_back)} — "
                             f"{forms}")
        if math.isnan(hours_back) or math.isinf(hours_back) or hours_back < HOURS_MIN:
            raise ScopeError(
                f"{tool}: `hours_back` is out of range: {hours_back} — it is a window in hours and never "
                f"'no bound'; {forms}"
            )
        if hours_back > HOURS_MAX:
            raise ScopeError(
                f"{tool}: `hours_back` is out of range: {hours_back:g} — a window runs at most {HOURS_MAX} "
                f"hours (100 years); for the whole record pass all=true on purpose"
            )
        hours = float(hours_back) if hours_back > 0 else None
    if directory is not None and not isinstance(directory, str):
        raise ScopeError(f"{tool}: `directory` must be text (a piece of a folder path), not "
                         f"{echoed(directory)}")
    folder = directory.strip() if directory else None
    if everything and hours is not None:
        raise ScopeError(
            f"{tool}: all=true is the whole record and hours_back={hours_back:g} is a window — pass one, "
            f"not both; {forms}"
        )
    if takes_session and session_id:
        if everything or hours is not None or folder:
            raise ScopeError(
                f"{tool}: `session_id` picks one session and `hours_back`/`directory`/`all` pick a window — "
                "pass one, not both"
            )
        return None
    if everything:
        return Period(None, folder or None, True, False)
    return Period(hours or float(default_hours), folder or None, False, hours is None, until)


def parse_time(text: str | None) -> datetime | None:
    """An ISO-8601 time as an aware UTC datetime (naive ones are taken as UTC); None if it is not one."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def iso(when: datetime | None) -> str | None:
    return None if when is None else when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class Scoped:
    """A session picked by a scope, with when it was last active and its older generations."""

    session: Session
    last_active: datetime | None
    older: tuple[int, ...] = ()

    @property
    def address(self) -> str:
        return self.session.address

    def label(self) -> str:
        s = self.session
        title = f" {s.title[:40]!r}" if s.title else ""
        when = iso(self.last_active) or "no time"
        return f"{s.address} ({s.harness}, {s.native_id}{title}, last active {when})"


def _last_active(s: Session, last_entry: str | None) -> datetime | None:
    stamps = [t for t in (parse_time(last_entry), parse_time(s.ended), parse_time(s.started)) if t]
    return max(stamps) if stamps else None


def sessions_by_activity(record: Record, harness: str | None = None) -> list[Scoped]:
    """The record's sessions, most recently active first, one per (harness, native id).

    A source rewritten under bytes already read starts a new generation (a new sN); the older ones are
    history, listed under `older` of the newest instead of as sessions of their own. Last activity is the
    latest of the last timed entry, the session's end and its start; a session with no time at all sorts
    last and is in no window (only `all=true` reaches it).
    """
    sessions = record.sessions((harness,) if harness else ())
    times = last_entry_times(record)
    newest: dict[tuple[str, str], Session] = {}
    older: dict[tuple[str, str], list[int]] = {}
    for s in sessions:
        key = (s.harness, s.native_id)
        kept = newest.get(key)
        if kept is None or s.generation > kept.generation:
            if kept is not None:
                older.setdefault(key, []).append(kept.number)
            newest[key] = s
        else:
            older.setdefault(key, []).append(s.number)
    out = []
    for key, s in newest.items():
        out.append(Scoped(s, _last_active(s, times.get(s.number)), tuple(sorted(older.get(key, ())))))
    floor = datetime.min.replace(tzinfo=UTC)
    out.sort(key=lambda c: (c.last_active or floor, c.session.number), reverse=True)
    return out


def _empty_record(tool: str, harness: str | None) -> ScopeError:
    which = f" of harness {harness}" if harness else ""
    return ScopeError(f"{tool}: the record holds no sessions{which} — the `sync` tool reads the agents' "
                      "stores into it")


def resolve_session(record: Record, tool: str, session_id: str | None, harness: str | None = None, *,
                    param: str = "session_id") -> Scoped:
    """The one session a session tool works on.

    `session_id` may be an address (`s7`, or `s7#12` for its session), a native id, a prefix of one, or a
    piece of one (case-insensitive); omitted or empty, the most recently active session. `param`: what the
    caller calls it, for the refusals (an operation may take it as `target`).

    Raises:
        ScopeError: nothing matches (naming what was tried), or several sessions match (listing them).
    """
    if session_id is not None and not isinstance(session_id, str):
        raise ScopeError(f"{tool}: `{param}` must be text (s7, or a native id), not {echoed(session_id)}")
    harness = check_harness(tool, harness)
    candidates = sessions_by_activity(record, harness)
    query = (session_id or "").strip()
    if not query:
        if not candidates:
            raise _empty_record(tool, harness)
        return candidates[0]
    if query[:1] in ("s", "S") and query[1:2].isdigit():
        try:
            number = Address.parse(query).session
        except AddressError:
            number = None
        if number is not None:
            return _by_number(record, tool, number, harness, candidates)
    # The record's one resolver of native ids (record/sessions.py) decides; this only words the refusal.
    found = matching(candidates, query, lambda c: c.session.native_id)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        shown = "; ".join(c.label() for c in found[:10])
        more = f"; and {len(found) - 10} more" if len(found) > 10 else ""
        raise ScopeError(
            f"{tool}: {param} {echoed(query)} is ambiguous — it matches {len(found)} sessions: "
            f"{shown}{more}. Pass more of the id, or the address (s7)"
        )
    if not candidates:
        raise _empty_record(tool, harness)
    within = f" among the {harness} sessions" if harness else ""
    recent = "; ".join(c.label() for c in candidates[:5])
    raise ScopeError(
        f"{tool}: {param} {echoed(query)} matches no session{within} — tried it as an address (s7), as "
        f"{', as '.join(name for name, _ in TIERS)}. The most recent: {recent}"
    )


def _by_number(record: Record, tool: str, number: int, harness: str | None,
               candidates: list[Scoped]) -> Scoped:
    for c in candidates:
        if c.session.number == number:
            return c
    try:
        s = record.session(number)
    except AddressError:
        total = record.counts()["sessions"]
        held = f"s1–s{total}" if total else "no sessions"
        raise ScopeError(f"{tool}: no session s{number} — the record holds {held}") from None
    if harness and s.harness != harness:
        raise ScopeError(f"{tool}: s{number} is a {s.harness} session, outside harness {harness}")
    # An older generation, asked for by its own address: served as it is.
    return Scoped(s, _last_active(s, last_entry_times(record).get(number)))


def sessions_in_window(
    record: Record,
    window: Period,
    harness: str | None = None,
    now: datetime | None = None,
    ranked: list[Scoped] | None = None,
) -> list[Scoped]:
    """The sessions a window holds, most recently active first (from `ranked`, the record's sessions by
    activity, when the caller already has them)."""
    harness = check_harness("window", harness)
    cutoff = window.cutoff(now or datetime.now(UTC))
    folder = window.directory.casefold() if window.directory else None
    out = []
    for c in sessions_by_activity(record) if ranked is None else ranked:
        if harness is not None and c.session.harness != harness:
            continue
        if cutoff is not None and (c.last_active is None or c.last_active < cutoff):
            continue
        if folder is not None and folder not in (c.session.cwd or "").casefold():
            continue
        out.append(c)
    return out


def select_sessions(
    record: Record,
    tool: str,
    *,
    session_id: str | None,
    hours_back: float | None,
    all: bool | None,
    directory: str | None,
    harness: str | None,
    default_hours: float = PERIOD_HOURS,
    until: datetime | None = None,
    spelling: Spelling = MCP,
) -> tuple[list[Scoped], str]:
    """The sessions a window tool that also takes `session_id` works on, and a sentence saying which (in
    the words `spelling` gives); `until` as `check_period` takes it."""
    window = check_period(
        tool, hours_back=hours_back, all=all, directory=directory, default_hours=default_hours,
        session_id=session_id, takes_session=True, until=until,
    )
    if window is None:
        one = resolve_session(record, tool, session_id, harness)
        return [one], f"session {one.address} ({spelling.given('session_id', echoed(session_id))})"
    return sessions_in_window(record, window, harness), window.describe(spelling)


def scoped(record: Record, session: Session) -> Scoped:
    """`session` (resolved already) with the time it was last active."""
    return Scoped(session, _last_active(session, last_entry_times(record).get(session.number)))


@dataclass(frozen=True, slots=True)
class Selection:
    """What a window tool that also takes `session_id` works on: one session, or the sessions of a window
    (most recently active first), and a sentence saying which."""

    sessions: list[Scoped]
    described: str
    window: Period | None  # None: the one session it was given

    @classmethod
    def one(cls, record: Record, session: Session, named: str, spelling: Spelling = MCP) -> Selection:
        """The session `named` (what the caller typed) resolved to."""
        said = spelling.given("session_id", echoed(named))
        return cls([scoped(record, session)], f"session {session.address} ({said})", None)

    @classmethod
    def of(cls, record: Record, window: Period, harness: str | None = None,
           spelling: Spelling = MCP) -> Selection:
        return cls(sessions_in_window(record, window, harness), window.describe(spelling), window)
