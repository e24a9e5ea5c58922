"""Named, append-only schema migrations. Never edit one that has shipped: add the next.

Each migration runs in its own transaction and is recorded in `_migrations`, so opening an old record
upgrades it and opening a current one does nothing.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Callable

import orjson

from total_recall.errors import RecordError
from total_recall.record.layer_schema import (
    M018_ASSETS,
    M019_OBSERVATIONS,
    M020_ASSET_SCOPES,
    M021_ASSET_VECTORS,
    M026_OBSERVATION_RETIREMENTS,
    M027_RETRACTIONS_SURVIVE_ERASE,
)
from total_recall.record.record_schema import (
    M001_RECORD,
    M002_FIND,
    M003_VECTORS,
    M004_KEEPING,
    M005_SUMMARIES,
    M006_FIND_WITHOUT_ERASED,
    M007_TOOL_FAILURES,
    M008_FTS_HASHSIZE,
    M009_FTS_SHARDS,
    M011_STRINGS_KEY_ENTRY,
    M012_ENTRY_FACTS,
    M013_ERASE_FOLLOWS,
    M015_ERASED_LINES,
    M016_SYNC_LOG,
    M017_ERASED_KEYS,
    M022_ERASED_COPIES,
    M023_ERASED_TEXT_COPIES,
    M024_ERASED_QUOTES,
    M025_SUMMARY_ERASE_REACH,
)

# Each entry's tags gain the day of its time too (`d_2026_11_28`): a time the query names of up to a month
# ("yesterday", "last week") narrows to its days, not the whole month. The tags change, so the word
# index is rebuilt, shard by shard (Python: the shards are named in fts_shards).
M010_DAY_TAGS_VIEW = """
        DROP VIEW entries_fts_content;
        CREATE VIEW entries_fts_content AS
            SELECT e.id AS id, e.text AS text,
                   'a_' || e.author || ' k_' || e.kind || ' h_' || replace(s.harness, '-', '_')
                   || ' s_' || e.session
                   || CASE WHEN e.ts IS NULL THEN '' ELSE ' m_' || replace(substr(e.ts, 1, 7), '-', '_')
                      || ' d_' || replace(substr(e.ts, 1, 10), '-', '_') END
                   AS tag
            FROM entries e JOIN sessions s ON s.id = e.session
            WHERE e.erased_at IS NULL;
"""


def _m010_day_tags(db: sqlite3.Connection) -> None:
    for statement in M010_DAY_TAGS_VIEW.split(";"):
        if statement.strip():
            db.execute(statement)
    _m010_rebuild_words(db)


# Frozen: m010's own copy of the word-index rebuild as it shipped (then `find/index.rebuild_words`, now
# `indexes/words.py`), never imported, so a later change to the live index code cannot change what this
# migration does to a record that upgrades through it.
_M010_SHARD_ENTRIES = 1 << 17
_M010_HASHSIZE = 16 << 20
_M010_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"


def _m010_rebuild_words(db: sqlite3.Connection) -> None:
    """The word index and its month list rebuilt from the record, cut into shards afresh: `entries_fts`
    from entry 0, and a new shard at the first id _M010_SHARD_ENTRIES or more past the newest's first."""
    for (name,) in db.execute("SELECT name FROM fts_shards WHERE name != 'entries_fts'").fetchall():
        db.execute(f"DROP TABLE {name}")
    db.execute("DELETE FROM fts_shards WHERE name != 'entries_fts'")
    db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('delete-all')")
    db.execute("DELETE FROM months")
    db.execute("INSERT INTO months SELECT DISTINCT substr(ts, 1, 7) FROM entries WHERE ts IS NOT NULL")
    newest, first = "entries_fts", 0
    after = -1
    while rows := db.execute(
        "SELECT id, text, tag FROM entries_fts_content WHERE id > ? ORDER BY id LIMIT 5000", (after,)
    ).fetchall():
        rows = [(r[0], r[1], r[2]) for r in rows]
        start = 0
        while start < len(rows):
            if rows[start][0] - first >= _M010_SHARD_ENTRIES:
                (count,) = db.execute("SELECT count(*) FROM fts_shards").fetchone()
                newest, first = f"entries_fts_{count + 1}", rows[start][0]
                db.execute(
                    f"CREATE VIRTUAL TABLE {newest} USING fts5(text, tag, content='entries_fts_content', "
                    f"content_rowid='id', tokenize=\"{_M010_TOKENIZE}\")"
                )
                db.execute(f"INSERT INTO {newest}({newest}, rank) VALUES ('hashsize', {_M010_HASHSIZE})")
                db.execute("INSERT INTO fts_shards(name, first_entry) VALUES (?, ?)", (newest, first))
            end = bisect.bisect_left(rows, first + _M010_SHARD_ENTRIES, lo=start, key=lambda r: r[0])
            db.executemany(f"INSERT INTO {newest}(rowid, text, tag) VALUES (?, ?, ?)", rows[start:end])
            start = end
        after = rows[-1][0]


