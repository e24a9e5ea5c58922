"""OpenAI Codex CLI rollouts: `sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl[.zst]`.

One file is one session. Lines are `{timestamp, type, payload, ordinal?, metadata?}` envelopes, or the
legacy pre-envelope form (a bare `{id, timestamp, instructions}` header, `{"record_type": "state"}`
markers and bare response items). Codex writes most conversation twice, as a `response_item` (what the
model saw) and as an `event_msg` (what the UI showed); the two copies are paired so each message is
conversation once and the other copy is kept as a meta entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from total_recall.errors import SourceError
from total_recall.model import Author, EntryDraft, Kind, ReadWarning, SessionDraft
from total_recall.readers.base import (
    Checkpoint,
    Cursor,
    Ending,
    Item,
    JsonlReader,
    Line,
    Source,
    base64_size,
    content_key,
    epoch_iso,
    file_sources,
    first_lines,
    iter_jsonl,
    json_text,
    loads_lenient,
    title_line,
    tool_output,
)

NOT_ROLLOUTS = frozenset({"session_index.jsonl", "history.jsonl"})
_UUID_TAIL = re.compile(r"([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})(?:_[^/]*)?$")
_CONTEXT_PREFIXES = (
    "<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>",
    "<turn_aborted>", "<subagent_notification>", "<skills_instructions>", "<user_shell_command>",
    "<INSTRUCTIONS>", "<collaboration_mode>", "<personality_spec>", "<apps_instructions>", "<skill>",
    "<model_switch>",
)
# Any other message that is one whole `<tag>…</tag>` block is injected context too.
_CONTEXT_BLOCK = re.compile(r"^<([A-Za-z][\w -]*)>.*</\1>$", re.S)
_TEXT_PARTS = ("input_text", "output_text", "text", "refusal", "summary_text", "reasoning_text")
_DETAIL_KEYS = ("message", "text", "reason", "thread_name", "prompt", "query", "revised_prompt",
                "user_facing_hint", "objective")
_COMPACTION_ITEMS = ("compaction", "compaction_summary", "context_compaction")
_STATE_VERSION = 1
_MAX_SLOTS = 64
_MAX_WAIT = 8  # lines an event copy waits for its response-item twin
# Lines a user message with no part kinds waits for the owner's event copy before it counts as context the
# harness injected: far past where Codex writes it (the next line or two), since a wrong call takes his words.
_USER_WAIT = 64


class CodexReader(JsonlReader):
    harness = "codex"

    def sources(self, root: Path) -> Iterator[Source]:
        for src in file_sources(self.harness, root, ("*.jsonl", "*.jsonl.zst")):
            if src.path.name.removesuffix(".zst") not in NOT_ROLLOUTS:
                yield src

    def begin(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        yield SessionDraft(native_id(source.path, cursor))

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        yield from self.begin(source, cursor)
        roll = _Rollout(str(source.path), native_id(source.path, cursor), cursor)
        yield from roll.replayed
        # A checkpoint is held until the next item shows it was not the last: only the last one settles
        # pending event copies, so where the chunks fall never changes what a line becomes.
        held: Checkpoint | None = None
        try:
            for item in iter_jsonl(source.path, cursor):
                if held is not None:
                    yield from roll.ending.news(roll.native)
                    yield Checkpoint(replace(held.cursor, state=roll.saved()))
                    held = None
                if isinstance(item, Line):
                    yield from roll.feed(item)
                elif isinstance(item, Checkpoint):
                    held = item
                else:
                    yield from roll.hold(item)
        except SourceError:
            yield from roll.settle()
            raise
        yield from roll.settle()
        if held is not None:
            yield from roll.ending.news(roll.native)
            yield Checkpoint(replace(held.cursor, state=roll.saved()))

    def parse(self, source: Source, line: Line) -> Iterator[Item]:
        roll = _Rollout(str(source.path), native_id(source.path, Cursor()), Cursor())
        yield from roll.feed(line)
        yield from roll.settle()


def native_id(path: Path, cursor: Cursor) -> str:
    """The uuid ending the file name, else the id of the first session header, else the stem."""
    saved = cursor.state.get("native")
    if isinstance(saved, str) and saved:
        return saved
    stem = path.name.removesuffix(".zst").removesuffix(".jsonl")
    m = _UUID_TAIL.search(stem)
    if m:
        return m.group(1)
    return _peek_id(path) or stem


def _peek_id(path: Path) -> str | None:
    header = _peek_header(path)
    return None if header is None else _str(header.get("id"))


def _peek_subagent(path: Path) -> bool:
    """Whether the rollout's first session header says a sub-agent wrote it (for a cursor saved before
    the reader kept that)."""
    header = _peek_header(path)
    source = None if header is None else header.get("source")
    return isinstance(source, dict) and source.get("subagent") is not None


def _peek_header(path: Path) -> dict[str, Any] | None:
    """The first session header among the rollout's first lines (its payload), if any."""
    try:
        for raw in first_lines(path, 3):
            obj = orjson.loads(raw) if raw.strip() else {}
            payload = obj.get("payload") if isinstance(obj, dict) else None
            if isinstance(payload, dict) and obj.get("type") == "session_meta":
                return payload
            if isinstance(obj, dict) and "type" not in obj and "payload" not in obj:
                return obj
    except Exception:  # an unreadable payload: the read itself reports it
        return None
    return None


