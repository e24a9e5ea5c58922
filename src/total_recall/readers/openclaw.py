"""OpenClaw (ex-Clawdbot) and pi-coding-agent: JSONL transcripts in pi's SessionManager format.

Layouts: `~/.openclaw/agents/<agent>/sessions/<sessionId>.jsonl` with a `sessions.json` store beside
them (sessionKey -> {sessionId, label, displayName, ...}); archived `*.jsonl.deleted.<ms>` and
`*.jsonl.reset.<iso>` files and cold archives `sessions/cold/<sha256>.jsonl.zst` are read too (same header
id -> same session, same keys -> no duplicates); pi's own `~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`.
Newer OpenClaw versions keep transcripts in `agents/<agent>/agent/openclaw-agent.sqlite`, which is not read:
it is a source only so that a sync says so.

v3 (and v2) lines are `{type, id, parentId, timestamp}` tree nodes: entries carry them as
`native_id`/`native_parent` and every node yields at least one entry so the tree stays connected.
v1 files have no ids: entries are keyed by line and read in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from total_recall.errors import SourceError
from total_recall.model import Author, EntryDraft, Kind, ReadWarning, SessionDraft
from total_recall.readers.base import (
    UTF8_BOM,
    Checkpoint,
    Cursor,
    Ending,
    Item,
    JsonlReader,
    Line,
    Source,
    base64_size,
    distinct_key,
    epoch_iso,
    first_lines,
    flagged_failed,
    join_blocks,
    json_text,
    lines_before,
    loads_lenient,
    stat_fingerprint,
    title_line,
    tool_output,
    unlisted,
    walk_files,
)

STORE = "sessions.json"
ARCHIVE_GLOBS = ("*.jsonl.deleted.*", "*.jsonl.reset.*", "*.jsonl.zst")
# The per-agent transcript database of newer versions (`transcript_events`), not read yet.
AGENT_DB = "openclaw-agent.sqlite"
# pi names files `<ISO time with dashes>_<session uuid>.jsonl`.
_PI_NAME = re.compile(r"^\d{4}-\d\d-\d\dT[\d-]+Z?_(?P<id>.+)$")
# Store fields worth keeping on the session (the rest is token bookkeeping that changes every turn).
_STORE_META = ("chatType", "label", "displayName", "compactionCount", "modelOverride", "thinkingLevel")
_ENVELOPE = ("type", "id", "parentId", "timestamp")
TRANSCRIPT_ONLY_MODELS = ("gateway-injected", "delivery-mirror")


# Title sources, ranked: the store's label (given by begin() on every read) beats a `session_info` name (pi's
# `/name`) beats the first line of the owner's first message (what pi's own `/resume` list shows).
_FIRST_WORDS, _NAMED, _STORE = 0, 1, 2


@dataclass(slots=True)
class _Session:
    native_id: str
    title_rank: int = -1  # the best title source met so far, this read or an earlier one (Cursor.state)
    # Every node id read so far, this read or an earlier one (Cursor.state), with its first line's digest
    # (distinct_key): a later line reusing an id with other content is keyed apart however the file was read.
    keys: dict[str, str] = field(default_factory=dict)
    ending: Ending = field(default_factory=Ending)

    def saved(self) -> dict[str, Any]:
        return {"title_rank": self.title_rank, "ids": dict(self.keys)}


_Piece = tuple[Author, Kind, str, dict[str, Any]]


class OpenClawReader(JsonlReader):
    harness = "openclaw"

    def __init__(self) -> None:
        # Session facts found by begin() for the lines of the same read, by source key.
        self._open: dict[str, _Session] = {}

    def sources(self, root: Path) -> Iterator[Source]:
        if root.is_file():
            if _is_transcript(root):
                yield Source(self.harness, str(root), root, "jsonl")
            return
        if not root.is_dir():
            return
        failed: list[OSError] = []
        for p in sorted(walk_files(root, ("*.jsonl", *ARCHIVE_GLOBS, AGENT_DB), failed)):
            if p.name == AGENT_DB:
                yield Source(self.harness, str(p), p, "sqlite")
            elif _is_transcript(p):
                yield Source(self.harness, str(p), p, "jsonl")
        if failed:
            raise unlisted(failed)

    def fingerprint(self, source: Source) -> str:
        if source.kind == "sqlite":
            return stat_fingerprint(source.path)
        # The store gives titles, so a change there is worth a (cheap, cursor-at-end) re-read.
        return stat_fingerprint(source.path, _store_path(source.path))

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        if source.kind == "sqlite":
            # Said by each sync that finds the database changed: what only it holds is not in the record.
            why = "OpenClaw's transcript database is not read: the sessions kept only in it are not recorded"
            yield ReadWarning(str(source.path), why)
            # A state, so a later sync does not count the whole database as bytes to read (`to_read`).
            yield Checkpoint(Cursor(state={"unread": True}))
            return
        try:
            for item in super().read(source, cursor):
                if isinstance(item, Checkpoint) and (session := self._open.get(source.key)) is not None:
                    yield from session.ending.news(session.native_id)
                    item = Checkpoint(replace(item.cursor, state=session.saved()))
                yield item
        finally:
            self._open.pop(source.key, None)

    def begin(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        header = _header(source.path)
        native = _str(header.get("id")) or _stem_id(source.path)
        draft = SessionDraft(native, cwd=_str(header.get("cwd")), started=_str(header.get("timestamp")))
        parent_path = _str(header.get("parentSession")) or _str(header.get("branchedFrom"))
        if parent_path is not None:
            draft.parent_native = _stem_id(Path(parent_path.replace("\\", "/")))
            draft.relation = "fork"
        meta: dict[str, Any] = {}
        if header:
            meta["version"] = header.get("version", 1)
            meta.update({k: header[k] for k in ("provider", "modelId", "thinkingLevel") if k in header})
        store, warning = _load_store(_store_path(source.path))
        if warning is not None:
            yield warning
        entry_key, entry = _store_entry(store, native, source.path.name)
        if entry is not None:
            draft.title = _str(entry.get("label")) or _str(entry.get("displayName"))
            meta["session_key"] = entry_key
            meta.update({k: entry[k] for k in _STORE_META if k in entry})
            spawner = _str(entry.get("spawnedBy"))
            if spawner is not None:
                spawned = store.get(spawner)
                draft.parent_native = _str(spawned.get("sessionId")) if isinstance(spawned, dict) else None
                draft.relation = "subagent" if draft.parent_native else draft.relation
        draft.meta = meta or None
        rank, ids = cursor.state.get("title_rank"), cursor.state.get("ids")
        if draft.title is not None:
            rank = _STORE
        if cursor.offset and not (isinstance(rank, int) and isinstance(ids, dict)):
            # A cursor saved before the reader kept these: its lines are read once to find them.
            before, first, ids = _read_before(source.path, cursor)
            if not isinstance(rank, int):
                rank, draft.title = before, first
        self._open[source.key] = _Session(native, rank if isinstance(rank, int) else -1,
                                          dict(ids) if isinstance(ids, dict) else {})
        yield draft

    def parse(self, source: Source, line: Line) -> Iterator[Item]:
        session = self._open.get(source.key)
        if session is None:  # parse() called outside read(): the file name is all we know cheaply
            session = _Session(_stem_id(source.path))
        obj = line.obj
        kind = obj.get("type")
        stamp = _timestamp(obj.get("timestamp"))
        if stamp is None and isinstance(obj.get("message"), dict):
            stamp = _timestamp(obj["message"].get("timestamp"))
        session.ending.saw(stamp)
        if kind == "session":
            return  # the header: begin() already turned it into the session draft
        if kind == "session_info" and session.title_rank <= _NAMED:
            name = _str(obj.get("name"))
            if name is not None:
                session.title_rank = _NAMED
                yield SessionDraft(session.native_id, title=name)
        node = _str(obj.get("id"))
        if _is_message(obj):
            message = obj.get("message") if kind == "message" else obj
            if not isinstance(message, dict):
                yield ReadWarning(str(source.path), "`message` is not a JSON object", line.number)
                return
            base = distinct_key(session.keys, node, line.raw) if node else f"L{line.number}"
            pieces = _message_pieces(message, node or base)
            if session.title_rank < _FIRST_WORDS and message.get("role") == "user":
                title = title_line(pieces[0][2])
                if title is not None:
                    session.title_rank = _FIRST_WORDS
                    yield SessionDraft(session.native_id, title=title)
        else:
            base = distinct_key(session.keys, node, line.raw) if node else f"L{line.number}"
            pieces = _entry_pieces(obj)
        parent = _str(obj.get("parentId"))
        for n, (author, entry_kind, text, extra) in enumerate(pieces):
            yield EntryDraft(
                session=session.native_id,
                author=author,
                kind=entry_kind,
                text=text,
                key=base if n == 0 else f"{base}:{n}",
                raw=line.raw,
                timestamp=stamp,
                line=line.number,
                native_id=node,
                native_parent=parent,
                **extra,
            )


def _message_pieces(msg: dict[str, Any], group: str) -> list[_Piece]:
    """The entries of one pi `AgentMessage`, in block order (`group`: its node id, or its line's key in a v1
    file, which ties a `!` command to its output)."""
    role = msg.get("role")
    if role == "user":
        return [("owner", "message", _blocks_text(msg.get("content")), {})]
    if role == "assistant":
        return _assistant_pieces(msg)
    if role == "toolResult":
        extra = {"tool": _str(msg.get("toolName")), "group": _str(msg.get("toolCallId"))}
        text = tool_output(_blocks_text(msg.get("content")))
        return [("tool", "tool_result", flagged_failed(text) if msg.get("isError") is True else text, extra)]
    if role == "bashExecution":
        # A command the human ran with `!` (`!!`: kept out of the model's context), as he typed it (the `!`
        # makes it a command in his words: record/spans.py), then its output.
        out = msg.get("output")
        extra = {"tool": "bash", "group": group}
        bang = "!!" if msg.get("excludeFromContext") is True else "!"
        return [
            ("owner", "tool_call", bang + (_str(msg.get("command")) or ""), extra),
            ("tool", "tool_result", _bash_output(msg, out), extra),
        ]
    if role == "system":
        text = _blocks_text(msg.get("content"))
        sections = msg.get("sections")
        if not text and isinstance(sections, dict):  # pi ≥0.87 keeps the prompt in named sections
            text = "\n\n".join(v for v in sections.values() if isinstance(v, str))
        return [("system", "message", text, {})]
    if role in ("custom", "hookMessage"):
        return [("harness", "message", _blocks_text(msg.get("content")), {})]
    if role in ("branchSummary", "compactionSummary"):
        summary = msg.get("summary")
        text = summary if isinstance(summary, str) else _blocks_text(msg.get("content"))
        return [("harness", "summary", text, {})]
    label = f"message role {role}" if isinstance(role, str) else "message without a role"
    text = _blocks_text(msg.get("content"))
    return [("harness", "meta", f"{label}: {text}" if text else label, {})]


def _assistant_pieces(msg: dict[str, Any]) -> list[_Piece]:
    out: list[_Piece] = []
    # OpenClaw writes its own notices (and mirrors of channel deliveries) as assistant messages.
    speaker: Author = "harness" if _transcript_only(msg) else "agent"
    content = msg.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for block in blocks:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            text = block.get("text")
            if isinstance(text, str) and text:
                out.append((speaker, "message", text, {}))
        elif btype == "thinking":
            thought = block.get("thinking")
            if isinstance(thought, str) and thought:
                out.append(("agent", "thinking", thought, {}))
        elif btype == "toolCall":
            args = block.get("arguments")
            extra = {"tool": _str(block.get("name")), "group": _str(block.get("id"))}
            out.append(("agent", "tool_call", json_text(args if args is not None else {}), extra))
        elif btype == "image":
            out.append(("agent", "message", _image_text(block), {}))
        else:
            out.append(("harness", "meta", f"assistant block {btype}: {json_text(block)}", {}))
    error = msg.get("errorMessage")
    if isinstance(error, str) and error:
        # A failed turn (fetch failed, no API key): the harness's words, but they matter when searching.
        out.append(("harness", "meta", f"{_str(msg.get('stopReason')) or 'error'}: {error}", {}))
    return out or [(speaker, "message", "", {})]


def _bash_output(msg: dict[str, Any], out: Any) -> str:
    """What a `!` command printed, saying as the other readers do when it failed (a first line
    `Exit code: N`), was cancelled, or was cut short (pi keeps the whole output in a file: its path is an
    exact string)."""
    text = tool_output(out) if isinstance(out, str) else json_text(out or "")
    code = msg.get("exitCode")
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    lines = [f"Exit code: {code}"] if failed else []
    lines += ["Cancelled"] if msg.get("cancelled") is True else []
    lines += [text] if text else []
    if msg.get("truncated") is True:
        path = _str(msg.get("fullOutputPath"))
        lines.append(f"[output truncated; the whole of it at {path}]" if path else "[output truncated]")
    return "\n".join(lines)


def _read_before(path: Path, cursor: Cursor) -> tuple[int, str | None, dict[str, str]]:
    """For a read resumed from a cursor saved before the reader kept them in it: among the lines already read,
    the best title source and the first words to title the session by when that is all there is, and the node
    ids with their first lines' digests (`_Session.keys`), as a read of the whole file has them."""
    named, first = False, None
    ids: dict[str, str] = {}
    try:
        for item in lines_before(path, cursor):
            obj = item.obj
            node = _str(obj.get("id"))
            message = obj.get("message") if obj.get("type") == "message" else obj
            if node and obj.get("type") != "session" and (isinstance(message, dict) or not _is_message(obj)):
                distinct_key(ids, node, item.raw)
            named = named or (obj.get("type") == "session_info" and _str(obj.get("name")) is not None)
            if first is None and isinstance(message, dict) and message.get("role") == "user":
                first = title_line(_blocks_text(message.get("content")))
    except SourceError:
        return _FIRST_WORDS, None, ids  # unreadable now: the read itself will say so; no title is guessed
    if named:
        return _NAMED, None, ids  # already given by that line when it was read
    return (_FIRST_WORDS, first, ids) if first is not None else (-1, None, ids)


