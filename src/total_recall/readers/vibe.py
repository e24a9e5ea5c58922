"""Mistral Vibe: one folder per session (`meta.json` + `messages.jsonl`), and the pre-2.0 single file.

Layout (`~/.vibe/logs/session/`): `session_<ts>_<id8>/{meta.json,messages.jsonl}`; subagents in
`<session_dir>/agents/<name>_<ts>_<id8>/`; pre-2.0 `session_*.json` = `{metadata, messages}`.
Messages carry no timestamps, so entries have none.

Relations: Vibe opens a new session folder with `parent_session_id` set on compaction (the first
message is an injected `<compaction_summary>` message), on `fork` and on rewind (both copy a prefix of
the parent's messages and diverge, so both are `fork`), and for subagents (`agents/` folders). `/clear`
starts a session without a parent, so `continuation` never applies here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from total_recall.errors import SourceError
from total_recall.model import Author, EntryDraft, Kind, ReadWarning, SessionDraft
from total_recall.readers.base import (
    Checkpoint,
    Cursor,
    Item,
    JsonlReader,
    Line,
    Source,
    base64_size,
    distinct_key,
    first_lines,
    json_text,
    loads_lenient,
    open_payload,
    stat_fingerprint,
    tool_output,
)

MESSAGES = "messages.jsonl"
META = "meta.json"
SINGLE_FILE_GLOB = "session_*.json"
TITLE_CHARS = 50  # Vibe's own fallback title: the first user message cut to 50 chars + "…"
COMPACTION_TAGS = ("<compaction_summary>", "<previous_user_messages>")
# Older Vibe builds injected this sentence without the tags.
COMPACTION_LEAD = "You are continuing a trajectory after a context compaction"


@dataclass(slots=True)
class _Session:
    native_id: str
    title_known: bool
    keys: dict[str, str] = field(default_factory=dict)  # message ids seen in this read (distinct_key)


class VibeReader(JsonlReader):
    harness = "vibe"

    def __init__(self) -> None:
        # Session facts found by begin() for the lines of the same read, by source key.
        self._open: dict[str, _Session] = {}

    def sources(self, root: Path) -> Iterator[Source]:
        if root.is_file():
            if root.name.endswith(".jsonl"):
                yield Source(self.harness, str(root), root, "jsonl")
            elif root.match(SINGLE_FILE_GLOB):
                yield Source(self.harness, str(root), root, "tree")
            return
        if not root.is_dir():
            return
        found: list[Source] = [
            Source(self.harness, str(p), p, "jsonl") for p in root.rglob(MESSAGES) if p.is_file()
        ]
        # Pre-2.0 files sit directly in the save dir: the root itself or `logs/session` of a Vibe home.
        for folder in (root, root / "logs" / "session"):
            if folder.is_dir():
                singles = [p for p in folder.glob(SINGLE_FILE_GLOB) if p.is_file()]
                found += [Source(self.harness, str(p), p, "tree") for p in singles]
        yield from sorted({s.key: s for s in found}.values(), key=lambda s: s.key)

    def fingerprint(self, source: Source) -> str:
        if source.kind == "tree":
            return stat_fingerprint(source.path)
        return stat_fingerprint(source.path, source.path.parent / META)

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        if source.kind == "tree":
            yield from self._read_single_file(source)
            return
        try:
            for item in super().read(source, cursor):
                if isinstance(item, Checkpoint) and (session := self._open.get(source.key)) is not None:
                    # Whether the message a fallback title comes from was met: a file that held only a
                    # system line when first read is titled by its first user message when that comes.
                    item = Checkpoint(replace(item.cursor, state={"titled": session.title_known}))
                yield item
        finally:
            self._open.pop(source.key, None)

    def begin(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        folder = source.path.parent
        meta, warning = _load_meta(folder / META)
        if warning is not None:
            yield warning
        native = _str(meta.get("session_id")) or folder.name
        parent = _str(meta.get("parent_session_id"))
        is_subagent = folder.parent.name == "agents"
        if is_subagent and parent is None:
            parent = _enclosing_session_id(folder.parent.parent)
        relation: str | None = None
        if is_subagent:
            relation = "subagent"
        elif parent is not None:
            first = _first_line(source.path)
            relation = "compaction" if first is not None and _compaction_text(first) else "fork"
        title = _str(meta.get("title"))
        # A read resumed past the first lines has passed the message a fallback title comes from, unless its
        # cursor says it has not (a cursor from before said nothing).
        met = cursor.state.get("titled")
        self._open[source.key] = _Session(native, title is not None or (
            met if isinstance(met, bool) else cursor.offset > 0))
        yield _draft(native, meta, parent, relation)

    def parse(self, source: Source, line: Line) -> Iterator[Item]:
        session = self._open.get(source.key)
        if session is None:  # parse() called outside read(): the folder name is all we know cheaply
            session = _Session(source.path.parent.name, True)
        obj = line.obj
        if not session.title_known and obj.get("role") != "system":
            # Vibe's fallback title is its first user message, after any system line (older files).
            session.title_known = True
            title = fallback_title(_content_text(obj.get("content"))) if obj.get("role") == "user" else None
            if title:
                yield SessionDraft(session.native_id, title=title)
        mid = _str(obj.get("message_id"))
        base = distinct_key(session.keys, mid, line.raw) if mid else f"L{line.number}"
        for n, (author, kind, text, extra) in enumerate(_pieces(obj)):
            yield EntryDraft(
                session=session.native_id,
                author=author,
                kind=kind,
                text=text,
                key=base if n == 0 else f"{base}:{n}",
                raw=line.raw,
                line=line.number,
                **extra,
            )

    def _read_single_file(self, source: Source) -> Iterator[Item]:
        """A pre-2.0 `{metadata, messages}` file, whole; keys are stable so a re-read adds nothing."""
        try:
            with open_payload(source.path) as fh:
                data = fh.read()
        except OSError as exc:
            raise SourceError(f"{source.path}: cannot read: {exc}") from exc
        try:
            doc = orjson.loads(data) if data.strip() else {}
        except orjson.JSONDecodeError as exc:
            raise SourceError(f"{source.path}: not JSON ({exc.msg})") from exc
        if not isinstance(doc, dict):
            raise SourceError(f"{source.path}: not a JSON object (a {type(doc).__name__})")
        meta = doc.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        messages = doc.get("messages", [])
        if not isinstance(messages, list):
            raise SourceError(f"{source.path}: `messages` is not a list")
        native = _str(meta.get("session_id")) or source.path.stem
        parent = _str(meta.get("parent_session_id"))
        relation = None
        if parent is not None:
            first = next((m for m in messages if isinstance(m, dict) and m.get("role") != "system"), None)
            relation = "compaction" if first is not None and _compaction_text(first) else "fork"
        draft = _draft(native, meta, parent, relation)
        if draft.title is None:
            first_user = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), None)
            if first_user is not None:
                draft.title = fallback_title(_content_text(first_user.get("content")))
        yield draft
        seen: dict[str, str] = {}
        for i, msg in enumerate(messages, 1):
            if not isinstance(msg, dict):
                yield ReadWarning(str(source.path), f"message {i} is not a JSON object")
                continue
            raw = orjson.dumps(msg)
            mid = _str(msg.get("message_id"))
            base = distinct_key(seen, mid, raw) if mid else f"M{i}"
            for n, (author, kind, text, extra) in enumerate(_pieces(msg)):
                yield EntryDraft(
                    session=native,
                    author=author,
                    kind=kind,
                    text=text,
                    key=base if n == 0 else f"{base}:{n}",
                    raw=raw,
                    row=f"messages:{i}",
                    **extra,
                )
        yield Checkpoint(Cursor(state={"messages": len(messages)}))


_Piece = tuple[Author, Kind, str, dict[str, Any]]


def _pieces(msg: dict[str, Any]) -> list[_Piece]:
    """The entries of one Vibe message, in reading order (reasoning before the reply it led to)."""
    role = msg.get("role")
    text = _content_text(msg.get("content"))
    if role == "user":
        text += _images_text(msg.get("images"))
        if msg.get("injected") is True:
            if _compaction_text(msg):
                kind: Kind = "summary" if "<compaction_summary>" in text else "message"
                return [
                    ("harness", "compaction", "compaction (context carried over)", {}),
                    ("harness", kind, text, {}),
                ]
            return [("harness", "message", text, {})]
        return [("owner", "message", text, {})]
    if role == "assistant":
        out: list[_Piece] = []
        reasoning = msg.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            out.append(("agent", "thinking", reasoning, {}))
        if text:
            out.append(("agent", "message", text, {}))
        calls = msg.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, dict):
                continue
            fn = call.get("function")
            fn = fn if isinstance(fn, dict) else {}
            args = fn.get("arguments")
            out.append(
                (
                    "agent",
                    "tool_call",
                    args if isinstance(args, str) else json_text(args if args is not None else {}),
                    {"tool": _str(fn.get("name")), "group": _str(call.get("id"))},
                )
            )
        return out or [("agent", "message", text, {})]
    if role == "tool":
        return [
            (
                "tool",
                "tool_result",
                tool_output(text),
                {"tool": _str(msg.get("name")), "group": _str(msg.get("tool_call_id"))},
            )
        ]
    if role == "system":
        return [("system", "message", text, {})]
    label = f"role {role}" if isinstance(role, str) else "message without a role"
    return [("harness", "meta", f"{label}: {text}" if text else label, {})]


def _compaction_text(msg: dict[str, Any]) -> bool:
    """Whether a message is Vibe's injected post-compaction context."""
    if msg.get("role") != "user" or msg.get("injected") is not True:
        return False
    text = _content_text(msg.get("content"))
    return any(tag in text for tag in COMPACTION_TAGS) or text.startswith(COMPACTION_LEAD)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # Vibe joins list content on load; so do we
        parts = [
            p if isinstance(p, str) else _str(p.get("text")) or ""
            for p in content
            if isinstance(p, str | dict)
        ]
        return "\n".join(parts)
    return json_text(content)


