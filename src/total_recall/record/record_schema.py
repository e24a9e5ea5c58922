"""The frozen schema of the record itself (m001–m017, but for the two migrations that are Python steps):
plain SQL texts, never changed once shipped (`record/migrations.py` runs them in its list's order); kept apart
so the migrations module holds the steps and the runner. The layers built on the record since m018 keep
theirs in `layer_schema.py`.
"""

# A migration is SQL; it runs inside the transaction that records it.
M001_RECORD = """
        CREATE TABLE sources(
            id INTEGER PRIMARY KEY,
            harness TEXT NOT NULL,
            key TEXT NOT NULL,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            generation INTEGER NOT NULL DEFAULT 1,
            offset INTEGER NOT NULL DEFAULT 0,
            line INTEGER NOT NULL DEFAULT 0,
            check_hash TEXT NOT NULL DEFAULT '',
            state TEXT NOT NULL DEFAULT '{}',
            fingerprint TEXT NOT NULL DEFAULT '',
            read_error TEXT,
            synced_at TEXT,
            UNIQUE(harness, key)
        );

        -- The rowid is the N of the address sN: numbered in order of first sight, forever.
        CREATE TABLE sessions(
            id INTEGER PRIMARY KEY,
            harness TEXT NOT NULL,
            native_id TEXT NOT NULL,
            generation INTEGER NOT NULL DEFAULT 1,
            source INTEGER NOT NULL REFERENCES sources(id),
            title TEXT,
            cwd TEXT,
            parent_native TEXT,
            relation TEXT,
            started TEXT,
            ended TEXT,
            meta TEXT,
            entries INTEGER NOT NULL DEFAULT 0,
            first_seen TEXT NOT NULL,
            UNIQUE(harness, native_id, generation)
        );
        CREATE INDEX sessions_parent ON sessions(harness, parent_native);

        CREATE TABLE entries(
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            author TEXT NOT NULL
                CHECK (author IN ('owner', 'agent', 'tool', 'harness', 'system')),
            kind TEXT NOT NULL CHECK (kind IN
                ('message', 'thinking', 'tool_call', 'tool_result', 'compaction', 'summary', 'meta')),
            text TEXT NOT NULL,
            ts TEXT,
            key TEXT NOT NULL,
            source INTEGER NOT NULL REFERENCES sources(id),
            line INTEGER,
            row TEXT,
            native_id TEXT,
            native_parent TEXT,
            grp TEXT,
            tool TEXT,
            sidechain INTEGER NOT NULL DEFAULT 0,
            -- The source record this entry was cut from; several entries of one line share it.
            -- No foreign key: erase deletes the record and leaves the id dangling on purpose.
            raw_id INTEGER,
            erased_at TEXT,
            erased_reason TEXT,
            UNIQUE(session, seq),
            UNIQUE(session, key)
        );

        -- Source records (a JSONL line, a row as JSON), zstd-compressed, kept once per line.
        CREATE TABLE raws(
            id INTEGER PRIMARY KEY,
            raw BLOB NOT NULL
        );

        -- The owner's own words as offsets into an entry's text.
        CREATE TABLE spans(
            entry INTEGER NOT NULL REFERENCES entries(id),
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            tag TEXT NOT NULL
                CHECK (tag IN ('instruction', 'question', 'paste', 'command', 'statement')),
            PRIMARY KEY(entry, start)
        ) WITHOUT ROWID;

        -- Every erase is logged first; the entries trigger admits an update only against this log.
        CREATE TABLE erasures(
            id INTEGER PRIMARY KEY,
            entry INTEGER NOT NULL REFERENCES entries(id),
            at TEXT NOT NULL,
            reason TEXT NOT NULL,
            UNIQUE(entry)
        );

        -- Quarantine edits nothing: an append-only log whose latest row per entry is in force.
        CREATE TABLE quarantine(
            id INTEGER PRIMARY KEY,
            entry INTEGER NOT NULL REFERENCES entries(id),
            action TEXT NOT NULL CHECK (action IN ('quarantine', 'release')),
            at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE INDEX quarantine_entry ON quarantine(entry, id);

        CREATE TRIGGER entries_never_deleted BEFORE DELETE ON entries BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: entries are never deleted (use erase)');
        END;

        CREATE TRIGGER entries_change_only_by_erase BEFORE UPDATE ON entries
        WHEN NOT (
            OLD.erased_at IS NULL
            AND NEW.erased_at IS NOT NULL
            AND NEW.raw_id IS OLD.raw_id
            AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.seq = OLD.seq
            AND NEW.author = OLD.author AND NEW.kind = OLD.kind AND NEW.key = OLD.key
            AND NEW.ts IS OLD.ts AND NEW.source = OLD.source AND NEW.line IS OLD.line
            AND NEW.row IS OLD.row
            AND EXISTS (SELECT 1 FROM erasures e WHERE e.entry = OLD.id AND e.at = NEW.erased_at
                        AND e.reason = NEW.erased_reason)
        ) BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: entries change only through erase');
        END;

        CREATE TRIGGER raws_kept_unless_erased BEFORE DELETE ON raws
        WHEN NOT EXISTS (SELECT 1 FROM entries WHERE raw_id = OLD.id AND erased_at IS NOT NULL) BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: a source record goes only with an erased entry');
        END;
        CREATE TRIGGER raws_never_updated BEFORE UPDATE ON raws BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: source records are never updated');
        END;

        CREATE TRIGGER spans_kept_unless_erased BEFORE DELETE ON spans
        WHEN (SELECT erased_at FROM entries WHERE id = OLD.entry) IS NULL BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: spans go only with an erased entry');
        END;
        CREATE TRIGGER spans_never_updated BEFORE UPDATE ON spans BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: spans are never updated');
        END;

        CREATE TRIGGER erasures_final_update BEFORE UPDATE ON erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        CREATE TRIGGER erasures_final_delete BEFORE DELETE ON erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        CREATE TRIGGER quarantine_log_update BEFORE UPDATE ON quarantine BEGIN
            SELECT RAISE(ABORT, 'the quarantine log is append-only (add a release instead)');
        END;
        CREATE TRIGGER quarantine_log_delete BEFORE DELETE ON quarantine BEGIN
            SELECT RAISE(ABORT, 'the quarantine log is append-only (add a release instead)');
        END;
        CREATE TRIGGER sessions_never_deleted BEFORE DELETE ON sessions BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: sessions are never deleted');
        END;
        CREATE TRIGGER sessions_keep_identity BEFORE UPDATE OF id, harness, native_id, generation
        ON sessions BEGIN
            SELECT RAISE(ABORT, 'a session keeps its number and identity forever');
        END;
"""

