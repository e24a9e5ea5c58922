"""The summary cache's ledger: per session, a chain of blocks, each naming the entry range it summarises
(`mining/summaries.py` writes them with an LLM and checks their citations).

Seed 004 keeps the ledger as a CSV beside the store and the text in part files; here both live in the
record (`summary_blocks`, migration m005), where a trigger holds the chain — a block starts one past
where the last ended, or at 1 — and another lets only the newest block go, and only once its deletion
is in the append-only `summary_deletions` log. Blocks are derived data: deleting one loses nothing
the record cannot rebuild.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from total_recall.errors import SummaryCacheError
from total_recall.record.database import Record, now

COUNTED = ("owner", "agent", "tool", "thinking", "harness")


@dataclass(frozen=True, slots=True)
class Tally:
    """What a run of entries holds: how many of each sort, how many characters, roughly how many tokens."""

    first_seq: int
    last_seq: int
    first_ts: str | None
    last_ts: str | None
    owner: int = 0
    agent: int = 0
    tool: int = 0
    thinking: int = 0
    harness: int = 0
    chars: int = 0

    @property
    def count(self) -> int:
        return self.last_seq - self.first_seq + 1

    @property
    def tokens_est(self) -> int:
        return (self.chars + 3) // 4

    def counts(self) -> dict[str, int]:
        return {"owner": self.owner, "agent": self.agent, "tool": self.tool, "thinking": self.thinking,
                "harness": self.harness}


@dataclass(frozen=True, slots=True)
class BlockDraft:
    """One summary to cache: the range it covers, what wrote it, what it cost, what it could not verify."""

    session: int
    tally: Tally
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    usage_reported: bool
    prompt_bytes: int
    dropped_entries: int
    dropped_bytes: int
    unverified: tuple[dict[str, str], ...]
    text: str

    @property
    def first_seq(self) -> int:
        return self.tally.first_seq

    @property
    def last_seq(self) -> int:
        return self.tally.last_seq

    @property
    def range(self) -> str:
        return f"s{self.session}#{self.first_seq}-{self.last_seq}"


@dataclass(frozen=True, slots=True)
class ReadMark:
    """Where the record stood when a block's read began: the newest erasure's id (erasures are append-only,
    so a higher id is a later erase, whatever the clock or two erases in the same millisecond) and the
    time, in the format of `erasures.at`."""

    erasure: int
    at: str


class ErasedWhileWriting(SummaryCacheError):
    """An entry the block covers, or one its prompt carried, was erased after its read began: the model's
    answer may hold the erased words, so the block was not stored."""

    def __init__(self, draft: BlockDraft, erased: list[str]) -> None:
        super().__init__(
            f"{draft.range}: {', '.join(erased)} was erased while this block was written; it was not stored "
            "(it may hold the erased words): summarise again")
        self.erased = erased


@dataclass(frozen=True, slots=True)
class Block:
    """One cached summary: the draft as written, with the id and time the record gave it."""

    id: int
    draft: BlockDraft
    created: str


def tally(record: Record, session: int, first_seq: int, last_seq: int | None = None) -> Tally | None:
    """The tally of entries `first_seq`..`last_seq` (default: the session's end); None when there are none."""
    last = last_seq if last_seq is not None else 2**62
    where = "session = ? AND seq >= ? AND seq <= ?"
    row = record.db.execute(
        f"""SELECT MIN(seq), MAX(seq),
                   (SELECT ts FROM entries WHERE {where} AND ts IS NOT NULL ORDER BY seq LIMIT 1),
                   (SELECT ts FROM entries WHERE {where} AND ts IS NOT NULL ORDER BY seq DESC LIMIT 1),
                   {_TALLY_SUMS}, COALESCE(SUM(LENGTH(text)), 0)
            FROM entries WHERE {where}""",
        (session, first_seq, last) * 3,
    ).fetchone()
    if row[0] is None:
        return None
    return Tally(row[0], row[1], row[2], row[3], owner=row[4], agent=row[5], tool=row[6], thinking=row[7],
                 harness=row[8], chars=row[9])


# Each entry counts once: thinking, then tool traffic, then by author; the rest (harness and system
# text, metadata) is `harness`.
_TALLY_SUMS = ", ".join([
    "COALESCE(SUM(author = 'owner' AND kind NOT IN ('thinking', 'tool_call', 'tool_result')), 0)",
    "COALESCE(SUM(author = 'agent' AND kind NOT IN ('thinking', 'tool_call', 'tool_result')), 0)",
    "COALESCE(SUM(kind IN ('tool_call', 'tool_result')), 0)",
    "COALESCE(SUM(kind = 'thinking'), 0)",
    "COALESCE(SUM(author NOT IN ('owner', 'agent') AND kind NOT IN ('thinking', 'tool_call', 'tool_result'))"
    ", 0)",
])


# -- reading --

def blocks(record: Record, session: int) -> list[Block]:
    """The session's blocks, oldest first."""
    rows = record.db.execute(
        "SELECT * FROM summary_blocks WHERE session = ? ORDER BY first_seq", (session,)).fetchall()
    return [_block(r) for r in rows]


def next_seq(record: Record, session: int) -> int:
    """The first entry no block covers: one past the last block's end, or 1."""
    row = record.db.execute("SELECT MAX(last_seq) FROM summary_blocks WHERE session = ?",
                           (session,)).fetchone()
    return int(row[0] or 0) + 1


def read_mark(record: Record) -> ReadMark:
    """Where the record stands now, taken before a block's read (see `add`)."""
    row = record.db.execute("SELECT COALESCE(MAX(id), 0) FROM erasures").fetchone()
    return ReadMark(int(row[0]), now())


def erased_after(record: Record, session: int, last_seq: int, mark: ReadMark) -> list[str]:
    """Addresses of `session` up to `last_seq` erased after `mark` was taken: what a block through
    `last_seq` may quote (its range, and its prompt's earlier blocks) that its read may have seen whole."""
    rows = record.db.execute(
        "SELECT e.seq FROM erasures x JOIN entries e ON e.id = x.entry "
        "WHERE x.id > ? AND e.session = ? AND e.seq <= ? ORDER BY e.seq",
        (mark.erasure, session, last_seq),
    ).fetchall()
    return [f"s{session}#{r[0]}" for r in rows]


def erased_since(record: Record, block: Block) -> list[str]:
    """Addresses erased after the block was written that its text may quote: in its range, or before it
    (its prompt carried the session's earlier blocks)."""
    d = block.draft
    rows = record.db.execute(
        "SELECT e.seq FROM entries e JOIN erasures x ON x.entry = e.id "
        "WHERE e.session = ? AND e.seq <= ? AND x.at >= ? ORDER BY e.seq",
        (d.session, d.last_seq, block.created),
    ).fetchall()
    return [f"s{d.session}#{r[0]}" for r in rows]


def quarantined_since(record: Record, block: Block) -> list[str]:
    """Addresses the block's text may quote (as `erased_since`) that were put in quarantine after it was
    written and are not released: the block is withheld while they are."""
    d = block.draft
    rows = record.db.execute(
        "SELECT e.seq FROM entries e JOIN quarantine q ON q.entry = e.id "
        "WHERE e.session = ? AND e.seq <= ? AND q.action = 'quarantine' AND q.at >= ? "
        "AND q.id = (SELECT MAX(id) FROM quarantine WHERE entry = e.id) ORDER BY e.seq",
        (d.session, d.last_seq, block.created),
    ).fetchall()
    return [f"s{d.session}#{r[0]}" for r in rows]


def deletions(record: Record, session: int) -> list[dict[str, Any]]:
    rows = record.db.execute(
        "SELECT * FROM summary_deletions WHERE session = ? ORDER BY id", (session,)).fetchall()
    return [{"block": r["block"], "range": f"s{session}#{r['first_seq']}-{r['last_seq']}",
             "provider": r["provider"], "model": r["model"], "created": r["created"],
             "summary_chars": r["summary_chars"], "deleted_at": r["at"], "reason": r["reason"]} for r in rows]


def markers(record: Record, sessions: Sequence[int]) -> dict[int, dict[str, Any]]:
    """For listings: per session that has blocks, the address and time the cache covers through."""
    if not sessions:
        return {}
    rows = record.db.execute(
        "SELECT b.session, b.last_seq, b.last_ts, "
        "(SELECT COUNT(*) FROM summary_blocks c WHERE c.session = b.session) AS n FROM summary_blocks b "
        f"WHERE b.session IN ({','.join('?' * len(sessions))}) "
        "AND b.last_seq = (SELECT MAX(last_seq) FROM summary_blocks WHERE session = b.session)",
        tuple(sessions),
    ).fetchall()
    return {r["session"]: {"through": f"s{r['session']}#{r['last_seq']}", "through_ts": r["last_ts"],
                           "blocks": r["n"]} for r in rows}


# -- writing --

def add(record: Record, draft: BlockDraft, mark: ReadMark | None = None) -> Block:
    """Append a block to its session's chain. With `mark` (taken before the block's entries were read),
    the block is dated when its read began, so an erase or quarantine after that withholds it on read
    (`erased_since`, `quarantined_since`) and a later erase blanks it.

    Raises:
        ErasedWhileWriting: an entry of the session up to the block's end was erased after `mark`; nothing
            is stored (an erase never blanks a block written after it, so this one would keep the words).
        SummaryCacheError: the block does not start where the chain ends (another writer got there first).
    """
    t = draft.tally
    record.begin()
    try:
        # Checked in the write transaction: an erase that commits before it is seen here; one that commits
        # after it blanks the block, which is dated when its read began.
        erased = [] if mark is None else erased_after(record, draft.session, draft.last_seq, mark)
        if erased:
            raise ErasedWhileWriting(draft, erased)
        cur = record.db.execute(
            "INSERT INTO summary_blocks(session, first_seq, last_seq, first_ts, last_ts, owner, agent, tool, "
            "thinking, harness, chars, tokens_est, provider, model, prompt_tokens, completion_tokens, "
            "usage_reported, prompt_bytes, dropped_entries, dropped_bytes, unverified, text, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (draft.session, t.first_seq, t.last_seq, t.first_ts, t.last_ts, t.owner, t.agent, t.tool,
             t.thinking, t.harness, t.chars, t.tokens_est, draft.provider, draft.model, draft.prompt_tokens,
             draft.completion_tokens, int(draft.usage_reported), draft.prompt_bytes, draft.dropped_entries,
             draft.dropped_bytes, json.dumps(list(draft.unverified)), draft.text,
             now() if mark is None else mark.at),
        )
        block_id = cur.lastrowid
        record.commit()
    except sqlite3.IntegrityError as exc:
        record.rollback()
        raise SummaryCacheError(
            f"s{draft.session}: the summary cache changed while this block was written ({exc}); "
            f"the next block starts at s{draft.session}#{next_seq(record, draft.session)}: "
            "look again with summary_cache"
        ) from exc
    except BaseException:
        record.rollback()
        raise
    row = record.db.execute("SELECT * FROM summary_blocks WHERE id = ?", (block_id,)).fetchone()
    return _block(row)


