"""Mistral Vibe: one folder per session (`meta.json` + `messages.jsonl`), and the pre-2.0 single file.

Layout (`~/.vibe/logs/session/`): `session_<ts>_<id8>/{meta.json,messages.jsonl}`; subagents in
`<session_dir>/agents/<name>_<ts>_<id8>/`; pre-2.0 `session_*.json` = `{metadata, messages}`.
Messages carry no timestamps, so entries have none.

Relations: Vibe opens a new session folder with `parent_session_id` set on compaction (the first
message after any system line is an injected `<compaction_summary>` message), on `fork` and on rewind
(both copy a prefix of the parent's messages and diverge, so both are `fork`), and for subagents
(`agents/` folders). `/clear` starts a session without a parent, so `continuation` never applies here.
Until a child holds a message past its system line, its relation is left unsaid (decided when it comes).

Identity: a session is the `session_id` of its meta.json, else (meta.json missing or unreadable when the
folder is first read) the folder's name; the cursor keeps the id the first read took (`native`), so a
meta.json that comes, goes or breaks between syncs never splits the folder into two sessions. So that a
meta.json not written yet (Vibe writes it after messages.jsonl) or caught half-copied does not leave the
folder's name as its id for good, a folder first met without a readable one is left unread for up to
META_WAIT seconds (the cursor's `held_until`, `recheck_at`). A cursor from before the id was kept was
written by a reader that took meta.json's id whenever it could read it: that id again, or, while meta.json
is there but unreadable, a SourceError (read again at the next sync) rather than a guess that could split
the session.

A sub-agent's (`agents/` folder) user messages are the prompts its parent agent gave it: `agent`, as the
Claude Code and Codex readers have it. A message id reused by a later line with other content is keyed apart
(`distinct_key`); the ids met so far ride in the cursor (`ids`), so a later sync keys such a line as a read
of the whole file does.

Titles: meta.json's, else Vibe's own fallback (the first user message, cut). A compaction child goes on
with its parent's conversation, so it is listed under the name the conversation already has: its parent's
title (up a chain of compactions), or the parent's first message as the parent is titled; with no parent
folder to be found, the first message the owner typed in the child. Never the injected compaction context:
Vibe's automatic title of a compaction child is that context cut at 50 characters ("You are continuing a
trajectory after a context co…"), which would name every continued conversation alike, so it is passed
over; a title the owner set by hand (`title_source` "manual") is kept.
"""

from __future__ import annotations

import glob
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from total_recall.errors import SourceError
from total_recall.model import Author, EntryDraft, Kind, ReadWarning, SessionDraft
from total_recall.readers.base import (
    LINE_LIMIT,
    UTF8_BOM,
    Checkpoint,
    Cursor,
    Item,
    JsonlReader,
    Line,
    Source,
    base64_size,
    distinct_key,
    epoch_iso,
    json_text,
    lines_before,
    loads_lenient,
    open_payload,
    stat_fingerprint,
    tool_output,
    unlisted,
    walk_files,
)

MESSAGES = "messages.jsonl"
META = "meta.json"
SINGLE_FILE_GLOB = "session_*.json"
TITLE_CHARS = 50  # Vibe's own fallback title: the first user message cut to 50 chars + "…"
COMPACTION_TAGS = ("<compaction_summary>", "<previous_user_messages>")
# Older Vibe builds injected this sentence without the tags.
COMPACTION_LEAD = "You are continuing a trajectory after a context compaction"
# Lines peeked at the head of a messages.jsonl (past system lines and injections) for a relation or title.
HEAD_LINES = 16
# Compaction parents followed up for a child's title (a cycle or a long chain stops there).
CHAIN_LIMIT = 64
# How long (s) a session folder first met with no readable meta.json waits for it before it is read under the
# folder's name (`_hold`).
META_WAIT = 600


