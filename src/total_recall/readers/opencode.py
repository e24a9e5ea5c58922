"""OpenCode: the SQLite store (`opencode.db`, `opencode-<channel>.db`) and the legacy JSON `storage/` tree.

SQLite (1.x): `session` rows, `message(id, session_id, time_created, time_updated, data)` and
`part(id, message_id, session_id, time_created, time_updated, data)`, where `data` is the message or
part JSON without its ids. Read in the order of OpenCode's own hydrate(): messages by
(time_created, id), parts by (message_id, id). Legacy tree (pre-SQLite, still left behind after the
migration): `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<msgID>.json`,
`storage/part/<msgID>/<partID>.json`, each the whole object with its ids.

OpenCode rewrites rows while a turn runs (text streams into a part, a tool goes pending → running →
completed), so a session is read up to its first half-done message or tool and resumed there later; a legacy
part file that cannot be read yet (caught half-written) has its message read again at the next change, for as
long as the message is young (ABANDONED_MS): what is still missing an hour on is not waited for. A warning is
said once, not again by each read that meets the same thing (`_Reread`).

A child session (`parent_id`) is a sub-agent's: its user messages are the prompts its parent agent gave it,
labelled `agent` as the Claude Code and Codex readers label them.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
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
    Reader,
    Source,
    content_key,
    json_text,
    stat_fingerprint,
    tool_output,
    unlisted,
)
from total_recall.readers.opencode_db import check_header, connect, side, snapshot

DB_GLOBS = ("opencode.db", "opencode-*.db")
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
UNFINISHED_TOOL = ("pending", "running")
# A half-done assistant message with no sign of life for this long was left so (OpenCode killed mid-turn):
# read as it stands, rather than waited for for ever. OpenCode streams a turn's parts as they come.
ABANDONED_MS = 3_600_000
# What the keys of a turn read as abandoned end in (`_walk`).
CUT = "~cut"
# A session's cursor state keeps at most this many digests of warnings already said (`_Reread.warned`).
WARNED_LIMIT = 256
STATE_VERSION = 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class _Msg:
    id: str
    created: int
    info: dict[str, Any]
    row: str
    raw: bytes


@dataclass(slots=True)
class _Part:
    id: str
    key: str
    data: dict[str, Any]
    raw: bytes
    row: str
    created: int | None
    ended: int | None


@dataclass(frozen=True, slots=True)
class _Unread:
    """A part (or the folder of a message's parts) that could not be read now but may be later: a legacy file
    caught half-written, or a folder not readable yet. Its message is read again at the next change."""

    warning: ReadWarning


PartsOf = Callable[[_Msg], list[_Part | ReadWarning | _Unread]]


@dataclass(slots=True)
class _Reread:
    """What one read of a session leaves for the next: the messages to read again (`redo`: a part missing or
    unreadable while the message is young, so it may yet come), and digests of the warnings met (`warned`),
    so that a message read again (redone, or where the next read resumes) does not say them twice. Only the
    warnings this read met are kept: what the next read will not meet again is forgotten."""

    said: frozenset[str]  # by the reads before
    redo: list[_Msg] = field(default_factory=list)
    warned: list[str] = field(default_factory=list)

    @classmethod
    def after(cls, prev: Any) -> _Reread:
        said = prev.get("warned") if isinstance(prev, dict) else None
        return cls(frozenset(d for d in said if isinstance(d, str)) if isinstance(said, list) else
                   frozenset())

    def new(self, warning: ReadWarning) -> bool:
        """Whether `warning` is to be said: no earlier read of the session said it."""
        digest = content_key(warning.path, warning.why, warning.line)[:12]
        if digest not in self.warned and len(self.warned) < WARNED_LIMIT:
            self.warned.append(digest)
        return digest not in self.said


class OpenCodeReader(Reader):
    harness = "opencode"

    def sources(self, root: Path) -> Iterator[Source]:
        """The databases and the legacy tree under `root`.

        Raises:
            OSError: `root` or its `storage` folder cannot be listed (names it); the databases are listed
                before `storage` is looked into.
        """
        if root.is_file():
            if not root.name.endswith(SIDE_SUFFIXES):
                yield Source(self.harness, str(root), root, "sqlite")
            return
        if not root.is_dir():
            return
        names = _listing(root)
        dbs = [root / n for n in names if any(fnmatchcase(n, g) for g in DB_GLOBS) and (root / n).is_file()]
        for db in sorted(dbs):
            yield Source(self.harness, str(db), db, "sqlite")
        storage = root / "storage"
        if "storage" in names and storage.is_dir():
            # `storage/session` looks absent when `storage` may not be looked into: said, not missed.
            _listing(storage)
        for candidate in (storage, root):
            if (candidate / "session").is_dir():
                yield Source(self.harness, str(candidate), candidate, "tree")
                break

    def fingerprint(self, source: Source) -> str:
        if source.kind == "tree":
            return _tree_fingerprint(source.path)
        return stat_fingerprint(source.path, side(source.path, "-wal"))

    def read(self, source: Source, cursor: Cursor) -> Iterator[Item]:
        old = cursor.state.get("sessions") if cursor.state.get("v") == STATE_VERSION else None
        known: dict[str, Any] = old if isinstance(old, dict) else {}
        if source.kind == "tree":
            yield from _read_tree(source.path, known)
        else:
            yield from _read_db(source.path, known)


def _listing(folder: Path) -> list[str]:
    """The names in a folder.

    Raises:
        OSError: it cannot be listed, naming it (the sync reports it: an unreadable folder is not empty).
    """
    try:
        with os.scandir(folder) as found:
            return [e.name for e in found]
    except OSError as exc:
        raise unlisted([exc]) from exc


# --- SQLite ---------------------------------------------------------------------------------------


def _read_db(path: Path, known: dict[str, Any]) -> Iterator[Item]:
    check_header(path)
    with snapshot(path) as copy:
        con = connect(copy, path)
        if con is None:
            yield Checkpoint(Cursor(state=_cursor_state({})))
            return
        yield from _read_copy(con, path, known)


def _read_copy(con: sqlite3.Connection, path: Path, known: dict[str, Any]) -> Iterator[Item]:
    name = str(path)
    now = int(time.time() * 1000)
    try:
        by_msg = "SELECT session_id, count(*), max(time_updated) FROM message GROUP BY session_id"
        msg_stats = {r[0]: f"{r[1]}:{r[2]}" for r in con.execute(by_msg)}
        # A part rewritten in place (a tool completing, text streaming in) changes no count: its time does.
        by_part = "SELECT session_id, count(*), max(time_updated) FROM part GROUP BY session_id"
        part_counts = {r[0]: f"{r[1]}:{r[2]}" for r in con.execute(by_part)}
        newer = _newer_messages(con)
        sessions = con.execute("SELECT * FROM session ORDER BY time_created, id").fetchall()
        state: dict[str, Any] = {}
        for srow in sessions:
            sid = str(srow["id"])
            # The session's own time_updated is not bumped for every message, so the counts join it.
            stamp = f"{srow['time_updated']}:{msg_stats.get(sid, '0:')}:{part_counts.get(sid, 0)}"
            prev = known.get(sid)
            if isinstance(prev, dict) and prev.get("done") and prev.get("stamp") == stamp:
                state[sid] = prev
                continue
            yield _db_session(srow)
            if newer.get(sid) and sid not in msg_stats:
                yield ReadWarning(name, f"session:{sid}: {newer[sid]} message(s) only in `session_message`, "
                                  "the newer format this reader does not read yet; not recorded")
            msgs: list[_Msg] = []
            again = _Reread.after(prev)
            for mrow in _db_messages(con, sid, _resume_at(prev)):
                item = _db_message(name, mrow)
                if not isinstance(item, ReadWarning):
                    msgs.append(item)
                elif again.new(item):
                    yield item
            # A child session's user messages are the prompts its parent agent gave it, not the owner's.
            prompter: Author = "agent" if _text(srow["parent_id"]) else "owner"
            stop = yield from _walk(sid, msgs, lambda m: _db_parts(con, name, m), name, now, prompter, again)
            state[sid] = _session_state(stamp, msgs, stop, prev, again)
    except sqlite3.Error as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from exc
    finally:
        con.close()
    yield Checkpoint(Cursor(state=_cursor_state(state)))


# A row's `data` over the line limit is never fetched into Python: only its size, to name it.
_DATA = (f"CASE WHEN length(CAST(data AS BLOB)) > {LINE_LIMIT} THEN NULL ELSE data END AS data,"
         " length(CAST(data AS BLOB)) AS size")


def _newer_messages(con: sqlite3.Connection) -> dict[str, int]:
    """How many rows each session holds in `session_message`, the table OpenCode's newer session state
    writes (the schema has it from 1.18; the stores recorded so far keep their turns in `message`)."""
    found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_message'"
    if not con.execute(found).fetchone():
        return {}
    return {r[0]: r[1] for r in con.execute("SELECT session_id, count(*) FROM session_message GROUP BY 1")}


def _db_messages(con: sqlite3.Connection, sid: str, at: tuple[int, str] | None) -> list[sqlite3.Row]:
    cols = f"SELECT id, session_id, time_created, {_DATA} FROM message WHERE session_id = ?"
    order = " ORDER BY time_created, id"
    if at is None:
        return con.execute(cols + order, (sid,)).fetchall()
    where = " AND (time_created > ? OR (time_created = ? AND id >= ?))"
    return con.execute(cols + where + order, (sid, at[0], at[0], at[1])).fetchall()


_TOO_LARGE = "data of "


def _too_large(size: Any) -> str | None:
    if isinstance(size, int) and size > LINE_LIMIT:
        return f"{_TOO_LARGE}{size} bytes is over the {LINE_LIMIT}-byte limit"
    return None


def _db_message(name: str, row: sqlite3.Row) -> _Msg | ReadWarning:
    mid = str(row["id"])
    info = _too_large(row["size"]) or _parse_data(row["data"])
    if isinstance(info, str):
        return ReadWarning(name, f"message:{mid}: {info}; skipped with its parts")
    raw = _row_json(
        {"id": mid, "session_id": row["session_id"], "time_created": row["time_created"], "data": info}
    )
    return _Msg(mid, _int(row["time_created"]) or 0, info, f"message:{mid}", raw)


def _db_parts(con: sqlite3.Connection, name: str, msg: _Msg) -> list[_Part | ReadWarning | _Unread]:
    out: list[_Part | ReadWarning | _Unread] = []
    sql = (
        f"SELECT id, message_id, session_id, time_created, time_updated, {_DATA} FROM part"
        " WHERE message_id = ? ORDER BY id"
    )
    for row in con.execute(sql, (msg.id,)):
        pid = str(row["id"])
        too_large = _too_large(row["size"])
        if too_large:
            out.append(ReadWarning(name, f"part:{pid}: {too_large}; skipped"))
            continue
        data = _parse_data(row["data"])
        if isinstance(data, str):
            out.append(ReadWarning(name, f"part:{pid}: {data}"))
            continue
        raw = _row_json({
            "id": pid,
            "message_id": row["message_id"],
            "session_id": row["session_id"],
            "time_created": row["time_created"],
            "data": data,
        })
        ended = _int(_get(data, "state", "time", "end")) or _int(row["time_updated"])
        out.append(_Part(pid, pid, data, raw, f"part:{pid}", _int(row["time_created"]), ended))
    return out


def _db_session(row: sqlite3.Row) -> SessionDraft:
    cols = set(row.keys())

    def col(key: str) -> Any:
        return row[key] if key in cols else None

    meta: dict[str, Any] = {}
    for key in ("slug", "version", "agent", "project_id", "cost"):
        if col(key) is not None:
            value = col(key)
            meta[key] = _text(value) if isinstance(value, bytes) else value
    model = col("model")
    if isinstance(model, str):
        parsed = _parse_data(model)
        meta["model"] = model if isinstance(parsed, str) else parsed
    tokens = {k: col(f"tokens_{k}") for k in ("input", "output", "reasoning", "cache_read", "cache_write")}
    if any(v is not None for v in tokens.values()):
        meta["tokens"] = tokens
    parent = _text(col("parent_id"))
    return SessionDraft(
        native_id=str(row["id"]),
        title=_text(col("title")),
        cwd=_text(col("directory")),
        parent_native=parent,
        relation="subagent" if parent else None,
        started=_iso(col("time_created")),
        ended=_iso(col("time_updated")),
        meta=meta or None,
    )


def _text(value: Any) -> str | None:
    """A text column as text: SQLite's loose typing lets a title or folder be stored as a BLOB (kept as
    UTF-8, bad bytes replaced) or a number; None or empty is None."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif value is not None and not isinstance(value, str):
        value = str(value)
    return value or None