def _is_message(obj: dict[str, Any]) -> bool:
    """A line holding a pi `AgentMessage`: a `message` node, or a v1 line that is the message itself."""
    kind = obj.get("type")
    return kind == "message" or (kind is None and "role" in obj)


def _transcript_only(msg: dict[str, Any]) -> bool:
    return msg.get("provider") == "openclaw" and msg.get("model") in TRANSCRIPT_ONLY_MODELS


def _entry_pieces(obj: dict[str, Any]) -> list[_Piece]:
    """The entries of a non-message line: compaction, summaries and bookkeeping."""
    kind = obj.get("type")
    if kind == "compaction":
        bits = [
            f"tokensBefore={obj['tokensBefore']}" if "tokensBefore" in obj else "",
            f"firstKeptEntryId={obj['firstKeptEntryId']}" if "firstKeptEntryId" in obj else "",
            f"firstKeptEntryIndex={obj['firstKeptEntryIndex']}" if "firstKeptEntryIndex" in obj else "",
            "fromHook" if obj.get("fromHook") else "",
        ]
        label = ", ".join(b for b in bits if b)
        summary = obj.get("summary")
        out: list[_Piece] = [("harness", "compaction", f"compaction: {label}" if label else "compaction", {})]
        if isinstance(summary, str) and summary:
            out.append(("harness", "summary", summary, {}))
        return out
    if kind == "branch_summary":
        summary = obj.get("summary")
        return [("harness", "summary", summary if isinstance(summary, str) else json_text(summary), {})]
    if kind == "custom_message":
        return [("harness", "message", _blocks_text(obj.get("content")), {})]
    if kind == "model_change":
        model = "/".join(s for s in (_str(obj.get("provider")), _str(obj.get("modelId"))) if s)
        return [("harness", "meta", f"model_change: {model}", {})]
    if kind == "thinking_level_change":
        return [("harness", "meta", f"thinking_level_change: {obj.get('thinkingLevel')}", {})]
    if kind == "session_info":
        return [("harness", "meta", f"session_info: {obj.get('name')}", {})]
    if kind == "label":
        return [("harness", "meta", f"label: {obj.get('label')} (on {obj.get('targetId')})", {})]
    if kind == "custom":
        data = obj.get("data")
        text = f"custom: {obj.get('customType')}"
        return [("harness", "meta", f"{text} {json_text(data)}" if data is not None else text, {})]
    # reset, unknown and future types: name plus whatever else the line says
    rest = {k: v for k, v in obj.items() if k not in _ENVELOPE}
    label = kind if isinstance(kind, str) else "untyped line"
    return [("harness", "meta", f"{label} {json_text(rest)}" if rest else label, {})]