# Tool output as the tool wrote it (issue 16). Codex serialises a shell or patch tool's result into the output
# string as `{"output": "…", "metadata": {"exit_code": …, "duration_seconds": …}}`; readers now unwrap it
# (`readers.base.tool_output`), and this step unwraps the tool results recorded before, once. It is the one
# change of recorded text that is not an erase, so it is narrow and leaves a trail: only a live tool result
# whose whole text is such an envelope, re-read from that text by the same rule the readers apply (its
# source record, which holds the envelope, is not touched); the append-only trigger is lifted inside this
# transaction only and put back as it was; every entry changed is logged in `rereads` (append-only), and its
# word-index rows are replaced in the same transaction. Its exact strings were cut from the envelope's text
# (most paths, hashes and URLs read the same): `total-recall index --rebuild` cuts them again. Frozen: the
# rule is copied here, never imported, so a later change to the readers cannot change what this did.
M014_REREADS = (
    """CREATE TABLE rereads(
        entry INTEGER PRIMARY KEY REFERENCES entries(id),
        at TEXT NOT NULL,
        reason TEXT NOT NULL
    )""",
    """CREATE TRIGGER rereads_final_update BEFORE UPDATE ON rereads BEGIN
        SELECT RAISE(ABORT, 'the reread log is append-only');
    END""",
    """CREATE TRIGGER rereads_final_delete BEFORE DELETE ON rereads BEGIN
        SELECT RAISE(ABORT, 'the reread log is append-only');
    END""",
)
_M014_REASON = "m014: the tool's output unwrapped from Codex's JSON envelope (the source record keeps it)"


def _m014_unwrapped(text: str) -> str | None:
    """The output inside an envelope `{"output": str, "metadata": {…}}` (a non-zero exit code as a first line
    `Exit code: N`), or None when `text` is not exactly one."""
    if text[:1] != "{" or '"metadata"' not in text or not text.rstrip().endswith("}"):
        return None
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or set(obj) != {"output", "metadata"}:
        return None
    output, metadata = obj["output"], obj["metadata"]
    if not isinstance(output, str) or not isinstance(metadata, dict):
        return None
    code = metadata.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"Exit code: {code}\n{output}"
    return output


def _m014_tool_output_unwrapped(db: sqlite3.Connection) -> None:
    for statement in M014_REREADS:  # one by one: executescript would commit the step's transaction
        db.execute(statement)
    trigger = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'entries_change_only_by_erase'"
    ).fetchone()[0]
    firsts = sorted(((int(r[0]), str(r[1])) for r in db.execute("SELECT first_entry, name FROM fts_shards")),
                    reverse=True)
    at = db.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ')").fetchone()[0]
    db.execute("DROP TRIGGER entries_change_only_by_erase")
    after = 0
    # A page of tool results at a time, in id order: memory stays bounded whatever the record holds.
    while page := db.execute(
        "SELECT id, text FROM entries WHERE id > ? AND kind = 'tool_result' AND erased_at IS NULL "
        "AND substr(text, 1, 1) = '{' ORDER BY id LIMIT 500", (after,)
    ).fetchall():
        after = page[-1][0]
        by_shard: dict[str, list[tuple[int, str]]] = {}
        for entry, text in page:
            new = _m014_unwrapped(text)
            if new is not None and new != text:
                shard = next(name for first, name in firsts if first <= entry)
                by_shard.setdefault(shard, []).append((entry, new))
        for shard, batch in by_shard.items():  # set-based: 100,000 rows in ~3 s
            ids = [entry for entry, _ in batch]
            within = f"WHERE id IN ({','.join('?' * len(ids))})"
            # External-content FTS5 forgets a row only when handed the very text and tags it indexed.
            db.execute(f"INSERT INTO {shard}({shard}, rowid, text, tag) "
                       f"SELECT 'delete', id, text, tag FROM entries_fts_content {within}", ids)
            db.executemany("UPDATE entries SET text = ? WHERE id = ?", [(new, entry) for entry, new in batch])
            db.execute(f"INSERT INTO {shard}(rowid, text, tag) SELECT id, text, tag FROM entries_fts_content "
                       f"{within}", ids)
            db.executemany("INSERT INTO rereads(entry, at, reason) VALUES (?, ?, ?)",
                           [(entry, at, _M014_REASON) for entry in ids])
    db.execute(trigger)