def _parse_data(data: Any) -> dict[str, Any] | str:
    """The parsed JSON object, or why it is not one. A leading UTF-8 BOM (an editor's mark) is passed over."""
    if isinstance(data, bytes):
        data = data.removeprefix(UTF8_BOM)
    elif isinstance(data, str):
        data = data.removeprefix("\ufeff")
    try:
        obj = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError) as exc:
        return f"data is not JSON ({exc})"
    if not isinstance(obj, dict):
        return f"data is not a JSON object (a {type(obj).__name__})"
    return obj


def _row_json(row: dict[str, Any]) -> bytes:
    return orjson.dumps(row, option=orjson.OPT_NON_STR_KEYS)


# --- legacy JSON tree -----------------------------------------------------------------------------


def _tree_fingerprint(storage: Path) -> str:
    count = 0
    newest = 0
    for sub in ("session", "message", "part"):
        for dirpath, _dirs, files in os.walk(storage / sub):
            for p in [dirpath, *(os.path.join(dirpath, f) for f in files)]:
                try:
                    newest = max(newest, os.stat(p).st_mtime_ns)
                except OSError:
                    continue
            count += len(files)
    return f"tree:{count}:{newest}"


def _dir_stat(folder: Path) -> tuple[list[str], int, ReadWarning | None]:
    """The `.json` file stems of a folder (sorted), the newest mtime among them and the folder, and a warning
    naming the folder when it is there but cannot be listed (a missing one is just empty)."""
    try:
        with os.scandir(folder) as found:
            entries = list(found)
        newest = folder.stat().st_mtime_ns
    except FileNotFoundError:
        return [], 0, None
    except OSError as exc:
        return [], 0, _unreadable(folder, exc)
    stems = []
    for e in entries:
        if e.name.endswith(".json") and e.is_file():
            stems.append(e.name[: -len(".json")])
            try:
                newest = max(newest, e.stat().st_mtime_ns)
            except OSError:
                continue
    return sorted(stems), newest, None