def delete_latest(record: Record, session: int, reason: str) -> Block:
    """Delete the session's newest block, logging the deletion first.

    Raises:
        SummaryCacheError: the session has no blocks.
    """
    record.begin()
    try:
        row = record.db.execute(
            "SELECT * FROM summary_blocks WHERE session = ? ORDER BY first_seq DESC LIMIT 1", (session,)
        ).fetchone()
        if row is None:
            raise SummaryCacheError(
                f"s{session} has no cached summary blocks: nothing to delete (summarise_from makes one)")
        block = _block(row)
        d = block.draft
        record.db.execute(
            "INSERT INTO summary_deletions(block, session, first_seq, last_seq, provider, model, created, "
            "summary_chars, at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (block.id, session, d.first_seq, d.last_seq, d.provider, d.model, block.created, len(d.text),
             now(), reason),
        )
        record.db.execute("DELETE FROM summary_blocks WHERE id = ?", (block.id,))
        record.commit()
    except BaseException:
        record.rollback()
        raise
    return block


def _block(r: sqlite3.Row) -> Block:
    draft = BlockDraft(
        session=r["session"],
        tally=Tally(r["first_seq"], r["last_seq"], r["first_ts"], r["last_ts"], r["owner"], r["agent"],
                    r["tool"], r["thinking"], r["harness"], r["chars"]),
        provider=r["provider"],
        model=r["model"],
        prompt_tokens=r["prompt_tokens"],
        completion_tokens=r["completion_tokens"],
        usage_reported=bool(r["usage_reported"]),
        prompt_bytes=r["prompt_bytes"],
        dropped_entries=r["dropped_entries"],
        dropped_bytes=r["dropped_bytes"],
        unverified=tuple(json.loads(r["unverified"])),
        text=r["text"],
    )
    return Block(id=r["id"], draft=draft, created=r["created"])
