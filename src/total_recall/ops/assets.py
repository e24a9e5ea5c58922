"""Instant Recall's operations: the asset index (`assets`), the push (`push`), and `mute`/`unmute`."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from pydantic import Field

from total_recall.assets.eligibility import PUSH_OFF
from total_recall.mining.flood import fit_json
from total_recall.ops.operation import Call, Effect, Operation, Params, Reply
from total_recall.ops.params import BLANK_AS_SPACE, PRINTABLE, REPORT_MAX_BYTES, ReplyBytes
from total_recall.record.database import Record

AssetKindName = Literal["skill", "command", "agent", "tool", "machine", "decision", "approach", "document",
                        "mcp_server"]

Session = Annotated[str, Field(max_length=500, description=(
    "The session the message belongs to (s7, its own id or a unique prefix): a sub-agent's session sees "
    "only what its scope allows. Empty: no session."))]


class AssetsParams(Params):
    kind: Annotated[AssetKindName | None, Field(description="Only assets of this kind.")] = None
    session_id: Session = ""
    rebuild: Annotated[bool, Field(description=(
        "Rebuild the index from the record and the harnesses' config roots first."))] = False
    max_bytes: ReplyBytes = REPORT_MAX_BYTES


def assets(call: Call, p: AssetsParams) -> Reply:
    """What the owner owns, one entry each with its keys and where each key came from."""
    from total_recall.assets import assets as listed
    from total_recall.assets import rebuild

    with call.record() as record:
        built = None
        if p.rebuild:
            report = rebuild(record, call.roots)
            built = {"assets": report.assets, "keys": report.keys, "links": report.links,
                     "seconds": round(report.seconds, 3)}
            call.notes.extend(report.warnings)
        number = _session(call, record, "assets", p.session_id)
        found = [_asset_json(a) for a in listed(record, p.kind, session=number, harness=call.harness)]
    reply: dict[str, Any] = {"assets": found}
    if built is not None:
        reply["rebuilt"] = built
    return fit_json("assets", p.kind or "all", reply, "assets", p.max_bytes)


def _asset_json(a: Any) -> dict[str, Any]:
    def keys(field: tuple[Any, ...]) -> list[dict[str, Any]]:
        return [{"text": k.text, "address": k.address, "path": k.path, "origin": k.origin} for k in field]

    return {"asset": a.asset, "kind": a.kind, "name": a.name, "description": a.description,
            "keys": {"names": keys(a.keys.names), "topics": keys(a.keys.topics), "uses": keys(a.keys.uses)},
            "source": a.source, "updated": a.updated, "scope": a.scope, "current": a.current}


def _session(call: Call, record: Record, op: str, name: str) -> int | None:
    return call.session(record, op, name).number if name.strip() else None


class PushParams(Params):
    text: Annotated[str, Field(min_length=1, max_length=1_000_000, description=(
        "The owner's message, as the harness is about to send it."))]
    session_id: Session = ""
    cwd: Annotated[str, Field(max_length=4096, description=(
        "The folder the session works in: its project's assets come before others'."))] = ""


def push_scope(call: Call, p: PushParams) -> None:
    """The session every message of a batch shares, refused once."""
    if p.session_id.strip():
        with call.record() as record:
            _session(call, record, "push", p.session_id)


def push(call: Call, p: PushParams) -> Reply:
    """Up to five pointers to what the owner already owns that this message needs; none when nothing
    clears the bar (a correct answer: a pointer that helps nothing costs tokens every turn)."""
    from total_recall.assets import push as pushed

    with call.record() as record:
        number = _session(call, record, "push", p.session_id)
        got = pushed(record, p.text, session=number, cwd=p.cwd or None, harness=call.harness)
    return {"pointers": [dataclasses.asdict(x) for x in got.pointers], "tokens": got.tokens, "off": got.off}


class MuteParams(Params):
    name: Annotated[str, Field(max_length=500, description=(
        "The asset to keep out of pushes (its name or an alias), until unmuted.")), BLANK_AS_SPACE,
                    PRINTABLE] = ""
    all: Annotated[bool, Field(description=(
        "Every asset: the push is off until `unmute` with `all` turns it back on."))] = False


class UnmuteParams(Params):
    name: Annotated[str, Field(max_length=500, description=(
        "The muted asset to let back into pushes (its name or an alias, as muted).")), BLANK_AS_SPACE,
                    PRINTABLE] = ""
    all: Annotated[bool, Field(description="The push itself: back on after `mute` with `all`.")] = False


def mute(call: Call, p: MuteParams) -> Reply:
    return _switch(call, p, "mute")


def unmute(call: Call, p: UnmuteParams) -> Reply:
    return _switch(call, p, "unmute")


def _switch(call: Call, p: MuteParams | UnmuteParams, action: Literal["mute", "unmute"]) -> Reply:
    from total_recall import assets as index
    from total_recall.assets.words import normal_name

    name = _muted_name(action, p)
    with call.record() as record:
        before = index.muted(record)
        hit = (index.mute if action == "mute" else index.unmute)(record, name)
        now = sorted(index.muted(record))
    if action == "unmute" and name != PUSH_OFF and normal_name(name) not in before:
        # Lifting what was never there changes nothing: said, as a mute of a name no asset has yet is.
        muted = ", ".join(repr(n) for n in now if n != PUSH_OFF) or "none"
        call.notes.append(f"nothing named {name!r} was muted, so nothing changed (muted now: {muted})")
    return {f"{action}d": name, "assets": sorted(hit), "names_muted": now, "push": PUSH_OFF not in now}


def _muted_name(op: str, p: MuteParams | UnmuteParams) -> str:
    from total_recall.errors import ScopeError

    if p.all == bool(p.name.strip()):
        raise ScopeError(f"{op}: give a `name`, or `all`=true for every asset (not both)")
    return PUSH_OFF if p.all else p.name.strip()


OPERATIONS: tuple[Operation[Any], ...] = (
    Operation(
        "assets", "finding", Effect.READS, AssetsParams, assets,
        flags={"session_id": "session"}, example="total-recall assets --kind skill",
        doc="What the owner owns — skills, commands, agents, tools and scripts the agent wrote, machines "
            "(where the login is kept, never the secret), decisions, past approaches, documents, MCP "
            "servers — each with its keys (names, topics, uses: what it is for), every key with the "
            "address or path it came from. `rebuild` makes the index again from the record and the "
            "harnesses' config roots."),
    Operation(
        "push", "finding", Effect.READS, PushParams, push, argument=("text",), batch="text",
        shared=push_scope, flags={"session_id": "session"},
        example="total-recall push 'grab last quarter's report from the supplier portal'",
        doc="The pointers pushed before a turn: up to five things the owner already owns that the message "
            "needs (`name — what it is for — address or path`), an asset the message names first; none "
            "when nothing clears the bar."),
    Operation(
        "mute", "finding", Effect.ADDS, MuteParams, mute, argument=("name",), binds=False,
        example="total-recall mute 'portal relay'",
        doc="Keep an asset out of every push from now on, as the owner saying \"don't mention X\" does "
            "(`all`: turn the push off)."),
    Operation(
        "unmute", "finding", Effect.ADDS, UnmuteParams, unmute, argument=("name",), binds=False,
        example="total-recall unmute 'portal relay'",
        doc="Let a muted asset be pushed again (`all`: turn the push back on)."),
)