def _subfolders(folder: Path) -> tuple[list[Path], ReadWarning | None]:
    """The folders in a folder (sorted), and a warning naming it when it cannot be listed."""
    try:
        with os.scandir(folder) as found:
            return sorted(Path(e.path) for e in found if e.is_dir()), None
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], _unreadable(folder, exc)


def _unreadable(folder: Path, exc: OSError) -> ReadWarning:
    why = exc.strerror or exc
    return ReadWarning(str(folder), f"folder is unreadable ({why}); what it holds is not read")


def _load_json(path: Path) -> tuple[dict[str, Any], bytes] | ReadWarning:
    try:
        too_large = _too_large(path.stat().st_size)
        if too_large:
            return ReadWarning(str(path), too_large + "; skipped")
        raw = path.read_bytes()
    except OSError as exc:
        return ReadWarning(str(path), f"cannot read: {exc.strerror or exc}")
    obj = _parse_data(raw)
    return ReadWarning(str(path), obj) if isinstance(obj, str) else (obj, raw)


def _read_tree(storage: Path, known: dict[str, Any]) -> Iterator[Item]:
    now = int(time.time() * 1000)
    found: list[tuple[int, str, dict[str, Any], Path]] = []
    session_files: list[Path] = []
    projects, unreadable = _subfolders(storage / "session")
    if unreadable is not None:
        yield unreadable
    for project in projects:
        stems, _, unreadable = _dir_stat(project)
        if unreadable is not None:
            yield unreadable
        session_files += [project / f"{stem}.json" for stem in stems]
    for sfile in sorted(session_files):
        loaded = _load_json(sfile)
        if isinstance(loaded, ReadWarning):
            yield loaded
            continue
        info = loaded[0]
        info.setdefault("projectID", sfile.parent.name)
        sid = _str(info.get("id")) or sfile.stem
        found.append((_int(_get(info, "time", "created")) or 0, sid, info, sfile))
    state: dict[str, Any] = {}
    for _created, sid, info, sfile in sorted(found, key=lambda t: (t[0], t[1])):
        mids, msg_newest, unreadable = _dir_stat(storage / "message" / sid)
        part_stats = [_dir_stat(storage / "part" / mid)[:2] for mid in mids]
        sst = sfile.stat()
        stamp = (
            f"{sst.st_size}:{sst.st_mtime_ns}:{len(mids)}:{msg_newest}:"
            f"{sum(len(s) for s, _ in part_stats)}:{max((n for _, n in part_stats), default=0)}"
        )
        prev = known.get(sid)
        if isinstance(prev, dict) and prev.get("done") and prev.get("stamp") == stamp:
            state[sid] = prev
            continue
        yield _tree_session(sid, info)
        again = _Reread.after(prev)
        if unreadable is not None and again.new(unreadable):
            yield unreadable
        msgs: list[_Msg] = []
        # A message file caught half-written has no time to resume before: while it is young, the next read
        # starts as this did.
        hold = unreadable is not None
        for mid in mids:
            mfile = storage / "message" / sid / f"{mid}.json"
            mloaded = _load_json(mfile)
            if isinstance(mloaded, ReadWarning):
                hold = hold or (not mloaded.why.startswith(_TOO_LARGE) and _young(mfile, now))
                if again.new(mloaded):
                    yield mloaded
                continue
            mdata, mraw = mloaded
            msg_id = _str(mdata.get("id")) or mid
            created = _int(_get(mdata, "time", "created")) or 0
            msgs.append(_Msg(msg_id, created, mdata, mfile.relative_to(storage).as_posix(), mraw))
        msgs.sort(key=lambda m: (m.created, m.id))
        at = _resume_at(prev)
        if at is not None:
            msgs = [m for m in msgs if (m.created, m.id) >= at]
        prompter: Author = "agent" if _str(info.get("parentID")) else "owner"
        stop = yield from _walk(sid, msgs, lambda m: _tree_parts(storage, m), str(storage), now, prompter,
                                again)
        state[sid] = _session_state(stamp, msgs, stop, prev, again)
        if hold:
            state[sid]["from"] = prev.get("from") if isinstance(prev, dict) else None
    yield Checkpoint(Cursor(state=_cursor_state(state)))