@dataclass(slots=True)
class _Session:
    native_id: str
    title_known: bool  # no fallback title is left to take from a message
    parent: str | None = None
    relation_known: bool = True  # False: a child holding no message past its system line yet
    compaction: bool = False  # a compaction child: its fallback title is the owner's first message
    folder: Path | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # Each message id met in the folder and a hash of its first line (distinct_key), kept in the cursor so a
    # line reusing an id in a later sync is keyed as a read of the whole file keys it.
    keys: dict[str, str] = field(default_factory=dict)
    prompter: Author = "owner"  # who wrote its user messages: a sub-agent's are its parent agent's prompts


class VibeReader(JsonlReader):
    harness = "vibe"

    def __init__(self) -> None:
        # Session facts found by begin() for the lines of the same read, by source key.
        self._open: dict[str, _Session] = {}

    def sources(self, root: Path) -> Iterator[Source]:
        """Every session under `root`.

        Raises:
            OSError: a folder under `root` (or `root`) cannot be listed, naming each; raised once every
                session found elsewhere has been yielded, so the sync reads those and reports the rest.
        """
        if root.is_file():
            if root.name.endswith(".jsonl"):
                yield Source(self.harness, str(root), root, "jsonl")
            elif root.match(SINGLE_FILE_GLOB):
                yield Source(self.harness, str(root), root, "tree")
            return
        if not root.is_dir():
            return
        failed: list[OSError] = []
        found = [Source(self.harness, str(p), p, "jsonl") for p in walk_files(root, (MESSAGES,), failed)]
        # Pre-2.0 files sit directly in the save dir: the root itself or `logs/session` of a Vibe home.
        for folder in (root, root / "logs" / "session"):
            if folder.is_dir():
                singles = [p for p in folder.glob(SINGLE_FILE_GLOB) if p.is_file()]
                found += [Source(self.harness, str(p), p, "tree") for p in singles]
        yield from sorted({s.key: s for s in found}.values(), key=lambda s: s.key)
        if failed:
            raise unlisted(failed)

    def fingerprint(self, source: Source) -> str:
        if source.kind == "tree":
            return stat_fingerprint(source.path)
        return stat_fingerprint(source.path, source.path.parent / META)

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        if source.kind == "tree":
            yield from self._read_single_file(source)
            return
        if cursor.offset == 0 and not cursor.state.get("native"):
            held = _hold(source.path.parent / META, cursor)
            if held is not None:
                yield held[0]
                yield Checkpoint(Cursor(state=held[1]))
                return
        try:
            for item in super().read(source, cursor):
                if isinstance(item, Checkpoint) and (session := self._open.get(source.key)) is not None:
                    # The session id this source was first read under (never taken again from meta.json,
                    # which may have changed or broken since), and whether the message a fallback title
                    # comes from was met: a file that held only a system line when first read is titled
                    # by its first user message when that comes. And the message ids met so far (a copy: the
                    # read goes on adding to them).
                    state = {"native": session.native_id, "titled": session.title_known,
                             "ids": dict(session.keys)}
                    item = Checkpoint(replace(item.cursor, state=state))
                yield item
        finally:
            self._open.pop(source.key, None)

    def begin(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        folder = source.path.parent
        meta, warning = _load_meta(folder / META)
        native = _native(folder, meta, warning, cursor)
        if warning is not None:
            how = "from the folder name" if native == folder.name else "kept from the first read"
            yield replace(warning, why=f"{warning.why}; session id {how}")
        parent = _str(meta.get("parent_session_id"))
        is_subagent = folder.parent.name == "agents"
        if is_subagent and parent is None:
            parent = _enclosing_session_id(folder.parent.parent)
        relation: str | None = None
        first: dict[str, Any] | None = None
        if is_subagent:
            relation = "subagent"
        elif parent is not None:
            # Older files open with a system line: the first message past it tells a compaction.
            first = _head_message(source.path, _not_system)
            relation = None if first is None else "compaction" if _compaction_text(first) else "fork"
        title = _str(meta.get("title"))
        if relation == "compaction":  # titled as the module's docstring says
            title = _child_title(folder, meta, first, parent)
        # A read resumed past the first lines has passed the message a fallback title comes from, unless its
        # cursor says it has not (a cursor from before said nothing).
        met = cursor.state.get("titled")
        ids = cursor.state.get("ids")
        if not isinstance(ids, dict):
            # A cursor saved before the reader kept them: the lines already read are read once to find them.
            ids = _ids_before(source.path, cursor) if cursor.offset else {}
        self._open[source.key] = _Session(
            native, title is not None or (met if isinstance(met, bool) else cursor.offset > 0), parent,
            relation is not None or parent is None, relation == "compaction", folder, meta, dict(ids),
            "agent" if is_subagent else "owner")
        yield _draft(native, meta, parent, relation, title)

    def parse(self, source: Source, line: Line) -> Iterator[Item]:
        session = self._open.get(source.key)
        if session is None:  # parse() called outside read(): the folder name is all we know cheaply
            session = _Session(source.path.parent.name, True)
        obj = line.obj
        if not session.relation_known and _not_system(obj):
            yield _decided(session, obj)
        # Vibe's fallback title is its first user message, after any system line (older files); a compaction
        # child's is the first the owner typed, past the injected context.
        if not session.title_known and _not_system(obj) and (_owner(obj) or not session.compaction):
            session.title_known = True
            title = fallback_title(_content_text(obj.get("content"))) if _user(obj) else None
            if title:
                yield SessionDraft(session.native_id, title=title)
        mid = _str(obj.get("message_id"))
        base = distinct_key(session.keys, mid, line.raw) if mid else f"L{line.number}"
        for n, (author, kind, text, extra) in enumerate(_pieces(obj, session.prompter)):
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
            data = data.removeprefix(UTF8_BOM)
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
        first = None
        if parent is not None:
            first = next((m for m in messages if isinstance(m, dict) and _not_system(m)), None)
            relation = "compaction" if first is not None and _compaction_text(first) else "fork"
        title = _str(meta.get("title"))
        if relation == "compaction":  # titled as the module's docstring says
            title = _child_title(source.path, meta, first, parent)
        draft = _draft(native, meta, parent, relation, title)
        if draft.title is None:
            said = _owner if relation == "compaction" else _user
            first_user = next((m for m in messages if isinstance(m, dict) and said(m)), None)
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


def _ids_before(path: Path, cursor: Cursor) -> dict[str, str]:
    """The message ids of the lines already read, each with its first line's digest (`_Session.keys`), as a
    read of the whole file has them."""
    ids: dict[str, str] = {}
    try:
        for line in lines_before(path, cursor):
            mid = _str(line.obj.get("message_id"))
            if mid:
                distinct_key(ids, mid, line.raw)
    except SourceError:
        pass  # unreadable now: the read itself says so
    return ids


_Piece = tuple[Author, Kind, str, dict[str, Any]]


def _pieces(msg: dict[str, Any], prompter: Author = "owner") -> list[_Piece]:
    """The entries of one Vibe message, in reading order (reasoning before the reply it led to); `prompter`
    wrote its user messages that Vibe did not inject."""
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
        return [(prompter, "message", text, {})]
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
            p if isinstance(p, str) else _str(p.get("text")) or _image_part(p)
            for p in content
            if isinstance(p, str | dict)
        ]
        return "\n".join(parts)
    return json_text(content)


