"""The record's operations: sync, status, sessions, read, erase, quarantine, index."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated, Any, overload

from pydantic import Field

from total_recall.config import (
    DEMO_RECORD_FILE,
    default_folders,
    demo_when_empty,
    record_home,
    store_roots,
    use_demo,
)
from total_recall.errors import ScopeError
from total_recall.mining.bounds import TEXT_PART, dump, paginate
from total_recall.mining.flood import fit_json
from total_recall.model import ECHO_CHARS, Address, Harness, SyncReport, echoed
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import BLANK_AS_SPACE, REPORT_MAX_BYTES, Directory, Limit, ReplyBytes, Since
from total_recall.ops.replies import entry_json, session_json, sync_json
from total_recall.record.database import Record
from total_recall.record.reading import read as read_entries
from total_recall.record.sessions import resolve_address

# Claude Code moves a reply over 50,000 characters out to a file (and refuses one over 25k tokens): the
# default page stays under both; bytes >= characters, so 48 KiB is below 50,000 characters.
READ_MAX_BYTES = 49_152
READ_LIMIT = 100
# `status` over MCP is the cheapest check a client makes: it lists this many of the last sync's warnings
# (with the count of the rest), not the 200 the record keeps (~30 KB).
SERVED_WARNINGS = 20
# How to add the vectors extra, from PyPI or (as the README installs) from a clone.
VECTORS_EXTRA = "pip install 'total-recall[vectors]' (from a clone: pip install -e '.[vectors]')"

Harnesses = Annotated[tuple[Harness, ...], Field(description="Only these harnesses; empty: every one.")]
Address_ = Annotated[str, Field(min_length=1, max_length=500, description=(
    "s7 (a session), s7#12 (an entry) or s7#10-20 (a range); the session's own id, or a unique prefix of it, "
    "may stand for s7."))]
Reason = Annotated[str, Field(max_length=500, description="Why (kept in the log beside the change)."),
                   BLANK_AS_SPACE]


# -- sync --


class SyncParams(Params):
    harness: Harnesses = ()
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def sync(call: Call, p: SyncParams) -> Reply:
    """Read the stores into the record; with no store on this machine (or stores that hold no session
    yet) and no harness named, the bundled demo store into its own record, saying so."""
    from total_recall.syncing import sync as run_sync

    harnesses = call.harnesses(p.harness)
    demo_holds = tuple(call.roots or ())
    if call.demo and (missing := [h for h in harnesses if h not in demo_holds]):
        raise ScopeError(f"sync: the demo store holds only {' and '.join(demo_holds)} sessions, not "
                         f"{', '.join(missing)}: name one of those in `harness`, or leave it out")
    why = None
    if call.home is not None and not call.demo and use_demo(harnesses):
        call = replace(call, record_path=call.home / DEMO_RECORD_FILE, demo=True)
        looked = ", ".join(str(folder) for folder in default_folders())
        why = f"No agent store found on this machine (looked in {looked})"

    def once(into: Call) -> tuple[SyncReport, bool]:
        roots = into.roots and {h: root for h, root in into.roots.items() if h in harnesses or not harnesses}
        with into.record() as record:
            report = run_sync(record, (list(roots) if roots else list(harnesses)) or None, roots=roots,
                              progress=call.progress, processes=call.processes)
            return report, record.holds_sessions()

    report, held = once(call)
    if (why is None and call.home is not None and not call.demo and not held and not report.errors
            and demo_when_empty(harnesses)):
        looked = ", ".join(str(p) for p in store_roots()) or "no folder"
        why = f"The agent stores on this machine hold no session yet (looked in {looked})"
        real = report
        call = replace(call, record_path=call.home / DEMO_RECORD_FILE, demo=True)
        report, _ = once(call)
        report.warnings[:0], report.notices[:0] = real.warnings, real.notices
    if why is not None:
        report.notices.append(f"{why}: synced the bundled demo store into {call.record_path}")
    whole = sync_json(report, str(call.record_path), call.demo)
    whole["assets"] = _assets_after(call, report)
    return fit_json("sync", "record", whole, "warnings", p.max_bytes)


def _assets_after(call: Call, report: SyncReport) -> dict[str, Any] | None:
    """The asset index brought up to date after a sync (at most daily, `assets.index.REBUILD_AFTER`), so the
    push knows what the owner owns without a command of its own; None when it was fresh."""
    import os

    from total_recall.assets.index import rebuild_if_due
    from total_recall.record.sync import vector_budget

    if report.errors:
        return None
    # The key vectors for the push by meaning load the model: only when the sync may embed at all.
    meaning = vector_budget(os.environ) > 0
    with call.record() as record:
        built = rebuild_if_due(record, meaning=meaning)
    if built is None:
        return None
    call.notes.extend(built.warnings)
    return {"assets": sum(built.assets.values()), "keys": sum(built.keys.values()),
            "seconds": round(built.seconds, 3)}


# -- status --


class StatusParams(Params):
    pass


def status(call: Call, p: StatusParams) -> Reply:
    from total_recall.mining.listing import harness_status

    with call.record() as record:
        coverage = harness_status(record, call.harness)
    if call.serving is not None:
        last = coverage.get("last_sync")
        if last and len(last["warnings"]) > SERVED_WARNINGS:
            last["warnings_not_listed"] += len(last["warnings"]) - SERVED_WARNINGS
            last["warnings"] = last["warnings"][:SERVED_WARNINGS]
        return {**call.serving, "demo": call.demo, **coverage}
    return {"demo": call.demo, **coverage}


# -- sessions --


class SessionsParams(Params):
    harness: Harnesses = ()
    directory: Directory = ""
    since: Since = ""
    limit: Limit | None = None
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def sessions(call: Call, p: SessionsParams) -> Reply:
    from total_recall.find.when import SINCE_FORMS
    from total_recall.find.when import since as since_moment
    from total_recall.mining.listing import sessions_newest_first
    from total_recall.mining.scope import iso, parse_time

    moment = None
    if p.since:
        moment = parse_time(since_moment(p.since))
        if moment is None:
            raise ScopeError(f"sessions: `since` {p.since!r} is not a time; give {SINCE_FORMS}")
    with call.record() as record:
        found = sessions_newest_first(record, call.harnesses(p.harness), project=p.directory or None,
                                      since=moment, limit=p.limit)
        empty = not found and not record.holds_sessions()
    if empty:
        call.notes.append(empty_record(call))
    elif not found:
        given = (("harness", ",".join(p.harness)), ("directory", p.directory), ("since", p.since))
        call.notes.append("no session matches " + " and ".join(
            f"{_SESSIONS.flag(name)} {value if len(value) <= ECHO_CHARS else echoed(value)}"
            for name, value in given if value))
    rows = [{**session_json(a.session), "last_active": iso(a.last_active)} for a in found]
    return fit_json("sessions", "record", {"sessions": rows}, "sessions", p.max_bytes)


def empty_record(call: Call) -> str:
    """What to say when the record holds no session yet: how to fill it, or where the demo is."""
    if call.demo:
        fill = suggested(call, "sync", demo=True)
        return (f"the demo record {call.record_path} holds no session yet: `{fill}` "
                "fills it")
    demo = call.record_path.with_name(DEMO_RECORD_FILE)
    where = (f"the demo's sessions are in their own record: `{suggested(call, 'sessions', demo=True)}`"
             if demo.exists() else f"or try the bundled demo: `{suggested(call, 'sync', demo=True)}`")
    return (f"the record {call.record_path} holds no session yet: `{suggested(call, 'sync')}` reads this "
            f"machine's agent stores into it; {where}")


def suggested(call: Call, *words: str, demo: bool = False) -> str:
    """A command to suggest on the call's record: `total-recall [--home H] [--demo] WORDS`, naming the
    record's home when it is not the one the environment gives (a `--home` the person typed)."""
    home = call.record_path.parent
    named = f" --home {home}" if home != record_home(os.environ) else ""
    return f"total-recall{named}{' --demo' if demo else ''} {' '.join(words)}"


