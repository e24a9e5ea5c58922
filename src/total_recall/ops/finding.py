"""The finding operations: search (seed 004's scoped search, `do_android_dream_of_electric_sheep`, is with
the mining operations)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from total_recall.errors import SearchError
from total_recall.find.hits import group as group_hits
from total_recall.find.search import search as find
from total_recall.find.when import SINCE_FORMS
from total_recall.find.when import since as since_moment
from total_recall.mining.flood import fit_json
from total_recall.model import Author, Harness, echoed
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import REPORT_MAX_BYTES, Directory, ReplyBytes, Since
from total_recall.ops.replies import group_json, hit_json

SEARCH_LIMIT = 10


class SearchParams(Params):
    query: Annotated[str, Field(min_length=1, max_length=10_000, description=(
        "Words, an exact string (path, hash, URL, error line) or a question; a time named in it ('last "
        "week') favours entries from then."))]
    limit: Annotated[int, Field(ge=1, le=1000, description="How many hits at most (1-1000).")] = SEARCH_LIMIT
    harness: Annotated[tuple[Harness, ...], Field(description="Only these harnesses; empty: every one.")] = ()
    session_id: Annotated[str, Field(max_length=500, description=(
        "Only this session: s7, its own id, or a unique prefix of it."))] = ""
    directory: Directory = ""
    author: Annotated[tuple[Author, ...], Field(description="Only entries by these authors.")] = ()
    since: Since = ""
    group: Annotated[bool, Field(description="Gather the hits per session into ranges to read whole.")] = (
        False)
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def search(call: Call, p: SearchParams) -> Reply:
    """Find entries by words, exact strings and meaning; every hit is an address `read` opens exactly."""
    with call.record() as record:
        number = call.session(record, "search", p.session_id).number if p.session_id.strip() else None
        hits = find(record, p.query, limit=p.limit, harness=call.harnesses(p.harness), session=number,
                    project=p.directory or None, author=p.author, since=p.since or None)
        if not hits and not record.holds_sessions():
            from total_recall.ops.record import empty_record

            call.notes.append(empty_record(call))
    key = "groups" if p.group else "hits"
    found = [group_json(g) for g in group_hits(hits)] if p.group else [hit_json(h) for h in hits]
    return fit_json("search", p.query[:40], {"query": p.query, key: found}, key, p.max_bytes)


def scope(call: Call, p: SearchParams) -> None:
    """The session and the time every query of a batch shares, refused once as a single search refuses
    them."""
    if p.since and since_moment(p.since) is None:
        raise SearchError(f"since: {echoed(p.since)} is not a time; give {SINCE_FORMS}")
    if p.session_id.strip():
        with call.record() as record:
            call.session(record, "search", p.session_id)


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "search", "finding", Effect.READS, SearchParams, search, argument=("query",), batch="query",
        shared=scope, flags={"session_id": "session"},
        example="total-recall search 'TypeError: Cannot read' --since 'last week'",
        doc="Find entries by words, exact strings (paths, hashes, URLs, error lines) and meaning. Every hit "
            "is an address that `read` opens exactly, with a snippet around the match; hits that do not "
            "fit max_bytes are held back (`held_back`) and the whole reply goes to a private file the reply "
            "names."),
)