def _image_part(part: dict[str, Any]) -> str:
    """An image in list content (OpenAI's `image_url` part) as the marker the other readers leave: never its
    bytes, their size."""
    if "image" not in str(part.get("type")):
        return ""
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    if not isinstance(url, str) or not url:
        return "[image]"
    head, comma, data = url.partition(",")
    if url.startswith("data:") and comma:
        mime = head[len("data:"):].split(";")[0] or "image"
        return f"[image: {mime}, {base64_size(data) if head.endswith(';base64') else len(data)} bytes]"
    return f"[image: {url}]"


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
        return {}, ReadWarning(str(path), "meta.json is missing")
    except OSError as exc:
        return {}, ReadWarning(str(path), f"meta.json is unreadable ({exc.strerror or exc})")
    try:
        meta = orjson.loads(data.removeprefix(UTF8_BOM))  # a BOM is an editor's mark, not the JSON's
    except orjson.JSONDecodeError as exc:
        return {}, ReadWarning(str(path), f"meta.json is not JSON ({exc.msg})")
    if not isinstance(meta, dict):
        return {}, ReadWarning(str(path), f"meta.json is not a JSON object (a {type(meta).__name__})")
    return meta, None


# What a meta.json may be only for a moment: not written yet, or caught mid-copy.
_MAY_SETTLE = ("meta.json is missing", "meta.json is not JSON")