# -- read --


class ReadParams(Params):
    address: Address_
    offset: Annotated[int, Field(ge=0, le=2**63 - 1, description=(
        "Skip this many entries of the address (page with bounds.next_offset).")) ] = 0
    limit: Limit = READ_LIMIT
    max_bytes: Annotated[int, Field(ge=1024, le=8 * 1024 * 1024, description=(
        "Reply budget, bytes of compact JSON (1024-8388608); entries come back whole, but for one too long "
        "for it alone, which comes in parts."))] = READ_MAX_BYTES
    text_offset: Annotated[int, Field(ge=0, le=2**63 - 1, description=(
        "Go on with the text of the entry at `offset` from this character (an entry too long for max_bytes "
        "comes alone, in parts: each names the next in bounds.next_text_offset)."))] = 0


def read(call: Call, p: ReadParams) -> Reply:
    """The entries at an address exactly as recorded, one bounded page (`bounds` says what came back,
    why the page stopped and the `next_offset` to continue from). An entry too long for `max_bytes` alone
    comes alone, in parts (`_in_parts`), so every address can be read."""
    with call.record() as record:
        address = call.check(record, resolve_address(record, p.address))
        if address.first is None and address.last is None and not record.session(address.session).entries:
            session, first, last = record.session(address.session), 1, 0  # a session with no entry yet
        else:
            session, first, last = record.span(address)
        entries = _AddressEntries(record, address.session, first, last)

        def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> dict[str, Any]:
            return {"address": str(address), "harness": session.harness,
                    "bounds": {**bounds, "next_text_offset": None}, "entries": kept}

        if p.text_offset == 0:
            try:
                return paginate("read", entries, limit=p.limit, offset=p.offset, max_bytes=p.max_bytes,
                                max_record_bytes=None, encode=dump, clamp=lambda e, _: e,
                                address=lambda e: str(e["address"]), render=render,
                                measure=lambda r: len(dump(r)))
            except ScopeError:
                pass  # without a clamp the one way this fails: the entry at `offset` is too long alone
        if p.offset >= len(entries):
            raise ScopeError(f"read: `text_offset` needs an entry at `offset` {p.offset}; {address} holds "
                             f"{len(entries)} (offsets 0..{len(entries) - 1})")
        reply = _in_parts(address, session.harness, entries, p)
    [part] = reply["entries"]
    said = (f"{part['address']} in parts: characters {part['part']['start']}..{part['part']['end']} of "
            f"{part['part']['length']}")
    if (following := reply["bounds"]["next_text_offset"]) is not None:
        said += f"; go on with {_READ.flag('offset')} {p.offset} {_READ.flag('text_offset')} {following}"
    if call.surface == "cli":  # over MCP, `bounds.notice` says it within max_bytes
        call.notes.append(said)
    return reply


