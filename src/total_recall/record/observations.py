"""The observation tables (m019): observations with the entries they cite, their word index, the
observer's cursor per session, backups, staged promotions and the nightly log.

Observations are derived from the record and rebuildable, so they are updated and deleted freely; what
they quote is kept beside them (`observation_sources`), so erasing a cited entry withdraws them in the
erase's own transaction (the m019 trigger). Writers run in the caller's transaction.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from total_recall.record.database import Record

KEEP_BACKUPS = 10
_FIELDS = ("text", "priority", "type", "confidence", "source_type", "importance", "subject", "origin",
           "hooks", "created", "updated", "seen", "decayed", "archived_at", "superseded_by", "retired_at",
           "retired_reason", "retired_entry")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Cited:
    """An entry an observation came from (`s3#12`), with the words of it the observation rests on."""

    address: str
    quote: str
    entry: int
    ts: str | None


@dataclass(frozen=True, slots=True)
class Observation:
    """An observation as the table holds it. `importance` runs 0–10; times are ISO UTC strings; `seen`
    is the newest time of the entries it cites (its age counts from there)."""

    id: int
    text: str
    priority: str
    type: str
    confidence: float
    source_type: str
    importance: float
    subject: str
    origin: str
    hooks: tuple[str, ...]
    created: str
    updated: str
    seen: str
    decayed: str
    archived_at: str | None
    superseded_by: int | None
    withdrawn_at: str | None
    sources: tuple[Cited, ...]
    retired_at: str | None = None
    retired_reason: str | None = None
    retired_entry: int | None = None
    retired_by: str | None = None  # the address of `retired_entry`

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    @property
    def retired(self) -> bool:
        """Taken back by the owner (or left on a rewound branch): kept, never current until said again."""
        return self.retired_at is not None

    @property
    def current(self) -> bool:
        """Neither archived, superseded, retired nor withdrawn."""
        return (self.archived_at is None and self.superseded_by is None and self.withdrawn_at is None
                and self.retired_at is None)

    @property
    def addresses(self) -> list[str]:
        return list(dict.fromkeys(c.address for c in self.sources))

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True, slots=True)
class Pending:
    """A session with entries the observer has not read: `after` is the last entry it read (0: none)."""

    number: int
    harness: str
    entries: int
    after: int
    relation: str | None
    cwd: str | None
    meta: dict[str, Any]
    title: str | None


@dataclass(frozen=True, slots=True)
class Proposal:
    """A promotion staged for the owner: a theme seen often enough, with the observations it gathers."""

    id: int
    theme: str
    type: str
    text: str
    members: tuple[int, ...]
    occurrences: int
    days: int
    status: str
    created: str
    decided: str | None
    result: int | None


@dataclass(frozen=True, slots=True)
class Night:
    """One run of the nightly cycle as its log keeps it (ids and counts, never observation text)."""

    id: int
    at: str
    applied: bool
    outcome: str
    metrics: dict[str, Any]
    log: list[dict[str, Any]]


# -- observations --

def add(record: Record, fields: dict[str, Any], digest: bytes | None,
        sources: Sequence[tuple[int, str]]) -> int:
    """Store an observation (`fields`: the columns of `_FIELDS` but the archive/supersede ones, `hooks`
    a list) citing `sources` (entry id, quote); returns its id. One citing an entry erased already is
    stored withdrawn, as the erase would have left it: its text came from a read taken before the erase."""
    row = {**fields, "hooks": orjson.dumps(list(fields.get("hooks", ()))).decode()}
    names = [n for n in _FIELDS if n in row]
    gone = erased_entries(record, [entry for entry, _ in sources])
    if gone:
        # The m019 trigger's withdrawal, done here: it fires on the erase alone, which has happened.
        row.update(text="", hooks="[]", subject="")
        digest = None
    cur = record.db.execute(
        f"INSERT INTO observations({', '.join(names)}, hash) VALUES ({', '.join('?' * len(names))}, ?)",
        (*(row[n] for n in names), digest))
    obs = int(cur.lastrowid or 0)
    if gone:
        record.db.execute("UPDATE observations SET withdrawn_at = ? WHERE id = ?", (min(gone.values()), obs))
        record.db.executemany("INSERT INTO observation_sources(obs, entry, quote) VALUES (?, ?, '')",
                              [(obs, entry) for entry in dict.fromkeys(e for e, _ in sources)])
        return obs
    cite(record, obs, sources)
    _index(record, obs)
    return obs


def cite(record: Record, obs: int, sources: Iterable[tuple[int, str]]) -> int:
    """Add sources an observation does not cite yet; returns how many were new. Nothing is added to a
    withdrawn observation, nor a source whose entry is erased: an erase blanks the quotes citing its entry
    once, in its own transaction (m019), so a quote copied after it (by a writer that read before it)
    would keep the erased words."""
    if record.db.execute("SELECT 1 FROM observations WHERE id = ? AND withdrawn_at IS NULL",
                         (obs,)).fetchone() is None:
        return 0
    sources = list(dict.fromkeys(sources))
    gone = erased_entries(record, [entry for entry, _ in sources])
    have = {(int(r[0]), r[1]) for r in record.db.execute(
        "SELECT entry, quote FROM observation_sources WHERE obs = ?", (obs,))}
    new = [(obs, entry, quote) for entry, quote in sources
           if (entry, quote) not in have and entry not in gone]
    record.db.executemany("INSERT INTO observation_sources(obs, entry, quote) VALUES (?, ?, ?)", new)
    return len(new)


def erased_entries(record: Record, entries: Iterable[int]) -> dict[int, str]:
    """Entry id → when it was erased, for the erased ones among `entries`."""
    ids = list(dict.fromkeys(entries))
    out: dict[int, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        out.update((int(r[0]), r[1]) for r in record.db.execute(
            f"SELECT id, erased_at FROM entries WHERE erased_at IS NOT NULL AND id IN "
            f"({','.join('?' * len(chunk))})", tuple(chunk)))
    return out


def by_hash(record: Record, digest: bytes) -> int | None:
    row = record.db.execute("SELECT id FROM observations WHERE hash = ?", (digest,)).fetchone()
    return None if row is None else int(row[0])


def update(record: Record, obs: int, **fields: Any) -> None:
    """Set columns of one observation; a new text or hooks re-index it."""
    if "hooks" in fields:
        fields["hooks"] = orjson.dumps(list(fields["hooks"])).decode()
    bad = set(fields) - set(_FIELDS)
    if bad:
        raise ValueError(f"not an observation column: {sorted(bad)}")
    sets = ", ".join(f"{n} = ?" for n in fields)
    record.db.execute(f"UPDATE observations SET {sets} WHERE id = ? AND withdrawn_at IS NULL",
                      (*fields.values(), obs))
    if "text" in fields or "hooks" in fields:
        _index(record, obs)


def delete(record: Record, ids: Sequence[int]) -> None:
    """Drop observations whole (what they cite, their index rows); nothing that names them stays."""
    if not ids:
        return
    marks = ",".join("?" * len(ids))
    record.db.execute(f"DELETE FROM observations_fts WHERE rowid IN ({marks})", tuple(ids))
    record.db.execute(f"DELETE FROM observation_sources WHERE obs IN ({marks})", tuple(ids))
    record.db.execute(f"UPDATE observations SET superseded_by = NULL WHERE superseded_by IN ({marks})",
                      tuple(ids))
    record.db.execute(f"DELETE FROM observations WHERE id IN ({marks})", tuple(ids))


def read(record: Record, ids: Sequence[int] | None = None, *, withdrawn: bool = False) -> list[Observation]:
    """Observations by id (None: all), oldest first, with their sources; withdrawn ones only if asked."""
    sql = ("SELECT *, (SELECT 's' || e.session || '#' || e.seq FROM entries e WHERE e.id = retired_entry) "
           "AS retired_by FROM observations")
    params: tuple[Any, ...] = ()
    where = [] if withdrawn else ["withdrawn_at IS NULL"]
    if ids is not None:
        if not ids:
            return []
        where.append(f"id IN ({','.join('?' * len(ids))})")
        params = tuple(ids)
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = record.db.execute(sql + " ORDER BY id", params).fetchall()
    cited: dict[int, list[Cited]] = {}
    if rows:
        low, high = rows[0]["id"], rows[-1]["id"]
        for obs, entry, quote, session, seq, ts in record.db.execute(
            "SELECT o.obs, o.entry, o.quote, e.session, e.seq, e.ts FROM observation_sources o "
            "JOIN entries e ON e.id = o.entry WHERE o.obs BETWEEN ? AND ? ORDER BY o.rowid", (low, high)):
            cited.setdefault(int(obs), []).append(Cited(f"s{session}#{seq}", quote, int(entry), ts))
    return [_observation(r, tuple(cited.get(r["id"], ()))) for r in rows]


def held(record: Record) -> set[int]:
    """The ids of the observations held (withdrawn ones aside)."""
    return {int(r[0]) for r in record.db.execute("SELECT id FROM observations WHERE withdrawn_at IS NULL")}


def search(record: Record, words: Sequence[str], limit: int) -> list[int]:
    """Observations (archived ones too, never withdrawn) whose text or hooks hold any of `words`, best
    first (bm25, text weighed over hooks)."""
    terms = [w for w in dict.fromkeys(w.lower() for w in words) if _WORD.fullmatch(w)]
    if not terms:
        return []
    match = " OR ".join(f'"{t}"' for t in terms)
    return [int(r[0]) for r in record.db.execute(
        "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? "
        "ORDER BY bm25(observations_fts, 1.0, 0.7) LIMIT ?", (match, limit))]


def _index(record: Record, obs: int) -> None:
    record.db.execute("DELETE FROM observations_fts WHERE rowid = ?", (obs,))
    row = record.db.execute("SELECT text, hooks FROM observations WHERE id = ? AND withdrawn_at IS NULL",
                            (obs,)).fetchone()
    if row is not None:
        record.db.execute("INSERT INTO observations_fts(rowid, text, hooks) VALUES (?, ?, ?)",
                          (obs, row[0], " \n".join(orjson.loads(row[1]))))


def _observation(r: Any, sources: tuple[Cited, ...]) -> Observation:
    return Observation(
        id=r["id"], text=r["text"], priority=r["priority"], type=r["type"], confidence=r["confidence"],
        source_type=r["source_type"], importance=r["importance"], subject=r["subject"], origin=r["origin"],
        hooks=tuple(orjson.loads(r["hooks"])), created=r["created"], updated=r["updated"], seen=r["seen"],
        decayed=r["decayed"], archived_at=r["archived_at"], superseded_by=r["superseded_by"],
        withdrawn_at=r["withdrawn_at"], sources=sources, retired_at=r["retired_at"],
        retired_reason=r["retired_reason"], retired_entry=r["retired_entry"], retired_by=r["retired_by"])


# -- the entries observations cite --

def entry_facts(record: Record,
                places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[int, str | None]]:
    """(session, seq) → (entry id, time) for the entries that exist among `places`."""
    out: dict[tuple[int, int], tuple[int, str | None]] = {}
    for session, seq in dict.fromkeys(places):
        row = record.db.execute("SELECT id, ts FROM entries WHERE session = ? AND seq = ?",
                                (session, seq)).fetchone()
        if row is not None:
            out[(session, seq)] = (int(row[0]), row[1])
    return out


def session_cwds(record: Record, ids: Sequence[int]) -> dict[int, str | None]:
    """Observation id → the working folder of the session of its first source."""
    if not ids:
        return {}
    return {int(r[0]): r[1] for r in record.db.execute(
        "SELECT o.obs, s.cwd FROM observation_sources o JOIN entries e ON e.id = o.entry "
        f"JOIN sessions s ON s.id = e.session WHERE o.obs IN ({','.join('?' * len(ids))}) "
        "GROUP BY o.obs", tuple(ids))}


@dataclass(frozen=True, slots=True)
class Place:
    """Where an entry stands: its session, its place in it, its time, its id in the harness's tree."""

    entry: int
    session: int
    seq: int
    ts: str | None
    native_id: str | None
    author: str


