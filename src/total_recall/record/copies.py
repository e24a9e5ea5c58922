"""The copies of an erased text a harness holds, and how a later read knows them: erase follows the words,
not only the entry named (`Record.erase`), and sync records a copy read later already erased (`SyncRun`).

A harness writes a message again in other places: a resumed or forked session's new file (with the same
ids, new ones, or none), another generation of a rewritten file, its own echo of the message (Codex's
events, Claude Code's queue records), other lines repeating it (Codex's task_complete), and its summaries
quoting it (Vibe's compaction child, Claude Code's "All user messages"). The record keeps no erased words,
only their keyed hashes (`erased_texts`), so a later copy is known by hash.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from total_recall.record.lines import unpack

if TYPE_CHECKING:
    from total_recall.record.database import Record

# Marks of erased entries (see `erased_marks`): a text hash, or a message's identity -> (time, reason).
Marks = dict[Any, tuple[str, str]]
# The trimmed text's keyed hash of an erased message -> per (native session, author) it was erased in, (time,
# reason): the same words erased in two sessions, or said by two authors, are two marks.
Quotes = dict[bytes, dict[tuple[str, str], tuple[str, str]]]
# A text this long is distinctive enough to be the same words wherever the harness holds it again (a fork's
# copy without ids); a shorter one ("yes", "ok, go") is followed only by its message's id.
COPY_CHARS = 40
# An erased text this long found inside another source line of its session marks that line as holding it.
LINE_CHARS = 16


# The arguments that name where, not what: a Read's result repeats its path, and its own words stay.
_WHERE = re.compile(r"(?:path|paths|file|dir|directory|cwd|url|uri|pattern|glob)$", re.I)
# The arguments an agent call gives the sub-agent it starts, as that session's first message.
_PROMPTS = frozenset({"prompt", "message", "task"})
# How far down forks of forks a copy is followed.
FORK_DEPTH = 8
# A line that only places an image or a document, as the readers write one.
_PLACED = re.compile(r"\[(?:image|document)(?:: [^\]\n]*)?\]$")
# A word, as `_Anchored` splits needles and lines alike (bytes: ASCII letters, digits and `_`).
_WORD = re.compile(rb"\w+")


def _worded(text: str) -> str:
    """`text` without the lines only placing an image or a document (`[image: image/png, 8 bytes]`), which
    the readers add for a block the harness's echo of the prompt does not carry (Claude Code's queue line)."""
    return "\n".join(line for line in text.splitlines() if not _PLACED.match(line.strip())).strip()


def echoes(text: str, harness: str) -> set[str]:
    """What a harness entry may repeat of a message of its session whole, at any length: its text, and the
    prompt a bookkeeping line carries after its label (as the harness's reader labels it, `Reader.echo`)."""
    from total_recall.readers import echo_label  # not at import: the per-prompt hook reads no store

    forms = {text.strip()}
    if (label := echo_label(harness)) is not None and (m := label.match(text)) is not None:
        forms.add(text[m.end():].strip())
    return {f for f in forms if f}


def quoted_by(text: str, kind: str) -> str:
    """What repeats an entry elsewhere whole, trimmed (its `erased_texts.quote_hash` is of it): a message's
    words; for an agent call, the prompt it gives its sub-agent, which the sub-agent's first message is."""
    given = arguments(text, _PROMPTS) if kind == "tool_call" else set()
    return max(given, key=len).strip() if given else text.strip()


def arguments(text: str, keys: frozenset[str] | None = None) -> set[str]:
    """The string values of a tool call's JSON arguments of `LINE_CHARS` or more that say what, not where:
    what a harness writes again elsewhere (a Write's content and an Edit's strings in its result's record).
    `keys`: only the values under those names (an agent call's prompt)."""
    if not text.startswith("{"):
        return set()
    try:
        args = orjson.loads(text)
    except orjson.JSONDecodeError:
        return set()
    out: set[str] = set()
    stack: list[tuple[str, Any]] = [("", args)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, str):
            wanted = key in keys if keys is not None else not _WHERE.search(key)
            if wanted and len(node.strip()) >= LINE_CHARS:
                out.add(node)
        elif isinstance(node, dict):
            stack.extend((str(k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((key, v) for v in node)
    return out


def quoted(text: str) -> set[str]:
    """What a harness's own text may quote word for word, each of `LINE_CHARS` or more: the blocks it sets
    between tags (Vibe's compaction child carries the owner's last messages over in a
    `<previous_user_message>` each), and its lines without a list mark or quotes around them (Claude Code's
    compaction summary lists "All user messages"). An erased message is known there by its hash."""
    blocks = re.split(r"</?[A-Za-z][\w:-]{0,60}>", text) if "<" in text else [text]
    lines = [re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", line.strip()) for b in blocks for line in b.splitlines()]
    found = {b.strip() for b in blocks} | {line.strip().strip('"“”`\'').strip() for line in lines}
    return {q for q in found if len(q) >= LINE_CHARS}


def copies(record: Record, ids: Sequence[int]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the other copies of entries `ids` the record holds, not erased, within
    the same harness:
    - the same message (native id, kind and text) in another session: Claude Code's --resume and
      --fork-session start a new file holding the earlier messages again; an entry sharing only the id
      keeps its words (OpenClaw's 8-hex ids collide across sessions);
    - the same text of `COPY_CHARS` or more anywhere: a fork, rewind or compaction of a harness that
      gives its messages no id of their own (Vibe, Codex rollouts) or new ones (OpenCode);
    - the same text in another generation of the same native session (a rewritten file), as a later
      generation is recorded (`erased_marks`);
    - the same text in the same session where one of the two is the harness's (Codex logs each message
      again as an event), or the prompt a bookkeeping line of the harness carries again (`echoes`; the
      text's lines placing an image or a document left out, which a queue line does not carry); an
      owner saying "yes" twice keeps the other;
    - the same message (author, kind and text) of `LINE_CHARS` or more in a fork of the erased one's
      session, or a fork of a fork (a fork copies the history, and Codex's copies carry no ids); never the
      other way, where the same words may have been typed anew;
    - for an erased tool call: the entries cut from its result's source record when that holds one of the
      call's `arguments` (Claude Code keeps a Write's content and an Edit's strings there; a path it only
      names does not count), and a sub-agent's entry that is the prompt it was started with;
    - the entries cut from a source record holding an erased text of `LINE_CHARS` or more, in the
      sessions involved, and for an owner's or agent's message in the sub-agents they started, down to
      `FORK_DEPTH` (`_lines_holding`): the prompt a parent agent gives a sub-agent quotes the owner's
      words or repeats them, and the task call giving it goes as such a line; and whatever kind of entry
      was erased, the sub-agent's entry that is the prompt of an agent call erased as a copy, when that
      prompt holds an erased text of `LINE_CHARS` or more (`_prompts_holding`);
    - the harness's summaries and messages quoting an owner's or agent's message as a block of their
      own (`_quoting`): Vibe's compaction child carries the owner's last messages over word for word,
      Claude Code's compaction summary lists them."""
    if not ids:
        return []
    chosen = set(ids)
    wanted = record.db.execute(
        "SELECT e.id, e.native_id, e.kind, e.text, e.author, e.session, e.raw_id, e.grp, s.harness, "
        "s.native_id AS native_session FROM entries e JOIN sessions s ON s.id = e.session "
        "WHERE e.id IN (SELECT value FROM json_each(?))",
        (orjson.dumps(list(ids)).decode(),),
    ).fetchall()
    found: dict[int, tuple[int, int, int]] = {}
    for harness in {w["harness"] for w in wanted}:
        mine = [w for w in wanted if w["harness"] == harness]
        messages = {(w["native_id"], w["kind"], w["text"]) for w in mine if w["native_id"]}
        natives = orjson.dumps(sorted({m[0] for m in messages})).decode()
        longs = {w["text"] for w in mine if len(w["text"]) >= COPY_CHARS}
        long = orjson.dumps(sorted(longs)).decode()
        # One pass over the entries (no index by native id or text: erase is rare, and one would cost
        # every sync).
        for r in record.db.execute(
            "SELECT e.id, e.session, e.seq, e.native_id, e.kind, e.text FROM entries e "
            "JOIN sessions s ON s.id = e.session WHERE s.harness = ? AND e.erased_at IS NULL "
            "AND (e.native_id IN (SELECT value FROM json_each(?)) "
            "OR e.text IN (SELECT value FROM json_each(?)))",
            (harness, natives, long),
        ):
            # A native id alone names no copy: ids collide across sessions (OpenClaw's 8 hex digits), and
            # an entry with the erased one's id but other words is another message.
            if r["id"] not in chosen and ((r["native_id"], r["kind"], r["text"]) in messages
                                          or r["text"] in longs):
                found[r["id"]] = (r["id"], r["session"], r["seq"])
    # One read of each native session's entries (all its generations), however many entries are erased.
    # (text form, whether only an echo may repeat it: the text without its image lines, which a queue line
    # leaves out, is no copy in another generation) -> the erased entries
    by_text: dict[tuple[str, str], dict[str, list[tuple[sqlite3.Row, bool]]]] = {}
    for w in wanted:
        said = by_text.setdefault((w["harness"], w["native_session"]), {})
        whole = {w["text"], w["text"].strip()} - {""}
        for form in whole:
            said.setdefault(form, []).append((w, False))
        if (worded := _worded(w["text"])) and worded not in whole:
            said.setdefault(worded, []).append((w, True))
    for (harness, native_session), said in by_text.items():
        for r in record.db.execute(
            "SELECT e.id, e.session, e.seq, e.author, e.text FROM entries e "
            "JOIN sessions s ON s.id = e.session "
            "WHERE s.harness = ? AND s.native_id = ? AND e.erased_at IS NULL",
            (harness, native_session),
        ):
            for form in (echoes(r["text"], harness) | {r["text"]} if r["author"] == "harness"
                         else (r["text"],)):
                for w, echo_only in said.get(form, ()):
                    echo = r["session"] == w["session"] and "harness" in (r["author"], w["author"])
                    if r["id"] not in chosen and (echo or (r["session"] != w["session"] and not echo_only)):
                        found[r["id"]] = (r["id"], r["session"], r["seq"])
    for r in [*_forked(record, wanted), *_called(record, wanted)]:
        if r[0] not in chosen:
            found[r[0]] = r
    for r in _lines_holding(record, wanted, {f[1] for f in found.values()}):
        if r[0] not in chosen:
            found[r[0]] = r
    for r in _prompts_holding(record, wanted, sorted(found)):
        if r[0] not in chosen:
            found[r[0]] = r
    # Last, and not as sessions whose other lines are searched: a summary quoting a message is no copy
    # of the rest of its session.
    for r in _quoting(record, wanted):
        if r[0] not in chosen:
            found[r[0]] = r
    return sorted(found.values(), key=lambda f: (f[1], f[2]))

def _forked(record: Record, wanted: Sequence[sqlite3.Row]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the same message (author, kind and text, `LINE_CHARS` or more) in the forks
    of an erased message's session, and their forks. One read of those sessions' entries per session erased
    from, however many entries are erased."""
    said: dict[tuple[str, str], set[tuple[str, str, str]]] = {}
    for w in wanted:
        if len(w["text"].strip()) >= LINE_CHARS and w["author"] in ("owner", "agent"):
            key = (w["harness"], w["native_session"])
            said.setdefault(key, set()).add((w["author"], w["kind"], w["text"]))
    out: list[tuple[int, int, int]] = []
    for (harness, native), messages in said.items():
        forks = _started_from(record, harness, native, "fork", FORK_DEPTH)
        if not forks:
            continue
        texts = orjson.dumps(sorted({text for _, _, text in messages})).decode()
        for r in record.db.execute(
            "SELECT id, session, seq, author, kind, text FROM entries "
            "WHERE session IN (SELECT value FROM json_each(?)) AND erased_at IS NULL "
            "AND text IN (SELECT value FROM json_each(?))",
            (orjson.dumps(forks).decode(), texts),
        ):
            if (r["author"], r["kind"], r["text"]) in messages:
                out.append((r["id"], r["session"], r["seq"]))
    return out


def _called(record: Record, wanted: Sequence[sqlite3.Row]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of what an erased tool call's `arguments` were written into again: the entries
    cut from its result's source record when that holds one (as it is or JSON-escaped), and the entries of
    the sub-agents started from its session that are the prompt it gave (`_PROMPTS`). One read of each
    session's results and of its sub-agents' entries, however many calls are erased."""
    calls: dict[int, list[sqlite3.Row]] = {}
    for w in wanted:
        if w["kind"] == "tool_call" and w["text"].startswith("{"):
            calls.setdefault(w["session"], []).append(w)
    out: list[tuple[int, int, int]] = []
    for session, made in calls.items():
        needles = {w["grp"]: [n for v in arguments(w["text"]) for n in (v.encode(), orjson.dumps(v)[1:-1])]
                   for w in made if w["grp"] is not None}
        lines: dict[tuple[int, str], bool] = {}
        for r in record.db.execute(
            "SELECT e.id, e.seq, e.grp, e.raw_id, r.raw FROM entries e JOIN raws r ON r.id = e.raw_id "
            "WHERE e.session = ? AND e.kind = 'tool_result' AND e.erased_at IS NULL "
            "AND e.grp IN (SELECT value FROM json_each(?))",
            (session, orjson.dumps(sorted(g for g, n in needles.items() if n)).decode()),
        ):
            seen = (r["raw_id"], r["grp"])
            if seen not in lines:
                line = unpack(r["raw"])
                lines[seen] = any(n in line for n in needles[r["grp"]])
            if lines[seen]:
                out.append((r["id"], session, r["seq"]))
        given = {v for w in made for v in arguments(w["text"], _PROMPTS)}
        out += _prompted(record, made[0]["harness"], made[0]["native_session"], given)
    return out


def _prompted(record: Record, harness: str, native: str, given: set[str]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the entries of the sub-agents started from native session `native` that
    are one of the prompts `given`."""
    children = _started_from(record, harness, native, "subagent", 1) if given else []
    if not children:
        return []
    return [(r["id"], r["session"], r["seq"]) for r in record.db.execute(
        "SELECT id, session, seq FROM entries WHERE session IN (SELECT value FROM json_each(?)) "
        "AND erased_at IS NULL AND text IN (SELECT value FROM json_each(?))",
        (orjson.dumps(children).decode(), orjson.dumps(sorted(given)).decode()),
    )]


def _prompts_holding(record: Record, wanted: Sequence[sqlite3.Row], calls: Sequence[int]
                     ) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the sub-agent prompts given by the agent calls `calls` (erased as copies)
    that hold an erased text of `LINE_CHARS` or more: the prompt quoted it, and the sub-agent's first
    message is that prompt. A call erased only for sharing a line with one keeps its sub-agent's words."""
    texts = [w["text"] for w in wanted if len(w["text"]) >= LINE_CHARS]
    if not texts or not calls:
        return []
    given: dict[tuple[str, str], set[str]] = {}
    for r in record.db.execute(
        "SELECT e.text, s.harness, s.native_id FROM entries e JOIN sessions s ON s.id = e.session "
        "WHERE e.id IN (SELECT value FROM json_each(?)) AND e.kind = 'tool_call'",
        (orjson.dumps(list(calls)).decode(),),
    ):
        prompts = {v for v in arguments(r["text"], _PROMPTS) if any(t in v for t in texts)}
        given.setdefault((r["harness"], r["native_id"]), set()).update(prompts)
    return [found for (harness, native), prompts in given.items()
            for found in _prompted(record, harness, native, prompts)]


def _started_from(record: Record, harness: str, native: str, relation: str, depth: int) -> list[int]:
    """The sessions (every generation) started from native session `native` as `relation` (a fork, a
    sub-agent), and those started so from them, `depth` steps down at most."""
    rows = record.db.execute(
        "WITH RECURSIVE down(n, d) AS (SELECT ?, 0 UNION SELECT s.native_id, down.d + 1 FROM sessions s "
        "JOIN down ON s.parent_native = down.n WHERE s.harness = ? AND s.relation = ? AND down.d < ?) "
        "SELECT id FROM sessions WHERE harness = ? AND native_id IN (SELECT n FROM down WHERE d > 0)",
        (native, harness, relation, depth, harness),
    )
    return [r[0] for r in rows]


def _sub_agents(record: Record, sessions: Sequence[int]) -> list[int]:
    """The sessions started as sub-agents from `sessions`, and their sub-agents, `FORK_DEPTH` steps down at
    most."""
    out: list[int] = []
    for harness, native in record.db.execute(
        "SELECT DISTINCT harness, native_id FROM sessions WHERE id IN (SELECT value FROM json_each(?))",
        (orjson.dumps(list(sessions)).decode(),),
    ):
        out += _started_from(record, harness, native, "subagent", FORK_DEPTH)
    return out


def _quoting(record: Record, wanted: Sequence[sqlite3.Row]) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the harness's own summaries and messages that quote an erased message
    of the owner's or the agent's as a block of their own (`quoted`): in the message's own session and
    the sessions started from it (a compaction child, a fork) for a text of `LINE_CHARS` or more; in a
    summary of any session of the harness for one of `COPY_CHARS` or more. One pass over those
    entries, each block looked up in a set."""
    out: list[tuple[int, int, int]] = []
    for harness in {w["harness"] for w in wanted}:
        said = [(w["native_session"], w["text"].strip()) for w in wanted
                if w["harness"] == harness and w["author"] in ("owner", "agent")
                and w["kind"] == "message"
                and len(w["text"].strip()) >= LINE_CHARS]
        near: dict[str, set[str]] = {}
        for native, text in said:
            near.setdefault(native, set()).add(text)
        far = {text for _, text in said if len(text) >= COPY_CHARS}
        if not near:
            continue
        natives = orjson.dumps(sorted(near)).decode()
        for r in record.db.execute(
            "SELECT e.id, e.session, e.seq, e.kind, e.text, s.native_id, s.parent_native FROM entries e "
            "JOIN sessions s ON s.id = e.session WHERE s.harness = ? AND e.author = 'harness' "
            "AND e.kind IN ('summary', 'message') AND e.erased_at IS NULL AND ("
            "s.native_id IN (SELECT value FROM json_each(?)) OR s.parent_native IN (SELECT value FROM "
            "json_each(?)) OR (e.kind = 'summary' AND ?))",
            (harness, natives, natives, bool(far)),
        ):
            needles = (near.get(r["native_id"], set()) | near.get(r["parent_native"] or "", set())
                       | (far if r["kind"] == "summary" else set()))
            if needles and quoted(r["text"]) & needles:
                out.append((r["id"], r["session"], r["seq"]))
    return out

def _lines_holding(record: Record, wanted: Sequence[sqlite3.Row], more: set[int]
                   ) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the entries cut from another source record of the sessions involved
    that holds one of the erased texts (of `LINE_CHARS` or more), as it is or JSON-escaped: a harness
    writes a message again inside other lines (Codex's task_complete and exec_command_end, a compacted
    history). Erasing them takes that line too, as a line holding erased words goes at sync (`scan`). An
    erased message of the owner's or the agent's is looked for in the sub-agents those sessions started
    too (their prompts); their other entries keep their words unless their line holds it."""
    needles = _Anchored(n for w in wanted if len(w["text"]) >= LINE_CHARS
                       for n in (w["text"].encode(), orjson.dumps(w["text"])[1:-1]))
    if not needles:
        return []
    out: list[tuple[int, int, int]] = []
    sessions = sorted({w["session"] for w in wanted} | more)
    # A message of the owner's or the agent's reaches the sub-agents those sessions started: the prompt
    # the parent agent gives one quotes it, or is it (an agent call erased as a copy for holding it).
    said = _Anchored(n for w in wanted if len(w["text"]) >= LINE_CHARS and w["kind"] == "message"
                     and w["author"] in ("owner", "agent")
                     for n in (w["text"].encode(), orjson.dumps(w["text"])[1:-1]))
    if said:
        out += _holding(record, sorted(set(_sub_agents(record, sessions)) - set(sessions)), said, {})
    # Their own lines are not others': a sibling cut from the same line (the tool call beside an erased
    # text block) loses the line, as it always did, but keeps its own words.
    lines: dict[int, bool] = {w["raw_id"]: False for w in wanted if w["raw_id"] is not None}
    return out + _holding(record, sessions, needles, lines)


def _holding(record: Record, sessions: Sequence[int], needles: _Anchored, lines: dict[int, bool]
             ) -> list[tuple[int, int, int]]:
    """(entry, session, seq) of the entries of `sessions` cut from a source record holding one of
    `needles`; `lines` holds what is known of a source record already (by its id)."""
    out: list[tuple[int, int, int]] = []
    for r in record.db.execute(
        "SELECT e.id, e.session, e.seq, e.raw_id, r.raw FROM entries e JOIN raws r ON r.id = e.raw_id "
        "WHERE e.session IN (SELECT value FROM json_each(?)) AND e.erased_at IS NULL",
        (orjson.dumps(sessions).decode(),),
    ):
        if r["raw_id"] not in lines:
            line = unpack(r["raw"])
            lines[r["raw_id"]] = needles.within(line)
        if lines[r["raw_id"]]:
            out.append((r["id"], r["session"], r["seq"]))
    return out

class _Anchored:
    """Byte strings to look for inside lines, each only in the lines holding its longest inner word. A word
    standing wholly inside a needle (touching neither end) stands as a word of its own in any line holding
    the needle, so a line without that word cannot hold it: one pass over a line's words replaces a search
    for every needle, thousands when a whole session is erased. A needle with no inner word is searched for
    in every line."""

    def __init__(self, needles: Iterable[bytes]) -> None:
        self.by_word: dict[bytes, list[bytes]] = {}
        self.bare: list[bytes] = []
        for n in set(needles):
            inner = _WORD.findall(n)[_WORD.match(n) is not None:]
            if inner and _WORD.match(n, len(n) - 1):
                inner.pop()
            if inner:
                self.by_word.setdefault(max(inner, key=len), []).append(n)
            else:
                self.bare.append(n)

    def __bool__(self) -> bool:
        return bool(self.by_word or self.bare)

    def within(self, line: bytes) -> bool:
        """Whether `line` holds one of the needles."""
        if any(n in line for n in self.bare):
            return True
        return any(n in line for w in self.by_word.keys() & set(_WORD.findall(line)) for n in self.by_word[w])


def erased_marks(record: Record, source_id: int, generation: int, harness: str
                 ) -> tuple[Marks, Marks, Marks, Marks, Quotes]:
    """What identifies the entries erased in generations of a source before `generation`, each with
    the (time, reason) of its erasure: the keyed hashes of their texts; (session's native id, native
    id, kind) of those that carry a native id of their own (a message's uuid), which names the same
    message again even when a rewrite edited its words (its key may hash them); and the keyed hashes
    of the source records they were cut from, which name the line whatever a reader makes of it.
    Fourth, from every source of `harness`: (native id, kind, keyed hash of the text) of each erased
    message, which a resumed or forked session's new file holds again, and the keyed hash of each
    erased text, for a copy without an id of its own (see `copies`). Fifth, the keyed hash of each
    erased message of the owner's or the agent's and each erased harness entry, trimmed, and of the prompt
    of each erased agent call (`quoted_by`), per native session and author it was erased in: a harness
    entry repeating or quoting it there (`_quoting`'s rule, `echoes`), a fork's copy, and a sub-agent's
    prompt, are erased too."""
    by_quote: Quotes = {}
    by_text: Marks = {}
    by_id: Marks = {}
    by_line: Marks = {}
    by_copy: Marks = {}
    rows = record.db.execute(
        "SELECT t.hash, t.line_hash, x.at, x.reason, s.native_id, e.native_id, e.kind, t.source, "
        "t.generation, t.quote_hash, e.author FROM erased_texts t JOIN erasures x ON x.entry = t.entry "
        "JOIN entries e ON e.id = t.entry JOIN sessions s ON s.id = e.session "
        "WHERE s.harness = ? ORDER BY x.id",
        (harness,),
    )
    for digest, line, at, reason, session, native, kind, source, erased_in, quote, author in rows:
        if native is not None:
            by_copy[(native, kind, bytes(digest))] = (at, reason)
        by_copy[bytes(digest)] = (at, reason)  # counted for a text of COPY_CHARS or more (`scan`)
        # A message of the owner's or the agent's, which a harness quotes or repeats, and an agent call's
        # prompt, which its sub-agent's first message is; and the harness's own bookkeeping (`agent-name:
        # …`, `ai-title: …`), which it writes again in the same session.
        said = ((kind == "message" and author in ("owner", "agent"))
                or (kind == "tool_call" and author == "agent"))
        if quote is not None and (said or author == "harness"):
            by_quote.setdefault(bytes(quote), {})[(session, author)] = (at, reason)
        if source != source_id or erased_in >= generation:
            continue
        by_text[bytes(digest)] = (at, reason)
        if native is not None:
            by_id[(session, native, kind)] = (at, reason)
        if line is not None:
            by_line[bytes(line)] = (at, reason)
    return by_text, by_id, by_line, by_copy, by_quote

def erased_among(record: Record, texts: Iterable[str]) -> set[str]:
    """Those of `texts` that are the whole text of an erased entry (matched by keyed hash: the record
    keeps no erased words to compare with)."""
    by_hash = {record.text_hash(t): t for t in texts}
    if not by_hash:
        return set()
    found: set[str] = set()
    hashes = list(by_hash)
    for i in range(0, len(hashes), 500):  # under SQLite's bound on parameters
        part = hashes[i:i + 500]
        marks = ",".join("?" * len(part))
        for r in record.db.execute(f"SELECT hash, quote_hash FROM erased_texts WHERE hash IN ({marks}) "
                                 f"OR quote_hash IN ({marks})", [*part, *part]):
            found |= {by_hash[h] for h in (bytes(r[0]), r[1] and bytes(r[1])) if h in by_hash}
    return found