# Finding: a word index over entry text (external content: the text is stored once, in entries), with
# tag tokens for the common filters, and
# the exact strings of each entry, looked up whole or by prefix. Both are derived.
M002_FIND = """
        -- The filters search uses most (author, kind, harness, session) ride along as tag tokens, so
        -- a filtered query is an intersection inside FTS5 instead of a join over every match.
        CREATE VIEW entries_fts_content AS
            SELECT e.id AS id, e.text AS text,
                   'a_' || e.author || ' k_' || e.kind || ' h_' || replace(s.harness, '-', '_')
                   || ' s_' || e.session AS tag
            FROM entries e JOIN sessions s ON s.id = e.session;
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            text, tag, content='entries_fts_content', content_rowid='id',
            tokenize="porter unicode61 remove_diacritics 2 tokenchars '_'"
        );
        INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');

        -- One row per lookup key of an exact string (the string itself, and for paths, URLs and
        -- hosts its tails at separators); NOCASE so a prefix LIKE uses the index.
        CREATE TABLE strings(
            entry INTEGER NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL COLLATE NOCASE
        );
        CREATE INDEX strings_entry ON strings(entry);
        CREATE INDEX strings_key ON strings(key);
"""

# Meaning search: one int8 vector per embedded entry (see indexes/vectors.py); derived, rebuildable.
M003_VECTORS = """
        CREATE TABLE vectors(
            entry INTEGER PRIMARY KEY,
            vec BLOB NOT NULL
        );
"""