@dataclass(slots=True)
class _Slot:
    """One conversational copy waiting for its twin: category u/a/r/c, source r(esponse)/e(vent)."""

    cat: str
    src: str
    digest: str
    line: int
    entry: EntryDraft | None = None  # set while an event copy is pending (not yet yielded)
    title: str | None = None


class _Rollout:
    """The state of reading one rollout; `saved()` goes into the checkpoint cursor."""

    def __init__(self, path: str, native: str, cursor: Cursor) -> None:
        saved = cursor.state if cursor.state.get("v") == _STATE_VERSION else {}
        resumed = cursor.offset > 0
        self.path = path
        self.native = native
        self.identified = bool(saved.get("identified", resumed))
        self.titled = bool(saved.get("titled", resumed))
        # Whether the rollout logs what the owner typed as `user_message` events: then a user-role response
        # item no such event matches is the harness's (context it injected), whatever its words.
        self.user_events = bool(saved.get("user_events", False))
        # A sub-agent's "user" turns are its parent agent's words (a spawn prompt, a generated review).
        self.subagent = (bool(saved["subagent"]) if "subagent" in saved
                         else resumed and _peek_subagent(Path(path)))
        # A second file of the same thread (`…-<thread>_<rollout id>.jsonl`) numbers its lines from 1 again:
        # its keys carry that suffix, so they never collide with the first file's.
        tail = _UUID_TAIL.search(Path(path).name.removesuffix(".zst").removesuffix(".jsonl"))
        suffix = tail.group(0)[len(tail.group(1)):].lstrip("_") if tail else ""
        self.prefix = f"{suffix}:" if suffix else ""
        self.slots = [_Slot(s[0], s[1], s[2], s[3]) for s in saved.get("slots", []) if len(s) == 4]
        self.queue: list[Item] = []  # items held back behind a pending event copy
        self.held: list[list[Any]] = []  # the lines behind `queue`: [n, raw] or [n, None, warning]
        self._mark = self._fields()
        self._line = Line(0, b"", {})
        self._ts: str | None = None
        self.ending = Ending()
        self._out: list[Item] = []
        self.replayed: list[Item] = []
        for rec in saved.get("held", []):
            if rec[1] is None:
                self.replayed += self.hold(ReadWarning(path, str(rec[2]), rec[0]))
            else:
                raw = str(rec[1]).encode()
                self.replayed += self.feed(Line(rec[0], raw, loads_lenient(raw)[0]))

    def _fields(self) -> dict[str, Any]:
        return {"v": _STATE_VERSION, "native": self.native, "identified": self.identified,
                "titled": self.titled, "subagent": self.subagent, "user_events": self.user_events,
                "slots": [[s.cat, s.src, s.digest, s.line] for s in self.slots]}

    def saved(self) -> dict[str, Any]:
        """What a resumed read needs: the state before the held lines, and those lines to read again."""
        return {**self._mark, "held": list(self.held)} if self.queue else self._fields()

    def hold(self, item: ReadWarning) -> list[Item]:
        if self.queue:
            self.queue.append(item)
            self.held.append([item.line, None, item.why])
            return []
        return [item]

    def feed(self, line: Line) -> list[Item]:
        if not self.queue:
            self._mark = self._fields()
        self._line, self._out = line, []
        self._settle_now(line.number - _MAX_WAIT)
        obj = line.obj
        self._ts = _timestamp(obj.get("timestamp"))
        self.ending.saw(self._ts)
        rtype, payload = obj.get("type"), obj.get("payload")
        if "payload" in obj and isinstance(rtype, str):
            self._envelope(rtype, payload)
        elif "record_type" in obj:
            if set(obj) - {"record_type"}:
                self._meta(f"record_type {obj.get('record_type')}", _detail(obj))
        elif isinstance(rtype, str):
            self._response(obj)
        elif _str(obj.get("role")) and "content" in obj:
            self._response({**obj, "type": "message"})  # flattened {role, content} exports
        elif _str(obj.get("id")):
            self._session_meta(obj)
        elif obj:
            self._meta("unrecognized record", None)
        pending = any(s.entry is not None for s in self.slots)
        if not self.queue and not pending:
            return self._out
        self.queue.extend(self._out)
        # As text in the cursor's JSON: invalid UTF-8 (already U+FFFD in the parsed line) goes the same way.
        self.held.append([line.number, line.raw.decode("utf-8", "replace")])
        # Overlapping copies (an events-only rollout) would hold everything back: cap the held tail.
        return [] if pending and len(self.held) <= 4 * _MAX_WAIT else self.settle()

    def settle(self) -> list[Item]:
        """Pending event copies with no twin are the conversation after all; hand over the queue."""
        self._settle_now()
        out, self.queue, self.held = self.queue, [], []
        return out

    # -- line kinds ---------------------------------------------------------------------------

    def _envelope(self, rtype: str, payload: Any) -> None:
        known = rtype in ("session_meta", "response_item", "event_msg", "compacted")
        if known and not isinstance(payload, dict):
            self._out.append(ReadWarning(self.path, f"{rtype} payload is not an object", self._line.number))
            return
        if rtype == "session_meta":
            self._session_meta(payload)
        elif rtype == "response_item":
            self._response(payload)
        elif rtype == "event_msg":
            self._event(payload)
        elif rtype == "compacted":
            self._compacted(payload)
        elif rtype == "turn_context":
            model = _str(payload.get("model")) if isinstance(payload, dict) else None
            self._meta("turn_context", model)
        elif rtype == "world_state":
            full = isinstance(payload, dict) and payload.get("full")
            self._meta("world_state (full)" if full else rtype, None)
        elif payload in (None, "", {}, []):
            self._meta(rtype, None)  # a record of a kind not known here: its label, not nothing
        else:
            self._meta(rtype, _detail(payload) if isinstance(payload, dict) else json_text(payload))

    def _session_meta(self, p: dict[str, Any]) -> None:
        sid = _str(p.get("id")) or "?"
        if self.identified:  # forks and spawned agents copy other threads' headers into the file
            self._meta("session_meta (inherited)", sid)
            return
        self._settle_now()
        self.identified = True
        draft = SessionDraft(self.native, cwd=_str(p.get("cwd")),
                             started=_timestamp(p.get("timestamp")) or self._ts)
        meta = {k: p[k] for k in ("cli_version", "originator", "model_provider", "git", "source",
                                  "forked_from_id", "agent_nickname", "agent_role") if p.get(k) is not None}
        draft.meta = meta or None
        source = p.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
        parent = (_str(spawn.get("parent_thread_id")) if isinstance(spawn, dict) else None) or _str(
            p.get("parent_thread_id"))
        self.subagent = sub is not None
        if parent:
            draft.parent_native, draft.relation = parent, "subagent"
        elif _str(p.get("forked_from_id")):
            draft.parent_native, draft.relation = _str(p.get("forked_from_id")), "fork"
        self._out.append(draft)
        self._meta("session_meta", sid)
        instructions = _str(p.get("instructions"))
        if instructions:
            self._add("harness", "message", instructions)

    def _response(self, p: dict[str, Any]) -> None:
        ptype = _str(p.get("type")) or "?"
        call = _str(p.get("call_id"))
        nid = _str(p.get("id"))
        if ptype == "message":
            self._message(p, nid)
        elif ptype == "reasoning":
            parts = [t for key in ("summary", "content") for t in _texts(p.get(key))]
            text = "\n".join(parts) or ("[encrypted reasoning]" if p.get("encrypted_content") else "")
            digests = [("r", t) for t in _texts(p.get("summary"))]
            digests += [("c", t) for t in _texts(p.get("content"))]
            self._conversational("agent", "thinking", text, digests, nid)
        elif ptype in ("function_call", "custom_tool_call"):
            args = p.get("arguments" if ptype == "function_call" else "input")
            self._add("agent", "tool_call", _plain(args), group=call, tool=_str(p.get("name")), native_id=nid)
        elif ptype in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            if ptype == "tool_search_output":
                text = _content(p.get("tools"))
            else:
                text = tool_output(_content(p.get("output")))
            self._add("tool", "tool_result", text, group=call, native_id=nid)
        elif ptype == "local_shell_call":
            action = p.get("action")
            cmd = action.get("command") if isinstance(action, dict) else None
            text = " ".join(cmd) if _strs(cmd) else json_text(action)
            self._add("agent", "tool_call", text, group=call or nid, tool="local_shell", native_id=nid)
        elif ptype in ("web_search_call", "tool_search_call", "image_generation_call"):
            self._add("agent", "tool_call", _call_text(p), group=call, tool=ptype.removesuffix("_call"),
                      native_id=nid)
        elif ptype == "agent_message":
            self._add("agent", "message", _content(p.get("content")), native_id=nid)
        elif ptype in _COMPACTION_ITEMS:
            self._add("harness", "compaction", ptype, native_id=nid)
        elif ptype == "ghost_snapshot":
            commit = p.get("ghost_commit")
            self._meta(ptype, _str(commit.get("id")) if isinstance(commit, dict) else None)
        else:
            self._meta(ptype, _detail(p))

    def _message(self, p: dict[str, Any], nid: str | None) -> None:
        role = _str(p.get("role")) or "?"
        content = p.get("content")
        texts = [content] if isinstance(content, str) else _texts(content)
        text = _content(content)
        if role == "assistant":
            self._conversational("agent", "message", text, [("a", "\n".join(texts))], nid)
        elif role == "user" and not _is_context(texts, p):
            # Without the kinds of its parts to say whose it is, the event copy decides (`_settle_now`).
            self._conversational(self._asker(), "message", text, [("u", "\n".join(texts))], nid,
                                 title=title_line("\n".join(texts)), waits=not _kinds(p))
        elif role == "system":
            self._add("system", "message", text, native_id=nid)
        else:  # developer, injected user context, tool-role lines of flattened exports
            self._add("tool" if role == "tool" else "harness", "tool_result" if role == "tool" else "message",
                      tool_output(text) if role == "tool" else text, native_id=nid)

    def _conversational(self, author: Author, kind: Kind, text: str, digests: list[tuple[str, str]],
                        nid: str | None, title: str | None = None, waits: bool = False) -> None:
        """A response copy: conversation, unless every part already went out as an event copy. One that
        `waits` (a user message) with no event copy yet is held for it: see `_settle_now`."""
        twins = [self._pair(cat, "r", body) for cat, body in digests]
        if twins and all(t is not None and t.entry is None for t in twins):
            self._add("harness", "meta", text, native_id=nid)
            return
        for twin in twins:
            if twin is not None and twin.entry is not None:
                twin.entry.author, twin.entry.kind = "harness", "meta"
                twin.entry = None
        waiting = waits and twins == [None] and digests[0][1].strip() != ""
        entry = self._add(author, kind, text, native_id=nid)
        for (cat, body), twin in zip(digests, twins, strict=True):
            if twin is None and body.strip():
                self._remember(_Slot(cat, "r", _digest(body), self._line.number, entry if waiting else None,
                                     title if waiting else None))
        if not waiting:
            self._title(title, self._out)

    def _event(self, p: dict[str, Any]) -> None:
        etype = _str(p.get("type")) or "event_msg"
        if etype in ("user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content"):
            text = _plain(p.get("message") if "message" in p else p.get("text"))
            cat = {"user_message": "u", "agent_message": "a", "agent_reasoning": "r"}.get(etype, "c")
            self.user_events = self.user_events or cat == "u"
            twin = self._pair(cat, "e", text)
            if twin is not None:
                if twin.entry is not None:  # the user message it copies was waiting for it: the owner's
                    # Codex writes the context it injects before the owner's message of the turn, and no
                    # event for it: a user message still waiting from before this one is such context.
                    for older in self.slots:
                        if older.entry is not None and older.src == "r" and older.cat == "u" \
                                and older.line < twin.line:
                            older.entry.author, older.entry = "harness", None
                    twin.entry = None
                    self._title(twin.title, self._out)
                self._add("harness", "meta", text)
                return
            author: Author = self._asker() if cat == "u" else "agent"
            if cat == "u" and _is_context([text], {}):
                author = "harness"
            entry = self._add(author, "message" if cat in ("u", "a") else "thinking", text)
            title = title_line(text) if cat == "u" and author != "harness" else None
            if text.strip():
                self._remember(_Slot(cat, "e", _digest(text), self._line.number, entry, title))
            else:
                self._title(title, self._out)
        elif etype == "context_compacted":
            self._add("harness", "compaction", etype)
        elif etype == "thread_name_updated" and _str(p.get("thread_name")):
            self.titled = True
            self._out.append(SessionDraft(self.native, title=_str(p.get("thread_name"))))
            self._meta(etype, _str(p.get("thread_name")))
        elif etype == "task_started":
            self.slots = [s for s in self.slots if s.entry is not None]  # a new turn: old copies are done
            self._meta(etype, None)
        elif etype == "token_count":
            info = p.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else None
            tokens = total.get("total_tokens") if isinstance(total, dict) else None
            self._meta(etype, None if tokens is None else f"{tokens} tokens in total")
        elif etype == "item_completed":
            item = p.get("item")
            item = item if isinstance(item, dict) else {}
            self._meta(f"item_completed {_str(item.get('type')) or '?'}", _detail(item))
        elif etype == "exec_command_end":
            cmd = p.get("command")
            shown = " ".join(cmd) if _strs(cmd) else None
            code = p.get("exit_code")
            self._meta(etype, f"{shown} (exit {code})" if shown and code is not None else shown)
        else:
            self._meta(etype, _detail(p) if etype not in ("task_complete",) else None)

    def _compacted(self, p: dict[str, Any]) -> None:
        self._settle_now()
        parts = []
        if p.get("window_number") is not None:
            parts.append(f"window {p['window_number']}")
        for key, name in (("window_id", "id"), ("previous_window_id", "previous"),
                          ("first_window_id", "first")):
            if _str(p.get(key)):
                parts.append(f"{name} {p[key]}")
        history = p.get("replacement_history")
        if isinstance(history, list):
            parts.append(f"{len(history)} replacement item{'' if len(history) == 1 else 's'}")
        # replacement_history copies earlier items: kept in raw, never re-read as conversation.
        self._add("harness", "compaction", "compacted" + (f" ({', '.join(parts)})" if parts else ""))
        message = p.get("message")
        if isinstance(message, str) and message.strip():
            self._add("harness", "summary", message)
        self.slots = []

    # -- helpers ------------------------------------------------------------------------------

    def _pair(self, cat: str, src: str, body: str) -> _Slot | None:
        """The waiting twin of a copy: same text, else the copy written on the line right before/after."""
        if not body.strip():
            return None
        digest = _digest(body)
        twins = [s for s in self.slots if s.cat == cat and s.src != src]
        same = [s for s in twins if s.digest == digest]
        near = [s for s in twins if abs(s.line - self._line.number) == 1]
        for slot in same[:1] or near[:1]:
            self.slots.remove(slot)
            return slot
        return None

    def _remember(self, slot: _Slot) -> None:
        self.slots.append(slot)
        while len(self.slots) > _MAX_SLOTS and self.slots[0].entry is None:
            self.slots.pop(0)

    def _settle_now(self, before: int | None = None) -> None:
        """A pending event copy whose twin did not come (by line `before`) stays the conversation; so does a
        user message no event copy followed, unless the rollout logs the owner's messages as events: then
        it is context the harness injected (Codex logs no event for those), told apart though redaction or a
        new kind of context leaves no words to know it by — once `_USER_WAIT` lines passed without its event.
        One still waiting when the read ends is the owner's: its event may not be written yet."""
        for slot in self.slots:
            if slot.entry is None or (before is not None and slot.line >= before):
                continue
            if slot.src == "r" and self.user_events and before is not None:
                if slot.line >= self._line.number - _USER_WAIT:
                    continue  # its event may still come
                slot.entry.author = "harness"
            else:
                self._title(slot.title, self.queue)
            slot.entry = None

    def _title(self, title: str | None, into: list[Item]) -> None:
        if title and not self.titled:
            self.titled = True
            into.append(SessionDraft(self.native, title=title))

    def _meta(self, label: str, detail: str | None, native_id: str | None = None) -> None:
        self._add("harness", "meta", f"{label}: {detail}" if detail else label, native_id=native_id)

    def _asker(self) -> Author:
        """Who speaks in a user-role turn: the owner; in a sub-agent's rollout, the agent that started it."""
        return "agent" if self.subagent else "owner"

    def _add(self, author: Author, kind: Kind, text: str, *, group: str | None = None,
             tool: str | None = None, native_id: str | None = None) -> EntryDraft:
        line = self._line
        n = sum(1 for i in self._out if isinstance(i, EntryDraft))
        entry = EntryDraft(self.native, author, kind, text,
                           f"{self.prefix}L{line.number}" + (f":{n}" if n else ""),
                           line.raw, timestamp=self._ts, line=line.number, native_id=native_id, group=group,
                           tool=tool)
        self._out.append(entry)
        return entry


