"""Extraction: a session's messages, its owner's words, or its entries by type — always one bounded page.

Each takes one session (resolved by the caller) and the page bounds (`limit`, `offset`, `max_bytes`,
`max_record_bytes`), and returns an envelope whose `bounds` say what was returned, what was cut and why,
and where the next page starts. Every record carries its address.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from total_recall.errors import ScopeError
from total_recall.mining.bounds import clamp_text, dump, paginate
from total_recall.mining.scope import (
    EXTRACT_MAX_BYTES,
    LIMIT_DEFAULT,
    check_limit,
    check_max_bytes,
    check_max_record_bytes,
    check_offset,
    parse_time,
)
from total_recall.mining.timeline import entry_record, is_injected, load, owner_words, since_last_compaction
from total_recall.model import Entry, Session, echoed
from total_recall.record.database import Record
from total_recall.record.queries import raw_ids, raw_records

ENTRY_TYPES = ("user", "assistant", "tool", "thinking", "meta")
TYPE_CHOICES = (*ENTRY_TYPES, "all")


def _encode_json(r: dict[str, Any]) -> bytes:
    return dump(r)


def _paging(tool: str, limit: int, offset: int | None, max_bytes: int, max_record_bytes: int | None
            ) -> tuple[int, int | None, int, int | None]:
    """A page's bounds, each checked (a library caller's too; the operations' models check them first)."""
    return (check_limit(tool, limit), check_offset(tool, offset),
            check_max_bytes(tool, max_bytes, EXTRACT_MAX_BYTES),
            check_max_record_bytes(tool, max_record_bytes))


def _page(tool: str, records: list[dict[str, Any]], head: dict[str, Any], key: str, *, limit: int,
          offset: int | None, max_bytes: int, max_record_bytes: int | None) -> dict[str, Any]:
    def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> dict[str, Any]:
        return {**head, "bounds": bounds, key: kept}

    return paginate(
        tool, records, limit=limit, offset=offset, max_bytes=max_bytes, max_record_bytes=max_record_bytes,
        encode=_encode_json, clamp=lambda r, m: clamp_text(r, m, _encode_json),
        address=lambda r: str(r["address"]), render=render, measure=lambda r: len(dump(r)),
    )


def _head(s: Session, **extra: Any) -> dict[str, Any]:
    return {"session": s.address, "native_id": s.native_id, "harness": s.harness, **extra}


def extract_messages(
    record: Record,
    session: Session,
    *,
    full: bool = False,
    limit: int = LIMIT_DEFAULT,
    offset: int | None = None,
    max_bytes: int = EXTRACT_MAX_BYTES,
    max_record_bytes: int | None = None,
) -> dict[str, Any]:
    """The conversation of one session — what the owner, the agent, its tools and the harness said —
    from its last compaction on (`full=true`: from its start), as one bounded page.

    Raises:
        ScopeError: a bound out of range, or a record that cannot fit the budget.
    """
    tool = "extract_messages"
    n, at, budget, clamp = _paging(tool, limit, offset, max_bytes, max_record_bytes)
    entries = load(record, session.number)
    compaction = None
    if not full:
        entries, compaction = since_last_compaction(entries)
    records = [entry_record(e) for e in entries if e.kind != "meta"]
    head = _head(session, full=full, since=compaction.address if compaction else None)
    return _page(tool, records, head, "messages", limit=n, offset=at, max_bytes=budget,
                 max_record_bytes=clamp)