def _young(path: Path, now: int) -> bool:
    """Whether a file was written less than ABANDONED_MS before `now` (ms): it may still be being written."""
    try:
        return now - path.stat().st_mtime_ns // 1_000_000 < ABANDONED_MS
    except OSError:
        return False


def _tree_parts(storage: Path, msg: _Msg) -> list[_Part | ReadWarning | _Unread]:
    folder = storage / "part" / msg.id
    found: list[_Part | ReadWarning | _Unread] = []
    parts: list[_Part] = []
    stems, _, unreadable = _dir_stat(folder)
    if unreadable is not None:
        found.append(_Unread(unreadable))
    for stem in stems:
        pfile = folder / f"{stem}.json"
        loaded = _load_json(pfile)
        if isinstance(loaded, ReadWarning):
            if loaded.why.startswith(_TOO_LARGE):
                found.append(loaded)  # for good: not looked at again
            else:  # perhaps caught half-written (OpenCode writes the file in place): read again later
                found.append(_Unread(replace(loaded, why=f"a part of message {msg.id} could not be read "
                                             f"({loaded.why}); read again when the session changes")))
            continue
        data, raw = loaded
        pid = _str(data.get("id")) or stem
        # Real part ids (`prt_…`) are unique store-wide; hand-made trees reuse names like `part1`.
        key = pid if pid.startswith("prt_") else f"{msg.id}/{pid}"
        start = _get(data, "time", "start") or _get(data, "state", "time", "start")
        created = _int(start) or msg.created
        ended = _int(_get(data, "state", "time", "end")) or created
        parts.append(_Part(pid, key, data, raw, pfile.relative_to(storage).as_posix(), created, ended))
    parts.sort(key=lambda p: p.id)
    return [*found, *parts]


