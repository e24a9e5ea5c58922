"""Extraction: a session's messages, its owner's words, or its entries by type — always one bounded page.

Each tool takes the session scope (`session_id`, default the most recent session) and the page bounds
(`limit`, `offset`, `max_bytes`, `max_record_bytes`), and returns an envelope whose `bounds` say what was
returned, what was cut and why, and where the next page starts. Every record carries its address.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from total_recall.errors import ScopeError
from total_recall.mining.bounds import clamp_text, dump, paginate
from total_recall.mining.queries import raw_ids, raw_records
from total_recall.mining.scope import (
    EXTRACT_MAX_BYTES,
    Scoped,
    check_flag,
    check_harness,
    check_limit,
    check_max_bytes,
    check_max_record_bytes,
    check_offset,
    parse_time,
    resolve_session,
)
from total_recall.mining.timeline import is_injected, load, owner_words, record, since_last_compaction
from total_recall.model import Entry, echoed
from total_recall.record.store import Store

ENTRY_TYPES = ("user", "assistant", "tool", "thinking", "meta")
TYPE_CHOICES = (*ENTRY_TYPES, "all")


def _encode_json(r: dict[str, Any]) -> bytes:
    return dump(r)


def _page(tool: str, records: list[dict[str, Any]], head: dict[str, Any], key: str, *, limit: int,
          offset: int | None, max_bytes: int, max_record_bytes: int | None) -> dict[str, Any]:
    def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> dict[str, Any]:
        return {**head, "bounds": bounds, key: kept}

    return paginate(
        tool, records, limit=limit, offset=offset, max_bytes=max_bytes, max_record_bytes=max_record_bytes,
        encode=_encode_json, clamp=lambda r, m: clamp_text(r, m, _encode_json),
        address=lambda r: str(r["address"]), render=render, measure=lambda r: len(dump(r)),
    )


def _head(scoped: Scoped, **extra: Any) -> dict[str, Any]:
    s = scoped.session
    return {"session": s.address, "native_id": s.native_id, "harness": s.harness, **extra}


def extract_messages(
    store: Store,
    *,
    session_id: str | None = None,
    full: bool | None = None,
    limit: int | None = None,
    offset: int | None = None,
    max_bytes: int | None = None,
    max_record_bytes: int | None = None,
    harness: str | None = None,
) -> dict[str, Any]:
    """The conversation of one session — what the owner, the agent, its tools and the harness said —
    from its last compaction on (`full=true`: from its start), as one bounded page.

    Raises:
        ScopeError: a bound out of range, or a session_id that matches no session or several.
    """
    tool = "extract_messages"
    whole = check_flag(tool, "full", full)
    n, at, budget = check_limit(tool, limit), check_offset(tool, offset), check_max_bytes(
        tool, max_bytes, EXTRACT_MAX_BYTES)
    clamp = check_max_record_bytes(tool, max_record_bytes)
    scoped = resolve_session(store, tool, session_id, check_harness(tool, harness))
    entries = load(store, scoped.session.number)
    compaction = None
    if not whole:
        entries, compaction = since_last_compaction(entries)
    records = [record(e) for e in entries if e.kind != "meta"]
    head = _head(scoped, full=whole, since=compaction.address if compaction else None)
    return _page(tool, records, head, "messages", limit=n, offset=at, max_bytes=budget,
                 max_record_bytes=clamp)


def extract_user_messages(
    store: Store,
    *,
    session_id: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
    max_bytes: int | None = None,
    max_record_bytes: int | None = None,
    harness: str | None = None,
) -> dict[str, Any]:
    """The owner's own messages in one session, from its start, as one bounded page. Harness-injected
    messages are skipped, and wrappers a harness put inside an owner message are cut out (`wrapped`
    says so; `read` the address for the verbatim entry).

    Raises:
        ScopeError: a bound out of range, or a session_id that matches no session or several.
    """
    tool = "extract_user_messages"
    n, at, budget = check_limit(tool, limit), check_offset(tool, offset), check_max_bytes(
        tool, max_bytes, EXTRACT_MAX_BYTES)
    clamp = check_max_record_bytes(tool, max_record_bytes)
    scoped = resolve_session(store, tool, session_id, check_harness(tool, harness))
    records = []
    for e in load(store, scoped.session.number):
        if e.author != "owner" or e.kind != "message":
            continue
        words, wrapped = owner_words(e)
        r = record(e, text=words)
        if wrapped:
            r["wrapped"] = True
        records.append(r)
    return _page(tool, records, _head(scoped), "user_messages", limit=n, offset=at, max_bytes=budget,
                 max_record_bytes=clamp)


def entry_type(e: Entry) -> str:
    """The type column of extract_by_type: user, assistant, tool, thinking or meta."""
    if e.kind == "meta":
        return "meta"
    if e.kind == "thinking":
        return "thinking"
    if e.kind in ("tool_call", "tool_result"):
        return "tool"
    return "assistant" if e.author == "agent" else "user"


def _check_types(tool: str, types: Sequence[str] | str | None) -> tuple[str, ...]:
    if types is None or types == "" or types == []:
        return ENTRY_TYPES
    chosen = [types] if isinstance(types, str) else list(types)
    out: list[str] = []
    for t in chosen:
        if not isinstance(t, str) or t not in TYPE_CHOICES:
            raise ScopeError(f"{tool}: unknown type {echoed(t)} — types are {', '.join(TYPE_CHOICES)}")
        for name in ENTRY_TYPES if t == "all" else (t,):
            if name not in out:
                out.append(name)
    return tuple(out)


def _timestamp_column(ts: str | None) -> str:
    """ISO-8601 or a unix epoch as recorded; 0 when it is neither (so the column is always sortable)."""
    if ts and (parse_time(ts) is not None or ts.replace(".", "", 1).isdigit()):
        return ts
    return "0"


def _source(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.decode("utf-8", errors="replace")


def extract_by_type(
    store: Store,
    *,
    session_id: str | None = None,
    types: Sequence[str] | str | None = None,
    full: bool | None = None,
    include_injected: bool | None = None,
    raw: bool | None = None,
    limit: int | None = None,
    offset: int | None = None,
    max_bytes: int | None = None,
    max_record_bytes: int | None = None,
    harness: str | None = None,
) -> str:
    """One session's entries as `type,timestamp,json` lines, for recovering data by type with awk, jq and
    sort: a `# {header}` line carrying the bounds, one line per record (its JSON compact, so one record is
    always one line), and a `# TRUNCATED: …` line when the page was cut.

    `types`: user, assistant, tool, thinking, meta, or all (default all). `full` (default true): the whole
    session; false: from its last compaction on. `include_injected` (default false): also harness-injected
    records (reminders, context, summaries, bookkeeping) — every record says `injected` either way. `raw`
    (default false): add the source record each entry was cut from (the JSONL line or the row), except
    where it also holds quarantined text.

    Raises:
        ScopeError: an unknown type, a bound out of range, or a session_id that matches no session or several.
    """
    tool = "extract_by_type"
    chosen = _check_types(tool, types)
    whole = True if full is None else check_flag(tool, "full", full)
    injected = check_flag(tool, "include_injected", include_injected)
    with_raw = check_flag(tool, "raw", raw)
    n, at, budget = check_limit(tool, limit), check_offset(tool, offset), check_max_bytes(
        tool, max_bytes, EXTRACT_MAX_BYTES)
    clamp = check_max_record_bytes(tool, max_record_bytes)
    scoped = resolve_session(store, tool, session_id, check_harness(tool, harness))
    number = scoped.session.number
    every = load(store, number)
    entries = every if whole else since_last_compaction(every)[0]
    picked = [e for e in entries if entry_type(e) in chosen and (injected or not is_injected(e))]
    sources: dict[int, tuple[int | None, bytes | None]] = {}
    hidden: set[int] = set()
    if with_raw and picked:
        sources = raw_records(store, number, picked[0].seq, picked[-1].seq)
        # A source line shared with a quarantined entry holds its text: it is withheld for every entry.
        hidden = raw_ids(store, number, [e.seq for e in every if e.quarantined is not None])
    records: list[dict[str, Any]] = []
    for e in picked:
        obj = record(e, injected_flag=True)
        if with_raw:
            raw_id, blob = sources.get(e.seq, (None, None))
            obj["source"] = None if raw_id in hidden else _source(blob)
            if raw_id in hidden:
                obj["source_withheld"] = "its source line also holds quarantined text"
        records.append({"type": entry_type(e), "ts": _timestamp_column(e.timestamp), "json": obj})

    def encode(r: dict[str, Any]) -> bytes:
        return f"{r['type']},{r['ts']},".encode() + dump(r["json"]) + b"\n"

    def clamp_line(r: dict[str, Any], limit_bytes: int) -> dict[str, Any]:
        prefix = len(f"{r['type']},{r['ts']},".encode()) + 1
        small = clamp_text(r["json"], max(limit_bytes - prefix, 1), dump, droppable=("source",))
        return {**r, "json": small}

    header = {**_head(scoped), "full": whole, "types": list(chosen), "include_injected": injected,
              "raw": with_raw}

    def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> str:
        lines = ["# " + dump({**header, "bounds": bounds}).decode() + "\n"]
        lines.extend(encode(r).decode() for r in kept)
        if bounds["truncated"]:
            # The header carries the whole notice; this line only has to be seen by `tail`.
            first, n = bounds["offset"], bounds["returned_records"]
            more = f"; next_offset={bounds['next_offset']}" if bounds["next_offset"] is not None else ""
            lines.append(f"# TRUNCATED ({bounds['truncation_reason']}): records {first}..{first + n} of "
                         f"{bounds['total_records']}{more}\n")
        return "".join(lines)

    return paginate(
        tool, records, limit=n, offset=at, max_bytes=budget, max_record_bytes=clamp, encode=encode,
        clamp=clamp_line, address=lambda r: str(r["json"]["address"]), render=render,
        measure=lambda text: len(text.encode()),
    )
