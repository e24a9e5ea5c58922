"""What names a session besides its entries — its title, the strings of its meta — and how an erase takes
them when they were taken from the erased words (`forget`), and keeps them from being set again by a later
read of the source (`unerased`): each keeps a keyed hash in `erased_names`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from total_recall.record.database import Record

# A meta string this long found in an erased text was taken from it (a sub-agent's description).
_TAKEN_CHARS = 16
# What a harness adds to a title it copies or gives: OpenCode names a fork "<title> (fork #1)", and a
# sub-agent "<description> (@<agent> subagent)" after the description its parent's task call gave.
_ADDED = re.compile(r" \((?:fork #\d+|@[^()]+ subagent)\)$")
# The arguments of an agent call a harness titles the sub-agent it starts by.
_TITLING = ("description",)


_SUBAGENT = re.compile(r" \(@[^()]+ subagent\)$")


def titled(title: str | None, text: str) -> bool:
    """Whether a session title was taken from `text`: all of it, or its start cut short (a fork's copy of
    such a title too); a sub-agent's "<description> (@agent subagent)" only when `text` is the call that
    gave that description (`_described`): words of it standing in another text name another thing."""
    named = title or ""
    if (m := _SUBAGENT.search(named)) is not None:
        return named[:m.start()].strip() in _described(text)
    core = _ADDED.sub("", named).removesuffix("…").removesuffix("...").strip()
    return bool(core) and core in text


def title_forms(text: str) -> set[str]:
    """The titles a harness or a reader may give a session from `text` (a prompt): it whole, its first
    line, the readers' cut of it (`title_line`), Vibe's own (50 characters and "…"), and for an agent call
    the description it gives the sub-agent it starts (`_described`). An erase keeps their keyed hashes, so
    a title written after it (OpenCode titling the session or its sub-agent, Vibe's meta.json at the turn's
    end, an OpenClaw label) is not set from the erased words either."""
    from total_recall.readers.base import title_line
    from total_recall.readers.vibe import fallback_title

    whole = text.strip()
    first = next((line.strip() for line in whole.splitlines() if line.strip()), "")
    return {t for t in (whole, first, title_line(text), fallback_title(text), *_described(text)) if t}


def _described(text: str) -> list[str]:
    """The description an agent call's JSON arguments give the sub-agent it starts, which the harness
    titles it by (OpenCode's "<description> (@general subagent)", Claude Code's sidecar)."""
    if not text.startswith("{"):
        return []
    try:
        args = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    if not isinstance(args, dict):
        return []
    return [v.strip() for k in _TITLING if isinstance(v := args.get(k), str)]


def unerased(record: Record, number: int, fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` without the names an erase cleared from the session (`forget`), or from the session it was
    started from: a child first read after the erase takes no name from it (a Vibe compaction child goes by
    its parent's title)."""
    if "title" not in fields and "meta" not in fields:
        return fields
    gone = {bytes(r[0]) for r in record.db.execute(
        "SELECT hash FROM erased_names WHERE session = ? OR session IN (SELECT p.id FROM sessions c "
        "JOIN sessions p ON p.harness = c.harness AND p.native_id = COALESCE(?, c.parent_native) "
        "WHERE c.id = ?)", (number, fields.get("parent_native"), number))}
    if not gone:
        return fields
    kept = dict(fields)
    title = kept.get("title")
    forms = (title, _ADDED.sub("", title)) if isinstance(title, str) else ()
    if {record.text_hash(t) for t in forms} & gone:
        del kept["title"]
    if isinstance(kept.get("meta"), dict):
        meta = {k: v for k, v in kept["meta"].items()
                if not (isinstance(v, str) and record.text_hash(v) in gone)}
        kept["meta"] = meta or None
    return kept

def forget(record: Record, session: int, text: str | None) -> None:
    """Clear what names `session` and its sub-agents' sessions that came from `text` (erased; None: the
    whole session, every name of it): a title, a string of the meta. Each keeps a keyed hash in
    `erased_names`, so a later read of the source does not set it again."""
    rows = record.db.execute(
        "SELECT s.id, s.title, s.meta FROM sessions s WHERE s.id = ? UNION ALL "
        "SELECT c.id, c.title, c.meta FROM sessions c JOIN sessions p ON c.harness = p.harness "
        "AND c.parent_native = p.native_id WHERE p.id = ? AND c.id <> p.id",
        (session, session),
    ).fetchall()
    forms = title_forms(text) if text is not None else set()
    if forms:
        record.db.executemany("INSERT OR IGNORE INTO erased_names(session, hash) VALUES (?, ?)",
                            [(session, record.text_hash(t)) for t in forms])
    for number, title, meta in rows:
        names: dict[str, Any] = orjson.loads(meta) if meta else {}
        # A meta string is taken from the text only when it is one of its titles or a long piece of it:
        # a branch "main" or a user name is not taken from "keep the changelog maintained by the user".
        gone = {v for v in (title, *names.values()) if isinstance(v, str) and v
                and (number == session if text is None else
                     titled(v, text) and (v == title or v in forms or len(v) >= _TAKEN_CHARS))}
        if not gone:
            continue
        record.db.executemany("INSERT OR IGNORE INTO erased_names(session, hash) VALUES (?, ?)",
                            [(number, record.text_hash(v)) for v in gone])
        kept = {k: v for k, v in names.items() if not (isinstance(v, str) and v in gone)}
        record.db.execute("UPDATE sessions SET title = ?, meta = ? WHERE id = ?",
                        (None if title in gone else title,
                         orjson.dumps(kept).decode() if kept else None, number))