# Keeping (issue 4): the markers compaction leaves, the receipt of every compaction decision, and the
# agent's recall cues. A marker is what a window was shown, so it is kept as shown (never edited) with the
# entries it quotes; erasing one of those entries withdraws the marker's text in the same transaction, so
# erased words cannot come back through an old marker. Receipts and cues are append-only logs.
M004_KEEPING = """
        CREATE TABLE markers(
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL REFERENCES sessions(id),
            range TEXT NOT NULL,
            body TEXT NOT NULL,  -- the marker as JSON; '' once an erase withdrew it
            tokens INTEGER NOT NULL,
            created TEXT NOT NULL,
            erased_at TEXT
        );
        CREATE INDEX markers_session ON markers(session, id);

        -- The entries a marker quotes (instructions, strings, items, pointer openings).
        CREATE TABLE marker_entries(
            marker INTEGER NOT NULL REFERENCES markers(id),
            entry INTEGER NOT NULL REFERENCES entries(id),
            PRIMARY KEY(marker, entry)
        ) WITHOUT ROWID;
        CREATE INDEX marker_entries_entry ON marker_entries(entry);

        CREATE TABLE receipts(
            id INTEGER PRIMARY KEY,
            controller TEXT NOT NULL,
            trigger TEXT NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('compacted', 'kept')),
            knowledge TEXT NOT NULL CHECK (knowledge IN ('known input', 'sent, unconfirmed')),
            session INTEGER REFERENCES sessions(id),
            range TEXT,
            tokens_before INTEGER,
            tokens_after INTEGER,
            marker INTEGER REFERENCES markers(id),
            source TEXT,
            note TEXT,
            created TEXT NOT NULL
        );
        CREATE INDEX receipts_session ON receipts(session, id);

        CREATE TABLE cues(
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL REFERENCES sessions(id),
            text TEXT NOT NULL,
            covers TEXT NOT NULL,
            created TEXT NOT NULL
        );
        CREATE INDEX cues_session ON cues(session, id);

        CREATE TRIGGER markers_never_deleted BEFORE DELETE ON markers BEGIN
            SELECT RAISE(ABORT, 'markers are kept as shown: never deleted');
        END;
        CREATE TRIGGER markers_change_only_by_erase BEFORE UPDATE ON markers
        WHEN NOT (
            OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND NEW.body = ''
            AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.range = OLD.range
            AND NEW.tokens = OLD.tokens AND NEW.created = OLD.created
            AND EXISTS (SELECT 1 FROM marker_entries me JOIN entries e ON e.id = me.entry
                        WHERE me.marker = OLD.id AND e.erased_at = NEW.erased_at)
        ) BEGIN
            SELECT RAISE(ABORT, 'markers are kept as shown: changed only when an entry they quote is erased');
        END;
        CREATE TRIGGER markers_forget_erased_entries AFTER UPDATE OF erased_at ON entries
        WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL BEGIN
            UPDATE markers SET body = '', erased_at = NEW.erased_at
            WHERE erased_at IS NULL AND id IN (SELECT marker FROM marker_entries WHERE entry = NEW.id);
        END;
        CREATE TRIGGER marker_entries_never_updated BEFORE UPDATE ON marker_entries BEGIN
            SELECT RAISE(ABORT, 'what a marker quotes is never changed');
        END;
        CREATE TRIGGER marker_entries_never_deleted BEFORE DELETE ON marker_entries BEGIN
            SELECT RAISE(ABORT, 'what a marker quotes is never changed');
        END;
        CREATE TRIGGER receipts_never_updated BEFORE UPDATE ON receipts BEGIN
            SELECT RAISE(ABORT, 'receipts are append-only');
        END;
        CREATE TRIGGER receipts_never_deleted BEFORE DELETE ON receipts BEGIN
            SELECT RAISE(ABORT, 'receipts are append-only');
        END;
        CREATE TRIGGER cues_never_updated BEFORE UPDATE ON cues BEGIN
            SELECT RAISE(ABORT, 'cues are append-only (leave a newer cue instead)');
        END;
        CREATE TRIGGER cues_never_deleted BEFORE DELETE ON cues BEGIN
            SELECT RAISE(ABORT, 'cues are append-only (leave a newer cue instead)');
        END;
"""