def _blocks_text(content: Any) -> str:
    """String content as is; block lists as text blocks joined by newlines, images as placeholders."""
    return join_blocks(content, _block_text)


def _block_text(block: dict[str, Any]) -> str:
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if btype == "image":
        return _image_text(block)
    return json_text(block)


def _image_text(block: dict[str, Any]) -> str:
    mime = _str(block.get("mimeType")) or _str(block.get("mime_type")) or "image"
    data = block.get("data")
    size = base64_size(data) if isinstance(data, str) else 0
    return f"[image: {mime}, {size} bytes]"


def _timestamp(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    return epoch_iso(value, "ms")


def _is_transcript(path: Path) -> bool:
    name = path.name
    return name.endswith((".jsonl", ".jsonl.zst")) or ".jsonl.deleted." in name or ".jsonl.reset." in name


def _store_path(path: Path) -> Path:
    """The `sessions.json` that may name a transcript: beside it, or beside its `cold/` archive folder."""
    folder = path.parent
    return (folder.parent if folder.name == "cold" else folder) / STORE


def _stem_id(path: Path) -> str:
    """A session id from a file name: `<id>.jsonl[.deleted.<ms>]`, pi's `<time>_<id>.jsonl`."""
    stem = path.name.split(".jsonl", 1)[0]
    m = _PI_NAME.match(stem)
    return m.group("id") if m else stem


def _header(path: Path) -> dict[str, Any]:
    """The first line when it is a `session` header (cheap: nothing else is read)."""
    try:
        obj = loads_lenient(first_lines(path)[0])[0]
    except (IndexError, ValueError):
        return {}
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}


def _load_store(path: Path) -> tuple[dict[str, Any], ReadWarning | None]:
    try:
        data = path.read_bytes().removeprefix(UTF8_BOM)  # an editor's encoding mark, not JSON
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, ReadWarning(str(path), f"sessions.json is unreadable ({exc.strerror or exc})")
    try:
        store = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return {}, ReadWarning(str(path), f"sessions.json is not JSON ({exc.msg}); no titles from it")
    if not isinstance(store, dict):
        return {}, ReadWarning(str(path), f"sessions.json is not a JSON object (a {type(store).__name__})")
    return store, None


def _store_entry(
    store: dict[str, Any], native: str, file_name: str
) -> tuple[str | None, dict[str, Any] | None]:
    for key, entry in store.items():
        if not isinstance(entry, dict):
            continue
        session_file = _str(entry.get("sessionFile"))
        if entry.get("sessionId") == native or (
            session_file is not None and session_file.replace("\\", "/").rsplit("/", 1)[-1] == file_name
        ):
            return key, entry
    return None, None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