def _hold(path: Path, cursor: Cursor) -> tuple[ReadWarning, dict[str, Any]] | None:
    """Whether to leave a folder met for the first time unread, with why and the cursor's state: while its
    meta.json cannot be read (Vibe writes it after messages.jsonl; a copy may be under way), for up to
    META_WAIT seconds from the first sync that found it so. Read then, it would go by its folder's name for
    good (its id is kept so as never to split it), and a child naming it by its real id would not find it."""
    _, warning = _load_meta(path)
    if warning is None or not warning.why.startswith(_MAY_SETTLE):
        return None  # read, or broken in a way no wait mends (JSON of another shape, no permission)
    until = cursor.state.get("held_until")
    if not isinstance(until, str):
        until = epoch_iso(time.time() + META_WAIT) or ""
    if until <= (epoch_iso(time.time()) or ""):
        return None  # waited long enough: read under the folder's name
    why = f"{warning.why}; the session is read once it can be, or from {until} under its folder's name"
    return replace(warning, why=why), {"held_until": until, "recheck_at": until}


def _enclosing_session_id(folder: Path) -> str:
    meta, _ = _load_meta(folder / META)
    return _str(meta.get("session_id")) or folder.name


def _native(folder: Path, meta: dict[str, Any], warning: ReadWarning | None, cursor: Cursor) -> str:
    """The session id of a folder: the one its cursor kept, else meta.json's, else the folder's name.

    Raises:
        SourceError: a cursor from before the id was kept, and meta.json there but unreadable: the id the
            session was recorded under is in it (the next sync reads it again).
    """
    saved = cursor.state.get("native")
    if isinstance(saved, str) and saved:
        return saved
    native = _str(meta.get("session_id"))
    if native is None and cursor.offset > 0 and warning is not None and (folder / META).exists():
        raise SourceError(f"{folder / META}: {warning.why}; it holds the id this folder's session was "
                          "recorded under, so the folder is read on when it can be read again")
    return native or folder.name


def _not_system(msg: dict[str, Any]) -> bool:
    return msg.get("role") != "system"


def _user(msg: dict[str, Any]) -> bool:
    return msg.get("role") == "user"


def _owner(msg: dict[str, Any]) -> bool:
    return msg.get("role") == "user" and msg.get("injected") is not True