# The summary cache (seed 004): per session, a chain of LLM-written blocks, each naming the exact entry
# range it summarises; the next block starts where the last ended (a trigger holds the chain). Blocks are
# derived data: the newest one may be deleted, but only after its deletion is logged, and never edited.
M005_SUMMARIES = """
        CREATE TABLE summary_blocks(
            id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the deletion log names blocks by id
            session INTEGER NOT NULL REFERENCES sessions(id),
            first_seq INTEGER NOT NULL CHECK (first_seq >= 1),
            last_seq INTEGER NOT NULL,
            first_ts TEXT,
            last_ts TEXT,
            owner INTEGER NOT NULL,
            agent INTEGER NOT NULL,
            tool INTEGER NOT NULL,
            thinking INTEGER NOT NULL,
            harness INTEGER NOT NULL,
            chars INTEGER NOT NULL,
            tokens_est INTEGER NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            usage_reported INTEGER NOT NULL,
            prompt_bytes INTEGER NOT NULL,
            dropped_entries INTEGER NOT NULL,
            dropped_bytes INTEGER NOT NULL,
            unverified TEXT NOT NULL DEFAULT '[]',
            text TEXT NOT NULL,
            created TEXT NOT NULL,
            CHECK (last_seq >= first_seq),
            UNIQUE(session, first_seq)
        );
        CREATE TRIGGER summary_blocks_chain BEFORE INSERT ON summary_blocks
        WHEN NEW.first_seq <> COALESCE(
            (SELECT MAX(last_seq) FROM summary_blocks WHERE session = NEW.session), 0) + 1
        BEGIN
            SELECT RAISE(ABORT, 'a summary block starts where the last one ended');
        END;
        CREATE TRIGGER summary_blocks_final BEFORE UPDATE ON summary_blocks BEGIN
            SELECT RAISE(ABORT, 'summary blocks are never edited: delete the newest and summarise again');
        END;

        CREATE TABLE summary_deletions(
            id INTEGER PRIMARY KEY,
            block INTEGER NOT NULL UNIQUE,
            session INTEGER NOT NULL REFERENCES sessions(id),
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            created TEXT NOT NULL,
            summary_chars INTEGER NOT NULL,  -- the deleted summary's length; its text is not kept
            at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE TRIGGER summary_blocks_newest_only BEFORE DELETE ON summary_blocks
        WHEN EXISTS (SELECT 1 FROM summary_blocks WHERE session = OLD.session AND first_seq > OLD.first_seq)
          OR NOT EXISTS (SELECT 1 FROM summary_deletions WHERE block = OLD.id)
        BEGIN
            SELECT RAISE(ABORT, 'only the newest summary block may be deleted, after its deletion is logged');
        END;
        CREATE TRIGGER summary_deletions_log_update BEFORE UPDATE ON summary_deletions BEGIN
            SELECT RAISE(ABORT, 'the summary deletion log is append-only');
        END;
        CREATE TRIGGER summary_deletions_log_delete BEFORE DELETE ON summary_deletions BEGIN
            SELECT RAISE(ABORT, 'the summary deletion log is append-only');
        END;
"""

# Word search reads its lists from the index alone and relies on erase having taken an entry out of it:
# a rebuild of the index must not bring erased entries (their tombstones) back.
M006_FIND_WITHOUT_ERASED = """
        DROP VIEW entries_fts_content;
        CREATE VIEW entries_fts_content AS
            SELECT e.id AS id, e.text AS text,
                   'a_' || e.author || ' k_' || e.kind || ' h_' || replace(s.harness, '-', '_')
                   || ' s_' || e.session AS tag
            FROM entries e JOIN sessions s ON s.id = e.session
            WHERE e.erased_at IS NULL;
"""

# The tool results that failed (`indexes.failures.failed`), worked out once at sync: the marker builder then
# reads the text of a range's tool output only where it needs it (a 10k-entry range holds ~7 MB of it).
# Entries recorded before this migration have no digest; `digests` says from which entry on it is kept.
M007_TOOL_FAILURES = """
        CREATE TABLE tool_failures(entry INTEGER PRIMARY KEY);
        CREATE TABLE digests(name TEXT PRIMARY KEY, from_entry INTEGER NOT NULL);
        INSERT INTO digests SELECT 'tool_failures', COALESCE(MAX(id), 0) + 1 FROM entries;
"""

# FTS5 writes its in-memory term table out as a new segment each time it holds `hashsize` bytes (1 MB by
# default), and merges segments as they pile up. 16 MB (kept in entries_fts_config) makes a large sync
# write and merge fewer (200 MB store 45.1 → 43.2 s); 32 MB saved a little more but cost 44 MB of peak
# memory on a 1 GB sync, near the 300 MB the sync is held to (docs/BENCHMARKS.md).
M008_FTS_HASHSIZE = """
        INSERT INTO entries_fts(entries_fts, rank) VALUES ('hashsize', 16777216);
"""