Migration = str | Callable[[sqlite3.Connection], None]  # SQL, or a step run in the migration's transaction

MIGRATIONS: list[tuple[str, Migration]] = [
    # The record: sources with their cursors, numbered sessions, addressed append-only entries.
    ("m001_record", M001_RECORD),
    ("m002_find", M002_FIND),
    ("m003_vectors", M003_VECTORS),
    ("m004_keeping", M004_KEEPING),
    ("m005_summaries", M005_SUMMARIES),
    ("m006_find_without_erased", M006_FIND_WITHOUT_ERASED),
    ("m007_tool_failures", M007_TOOL_FAILURES),
    ("m008_fts_hashsize", M008_FTS_HASHSIZE),
    ("m009_fts_shards", M009_FTS_SHARDS),
    ("m010_day_tags", _m010_day_tags),
    ("m011_strings_key_entry", M011_STRINGS_KEY_ENTRY),
    ("m012_entry_facts", M012_ENTRY_FACTS),
    ("m013_erase_follows", M013_ERASE_FOLLOWS),
    ("m014_tool_output_unwrapped", _m014_tool_output_unwrapped),
    ("m015_erased_lines", M015_ERASED_LINES),
    ("m016_sync_log", M016_SYNC_LOG),
    ("m017_erased_keys", M017_ERASED_KEYS),
    ("m018_assets", M018_ASSETS),
    ("m019_observations", M019_OBSERVATIONS),
    ("m020_asset_scopes", M020_ASSET_SCOPES),
    ("m021_asset_vectors", M021_ASSET_VECTORS),
    ("m022_erased_copies", M022_ERASED_COPIES),
    ("m023_erased_text_copies", M023_ERASED_TEXT_COPIES),
    ("m024_erased_quotes", M024_ERASED_QUOTES),
    ("m025_summary_erase_reach", M025_SUMMARY_ERASE_REACH),
    ("m026_observation_retirements", M026_OBSERVATION_RETIREMENTS),
    ("m027_retractions_survive_erase", M027_RETRACTIONS_SURVIVE_ERASE),
]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration the record lacks, each in its own transaction; returns their names.

    Raises:
        RecordError: the record was written by a newer Total Recall.
    """
    db.execute("CREATE TABLE IF NOT EXISTS _migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    applied = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    known = {name for name, _ in MIGRATIONS}
    if unknown := applied - known:
        raise RecordError(
            f"the record was written by a newer Total Recall (migrations {', '.join(sorted(unknown))}); "
            "upgrade total-recall"
        )
    done = []
    for name, sql in MIGRATIONS:
        if name in applied:
            continue
        if not isinstance(sql, str):
            _run_step(db, name, sql)
            done.append(name)
            continue
        # executescript commits whatever is pending first, so the transaction lives inside the script.
        script = (
            f"BEGIN IMMEDIATE;\n{sql}\n"
            f"INSERT INTO _migrations(name, applied_at) VALUES ('{name}', strftime('%Y-%m-%dT%H:%M:%fZ'));\n"
            "COMMIT;"
        )
        try:
            db.executescript(script)
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        done.append(name)
    return done


def _run_step(db: sqlite3.Connection, name: str, step: Callable[[sqlite3.Connection], None]) -> None:
    if db.in_transaction:
        db.commit()
    db.execute("BEGIN IMMEDIATE")
    try:
        step(db)
        db.execute("INSERT INTO _migrations(name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                   (name,))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