def _head_message(path: Path, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The first message among a file's first HEAD_LINES lines that is `wanted` (a cheap peek: stops before
    a line over the line limit; lines that do not parse are passed over, as the read warns of them)."""
    try:
        with open_payload(path) as fh:
            for n in range(HEAD_LINES):
                raw = fh.readline(LINE_LIMIT + 1)
                if not raw or (len(raw) > LINE_LIMIT and not raw.endswith(b"\n")):
                    return None
                try:
                    obj = loads_lenient(raw.removeprefix(UTF8_BOM) if n == 0 else raw)[0]
                except ValueError:
                    continue
                if isinstance(obj, dict) and wanted(obj):
                    return obj
    except (SourceError, OSError):
        return None  # the read itself reports an unreadable payload
    return None


def _decided(session: _Session, first: dict[str, Any]) -> SessionDraft:
    """The relation of a child read while it held nothing past its system line, now that its first message
    has come (and, for a compaction, the title it goes by)."""
    session.relation_known = True
    session.compaction = _compaction_text(first)
    if not session.compaction:
        return SessionDraft(session.native_id, relation="fork")
    title = _child_title(session.folder, session.meta, first, session.parent) if session.folder else None
    session.title_known = title is not None  # else the owner's first message, which comes after this one
    return SessionDraft(session.native_id, title=title, relation="compaction")


def _injection_title(title: str, meta: dict[str, Any], first: dict[str, Any] | None) -> bool:
    """Whether a title is Vibe's automatic one cut from a compaction child's injected context."""
    if first is None or meta.get("title_source") == "manual":
        return False
    core = title.removesuffix("…").strip()
    return bool(core) and _content_text(first.get("content")).strip().startswith(core)


def _child_title(place: Path, meta: dict[str, Any], first: dict[str, Any] | None, parent: str | None
                 ) -> str | None:
    """A compaction child's title: its meta.json's unless cut from the injected context, else the name its
    conversation already has (its parent's); None leaves it to the owner's first message in the child.
    `place`: the child's folder (or pre-2.0 file), in the save folder its parent is looked for in."""
    title = _str(meta.get("title"))
    if title is not None and not _injection_title(title, meta, first):
        return title
    return _parent_title(place.parent, parent)


def _parent_title(where: Path, parent: str | None) -> str | None:
    """The title session `parent` (a folder in `where`) goes by, up a chain of compactions: its meta.json's
    (not one cut from injected context), else its first message as a session is titled. When the chain is
    cut (a parent folder deleted), the first owner message of the earliest compaction child found."""
    seen: set[str] = set()
    earliest: str | None = None
    while parent is not None and parent not in seen and len(seen) < CHAIN_LIMIT:
        seen.add(parent)
        folder = _session_folder(where, parent)
        if folder is None:
            break
        meta, _ = _load_meta(folder / META)
        up = _str(meta.get("parent_session_id"))
        first = _head_message(folder / MESSAGES, _not_system)
        compaction = up is not None and first is not None and _compaction_text(first)
        title = _str(meta.get("title"))
        if title is not None and not (compaction and _injection_title(title, meta, first)):
            return title
        if not compaction:
            return fallback_title(_content_text(first.get("content"))) if first and _user(first) else None
        owner = _head_message(folder / MESSAGES, _owner)
        earliest = fallback_title(_content_text(owner.get("content"))) if owner else earliest
        parent = up
    return earliest


def _session_folder(where: Path, native: str) -> Path | None:
    """The session folder of `native` in a save folder: Vibe names it `<prefix>_<time>_<8 chars of the id>`
    (the first 8; some builds the last), and its meta.json holds the id; or the folder named `native`
    (a session whose meta.json could not be read when first synced goes by its folder's name)."""
    if "/" in native or native in (".", ".."):
        return None
    try:
        for short in dict.fromkeys((native[:8], native[-8:])):
            for folder in sorted(where.glob(f"*_{glob.escape(short)}")):
                if folder.is_dir() and _str(_load_meta(folder / META)[0].get("session_id")) == native:
                    return folder
        named = where / native
        return named if (named / MESSAGES).is_file() else None
    except OSError:  # a save folder that cannot be listed: no parent to name the child by
        return None


def _draft(native: str, meta: dict[str, Any], parent: str | None, relation: str | None,
           title: str | None) -> SessionDraft:
    env = meta.get("environment")
    profile = meta.get("agent_profile")
    extra: dict[str, Any] = {
        k: meta[k] for k in ("git_commit", "git_branch", "username", "stats", "title_source") if meta.get(k)
    }
    if isinstance(profile, dict) and profile.get("name"):
        extra["agent_profile"] = profile["name"]
    return SessionDraft(
        native_id=native,
        title=title,
        cwd=_str(env.get("working_directory")) if isinstance(env, dict) else None,
        parent_native=parent,
        relation=relation,
        started=_str(meta.get("start_time")),
        ended=_str(meta.get("end_time")),
        meta=extra or None,
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