# The word index in shards of consecutive entries (indexes/words.py): the index so far is the first, from
# entry 0 on; sync opens the next as the newest fills. `index --rebuild` cuts an older record's index.
# Each entry's tags gain the month of its time (`m_2026_11`), so a time filter narrows inside FTS5
# instead of joining every match with its entry; `months` lists the months present. The tags change,
# so the index is rebuilt (it is one shard until now).
M009_FTS_SHARDS = """
        CREATE TABLE fts_shards(name TEXT PRIMARY KEY, first_entry INTEGER NOT NULL UNIQUE);
        INSERT INTO fts_shards(name, first_entry) VALUES ('entries_fts', 0);
        CREATE TABLE months(month TEXT PRIMARY KEY) WITHOUT ROWID;
        INSERT INTO months SELECT DISTINCT substr(ts, 1, 7) FROM entries WHERE ts IS NOT NULL;
        DROP VIEW entries_fts_content;
        CREATE VIEW entries_fts_content AS
            SELECT e.id AS id, e.text AS text,
                   'a_' || e.author || ' k_' || e.kind || ' h_' || replace(s.harness, '-', '_')
                   || ' s_' || e.session
                   || CASE WHEN e.ts IS NULL THEN '' ELSE ' m_' || replace(substr(e.ts, 1, 7), '-', '_') END
                   AS tag
            FROM entries e JOIN sessions s ON s.id = e.session
            WHERE e.erased_at IS NULL;
        INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
"""

# The key index holds each string's entry too, so a prefix lookup lists entries from the index alone instead
# of a table lookup per string (a common error line is stored thousands of times): 11.3 → 1.9 ms for one.
M011_STRINGS_KEY_ENTRY = """
        DROP INDEX strings_key;
        CREATE INDEX strings_key ON strings(key, entry);
"""

# What search ranks and filters by, apart from the text: looking up 600 candidates in `entries` reads a
# 32 KB page for each (its rows hold the text), 4–7 ms a query on a million entries; this table is ~50
# bytes a row and stays in the page cache (1.3–1.9 ms). Erased entries are not in it (indexes/).
M012_ENTRY_FACTS = """
        CREATE TABLE entry_facts(
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            author TEXT NOT NULL,
            kind TEXT NOT NULL,
            ts TEXT
        );
        INSERT INTO entry_facts
            SELECT id, session, seq, author, kind, ts FROM entries WHERE erased_at IS NULL;
"""