def extract_user_messages(
    record: Record,
    session: Session,
    *,
    limit: int = LIMIT_DEFAULT,
    offset: int | None = None,
    max_bytes: int = EXTRACT_MAX_BYTES,
    max_record_bytes: int | None = None,
) -> dict[str, Any]:
    """The owner's own messages in one session, from its start, as one bounded page. Harness-injected
    messages are skipped, and wrappers a harness put inside an owner message are cut out (`wrapped`
    says so; `read` the address for the verbatim entry).

    Raises:
        ScopeError: a bound out of range, or a record that cannot fit the budget.
    """
    tool = "extract_user_messages"
    n, at, budget, clamp = _paging(tool, limit, offset, max_bytes, max_record_bytes)
    records = []
    for e in load(record, session.number):
        if e.author != "owner" or e.kind != "message":
            continue
        words, wrapped = owner_words(e)
        r = entry_record(e, text=words)
        if wrapped:
            r["wrapped"] = True
        records.append(r)
    return _page(tool, records, _head(session), "user_messages", limit=n, offset=at, max_bytes=budget,
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
    if not types:
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
    record: Record,
    session: Session,
    *,
    types: Sequence[str] = (),
    full: bool = True,
    include_injected: bool = False,
    raw: bool = False,
    limit: int = LIMIT_DEFAULT,
    offset: int | None = None,
    max_bytes: int = EXTRACT_MAX_BYTES,
    max_record_bytes: int | None = None,
) -> dict[str, Any]:
    """One session's entries by type, one bounded page: the header (the session and what was asked), its
    `bounds` and the `records`, each `{type, ts, record}`. `by_type_text` writes it as the
    `type,timestamp,json` lines for awk, jq and sort that the page is measured on.

    `types`: user, assistant, tool, thinking, meta, or all (default all). `full` (default true): the whole
    session; false: from its last compaction on. `include_injected` (default false): also harness-injected
    records (reminders, context, summaries, bookkeeping) — every record says `injected` either way. `raw`
    (default false): add the source record each entry was cut from (the JSONL line or the row), except
    where it also holds quarantined text.

    Raises:
        ScopeError: an unknown type, a bound out of range, or a record that cannot fit the budget.
    """
    tool = "extract_by_type"
    chosen = _check_types(tool, types)
    n, at, budget, clamp = _paging(tool, limit, offset, max_bytes, max_record_bytes)
    number = session.number
    every = load(record, number)
    entries = every if full else since_last_compaction(every)[0]
    picked = [e for e in entries if entry_type(e) in chosen and (include_injected or not is_injected(e))]
    sources: dict[int, tuple[int | None, bytes | None]] = {}
    hidden: set[int] = set()
    if raw and picked:
        sources = raw_records(record, number, picked[0].seq, picked[-1].seq)
        # A source line shared with a quarantined entry holds its text: it is withheld for every entry.
        hidden = raw_ids(record, number, [e.seq for e in every if e.quarantined is not None])
    records: list[dict[str, Any]] = []
    for e in picked:
        obj = entry_record(e, injected_flag=True)
        if raw:
            raw_id, blob = sources.get(e.seq, (None, None))
            obj["source"] = None if raw_id in hidden else _source(blob)
            if raw_id in hidden:
                obj["source_withheld"] = "its source line also holds quarantined text"
        records.append({"type": entry_type(e), "ts": _timestamp_column(e.timestamp), "record": obj})

    def clamp_line(r: dict[str, Any], limit_bytes: int) -> dict[str, Any]:
        prefix = len(f"{r['type']},{r['ts']},".encode()) + 1
        small = clamp_text(r["record"], max(limit_bytes - prefix, 1), dump, droppable=("source",))
        return {**r, "record": small}

    header = {**_head(session), "full": full, "types": list(chosen), "include_injected": include_injected,
              "raw": raw}

    def render(bounds: dict[str, Any], kept: list[dict[str, Any]]) -> dict[str, Any]:
        return {**header, "bounds": bounds, "records": kept}

    return paginate(
        tool, records, limit=n, offset=at, max_bytes=budget, max_record_bytes=clamp, encode=_line,
        clamp=clamp_line, address=lambda r: str(r["record"]["address"]), render=render,
        measure=lambda reply: len(by_type_text(reply).encode()),
    )


def _line(r: dict[str, Any]) -> bytes:
    return f"{r['type']},{r['ts']},".encode() + dump(r["record"]) + b"\n"


def by_type_text(reply: dict[str, Any]) -> str:
    """An `extract_by_type` page as lines: a `# {header}` line carrying the bounds, one `type,timestamp,json`
    line per record (its JSON compact, so one record is always one line), and a `# TRUNCATED: …` line when
    the page was cut. Its `bounds.bytes` is the size of this text."""
    head = {k: v for k, v in reply.items() if k != "records"}
    lines = ["# " + dump(head).decode() + "\n"]
    lines.extend(_line(r).decode() for r in reply["records"])
    bounds = reply["bounds"]
    if bounds["truncated"]:
        # The header carries the whole notice; this line only has to be seen by `tail`.
        first, n = bounds["offset"], bounds["returned_records"]
        more = f"; next_offset={bounds['next_offset']}" if bounds["next_offset"] is not None else ""
        lines.append(f"# TRUNCATED ({bounds['truncation_reason']}): records {first}..{first + n} of "
                     f"{bounds['total_records']}{more}\n")
    return "".join(lines)