def _tree_session(sid: str, info: dict[str, Any]) -> SessionDraft:
    meta = {k: info[k] for k in ("slug", "version", "projectID") if info.get(k) is not None}
    parent = _str(info.get("parentID"))
    return SessionDraft(
        native_id=sid,
        title=_str(info.get("title")),
        cwd=_str(info.get("directory")),
        parent_native=parent,
        relation="subagent" if parent else None,
        started=_iso(_get(info, "time", "created")),
        ended=_iso(_get(info, "time", "updated")),
        meta=meta or None,
    )


# --- shared: from messages and parts to entries ---------------------------------------------------


def _resume_at(prev: Any) -> tuple[int, str] | None:
    at = prev.get("from") if isinstance(prev, dict) else None
    if isinstance(at, list) and len(at) == 2 and isinstance(at[0], int) and isinstance(at[1], str):
        return at[0], at[1]
    return None


def _session_state(stamp: str, msgs: list[_Msg], stop: _Stop | None, prev: Any, again: _Reread
                   ) -> dict[str, Any]:
    # Resume at the first young message whose parts could not all be read (or a settled user message with
    # none: its part may have failed to load), else at the stopping message, else at the last one read: parts
    # can still land on it after its row (a user message's text arrives just after the message). Keys keep
    # what is read again from being recorded twice.
    at = again.redo[0] if again.redo else stop.msg if stop else (msgs[-1] if msgs else None)
    frm: list[Any] | None = [at.created, at.id] if at else None
    if frm is None and isinstance(prev, dict):
        frm = prev.get("from")
    out: dict[str, Any] = {"stamp": stamp, "done": stop is None, "from": frm}
    if again.warned:
        out["warned"] = again.warned
    if stop is not None:
        out["abandoned_at"] = stop.alive + ABANDONED_MS
    return out