# Erase follows its text (issue 15). A rewrite of a source under what was read starts a new generation
# that reads it from byte 0, so an erased entry would come back there: each erasure keeps a keyed hash of
# the text it removed (`erased_texts`; blake2b keyed by `record_key`, a random salt made with the record, so
# the hash answers no dictionary guess without the record), and sync records an entry of a later generation
# of the same source whose text hashes alike as erased from the start: a tombstone with its own erasure,
# no source record, no spans, nothing in any index. Cues and receipts' notes (text a caller wrote) can be
# erased too, leaving a tombstone; a marker showing an erased cue is blanked like one quoting an entry.
M013_ERASE_FOLLOWS = """
        CREATE TABLE record_key(id INTEGER PRIMARY KEY CHECK (id = 1), salt BLOB NOT NULL);
        INSERT INTO record_key(id, salt) VALUES (1, randomblob(32));
        CREATE TRIGGER record_key_final_update BEFORE UPDATE ON record_key BEGIN
            SELECT RAISE(ABORT, 'the record key is final');
        END;
        CREATE TRIGGER record_key_final_delete BEFORE DELETE ON record_key BEGIN
            SELECT RAISE(ABORT, 'the record key is final');
        END;

        CREATE TABLE erased_texts(
            entry INTEGER PRIMARY KEY REFERENCES erasures(entry),
            source INTEGER NOT NULL REFERENCES sources(id),
            generation INTEGER NOT NULL,
            hash BLOB NOT NULL
        );
        CREATE INDEX erased_texts_source ON erased_texts(source, generation);
        CREATE TRIGGER erased_texts_final_update BEFORE UPDATE ON erased_texts BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        CREATE TRIGGER erased_texts_final_delete BEFORE DELETE ON erased_texts BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;

        -- An entry is recorded already erased only as the tombstone of an erasure of its own source,
        -- without its source record.
        CREATE TRIGGER entries_born_erased_only_by_an_erasure BEFORE INSERT ON entries
        WHEN NEW.erased_at IS NOT NULL AND NOT (
            NEW.raw_id IS NULL
            AND NEW.text = '[erased ' || NEW.erased_at || ': ' || NEW.erased_reason || ']'
            AND EXISTS (SELECT 1 FROM erased_texts t JOIN erasures x ON x.entry = t.entry
                        WHERE t.source = NEW.source AND x.at = NEW.erased_at
                        AND x.reason = NEW.erased_reason)
        ) BEGIN
            SELECT RAISE(ABORT, 'the record is append-only: an entry is recorded erased only by an erasure');
        END;

        CREATE TABLE cue_erasures(
            cue INTEGER PRIMARY KEY REFERENCES cues(id),
            at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE TRIGGER cue_erasures_final_update BEFORE UPDATE ON cue_erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        CREATE TRIGGER cue_erasures_final_delete BEFORE DELETE ON cue_erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        DROP TRIGGER cues_never_updated;
        CREATE TRIGGER cues_change_only_by_erase BEFORE UPDATE ON cues
        WHEN NOT (
            NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.covers = OLD.covers
            AND NEW.created = OLD.created
            AND EXISTS (SELECT 1 FROM cue_erasures x WHERE x.cue = OLD.id
                        AND NEW.text = '[erased ' || x.at || ': ' || x.reason || ']')
        ) BEGIN
            SELECT RAISE(ABORT, 'cues are append-only (leave a newer cue instead, or erase one)');
        END;

        CREATE TABLE receipt_erasures(
            receipt INTEGER PRIMARY KEY REFERENCES receipts(id),
            at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE TRIGGER receipt_erasures_final_update BEFORE UPDATE ON receipt_erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        CREATE TRIGGER receipt_erasures_final_delete BEFORE DELETE ON receipt_erasures BEGIN
            SELECT RAISE(ABORT, 'erasures are final');
        END;
        DROP TRIGGER receipts_never_updated;
        CREATE TRIGGER receipts_change_only_by_erase BEFORE UPDATE ON receipts
        WHEN NOT (
            NEW.id = OLD.id AND NEW.controller = OLD.controller AND NEW.trigger = OLD.trigger
            AND NEW.decision = OLD.decision AND NEW.knowledge = OLD.knowledge
            AND NEW.session IS OLD.session AND NEW.range IS OLD.range
            AND NEW.tokens_before IS OLD.tokens_before AND NEW.tokens_after IS OLD.tokens_after
            AND NEW.marker IS OLD.marker AND NEW.source IS OLD.source AND NEW.created = OLD.created
            AND EXISTS (SELECT 1 FROM receipt_erasures x WHERE x.receipt = OLD.id
                        AND NEW.note = '[erased ' || x.at || ': ' || x.reason || ']')
        ) BEGIN
            SELECT RAISE(ABORT, 'receipts are append-only (their note may be erased)');
        END;

        -- A marker is blanked when an entry it quotes is erased, or the cue it shows (before the cue's
        -- text becomes its tombstone, in the same transaction).
        DROP TRIGGER markers_change_only_by_erase;
        CREATE TRIGGER markers_change_only_by_erase BEFORE UPDATE ON markers
        WHEN NOT (
            OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND NEW.body = ''
            AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.range = OLD.range
            AND NEW.tokens = OLD.tokens AND NEW.created = OLD.created
            AND (EXISTS (SELECT 1 FROM marker_entries me JOIN entries e ON e.id = me.entry
                         WHERE me.marker = OLD.id AND e.erased_at = NEW.erased_at)
                 OR EXISTS (SELECT 1 FROM cue_erasures x JOIN cues c ON c.id = x.cue
                            WHERE c.session = OLD.session AND x.at = NEW.erased_at
                            AND CASE WHEN json_valid(OLD.body)
                                THEN json_extract(OLD.body, '$.cue.text') END = c.text))
        ) BEGIN
            SELECT RAISE(ABORT, 'markers are kept as shown: changed only when an entry they quote is erased');
        END;

        -- A summary block whose range holds an entry erased after it was written is withheld when read;
        -- its text is blanked too, so the words it may quote leave the record's pages.
        DROP TRIGGER summary_blocks_final;
        CREATE TRIGGER summary_blocks_final BEFORE UPDATE ON summary_blocks
        WHEN NOT (
            NEW.text = '' AND OLD.text <> ''
            AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.first_seq = OLD.first_seq
            AND NEW.last_seq = OLD.last_seq AND NEW.created = OLD.created
            AND NEW.provider = OLD.provider AND NEW.model = OLD.model AND NEW.chars = OLD.chars
            AND NEW.unverified = OLD.unverified
            AND EXISTS (SELECT 1 FROM entries e JOIN erasures x ON x.entry = e.id
                        WHERE e.session = OLD.session AND e.seq BETWEEN OLD.first_seq AND OLD.last_seq
                        AND x.at >= OLD.created)
        ) BEGIN
            SELECT RAISE(ABORT, 'summary blocks are never edited: delete the newest and summarise again');
        END;
"""

