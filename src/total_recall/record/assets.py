"""The asset index's SQL (migration m018): storing a rebuild, the push's lookups, the mute log, and the
lean reads of the record that mining assets needs.

Plain rows in and out (named tuples): the asset package above turns them into its domain values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from total_recall.model import Span, SpanTag
from total_recall.record.database import Record, now

# SQLite binds at most 32,766 values per statement; lookups are cut into chunks well below that.
_CHUNK = 900


class AssetRow(NamedTuple):
    identity: str
    kind: str
    name: str
    description: str
    source: str
    entry: int | None
    scope: str | None
    current: bool
    updated: str | None


class KeyRow(NamedTuple):
    field: str
    text: str
    norm: str
    weight: float
    address: str | None
    path: str | None
    entry: int | None
    via: int | None
    origin: str
    scope: str | None  # the project of the session its words come from; None: a file's
    terms: tuple[str, ...]


class StoredAsset(NamedTuple):
    id: int
    kind: str
    name: str
    description: str
    source: str
    entry: int | None
    scope: str | None
    current: bool
    updated: str | None


class StoredKey(NamedTuple):
    id: int
    asset: int
    field: str
    text: str
    weight: float
    address: str | None
    path: str | None
    entry: int | None
    via: int | None
    origin: str


class Build(NamedTuple):
    id: int
    at: str
    last_entry: int
    assets: int
    keys: int


class MinedRow(NamedTuple):
    """An entry as mining reads it: tool results carry no text (only whether their call failed)."""

    id: int
    session: int
    seq: int
    author: str
    kind: str
    tool: str | None
    group: str | None
    text: str
    ts: str | None
    failed: bool


def _chunks(values: Sequence[object]) -> Iterator[Sequence[object]]:
    for i in range(0, len(values), _CHUNK):
        yield values[i : i + _CHUNK]


# -- writing --

def store_build(record: Record, assets: Sequence[tuple[AssetRow, Sequence[KeyRow], Iterable[int]]],
                links: Sequence[tuple[str, str, str | None, float]], uses: Sequence[tuple[str, int, int]],
                mutes: Sequence[tuple[str, str, str, int]], last_entry: int, warnings: Sequence[str],
                vectors: Mapping[str, bytes] | None = None) -> int:
    """Replace the index with a rebuild's, in one transaction: assets (with their keys and source entries),
    links (a, b, the project they were seen in, weight) and uses by identity, the owner's mutes (name,
    action, at, entry; appended once each), and the meaning vectors (`vectors`: text → int8 vector; a use
    key's by its text, an asset's name and description by `described(row)`). An asset found again keeps
    its number. Returns the build's id.

    A rebuild reads the record outside any transaction and writes seconds later: an erase committed in
    between ran its triggers (`assets_forget_erased_entries`) before these rows existed. So, under this
    transaction's write lock (no erase can commit until it ends), nothing derived from an entry erased since
    is written at all: not the assets mined from it, the keys its words or its correction made, its uses,
    the links of those assets, their vectors, nor the mutes it said — the rows the trigger would have
    dropped. Filtered before the insert, not deleted after it: a deleted row's bytes stay in the WAL."""
    db = record.db
    record.begin()
    try:
        assets, uses, mutes = _without_erased(record, assets, uses, mutes)
        build = int(db.execute(
            "INSERT INTO asset_builds(at, last_entry, assets, keys, warnings) VALUES (?, ?, ?, ?, ?)",
            (now(), last_entry, len(assets), sum(len(k) for _, k, _ in assets), "\n".join(warnings))
        ).lastrowid or 0)
        for table in ("asset_terms", "asset_keys", "asset_sources", "asset_links", "asset_uses",
                      "asset_vectors"):
            db.execute(f"DELETE FROM {table}")
        ids: dict[str, int] = {}
        for row, keys, sources in assets:
            ids[row.identity] = int(db.execute(
                "INSERT INTO assets(identity, kind, name, description, source, entry, scope, current, "
                "updated, build) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(identity) DO UPDATE SET "
                "kind = excluded.kind, name = excluded.name, description = excluded.description, "
                "source = excluded.source, entry = excluded.entry, scope = excluded.scope, "
                "current = excluded.current, updated = excluded.updated, build = excluded.build "
                "RETURNING id", (*row[:7], int(row.current), row.updated, build)).fetchone()[0])
            asset = ids[row.identity]
            numbers = _insert_keys(record, asset, keys)
            if vectors:
                _insert_vectors(record, asset, row, keys, numbers, vectors)
            db.executemany("INSERT OR IGNORE INTO asset_sources(asset, entry) VALUES (?, ?)",
                           [(asset, e) for e in sources])
        db.execute("DELETE FROM assets WHERE build != ?", (build,))
        db.executemany("INSERT OR REPLACE INTO asset_links(a, b, scope, weight) VALUES (?, ?, ?, ?)",
                       [(ids[a], ids[b], scope or "", w) for a, b, scope, w in links
                        if a in ids and b in ids])
        db.executemany("INSERT OR IGNORE INTO asset_uses(asset, entry, session) VALUES (?, ?, ?)",
                       [(ids[a], e, s) for a, e, s in uses if a in ids])
        db.executemany("INSERT OR IGNORE INTO asset_mutes(name, action, at, entry, origin) "
                       "VALUES (?, ?, ?, ?, 'owner')", mutes)
        record.commit()
    except BaseException:
        record.rollback()
        raise
    return build