def _cursor_state(sessions: dict[str, Any]) -> dict[str, Any]:
    """The cursor's state; while a session waits on a half-done message, `recheck_at` says when it counts as
    abandoned, so a sync reads the store again then though nothing in it changed (`Cursor.state`)."""
    out: dict[str, Any] = {"v": STATE_VERSION, "sessions": sessions}
    due = [s["abandoned_at"] for s in sessions.values() if isinstance(s.get("abandoned_at"), int)]
    if due:
        out["recheck_at"] = _iso(min(due))
    return out


def _unfinished(info: dict[str, Any]) -> bool:
    return info.get("role") == "assistant" and not _get(info, "time", "completed") and not info.get("error")


@dataclass(frozen=True, slots=True)
class _Stop:
    """The half-done message a session's read stopped at, and its last sign of life (ms)."""

    msg: _Msg
    alive: int


def _last_sign(msg: _Msg, parts: list[_Part | ReadWarning | _Unread]) -> int:
    """When a message last showed life: its own times, and its parts' starts and ends (ms since the epoch)."""
    times = [msg.created, _int(_get(msg.info, "time", "created")) or 0]
    times += [t or 0 for p in parts if isinstance(p, _Part) for t in (p.created, p.ended)]
    return max(times)


def _walk(sid: str, msgs: list[_Msg], parts_of: PartsOf, where: str, now: int, prompter: Author,
          again: _Reread) -> Generator[Item, None, _Stop | None]:
    """Entries of a session's messages in order; returns where it stopped, if it did. A settled user
    message with no part holds no words to read: said, not passed over in silence. The messages read
    with a part missing or unreadable go to `again.redo` while they are young (a part is written just after
    its message; one still missing an hour on is not waited for, or every later read would start there);
    a warning an earlier read said is not said again. `prompter` wrote the user messages."""
    last_assistant = max((i for i, m in enumerate(msgs) if m.info.get("role") == "assistant"), default=-1)
    for i, msg in enumerate(msgs):
        parts = parts_of(msg)
        # A later assistant turn means OpenCode moved on: whatever this one left unfinished stays so; and
        # so does a turn silent for ABANDONED_MS.
        moved_on = i < last_assistant
        settled = moved_on or now - _last_sign(msg, parts) >= ABANDONED_MS
        if not settled and _unfinished(msg.info):
            return _Stop(msg, _last_sign(msg, parts))
        # Read as it stands though not finished: its entries are keyed apart, so that should OpenCode finish
        # it after all, the finished words are recorded too (a part's key names its whole text).
        cut = not moved_on and _unfinished(msg.info)
        unread = any(isinstance(x, _Unread) for x in parts)
        if settled and msg.info.get("role") == "user" and not any(isinstance(x, _Part) for x in parts):
            if not unread:  # else the parts' own warnings say why there are no words
                why = "a user message with no parts, so no words to read"
                warning = ReadWarning(where, f"message:{msg.id}: {why}")
                if again.new(warning):
                    yield warning
            unread = True  # its part may yet be written (or readable): looked for again
        if unread and now - _last_sign(msg, parts) < ABANDONED_MS:
            again.redo.append(msg)
        for part in parts:
            if isinstance(part, _Unread | ReadWarning):
                warning = part.warning if isinstance(part, _Unread) else part
                if again.new(warning):
                    yield warning
                continue
            status = _get(part.data, "state", "status")
            if not settled and part.data.get("type") == "tool" and status in UNFINISHED_TOOL:
                return _Stop(msg, _last_sign(msg, parts))
            yield from _part_entries(sid, msg, part, prompter, CUT if cut else "")
        error = msg.info.get("error")
        if error:
            text = f"error {_str(_get(error, 'name')) or ''}: {_str(_get(error, 'data', 'message')) or ''}"
            yield EntryDraft(
                session=sid, author="harness", kind="meta", text=text.strip(" :"), key=f"{msg.id}:error",
                raw=msg.raw, timestamp=_iso(_get(msg.info, "time", "completed") or msg.created), row=msg.row,
                group=msg.id,
            )
    return None