def _in_parts(address: Address, harness: str, entries: _AddressEntries, p: ReadParams) -> dict[str, Any]:
    """The entry at `p.offset` alone, its text from `p.text_offset` on as far as `max_bytes` holds: the
    entry's JSON with `text` that part, `spans` those overlapping it with their `text` null (`start` and `end`
    count characters of the whole text) and `part` {`start`, `end`, `length`}; `bounds.next_text_offset` is
    where the next part starts (null after the last), and `bounds.next_offset` the entry after it."""
    whole = entries[p.offset]
    text = str(whole["text"])
    if p.text_offset and p.text_offset >= len(text):
        raise ScopeError(f"read: `text_offset` {p.text_offset} is past the end of {whole['address']}'s text "
                         f"({len(text)} characters)")
    spans = [{**span, "text": None} for span in whole["spans"]]

    def upto(end: int) -> dict[str, Any]:
        overlapping = [span for span in spans if span["start"] < end and span["end"] > p.text_offset]
        part = {**whole, "text": text[p.text_offset:end], "spans": overlapping,
                "part": {"start": p.text_offset, "end": end, "length": len(text)}}
        following = end if end < len(text) else None
        said = f"{whole['address']} in parts: characters {p.text_offset}..{end} of {len(text)}"

        def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> dict[str, Any]:
            if following is None:
                notice = f"{said}; {bounds['notice']}"
                return {"address": str(address), "harness": harness,
                        "bounds": {**bounds, "next_text_offset": None, "notice": notice}, "entries": kept}
            reasons = ",".join(filter(None, (bounds["truncation_reason"], TEXT_PART)))
            notice = f"TRUNCATED ({reasons}): {said}; next part: offset={p.offset} text_offset={end}"
            if bounds["next_offset"] is not None:
                notice += f"; next entry: offset={bounds['next_offset']}"
            return {"address": str(address), "harness": harness,
                    "bounds": {**bounds, "truncated": True, "truncation_reason": reasons,
                               "next_text_offset": following, "notice": notice},
                    "entries": kept}

        return paginate("read", _Alone(part, p.offset, len(entries)), limit=1, offset=p.offset,
                        max_bytes=p.max_bytes, max_record_bytes=None, encode=dump, clamp=lambda e, _: e,
                        address=lambda e: str(e["address"]), render=render, measure=lambda r: len(dump(r)))

    # The longest part that fits: its size grows with its end (JSON escapes vary, so it is searched for).
    lo, hi, best = p.text_offset, len(text), None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            best, lo = upto(mid), mid
        except ScopeError:
            hi = mid - 1
    if best is None:
        raise ScopeError(f"read: {whole['address']} does not fit max_bytes={p.max_bytes} even with one "
                         "character of its text: raise `max_bytes` (ceiling 8388608)")
    return best