def _images_text(images: Any) -> str:
    if not isinstance(images, list):
        return ""
    out = []
    for img in images:
        if not isinstance(img, dict):
            continue
        src = img.get("source")
        src = src if isinstance(src, dict) else img  # legacy flat {path | data}
        mime = _str(img.get("mime_type")) or "image"
        data = src.get("data")
        if isinstance(data, str):
            out.append(f"[image: {mime}, {base64_size(data)} bytes]")
        else:
            out.append(f"[image: {mime}, {_str(src.get('path')) or 'unknown source'}]")
    return "".join("\n" + s for s in out)


def fallback_title(text: str) -> str | None:
    """Vibe's own title for a session its meta.json names no other way: the first user message, cut."""
    text = text.strip()
    if not text:
        return None
    return text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS] + "…"


def _load_meta(path: Path) -> tuple[dict[str, Any], ReadWarning | None]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}, ReadWarning(str(path), "meta.json is missing; session id from the folder name")
    except OSError as exc:
        return {}, ReadWarning(str(path), f"meta.json is unreadable ({exc.strerror or exc})")
    try:
        meta = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        why = f"meta.json is not JSON ({exc.msg}); session id from the folder name"
        return {}, ReadWarning(str(path), why)
    if not isinstance(meta, dict):
        return {}, ReadWarning(str(path), f"meta.json is not a JSON object (a {type(meta).__name__})")
    return meta, None


def _enclosing_session_id(folder: Path) -> str:
    meta, _ = _load_meta(folder / META)
    return _str(meta.get("session_id")) or folder.name


def _first_line(path: Path) -> dict[str, Any] | None:
    try:
        obj = loads_lenient(first_lines(path)[0])[0]
    except (IndexError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _draft(native: str, meta: dict[str, Any], parent: str | None, relation: str | None) -> SessionDraft:
    env = meta.get("environment")
    profile = meta.get("agent_profile")
    extra: dict[str, Any] = {
        k: meta[k] for k in ("git_commit", "git_branch", "username", "stats", "title_source") if meta.get(k)
    }
    if isinstance(profile, dict) and profile.get("name"):
        extra["agent_profile"] = profile["name"]
    return SessionDraft(
        native_id=native,
        title=_str(meta.get("title")),
        cwd=_str(env.get("working_directory")) if isinstance(env, dict) else None,
        parent_native=parent,
        relation=relation,
        started=_str(meta.get("start_time")),
        ended=_str(meta.get("end_time")),
        meta=extra or None,
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