def _part_entries(sid: str, msg: _Msg, part: _Part, prompter: Author, cut: str = "") -> Iterator[EntryDraft]:
    data = part.data
    ptype = _str(data.get("type")) or "?"
    role = msg.info.get("role")

    def entry(author: Author, kind: Kind, text: str, suffix: str = "", group: str | None = msg.id,
              tool: str | None = None, at: int | None = part.created) -> EntryDraft:
        return EntryDraft(
            session=sid, author=author, kind=kind, text=text, key=part.key + suffix + cut, raw=part.raw,
            timestamp=_iso(at), row=part.row, group=group, tool=tool,
        )

    if ptype in ("text", "reasoning"):
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            return  # OpenCode opens empty text/reasoning parts that never get content
        if ptype == "reasoning":
            yield entry("agent", "thinking", text)
        elif role == "user":
            yield entry("harness" if data.get("synthetic") else prompter, "message", text)
        elif msg.info.get("summary") is True or msg.info.get("mode") == "compaction":
            yield entry("harness", "summary", text)
        else:
            yield entry("harness" if data.get("synthetic") else "agent", "message", text)
    elif ptype == "tool":
        state = data.get("state")
        if not isinstance(state, dict):
            state = {}
        call_id = _str(data.get("callID"))
        tool = _str(data.get("tool"))
        yield entry("agent", "tool_call", json_text(state.get("input", {})), ":call", call_id, tool)
        status = state.get("status")
        if status == "completed":
            output = state.get("output", "")
            text = tool_output(output) if isinstance(output, str) else json_text(output)
            notes = [_file_label(a) for a in state.get("attachments") or [] if isinstance(a, dict)]
            text = "\n".join([text, *notes]) if notes else text
        elif status == "error":
            text = json_text(state.get("error", ""))
        else:
            return
        yield entry("tool", "tool_result", text, ":result", call_id, tool, part.ended)
    elif ptype == "compaction":
        how = ("auto" if data.get("auto") else "manual") + (", overflow" if data.get("overflow") else "")
        yield entry("harness", "compaction", f"compaction ({how})")
    else:
        yield entry("harness", "meta", _meta_label(ptype, data))