class _Alone(Sequence[dict[str, Any]]):
    """`size` entries of which only the one at `at` is ever read: a part of an entry paged alone."""

    def __init__(self, entry: dict[str, Any], at: int, size: int) -> None:
        self.entry, self.at, self.size = entry, at, size

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, int):
            return self.entry
        return [self.entry] if index.indices(self.size)[:2] == (self.at, self.at + 1) else []


class _AddressEntries(Sequence[dict[str, Any]]):
    """The entries s{session}#{first}-{last} as JSON, read from the record only for the slice asked for, so
    a page of a long session costs the page."""

    def __init__(self, record: Record, session: int, first: int, last: int) -> None:
        self.record, self.session, self.first, self.last = record, session, first, last

    def __len__(self) -> int:
        return self.last - self.first + 1

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, int):
            return self[index:index + 1][0]
        start, stop, step = index.indices(len(self))
        if stop <= start:
            return []
        got = read_entries(self.record, Address(self.session, self.first + start, self.first + stop - 1))
        return [entry_json(e) for e in got][::step]


# -- erase and quarantine --


class EraseParams(Params):
    address: Annotated[str, Field(min_length=1, max_length=500, description=(
        "What to erase: s7, s7#12 or s7#10-20 (the session's own id may stand for s7), or cue:N (a recall "
        "cue) or receipt:N (a receipt's note)."))]
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Why (kept with the tombstone)."),
                      BLANK_AS_SPACE]


def erase(call: Call, p: EraseParams) -> Reply:
    from total_recall.erasure import erase as erase_target

    with call.record() as record:
        if not p.address.strip().startswith(("cue:", "receipt:")):
            call.check(record, resolve_address(record, p.address))
        done = erase_target(record, p.address, p.reason)
    return {"erased": done.erased, "reason": p.reason, "overflow_files_removed": len(done.purged),
            "exports_rewritten": len(done.exports), "snapshots_removed": len(done.snapshots),
            "exports_left_alone": [str(path) for path in done.exports_left], "wal_cleared": done.wal_cleared}


class QuarantineParams(Params):
    address: Address_
    reason: Reason = ""
    undo: Annotated[bool, Field(description="Release the entries from quarantine (needs no reason).")] = False


def quarantine(call: Call, p: QuarantineParams) -> Reply:
    from total_recall.observing.export import refresh_exports

    with call.record() as record:
        address = call.check(record, resolve_address(record, p.address))
        done = record.quarantine(address, p.reason or None, undo=p.undo)
        # An exported observations.md may be loaded into an agent's window (an OpenClaw workspace): what
        # cites the entries leaves it, as it leaves the SessionStart block, and comes back on release.
        refresh_exports(record)
    return {"released" if p.undo else "quarantined": done, "reason": p.reason or None}