@dataclass(frozen=True, slots=True)
class Retraction:
    """The owner taking something back (m026): from `at` on, notes on `stems` (or citing `target`) said
    before it are retired; `entry` is the words that did it (None: the `observations retire` operation)."""

    id: int
    entry: int | None
    obs: int | None
    target: int | None
    at: str
    stems: tuple[str, ...]
    negated: bool
    events: bool
    unless_forbidden: bool = False  # "we no longer use npm" (m027): a note forbidding npm agrees with it


def places(record: Record, entries: Sequence[int]) -> dict[int, Place]:
    """Entry id → where it stands, for the entries that exist among `entries`."""
    return {int(r[0]): Place(int(r[0]), int(r[1]), int(r[2]), r[3], r[4], r[5]) for r in _by_entry(
        record, "SELECT e.id, e.session, e.seq, e.ts, e.native_id, e.author FROM entries e", entries)}


def folders(record: Record, entries: Sequence[int]) -> dict[int, str | None]:
    """Entry id → the working folder of its session (None: none recorded), for the entries that exist."""
    return {int(r[0]): r[1] for r in _by_entry(
        record, "SELECT e.id, s.cwd FROM entries e JOIN sessions s ON s.id = e.session", entries)}


def _by_entry(record: Record, select: str, entries: Sequence[int]) -> Iterator[sqlite3.Row]:
    """The rows of `select` (over entries `e`) for each of `entries`, asked 500 at a time."""
    ids = list(dict.fromkeys(entries))
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        yield from record.db.execute(f"{select} WHERE e.id IN ({','.join('?' * len(chunk))})", tuple(chunk))