# An erasure also keeps the keyed hash of the source record its entry was cut from (NULL when the line
# was already gone): a later reader may cut other text from the same line (an unwrapped tool output), and
# a later generation must still know the line as holding erased words.
M015_ERASED_LINES = """
ALTER TABLE erased_texts ADD COLUMN line_hash BLOB;
"""

# What each sync met, for `status` after the lines on stderr scrolled away: one row per sync that read
# something (or met warnings), with its count of warnings and the first of them (the caller caps how many),
# and the newest entry when it was recorded — where the next sync's look for new harness compactions starts.
M016_SYNC_LOG = """
CREATE TABLE syncs(
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    sources_read INTEGER NOT NULL,
    entries_added INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    last_entry INTEGER NOT NULL
);
CREATE TABLE sync_warnings(
    sync INTEGER NOT NULL REFERENCES syncs(id),
    n INTEGER NOT NULL,
    path TEXT NOT NULL,
    line INTEGER,
    why TEXT NOT NULL,
    PRIMARY KEY (sync, n)
) WITHOUT ROWID;
CREATE TRIGGER syncs_never_updated BEFORE UPDATE ON syncs BEGIN
    SELECT RAISE(ABORT, 'the sync log is append-only: never updated');
END;
CREATE TRIGGER syncs_never_deleted BEFORE DELETE ON syncs BEGIN
    SELECT RAISE(ABORT, 'the sync log is append-only: never deleted');
END;
CREATE TRIGGER sync_warnings_never_updated BEFORE UPDATE ON sync_warnings BEGIN
    SELECT RAISE(ABORT, 'the sync log is append-only: never updated');
END;
CREATE TRIGGER sync_warnings_never_deleted BEFORE DELETE ON sync_warnings BEGIN
    SELECT RAISE(ABORT, 'the sync log is append-only: never deleted');
END;
"""


# Erase also replaces the entry's key by a keyed hash of it (`erased:<hex>`): a key may hash the text (a
# Codex output, a Claude Code line), and a plain hash of erased words answers guesses of them. The update
# trigger allows exactly that one more change.
M017_ERASED_KEYS = """
DROP TRIGGER entries_change_only_by_erase;
CREATE TRIGGER entries_change_only_by_erase BEFORE UPDATE ON entries
WHEN NOT (
    OLD.erased_at IS NULL
    AND NEW.erased_at IS NOT NULL
    AND NEW.raw_id IS OLD.raw_id
    AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.seq = OLD.seq
    AND NEW.author = OLD.author AND NEW.kind = OLD.kind
    AND (NEW.key = OLD.key OR (NEW.key LIKE 'erased:%' AND length(NEW.key) = 39))
    AND NEW.ts IS OLD.ts AND NEW.source = OLD.source AND NEW.line IS OLD.line
    AND NEW.row IS OLD.row
    AND EXISTS (SELECT 1 FROM erasures e WHERE e.entry = OLD.id AND e.at = NEW.erased_at
                AND e.reason = NEW.erased_reason)
) BEGIN
    SELECT RAISE(ABORT, 'the record is append-only: entries change only through erase');
END;
"""