_Built = Sequence[tuple[AssetRow, Sequence[KeyRow], Iterable[int]]]


def _without_erased(record: Record, assets: _Built, uses: Sequence[tuple[str, int, int]],
                    mutes: Sequence[tuple[str, str, str, int]]
                    ) -> tuple[_Built, Sequence[tuple[str, int, int]], Sequence[tuple[str, str, str, int]]]:
    """A build's rows less those an entry erased (or gone) since the build read it gave, as the erase
    triggers take them: an asset with such a source, a key with such an entry or correction, a use or a
    mute said there. The build's own inputs when none is (one lookup of the entries it cites)."""
    rows = [(row, keys, set(sources)) for row, keys, sources in assets]  # a source iterable read once
    cited = {e for row, keys, sources in rows
             for e in (row.entry, *sources, *(x for k in keys for x in (k.entry, k.via))) if e is not None}
    gone = erased_among(record, [*cited, *(e for _, e, _ in uses), *(m[3] for m in mutes)])
    if not gone:
        return rows, uses, mutes
    kept = [(row, [k for k in keys if k.entry not in gone and k.via not in gone], sources)
            for row, keys, sources in rows if row.entry not in gone and not sources & gone]
    return (kept, [u for u in uses if u[1] not in gone],
            [m for m in mutes if m[3] not in gone])


def erased_among(record: Record, entries: Iterable[int | None]) -> set[int]:
    """The entries among `entries` erased or no longer in the record (one statement: a build cites tens of
    thousands, each a lookup by id)."""
    wanted = sorted({e for e in entries if e is not None})
    if not wanted:
        return set()
    return {int(r[0]) for r in record.db.execute(
        "SELECT j.value FROM json_each(?) j WHERE NOT EXISTS "
        "(SELECT 1 FROM entries e WHERE e.id = j.value AND e.erased_at IS NULL)", (json.dumps(wanted),))}