def own_words(record: Record, entry: int) -> list[str]:
    """The owner's own sentences of `entry` (its instruction, statement and question spans; the whole
    text when it has none), '' for a question; none when it is erased."""
    row = record.db.execute("SELECT text FROM entries WHERE id = ? AND erased_at IS NULL",
                            (entry,)).fetchone()
    if row is None:
        return []
    text = row[0] or ""
    spans = record.db.execute("SELECT start, end, tag FROM spans WHERE entry = ? ORDER BY start",
                              (entry,)).fetchall()
    if not spans:
        said = re.split(r"(?<=[.!?])\s+", text.strip())
        return [("" if t.rstrip("\"')").endswith("?") else t) for t in said if t]
    return ["" if tag == "question" else text[start:end].strip() for start, end, tag in spans
            if tag in ("instruction", "statement", "question") and text[start:end].strip()]


def owner_message_before(record: Record, session: int, seq: int) -> int | None:
    """The owner's message just before `seq` in `session` (not erased), as "scratch that" names it."""
    row = record.db.execute(
        "SELECT id FROM entries WHERE session = ? AND seq < ? AND author = 'owner' AND kind = 'message' "
        "AND erased_at IS NULL ORDER BY seq DESC LIMIT 1", (session, seq)).fetchone()
    return None if row is None else int(row[0])