# -- index --


class IndexParams(Params):
    budget: Annotated[float | None, Field(ge=0, le=86_400, description=(
        "Stop making meaning vectors after this many seconds; omitted: until every entry has one."))] = None
    rebuild: Annotated[bool, Field(description=(
        "Rebuild the word and exact-string indexes from the record first."))] = False


def index(call: Call, p: IndexParams) -> Reply:
    from total_recall.errors import VectorsUnavailable
    from total_recall.indexes import vectors

    extra = vectors.available()
    if not extra and not p.rebuild:  # checked before the record is touched
        raise VectorsUnavailable(f"index: meaning vectors need the vectors extra: {VECTORS_EXTRA} "
                                 "(`rebuild` rebuilds the word and exact-string indexes without it)")
    embedded, total, done = 0, 0, extra
    with call.record() as record:
        if p.rebuild:
            record.rebuild_indexes()
        if extra:
            progress = call.progress
            embedded, done = record.make_vectors(
                p.budget, (lambda n, t: progress(n, t, "meaning vectors")) if progress else None)
            total = record.vector_count()
    if not extra:
        call.notes.append(f"meaning vectors need the vectors extra: {VECTORS_EXTRA}")
    return {"embedded": embedded, "vectors": total, "done": done, "rebuilt": p.rebuild,
            "vectors_extra": extra}


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "sync", "record", Effect.ADDS, SyncParams, sync, creates=True,
        example="total-recall sync --harness codex",
        doc="Read the agent stores on this machine into the record (incremental; never writes to a store). "
            "With no store on this machine, or stores that hold no session yet, the CLI syncs the bundled "
            "demo store into its own record and says so."),
    Operation(
        "status", "record", Effect.READS, StatusParams, status, aliases=("harness",),
        example="total-recall status --json",
        doc="Which harnesses the record covers: sessions, entries, sources and last sync per harness, and "
            "the last sync's warnings (the lines it skipped, file:line) under `last_sync`. Over MCP also "
            "what the server serves and the state of its start-up sync: the cheapest check that a "
            "registration works."),
    Operation(
        "sessions", "record", Effect.READS, SessionsParams, sessions,
        example="total-recall sessions --directory api --since 'last week'",
        doc="The sessions in the record, most recently active first (last activity: the latest of a "
            "session's last timed entry, its end and its start; sessions with no time last)."),
    Operation(
        "read", "record", Effect.READS, ReadParams, read, argument=("address",),
        example="total-recall read s3#10-20",
        doc="The entries at an address exactly as recorded: text word for word, author, kind, time, and "
            "the source file and line each came from. One bounded page: `bounds` says how many entries the "
            "address holds, how many came back, why the page stopped and the `next_offset` to go on from."),
    Operation(
        "erase", "record", Effect.DROPS, EraseParams, erase, argument=("address",),
        example="total-recall erase s3#12 --reason 'pasted a key'",
        doc="Replace the text at an address with a tombstone and purge it from everything derived, the "
            "overflow files of capped replies included. cue:N and receipt:N erase a recall cue or a "
            "receipt's note the same way. Irreversible."),
    Operation(
        "quarantine", "record", Effect.DROPS, QuarantineParams, quarantine, argument=("address",),
        example="total-recall quarantine s3#40-44 --reason 'wrong project'",
        doc="Hide the entries at an address from windows and pushes without editing them; `undo` shows "
            "them again."),
    Operation(
        "index", "record", Effect.ADDS, IndexParams, index, example="total-recall index --budget 60",
        doc="Bring the derived indexes up to date: meaning vectors for every entry that lacks one (needs "
            "the vectors extra), and with `rebuild` the word and exact-string indexes."),
)

# Notes are said on the CLI only (MCP drops them): they name flags.
_SESSIONS = next(op for op in OPERATIONS if op.name == "sessions")
_READ = next(op for op in OPERATIONS if op.name == "read")