def _insert_keys(record: Record, asset: int, keys: Sequence[KeyRow]) -> list[int]:
    out = []
    for k in keys:
        key = int(record.db.execute(
            "INSERT INTO asset_keys(asset, field, text, norm, weight, address, path, entry, via, origin, "
            "scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (asset, *k[:10])).lastrowid or 0)
        record.db.executemany("INSERT OR IGNORE INTO asset_terms(term, key) VALUES (?, ?)",
                              [(t, key) for t in k.terms])
        out.append(key)
    return out


def described(row: AssetRow | StoredAsset) -> str:
    """The text an asset's own vector embeds: its name and description."""
    return f"{row.name}: {row.description}".strip(": ")


def _insert_vectors(record: Record, asset: int, row: AssetRow, keys: Sequence[KeyRow], numbers: list[int],
                    vectors: Mapping[str, bytes]) -> None:
    rows: list[tuple[int, int | None, bytes]] = []
    if (own := vectors.get(described(row))) is not None:
        rows.append((asset, None, own))
    rows += [(asset, n, vectors[k.text]) for k, n in zip(keys, numbers, strict=True)
             if k.field == "use" and k.text in vectors]
    record.db.executemany("INSERT INTO asset_vectors(asset, key, vec) VALUES (?, ?, ?)", rows)


def stored_vectors(record: Record) -> dict[str, bytes]:
    """The vectors the index holds, by the text they embed (a rebuild reuses them rather than embed
    the same words again)."""
    out = {r[0]: r[1] for r in record.db.execute(
        "SELECT k.text, v.vec FROM asset_vectors v JOIN asset_keys k ON k.id = v.key")}
    for r in record.db.execute(
            "SELECT a.name, a.description, v.vec FROM asset_vectors v JOIN assets a ON a.id = v.asset "
            "WHERE v.key IS NULL"):
        out[f"{r[0]}: {r[1]}".strip(": ")] = r[2]
    return out


class VectorRow(NamedTuple):
    asset: int
    key: int | None  # None: the asset's name and description
    scope: str | None  # the key's project (None: a file's, or the asset's own)
    entry: int | None
    via: int | None
    vec: bytes
    asset_scope: str | None  # the asset's project (None: global)


def asset_vectors(record: Record) -> list[VectorRow]:
    """Every meaning vector, with what eligibility needs of its key and its asset, in id order."""
    return [VectorRow(*r) for r in record.db.execute(
        "SELECT v.asset, v.key, k.scope, k.entry, k.via, v.vec, a.scope FROM asset_vectors v "
        "LEFT JOIN asset_keys k ON k.id = v.key JOIN assets a ON a.id = v.asset ORDER BY v.id")]


def vector_count(record: Record) -> int:
    return int(record.db.execute("SELECT COUNT(*) FROM asset_vectors").fetchone()[0])


def log_mute(record: Record, name: str, action: str) -> None:
    """Append an API mute or unmute of `name` (kept across rebuilds)."""
    record.begin()
    try:
        record.db.execute("INSERT INTO asset_mutes(name, action, at, entry, origin) "
                          "VALUES (?, ?, ?, NULL, 'api')", (name, action, now()))
        record.commit()
    except BaseException:
        record.rollback()
        raise


# -- reading the index --

def last_build(record: Record) -> Build | None:
    row = record.db.execute(
        "SELECT id, at, last_entry, assets, keys FROM asset_builds ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else Build(row[0], row[1], row[2], row[3], row[4])


_ASSET_COLUMNS = "id, kind, name, description, source, entry, scope, current, updated"


def stored_assets(record: Record, kind: str | None = None, ids: Sequence[int] | None = None
                  ) -> list[StoredAsset]:
    """Assets by kind (None: all) or by number, in number order."""
    if ids is not None:
        out: list[StoredAsset] = []
        for chunk in _chunks(sorted(set(ids))):
            out += [_asset(r) for r in record.db.execute(
                f"SELECT {_ASSET_COLUMNS} FROM assets WHERE id IN ({','.join('?' * len(chunk))})", chunk)]
        return sorted(out)
    sql, params = f"SELECT {_ASSET_COLUMNS} FROM assets", [] if kind is None else [kind]
    if kind is not None:
        sql += " WHERE kind = ?"
    return [_asset(r) for r in record.db.execute(sql + " ORDER BY id", params)]


def _asset(r: Sequence[Any]) -> StoredAsset:
    return StoredAsset(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8])


def asset_count(record: Record) -> int:
    return int(record.db.execute("SELECT COUNT(*) FROM assets").fetchone()[0])


_HELD = """(SELECT 1 FROM entries e WHERE e.id IN (k.entry, k.via) AND (e.erased_at IS NOT NULL OR
            (SELECT q.action FROM quarantine q WHERE q.entry = e.id ORDER BY q.id DESC LIMIT 1)
            = 'quarantine'))"""
# A key counts only while the entries its words and its correction came from are neither erased nor
# quarantined (a file's key has neither).
_LIVE = f"((k.entry IS NULL AND k.via IS NULL) OR NOT EXISTS {_HELD})"
_KEY_COLUMNS = "k.id, k.asset, k.field, k.text, k.weight, k.address, k.path, k.entry, k.via, k.origin"


def keys_of(record: Record, assets: Sequence[int] | None = None) -> list[StoredKey]:
    """The keys of the given assets (None: every asset), in key order."""
    if assets is None:
        return [StoredKey(*r) for r in record.db.execute(
            f"SELECT {_KEY_COLUMNS} FROM asset_keys k ORDER BY id")]
    out: list[StoredKey] = []
    for chunk in _chunks(sorted(set(assets))):
        out += [StoredKey(*r) for r in record.db.execute(
            f"SELECT {_KEY_COLUMNS} FROM asset_keys k WHERE k.asset IN ({','.join('?' * len(chunk))})",
            chunk)]
    return sorted(out)


Scopes = frozenset[str | None] | None  # the projects a reader may see (None in it: global); None: all


def _scoped(column: str, scopes: Scopes) -> tuple[str, list[str]]:
    """` AND (column IS NULL OR column IN (…))` for a reader's scopes ("" when it sees every project)."""
    if scopes is None:
        return "", []
    named = sorted(s for s in scopes if s is not None)
    return f" AND ({column} IS NULL OR {column} IN ({','.join('?' * len(named))}))", named


def named_keys(record: Record, norms: Sequence[str], scopes: Scopes = None) -> list[StoredKey]:
    """The name keys whose words are one of `norms` (of `scopes`' sessions and files only, when given); a
    name whose entry or correction is erased or quarantined names nothing."""
    where, params = _scoped("k.scope", scopes)
    out: list[StoredKey] = []
    for chunk in _chunks(list(dict.fromkeys(norms))):
        out += [StoredKey(*r) for r in record.db.execute(
            f"SELECT {_KEY_COLUMNS} FROM asset_keys k WHERE k.field = 'name' "
            f"AND k.norm IN ({','.join('?' * len(chunk))}){where} AND {_LIVE}", (*chunk, *params))]
    return out


def names_of(record: Record, asset: int) -> list[StoredKey]:
    """An asset's name keys (not those whose entry or correction is erased or quarantined)."""
    return [StoredKey(*r) for r in record.db.execute(
        f"SELECT {_KEY_COLUMNS} FROM asset_keys k WHERE k.asset = ? AND k.field = 'name' AND {_LIVE}",
        (asset,))]


def term_counts(record: Record, terms: Sequence[str], scopes: Scopes = None) -> dict[str, int]:
    """How many keys hold each term (terms no key holds are left out); with `scopes`, only the keys a
    reader of those scopes may see count."""
    key_where, key_params = _scoped("k.scope", scopes)
    asset_where, asset_params = _scoped("a.scope", scopes)
    out: dict[str, int] = {}
    for chunk in _chunks(list(terms)):
        marks = ",".join("?" * len(chunk))
        if scopes is None:
            rows = record.db.execute(
                f"SELECT term, COUNT(*) FROM asset_terms WHERE term IN ({marks}) GROUP BY term", chunk)
        else:
            rows = record.db.execute(
                f"SELECT t.term, COUNT(*) FROM asset_terms t JOIN asset_keys k ON k.id = t.key "
                f"JOIN assets a ON a.id = k.asset WHERE t.term IN ({marks}){key_where}{asset_where} "
                "GROUP BY t.term", (*chunk, *key_params, *asset_params))
        out.update((r[0], int(r[1])) for r in rows)
    return out


def key_count(record: Record, scopes: Scopes) -> int:
    """How many keys a reader of `scopes` may see."""
    key_where, key_params = _scoped("k.scope", scopes)
    asset_where, asset_params = _scoped("a.scope", scopes)
    return int(record.db.execute(
        f"SELECT COUNT(*) FROM asset_keys k JOIN assets a ON a.id = k.asset WHERE 1{key_where}{asset_where}",
        (*key_params, *asset_params)).fetchone()[0])


class ScopedKey(NamedTuple):
    key: int
    asset: int
    field: str
    origin: str
    terms: tuple[str, ...]  # every term of the key, sorted


def scoped_keys(record: Record, terms: Sequence[str], fields: Sequence[str], scopes: Scopes
                ) -> list[ScopedKey]:
    """The keys of `fields` a reader of `scopes` may see that hold one of `terms`, each with all its terms
    (a key whose entry or correction is erased or quarantined is left out)."""
    if not terms:
        return []
    key_where, key_params = _scoped("k.scope", scopes)
    asset_where, asset_params = _scoped("a.scope", scopes)
    sql = (f"WITH hit(key) AS (SELECT DISTINCT t.key FROM asset_terms t WHERE t.term IN "
           f"({','.join('?' * len(terms))})) "
           "SELECT k.id, k.asset, k.field, k.origin, (SELECT group_concat(x.term, ' ') FROM asset_terms x "
           "WHERE x.key = k.id) FROM hit JOIN asset_keys k ON k.id = hit.key JOIN assets a ON a.id = k.asset "
           f"WHERE k.field IN ({','.join('?' * len(fields))}){key_where}{asset_where} "
           f"AND {_LIVE}")
    rows = record.db.execute(sql, (*terms, *fields, *key_params, *asset_params))
    return [ScopedKey(r[0], r[1], r[2], r[3], tuple(sorted((r[4] or "").split()))) for r in rows]


class KeyScore(NamedTuple):
    asset: int
    field: str
    origin: str
    evidence: float  # the summed idf of the request's terms the key holds
    weight: float  # the summed idf of all its terms


def scored_keys(record: Record, idf: dict[str, float], norm: float, fields: Sequence[str], floor: float
                ) -> list[KeyScore]:
    """The keys of `fields` holding a term of the request (`idf`: its terms' weights) whose cosine
    (evidence / sqrt(weight × norm)) reaches `floor`; a key whose entry or correction is erased or
    quarantined is left out. Summed in SQL: a common term's thousand postings never reach Python."""
    if not idf:
        return []
    values = ",".join("(?, ?)" for _ in idf)
    sql = (f"WITH q(term, idf) AS (VALUES {values}) "
           "SELECT k.asset, k.field, k.origin, SUM(q.idf) AS evidence, k.weight FROM q "
           "JOIN asset_terms t ON t.term = q.term JOIN asset_keys k ON k.id = t.key "
           f"WHERE k.field IN ({','.join('?' * len(fields))}) "
           f"AND {_LIVE} "
           "GROUP BY k.id HAVING SUM(q.idf) * SUM(q.idf) >= ? * k.weight * ?")
    params = [v for pair in idf.items() for v in pair]
    return [KeyScore(*r) for r in record.db.execute(sql, (*params, *fields, floor * floor, norm))]


def postings(record: Record) -> Iterator[tuple[str, list[int]]]:
    """Every term of the index with the keys holding it (joined in SQL: a row a term, not a row a key)."""
    for term, keys in record.db.execute("SELECT term, group_concat(key) FROM asset_terms GROUP BY term"):
        yield term, [int(k) for k in keys.split(",")]


def key_weights(record: Record) -> dict[int, float]:
    return {r[0]: r[1] for r in record.db.execute("SELECT id, weight FROM asset_keys")}


def live_keys(record: Record, ids: Sequence[int], fields: Sequence[str]) -> list[tuple[int, int, str, str]]:
    """(id, asset, field, origin) of the keys of `ids` still in the index, of `fields`, whose entry and
    correction are neither erased nor quarantined, in id order."""
    out: list[tuple[int, int, str, str]] = []
    for chunk in _chunks(sorted(set(ids))):
        out += [(r[0], r[1], r[2], r[3]) for r in record.db.execute(
            f"SELECT k.id, k.asset, k.field, k.origin FROM asset_keys k WHERE k.id IN "
            f"({','.join('?' * len(chunk))}) AND k.field IN ({','.join('?' * len(fields))}) "
            f"AND {_LIVE}", (*chunk, *fields))]
    return sorted(out)


def scored_documents(record: Record, idf: dict[str, float], norm: float, floor: float) -> list[KeyScore]:
    """The baseline: each asset's names and its own description (keys of origin `store`) as one document,
    scored as `scored_keys` scores a key (a held-back key's words match nothing)."""
    if not idf:
        return []
    values = ",".join("(?, ?)" for _ in idf)
    sql = (f"WITH q(term, idf) AS (VALUES {values}), "
           "hit(asset, term, idf) AS (SELECT DISTINCT k.asset, q.term, q.idf FROM q "
           "JOIN asset_terms t ON t.term = q.term JOIN asset_keys k ON k.id = t.key "
           f"WHERE k.field IN ('name', 'topic') AND k.origin = 'store' AND {_LIVE}), "
           "doc(asset, evidence) AS (SELECT asset, SUM(idf) FROM hit GROUP BY asset) "
           "SELECT d.asset, 'topic', 'store', d.evidence, (SELECT SUM(k.weight) FROM asset_keys k "
           "WHERE k.asset = d.asset AND k.field IN ('name', 'topic') AND k.origin = 'store') AS weight "
           "FROM doc d WHERE d.evidence * d.evidence >= ? * weight * ?")
    params = [v for pair in idf.items() for v in pair]
    return [KeyScore(*r) for r in record.db.execute(sql, (*params, floor * floor, norm))]


def sources_of(record: Record, assets: Sequence[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for chunk in _chunks(sorted(set(assets))):
        for asset, entry in record.db.execute(
                f"SELECT asset, entry FROM asset_sources WHERE asset IN ({','.join('?' * len(chunk))})",
                chunk):
            out.setdefault(asset, []).append(entry)
    return out


def held_back(record: Record, entries: Iterable[int]) -> set[int]:
    """The entries among `entries` that are erased, gone, or quarantined (the latest row of the quarantine
    log in force)."""
    wanted = sorted(set(entries))
    out: set[int] = set(wanted)
    for chunk in _chunks(wanted):
        for entry_id, erased, action in record.db.execute(
                f"SELECT e.id, e.erased_at, (SELECT q.action FROM quarantine q WHERE q.entry = e.id "
                f"ORDER BY q.id DESC LIMIT 1) FROM entries e WHERE e.id IN ({','.join('?' * len(chunk))})",
                chunk):
            if erased is None and action != "quarantine":
                out.discard(entry_id)
    return out


def other_harness(record: Record, entries: Iterable[int], harness: str) -> set[int]:
    """The entries among `entries` that belong to another harness's sessions than `harness`."""
    out: set[int] = set()
    for chunk in _chunks(sorted(set(entries))):
        out.update(r[0] for r in record.db.execute(
            f"SELECT e.id FROM entries e JOIN sessions s ON s.id = e.session "
            f"WHERE e.id IN ({','.join('?' * len(chunk))}) AND s.harness != ?", [*chunk, harness]))
    return out


def links_of(record: Record, assets: Sequence[int], scopes: Scopes = None) -> list[tuple[int, int, float]]:
    """The co-access links from the given assets, seen in `scopes`' projects (None: any): (from, to,
    weight), sorted."""
    where, params = "", []
    if scopes is not None:
        params = sorted("" if s is None else s for s in scopes)
        where = f" AND scope IN ({','.join('?' * len(params))})"
    out: list[tuple[int, int, float]] = []
    for chunk in _chunks(sorted(set(assets))):
        marks = ",".join("?" * len(chunk))
        out += [(r[0], r[1], r[2]) for r in record.db.execute(
            f"SELECT x, y, MAX(weight) FROM (SELECT a AS x, b AS y, weight FROM asset_links "
            f"WHERE a IN ({marks}){where} UNION ALL SELECT b, a, weight FROM asset_links "
            f"WHERE b IN ({marks}){where}) "
            "GROUP BY x, y", (*chunk, *params, *chunk, *params))]
    return sorted(out)


def session_uses(record: Record, session: int) -> list[tuple[int, int]]:
    """(asset, entry) of each use the index saw in a session."""
    return [(r[0], r[1]) for r in record.db.execute(
        "SELECT asset, entry FROM asset_uses WHERE session = ?", (session,))]


def mute_log(record: Record) -> list[tuple[str, str, str, int | None]]:
    """The mute log in order of time: (name, action, at, entry)."""
    return [(r[0], r[1], r[2], r[3]) for r in record.db.execute(
        "SELECT name, action, at, entry FROM asset_mutes ORDER BY at, id")]


# -- reading the record for mining --

def known_cwds(record: Record) -> list[str]:
    return [r[0] for r in record.db.execute(
        "SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND cwd != '' ORDER BY cwd")]


def newest_entry(record: Record) -> int:
    return record.newest_entry()


_MINED = """
    SELECT e.id, e.session, e.seq, e.author, e.kind, e.tool, e.grp,
           CASE WHEN e.kind = 'tool_result' THEN '' ELSE e.text END, e.ts,
           e.kind = 'tool_result' AND EXISTS (SELECT 1 FROM tool_failures f WHERE f.entry = e.id)
    FROM entries e
    WHERE e.erased_at IS NULL AND e.id > ? AND e.id <= ?
      AND ((e.author IN ('owner', 'agent') AND e.kind = 'message') OR e.kind IN ('tool_call', 'tool_result'))
    ORDER BY e.session, e.seq
"""


def mined_rows(record: Record, after: int = 0, upto: int | None = None) -> Iterator[MinedRow]:
    """The entries mining reads, by session and number: owner and agent messages, tool calls, and tool
    results (text left out, failure kept); erased entries are never read."""
    last = record.newest_entry() if upto is None else upto
    for r in record.db.execute(_MINED, (after, last)):
        yield MinedRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9]))


def owner_spans(record: Record, after: int = 0) -> dict[int, list[Span]]:
    """The spans of the owner's entries after entry id `after`."""
    out: dict[int, list[Span]] = {}
    for entry, start, end, tag in record.db.execute(
            "SELECT s.entry, s.start, s.end, s.tag FROM spans s WHERE s.entry > ? ORDER BY s.entry, s.start",
            (after,)):
        out.setdefault(entry, []).append(Span(start, end, _tag(tag)))
    return out


def _tag(tag: str) -> SpanTag:
    if tag in ("instruction", "question", "paste", "command", "statement"):
        return tag  # type: ignore[return-value]
    return "statement"


def owner_before(record: Record, session: int, seq: int) -> tuple[int, int, str] | None:
    """The owner's last message in `session` before entry `seq` (id, seq, text), not erased."""
    row = record.db.execute(
        "SELECT id, seq, text FROM entries WHERE session = ? AND seq < ? AND author = 'owner' "
        "AND kind = 'message' AND erased_at IS NULL ORDER BY seq DESC LIMIT 1", (session, seq)).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def between(record: Record, session: int, after_seq: int, before_seq: int) -> list[tuple[str, str]]:
    """(author, kind) of each entry of `session` strictly between two of its numbers."""
    return [(r[0], r[1]) for r in record.db.execute(
        "SELECT author, kind FROM entries WHERE session = ? AND seq > ? AND seq < ? ORDER BY seq",
        (session, after_seq, before_seq))]


def spans_of(record: Record, entry: int) -> list[Span]:
    return [Span(r[0], r[1], _tag(r[2])) for r in record.db.execute(
        "SELECT start, end, tag FROM spans WHERE entry = ? ORDER BY start", (entry,))]