def citing_session(record: Record, session: int) -> list[int]:
    """The observations (not withdrawn) citing an entry of `session`."""
    return [int(r[0]) for r in record.db.execute(
        "SELECT DISTINCT o.obs FROM observation_sources o JOIN entries e ON e.id = o.entry "
        "JOIN observations b ON b.id = o.obs WHERE e.session = ? AND b.withdrawn_at IS NULL", (session,))]


def citing(record: Record, entry: int) -> list[int]:
    """The observations (not withdrawn) citing `entry`."""
    return [int(r[0]) for r in record.db.execute(
        "SELECT DISTINCT o.obs FROM observation_sources o JOIN observations b ON b.id = o.obs "
        "WHERE o.entry = ? AND b.withdrawn_at IS NULL", (entry,))]


def retire(record: Record, obs: int, at: str, reason: str, entry: int | None, updated: str) -> None:
    """Take an observation out of the current set, keeping it and why (m026)."""
    record.db.execute(
        "UPDATE observations SET retired_at = ?, retired_reason = ?, retired_entry = ?, updated = ? "
        "WHERE id = ? AND withdrawn_at IS NULL", (at, reason, entry, updated, obs))


def unretire(record: Record, obs: int, updated: str) -> None:
    record.db.execute("UPDATE observations SET retired_at = NULL, retired_reason = NULL, "
                      "retired_entry = NULL, updated = ? WHERE id = ?", (updated, obs))