def _meta_label(ptype: str, data: dict[str, Any]) -> str:
    if ptype == "file":
        return _file_label(data)
    if ptype == "step-finish":
        tokens = data.get("tokens") if isinstance(data.get("tokens"), dict) else None
        extra = f" tokens={json_text(tokens)}" if tokens else ""
        return f"step-finish: {data.get('reason', '')}{extra}"
    if ptype == "snapshot":
        return f"snapshot {data.get('snapshot', '')}"
    if ptype == "patch":
        files = data.get("files")
        if not isinstance(files, list):
            files = []
        return "\n".join([f"patch {data.get('hash', '')}: {len(files)} files", *map(str, files)])
    if ptype == "agent":
        return f"agent: {data.get('name', '')}"
    if ptype == "subtask":
        head = f"subtask ({data.get('agent', '')}): {data.get('description', '')}"
        prompt = data.get("prompt")
        return f"{head}\n{prompt}" if isinstance(prompt, str) and prompt else head
    if ptype == "retry":
        why = _str(_get(data, "error", "data", "message")) or _str(_get(data, "error", "name")) or ""
        return f"retry {data.get('attempt', '')}: {why}"
    text = data.get("text")
    return f"{ptype}: {text}" if isinstance(text, str) and text else ptype


def _file_label(data: dict[str, Any]) -> str:
    mime = _str(data.get("mime")) or "?"
    name = _str(data.get("filename"))
    url = _str(data.get("url")) or ""
    if url.startswith("data:"):
        # Never the bytes themselves: a size estimate from the base64 length is enough.
        size = len(url.partition(",")[2].rstrip("=")) * 3 // 4
        where = f"[{'image' if mime.startswith('image/') else 'data'}: {mime}, {size} bytes]"
    else:
        where = url
    return " ".join(x for x in ("file:", name, f"({mime})", where) if x)


# --- small helpers --------------------------------------------------------------------------------


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _iso(ms: Any) -> str | None:
    """Epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`."""
    n = _int(ms)
    if n is None:
        return None
    try:
        at = _EPOCH + timedelta(milliseconds=n)
    except OverflowError:
        return None
    return f"{at:%Y-%m-%dT%H:%M:%S}.{n % 1000:03d}Z"