def _is_context(texts: list[str], p: dict[str, Any]) -> bool:
    """A user-role message that is entirely harness-injected context."""
    kinds = _kinds(p)
    if kinds:
        return not any(k.startswith("user") for k in kinds)
    bodies = [t.strip() for t in texts if t.strip()]
    return bool(bodies) and all(b.startswith(_CONTEXT_PREFIXES) or _CONTEXT_BLOCK.match(b) for b in bodies)


def _kinds(p: dict[str, Any]) -> list[str]:
    """The kinds of a message's parts, where Codex names them (`user.text`, `environments.…`)."""
    passthrough = p.get("internal_chat_message_metadata_passthrough")
    kinds = passthrough.get("content_item_kinds") if isinstance(passthrough, dict) else None
    return kinds if _strs(kinds) else []


def _texts(content: Any) -> list[str]:
    """The text parts of a content list (images and encrypted parts left out)."""
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    return [part["text"] for part in content if isinstance(part, dict)
            and str(part.get("type")).lower() in _TEXT_PARTS and isinstance(part.get("text"), str)]


def _content(value: Any) -> str:
    """Message or tool output content: strings verbatim, parts joined with newlines, images as markers."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if "type" not in value and "content" in value:
            return _content(value["content"])
        value = [value]
    if not isinstance(value, list):
        return json_text(value)
    out: list[str] = []
    for part in value:
        if isinstance(part, str):
            out.append(part)
        elif not isinstance(part, dict):
            out.append(json_text(part))
        elif isinstance(part.get("text"), str):
            out.append(part["text"])
        elif "image" in str(part.get("type")):
            out.append(_image(part.get("image_url")))
        elif part.get("type") not in ("encrypted_content",):
            out.append(json_text(part))
    return "\n".join(out)


def _image(url: Any) -> str:
    if isinstance(url, dict):
        url = url.get("url")
    if not isinstance(url, str) or not url:
        return "[image]"
    m = re.match(r"data:([^;,]+)(;base64)?,", url)
    if m:
        data = url[m.end():]
        size = base64_size(data) if m.group(2) else len(data)
        return f"[image: {m.group(1)}, {size} bytes]"
    return f"[image: {url}]"


def _call_text(p: dict[str, Any]) -> str:
    """Search and image-generation calls: the query, prompt or arguments a reader wants to see."""
    action = p.get("action")
    if isinstance(action, dict):
        for key in ("query", "url", "pattern"):
            if _str(action.get(key)):
                return str(action[key])
        if _strs(action.get("queries")) and action["queries"]:
            return "\n".join(action["queries"])
    for key in ("arguments", "revised_prompt", "prompt"):
        if p.get(key) is not None:
            return _plain(p[key])
    return json_text({k: v for k, v in p.items() if k not in ("type", "result")})


def _detail(d: dict[str, Any]) -> str | None:
    for key in _DETAIL_KEYS:
        if _str(d.get(key)) and str(d[key]).strip():
            return str(d[key])
    if _strs(d.get("command")) and d["command"]:
        return " ".join(d["command"])
    text = "\n".join(_texts(d.get("content")))
    return text or None


def _digest(text: str) -> str:
    return content_key("".join(text.split()))


def _plain(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json_text(value)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _strs(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _timestamp(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    return epoch_iso(value)