def add_retraction(record: Record, *, entry: int | None, obs: int | None, target: int | None, at: str,
                   stems: Sequence[str], negated: bool, events: bool, unless_forbidden: bool = False) -> int:
    """Log one taking back (once per entry and what it names); returns its id."""
    body = orjson.dumps(sorted(set(stems))).decode()
    row = record.db.execute(
        "SELECT id FROM observation_retractions WHERE entry IS ? AND obs IS ? AND target IS ? AND stems = ?",
        (entry, obs, target, body)).fetchone()
    if row is not None:
        return int(row[0])
    cur = record.db.execute(
        "INSERT INTO observation_retractions(entry, obs, target, at, stems, negated, events, "
        "unless_forbidden) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (entry, obs, target, at, body, int(negated), int(events), int(unless_forbidden)))
    return int(cur.lastrowid or 0)


def retractions(record: Record) -> list[Retraction]:
    return [Retraction(int(r[0]), r[1], r[2], r[3], r[4], tuple(orjson.loads(r[5])), bool(r[6]), bool(r[7]),
                       bool(r[8]))
            for r in record.db.execute(
                "SELECT id, entry, obs, target, at, stems, negated, events, unless_forbidden "
                "FROM observation_retractions ORDER BY id")]


def withdrawn_count(record: Record) -> int:
    """How many observations an erase withdrew (their words gone with the entry they cited)."""
    return int(record.db.execute(
        "SELECT COUNT(*) FROM observations WHERE withdrawn_at IS NOT NULL").fetchone()[0])


# -- the observer's cursor --

def pending(record: Record, session: int | None = None) -> list[Pending]:
    """Sessions holding entries past the observer's cursor (or `session` alone), oldest first."""
    sql = ("SELECT s.id, s.harness, s.entries, COALESCE(c.last_seq, 0) AS after, s.relation, s.cwd, s.meta, "
           "s.title FROM sessions s LEFT JOIN observation_cursors c ON c.session = s.id "
           "WHERE s.entries > COALESCE(c.last_seq, 0)")
    params: tuple[int, ...] = ()
    if session is not None:
        sql += " AND s.id = ?"
        params = (session,)
    out = []
    for r in record.db.execute(sql + " ORDER BY s.id", params):
        meta = orjson.loads(r["meta"]) if r["meta"] else {}
        out.append(Pending(r["id"], r["harness"], r["entries"], r["after"], r["relation"], r["cwd"],
                           meta if isinstance(meta, dict) else {}, r["title"]))
    return out


def advance(record: Record, session: int, last_seq: int, at: str) -> None:
    record.db.execute(
        "INSERT INTO observation_cursors(session, last_seq, observed_at) VALUES (?, ?, ?) "
        "ON CONFLICT(session) DO UPDATE SET last_seq = excluded.last_seq, observed_at = excluded.observed_at",
        (session, last_seq, at))


# -- backups --

def back_up(record: Record, reason: str, at: str, spare: int | None = None) -> int:
    """Copy every observation not withdrawn, with what it cites, into a new backup; keep the newest
    KEEP_BACKUPS (and `spare`, a backup about to be restored, this once). Returns the backup's id."""
    rows = read(record)
    hashes = {int(r[0]): r[1] for r in record.db.execute(
        "SELECT id, hash FROM observations WHERE withdrawn_at IS NULL")}
    cur = record.db.execute("INSERT INTO observation_backups(taken, reason, count) VALUES (?, ?, ?)",
                            (at, reason, len(rows)))
    backup = int(cur.lastrowid or 0)
    record.db.executemany("INSERT INTO observation_backup_rows(backup, obs, body) VALUES (?, ?, ?)",
                          [(backup, o.id, orjson.dumps(_body(o, hashes.get(o.id))).decode()) for o in rows])
    record.db.executemany(
        "INSERT INTO observation_backup_sources(backup, obs, entry) VALUES (?, ?, ?)",
        [(backup, o.id, e) for o in rows for e in dict.fromkeys(c.entry for c in o.sources)])
    old = [int(r[0]) for r in record.db.execute(
        "SELECT id FROM observation_backups ORDER BY id DESC LIMIT -1 OFFSET ?", (KEEP_BACKUPS,))
        if int(r[0]) != spare]
    for table in ("observation_backup_rows", "observation_backup_sources"):
        record.db.executemany(f"DELETE FROM {table} WHERE backup = ?", [(b,) for b in old])
    record.db.executemany("DELETE FROM observation_backups WHERE id = ?", [(b,) for b in old])
    return backup


def backups(record: Record) -> list[tuple[int, str, str, int]]:
    """(id, taken, reason, count) of the backups kept, newest first; the count is what a restore would
    put back (an erase since it was taken withdrew the copies citing what it erased)."""
    return [(int(r[0]), r[1], r[2], int(r[3])) for r in record.db.execute(
        "SELECT b.id, b.taken, b.reason, "
        "(SELECT COUNT(*) FROM observation_backup_rows r WHERE r.backup = b.id) "
        "FROM observation_backups b ORDER BY b.id DESC")]


def restore(record: Record, backup: int) -> int:
    """Replace every observation not withdrawn with the backup's copies (an erase since then has taken
    out the copies citing what it erased); returns how many were restored."""
    keep = [o.id for o in read(record)]
    delete(record, keep)
    # A copy may name the one that superseded it before that one is back in: checked at the commit.
    record.db.execute("PRAGMA defer_foreign_keys = ON")
    count = 0
    for (body,) in record.db.execute(
            "SELECT body FROM observation_backup_rows WHERE backup = ? ORDER BY obs", (backup,)).fetchall():
        data = orjson.loads(body)
        fields = {n: data.get(n) for n in _FIELDS}  # a backup from before m026 has no retired_*
        names = ["id", *fields]
        record.db.execute(
            f"INSERT INTO observations({', '.join(names)}, hash) VALUES ({', '.join('?' * len(names))}, ?)",
            (data["id"], *[orjson.dumps(v).decode() if n == "hooks" else v for n, v in fields.items()],
             bytes.fromhex(data["hash"]) if data.get("hash") else None))
        cite(record, data["id"], [(e, q) for e, q in data["sources"]])
        _index(record, data["id"])
        count += 1
    return count


def _body(o: Observation, digest: bytes | None) -> dict[str, Any]:
    return {"id": o.id, **{n: getattr(o, n) for n in _FIELDS if n != "hooks"}, "hooks": list(o.hooks),
            "hash": digest.hex() if digest else None, "sources": [[c.entry, c.quote] for c in o.sources]}


# -- staged promotions --

def stage(record: Record, theme: str, type: str, text: str, members: Sequence[int], occurrences: int,
          days: int, entries: Iterable[int], at: str) -> int:
    """Stage a proposal; one resting on an entry erased already is staged withdrawn, as the erase would
    have left it (its words came from a read taken before the erase)."""
    entries = list(entries)
    gone = erased_entries(record, entries)
    status, decided = ("withdrawn", min(gone.values())) if gone else ("proposed", None)
    if gone:
        theme = text = ""
    cur = record.db.execute(
        "INSERT INTO observation_staging(theme, type, text, members, occurrences, days, status, created, "
        "decided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (theme, type, text, orjson.dumps(list(members)).decode(), occurrences, days, status, at, decided))
    proposal = int(cur.lastrowid or 0)
    record.db.executemany("INSERT INTO observation_staging_sources(proposal, entry) VALUES (?, ?)",
                          [(proposal, e) for e in dict.fromkeys(entries)])
    return proposal


def proposals(record: Record, status: str | None = None) -> list[Proposal]:
    sql = "SELECT * FROM observation_staging"
    params: tuple[str, ...] = ()
    if status is not None:
        sql += " WHERE status = ?"
        params = (status,)
    return [Proposal(r["id"], r["theme"], r["type"], r["text"], tuple(orjson.loads(r["members"])),
                     r["occurrences"], r["days"], r["status"], r["created"], r["decided"], r["result"])
            for r in record.db.execute(sql + " ORDER BY id", params)]


def decide(record: Record, proposal: int, status: str, at: str, result: int | None) -> None:
    record.db.execute("UPDATE observation_staging SET status = ?, decided = ?, result = ? WHERE id = ?",
                      (status, at, result, proposal))


# -- the nightly log --

def log_night(record: Record, at: str, applied: bool, outcome: str, metrics: dict[str, Any],
              log: list[dict[str, Any]]) -> int:
    cur = record.db.execute(
        "INSERT INTO observation_nights(at, applied, outcome, metrics, log) VALUES (?, ?, ?, ?, ?)",
        (at, int(applied), outcome, orjson.dumps(metrics).decode(), orjson.dumps(log).decode()))
    return int(cur.lastrowid or 0)


def applied_nights(record: Record) -> int:
    """How many nights were applied (dry runs are logged too, and not counted)."""
    return int(record.db.execute("SELECT COUNT(*) FROM observation_nights WHERE applied = 1").fetchone()[0])


def nights(record: Record, limit: int = 30) -> list[Night]:
    """The newest nights, newest first."""
    return [Night(r["id"], r["at"], bool(r["applied"]), r["outcome"], orjson.loads(r["metrics"]),
                  orjson.loads(r["log"]))
            for r in record.db.execute("SELECT * FROM observation_nights ORDER BY id DESC LIMIT ?", (limit,))]