# Erase follows a message into other sessions of its harness: Claude Code's --resume and --fork-session
# start a new file holding the earlier messages again (the same uuids under the new session id). An entry
# of another source may now be recorded already erased too, when it is the same message (native id and
# kind) as an erased entry. And a session's names an erase cleared (its title, a value of its meta: a
# sub-agent's sidecar repeats the description its parent's erased call gave) keep a keyed hash in
# `erased_names`, so a later read of the source does not set them again.
M022_ERASED_COPIES = """
CREATE TABLE erased_names(
    session INTEGER NOT NULL REFERENCES sessions(id),
    hash BLOB NOT NULL,
    UNIQUE(session, hash)
);
CREATE TRIGGER erased_names_final_update BEFORE UPDATE ON erased_names BEGIN
    SELECT RAISE(ABORT, 'erasures are final');
END;
CREATE TRIGGER erased_names_final_delete BEFORE DELETE ON erased_names BEGIN
    SELECT RAISE(ABORT, 'erasures are final');
END;
DROP TRIGGER entries_born_erased_only_by_an_erasure;
CREATE TRIGGER entries_born_erased_only_by_an_erasure BEFORE INSERT ON entries
WHEN NEW.erased_at IS NOT NULL AND NOT (
    NEW.raw_id IS NULL
    AND NEW.text = '[erased ' || NEW.erased_at || ': ' || NEW.erased_reason || ']'
    AND EXISTS (SELECT 1 FROM erased_texts t JOIN erasures x ON x.entry = t.entry
                JOIN entries e ON e.id = t.entry
                WHERE (t.source = NEW.source OR (e.native_id = NEW.native_id AND e.kind = NEW.kind))
                AND x.at = NEW.erased_at AND x.reason = NEW.erased_reason)
) BEGIN
    SELECT RAISE(ABORT, 'the record is append-only: an entry is recorded erased only by an erasure');
END;
"""


# A copy of an erased text may now be recorded erased in any source of the harness, though it carries no
# id of its own (a fork of a Vibe or Codex session, an OpenCode fork's new ids; `copies.copies` in
# record/copies.py): the tombstone must still match an erasure's own time and reason.
M023_ERASED_TEXT_COPIES = """
DROP TRIGGER entries_born_erased_only_by_an_erasure;
CREATE TRIGGER entries_born_erased_only_by_an_erasure BEFORE INSERT ON entries
WHEN NEW.erased_at IS NOT NULL AND NOT (
    NEW.raw_id IS NULL
    AND NEW.text = '[erased ' || NEW.erased_at || ': ' || NEW.erased_reason || ']'
    AND EXISTS (SELECT 1 FROM erasures x WHERE x.at = NEW.erased_at AND x.reason = NEW.erased_reason)
) BEGIN
    SELECT RAISE(ABORT, 'the record is append-only: an entry is recorded erased only by an erasure');
END;
"""


# An erased message's text is also kept as the keyed hash of its words stripped of the whitespace around
# them (`quote_hash`): a harness quoting it (Vibe's carried-over messages, a compaction summary's list) or
# a model's answer gives it trimmed, and the exact text's hash would miss a prompt ending in a newline.
#
# And the check that a source record goes only with an erased entry (`raws_kept_unless_erased`) finds that
# entry by an index holding the erased entries alone: without one it read every entry for each line an
# erase deleted (14 ms a line on a 72,000-entry record), and appends never pay for it.
M024_ERASED_QUOTES = """
ALTER TABLE erased_texts ADD COLUMN quote_hash BLOB;
CREATE INDEX entries_erased_raw ON entries(raw_id) WHERE erased_at IS NOT NULL;
"""


# A summary block's prompt carried the earlier blocks of its session ("for continuity"), so a block may quote
# any entry up to its own end, not only those of its range: an erasure after it was written blanks it too.
M025_SUMMARY_ERASE_REACH = """
DROP TRIGGER summary_blocks_final;
CREATE TRIGGER summary_blocks_final BEFORE UPDATE ON summary_blocks
WHEN NOT (
    NEW.text = '' AND OLD.text <> ''
    AND NEW.id = OLD.id AND NEW.session = OLD.session AND NEW.first_seq = OLD.first_seq
    AND NEW.last_seq = OLD.last_seq AND NEW.created = OLD.created
    AND NEW.provider = OLD.provider AND NEW.model = OLD.model AND NEW.chars = OLD.chars
    AND NEW.unverified = OLD.unverified
    AND EXISTS (SELECT 1 FROM entries e JOIN erasures x ON x.entry = e.id
                WHERE e.session = OLD.session AND e.seq <= OLD.last_seq AND x.at >= OLD.created)
) BEGIN
    SELECT RAISE(ABORT, 'summary blocks are never edited: delete the newest and summarise again');
END;
"""
