"""The frozen schema of the layers built on the record since m018: the asset index of Instant Recall
(m018, m020, m021) and the observations of Observing (m019, m026). Plain SQL texts, never changed once shipped
(`record/migrations.py` runs them in its list's order); kept apart so the migrations module stays readable.
"""

# The asset index (seed 001, issue 18): what the owner owns (skills, commands, agents, MCP servers, tools,
# machines, decisions, approaches, documents), its keys with where each came from, the links of assets used
# together. Derived: `assets.rebuild` rewrites all but the mute log, which keeps the owner's "don't mention"
# and the API's mutes across rebuilds. Erasing an entry takes out every key quoting it, every asset mined
# from it and every mute it said, in the erase's own transaction (the trigger), so no copy of its words stays.
M018_ASSETS = """
CREATE TABLE assets(
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the N of aN, never reused
    identity TEXT NOT NULL UNIQUE,         -- kind and path, host or address: the same asset keeps its N
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    source TEXT NOT NULL,                  -- an address or a path
    entry INTEGER,                         -- the entry the source address names
    scope TEXT,                            -- the project (cwd) it belongs to; NULL: every project
    current INTEGER NOT NULL DEFAULT 1,    -- 0: a decision a later one on the same subject superseded
    updated TEXT,
    build INTEGER NOT NULL
);
CREATE INDEX assets_kind ON assets(kind);
CREATE TABLE asset_sources(asset INTEGER NOT NULL, entry INTEGER NOT NULL, PRIMARY KEY(asset, entry))
    WITHOUT ROWID;
CREATE INDEX asset_sources_entry ON asset_sources(entry);
CREATE TABLE asset_keys(
    id INTEGER PRIMARY KEY,
    asset INTEGER NOT NULL,
    field TEXT NOT NULL CHECK (field IN ('name', 'topic', 'use')),
    text TEXT NOT NULL,
    norm TEXT NOT NULL DEFAULT '',         -- a name key's words, as a request is matched against it
    weight REAL NOT NULL,                  -- the summed idf of its terms when built
    address TEXT,
    path TEXT,
    entry INTEGER,                         -- the entry its words come from
    via INTEGER,                           -- the correction that made it a key
    origin TEXT NOT NULL
);
CREATE INDEX asset_keys_asset ON asset_keys(asset);
CREATE INDEX asset_keys_norm ON asset_keys(norm) WHERE field = 'name';
CREATE INDEX asset_keys_entry ON asset_keys(entry) WHERE entry IS NOT NULL;
CREATE INDEX asset_keys_via ON asset_keys(via) WHERE via IS NOT NULL;
CREATE TABLE asset_terms(term TEXT NOT NULL, key INTEGER NOT NULL, PRIMARY KEY(term, key)) WITHOUT ROWID;
CREATE INDEX asset_terms_key ON asset_terms(key);
CREATE TABLE asset_links(a INTEGER NOT NULL, b INTEGER NOT NULL, weight REAL NOT NULL, PRIMARY KEY(a, b))
    WITHOUT ROWID;
CREATE TABLE asset_uses(asset INTEGER NOT NULL, entry INTEGER NOT NULL, session INTEGER NOT NULL,
    PRIMARY KEY(asset, entry)) WITHOUT ROWID;
CREATE INDEX asset_uses_session ON asset_uses(session);
CREATE INDEX asset_uses_entry ON asset_uses(entry);
CREATE TABLE asset_mutes(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,                    -- the name as words.normal_name has it
    action TEXT NOT NULL CHECK (action IN ('mute', 'unmute')),
    at TEXT NOT NULL,
    entry INTEGER,                         -- the owner's words that said it; NULL: the API
    origin TEXT NOT NULL CHECK (origin IN ('owner', 'api')),
    UNIQUE(entry, name, action)
);
CREATE INDEX asset_mutes_name ON asset_mutes(name, at);
CREATE TABLE asset_builds(
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    last_entry INTEGER NOT NULL,           -- the newest entry the build read: the overlay reads after it
    assets INTEGER NOT NULL,
    keys INTEGER NOT NULL,                 -- how many keys: the N of each term's idf
    warnings TEXT NOT NULL
);
CREATE TRIGGER assets_forget_erased_entries AFTER UPDATE OF erased_at ON entries
WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL BEGIN
    DELETE FROM asset_terms WHERE key IN (SELECT id FROM asset_keys WHERE entry = NEW.id OR via = NEW.id
        OR asset IN (SELECT asset FROM asset_sources WHERE entry = NEW.id));
    DELETE FROM asset_keys WHERE entry = NEW.id OR via = NEW.id
        OR asset IN (SELECT asset FROM asset_sources WHERE entry = NEW.id);
    DELETE FROM asset_links WHERE a IN (SELECT asset FROM asset_sources WHERE entry = NEW.id)
        OR b IN (SELECT asset FROM asset_sources WHERE entry = NEW.id);
    DELETE FROM asset_uses WHERE entry = NEW.id
        OR asset IN (SELECT asset FROM asset_sources WHERE entry = NEW.id);
    DELETE FROM assets WHERE id IN (SELECT asset FROM asset_sources WHERE entry = NEW.id);
    DELETE FROM asset_sources WHERE asset NOT IN (SELECT id FROM assets);
    DELETE FROM asset_mutes WHERE entry = NEW.id;
END;
"""


# Observing (issue 19): observations distilled from the record, each citing the entries it came from
# (`observation_sources`, with the words quoted), so a verifier can check it and erase can reach it. They
# are derived and rebuildable, so they are updated and deleted freely; their word index is an FTS5 table of
# their own over text and hooks (the alternative phrasings an archived one is still found by). Erasing a
# cited entry withdraws every observation, backup copy and staged promotion citing it in the same
# transaction (a trigger, as markers are withdrawn): text, hooks and quotes blanked, the keyed hash dropped,
# the index rows deleted and the index merged so no segment keeps the words.
M019_OBSERVATIONS = """
CREATE TABLE observations(
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: night logs and proposals keep ids
    text TEXT NOT NULL,
    priority TEXT NOT NULL CHECK (priority IN ('high', 'medium', 'low')),
    type TEXT NOT NULL CHECK (type IN ('event', 'fact', 'preference', 'goal', 'habit', 'rule', 'context')),
    confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    source_type TEXT NOT NULL
        CHECK (source_type IN ('explicit', 'implicit', 'inference', 'weak', 'uncertain')),
    importance REAL NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    origin TEXT NOT NULL,
    hash BLOB UNIQUE,
    hooks TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    seen TEXT NOT NULL,
    decayed TEXT NOT NULL,
    archived_at TEXT,
    superseded_by INTEGER REFERENCES observations(id),
    withdrawn_at TEXT
);
CREATE INDEX observations_current ON observations(archived_at, withdrawn_at, superseded_by);
CREATE TABLE observation_sources(
    obs INTEGER NOT NULL REFERENCES observations(id),
    entry INTEGER NOT NULL REFERENCES entries(id),
    quote TEXT NOT NULL DEFAULT ''
);
CREATE INDEX observation_sources_obs ON observation_sources(obs);
CREATE INDEX observation_sources_entry ON observation_sources(entry);
CREATE VIRTUAL TABLE observations_fts USING fts5(
    text, hooks, tokenize="porter unicode61 remove_diacritics 2"
);
CREATE TABLE observation_cursors(
    session INTEGER PRIMARY KEY REFERENCES sessions(id),
    last_seq INTEGER NOT NULL,
    observed_at TEXT NOT NULL
);
CREATE TABLE observation_backups(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    taken TEXT NOT NULL,
    reason TEXT NOT NULL,
    count INTEGER NOT NULL
);
CREATE TABLE observation_backup_rows(
    backup INTEGER NOT NULL REFERENCES observation_backups(id),
    obs INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (backup, obs)
) WITHOUT ROWID;
CREATE TABLE observation_backup_sources(
    backup INTEGER NOT NULL,
    obs INTEGER NOT NULL,
    entry INTEGER NOT NULL
);
CREATE INDEX observation_backup_sources_entry ON observation_backup_sources(entry);
CREATE TABLE observation_staging(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    theme TEXT NOT NULL,
    type TEXT NOT NULL,
    text TEXT NOT NULL,
    members TEXT NOT NULL,
    occurrences INTEGER NOT NULL,
    days INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('proposed', 'approved', 'rejected', 'withdrawn')),
    created TEXT NOT NULL,
    decided TEXT,
    result INTEGER
);
CREATE TABLE observation_staging_sources(
    proposal INTEGER NOT NULL REFERENCES observation_staging(id),
    entry INTEGER NOT NULL
);
CREATE INDEX observation_staging_sources_entry ON observation_staging_sources(entry);
CREATE TABLE observation_nights(
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    applied INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    metrics TEXT NOT NULL,
    log TEXT NOT NULL
);
CREATE TRIGGER observations_forget_erased_entries AFTER UPDATE OF erased_at ON entries
WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND (
    EXISTS (SELECT 1 FROM observation_sources WHERE entry = NEW.id)
    OR EXISTS (SELECT 1 FROM observation_backup_sources WHERE entry = NEW.id)
    OR EXISTS (SELECT 1 FROM observation_staging_sources WHERE entry = NEW.id)
) BEGIN
    DELETE FROM observations_fts WHERE rowid IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    INSERT INTO observations_fts(observations_fts) VALUES ('optimize');
    UPDATE observations SET text = '', hooks = '[]', subject = '', hash = NULL,
        withdrawn_at = NEW.erased_at
    WHERE id IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    UPDATE observation_sources SET quote = ''
    WHERE obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    DELETE FROM observation_backup_rows WHERE EXISTS (
        SELECT 1 FROM observation_backup_sources b WHERE b.entry = NEW.id
        AND b.backup = observation_backup_rows.backup AND b.obs = observation_backup_rows.obs);
    UPDATE observation_staging SET theme = '', text = '', status = 'withdrawn', decided = NEW.erased_at
    WHERE id IN (SELECT proposal FROM observation_staging_sources WHERE entry = NEW.id);
END;
"""


# Instant Recall's scope rule counts statistics over what a reader may see (issue 18): each key keeps the
# project of the session its words come from (NULL: a config file's), and a co-access link is kept once per
# project it was seen in ('' for none), so a sub-agent's push is the push of a record that never held
# another project. Both are derived: the next rebuild fills them. m018's erase trigger names asset_links by
# its name and its columns a and b, which the new table keeps.
M020_ASSET_SCOPES = """
ALTER TABLE asset_keys ADD COLUMN scope TEXT;
DROP TABLE asset_links;
CREATE TABLE asset_links(a INTEGER NOT NULL, b INTEGER NOT NULL, scope TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY(a, b, scope)) WITHOUT ROWID;
CREATE INDEX asset_links_b ON asset_links(b);
"""


# The push by meaning (issue 18): one int8 vector (as `indexes.vectors` stores them) per use key and per
# asset's name and description, written by a rebuild when the vectors extra is present. Derived like the
# keys: a rebuild replaces them, and erasing an entry drops the vectors of the keys and assets it takes
# away (whichever of this trigger and m018's runs first: a vector whose key or asset is gone goes too).
M021_ASSET_VECTORS = """
CREATE TABLE asset_vectors(
    id INTEGER PRIMARY KEY,
    asset INTEGER NOT NULL,
    key INTEGER,                           -- the use key it embeds; NULL: the asset's name and description
    vec BLOB NOT NULL
);
CREATE INDEX asset_vectors_asset ON asset_vectors(asset);
CREATE INDEX asset_vectors_key ON asset_vectors(key) WHERE key IS NOT NULL;
CREATE TRIGGER asset_vectors_forget_erased_entries AFTER UPDATE OF erased_at ON entries
WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL BEGIN
    DELETE FROM asset_vectors WHERE asset IN (SELECT asset FROM asset_sources WHERE entry = NEW.id)
        OR key IN (SELECT id FROM asset_keys WHERE entry = NEW.id OR via = NEW.id)
        OR asset NOT IN (SELECT id FROM assets)
        OR (key IS NOT NULL AND key NOT IN (SELECT id FROM asset_keys));
END;
"""


# The owner takes a rule back: an observation is retired — out of the current set, its text kept,
# the reason and the entry that took it back beside it (`retired_entry`; NULL: the owner's `observations
# retire`, or a rewind that left its words on a side branch); `retired_at` is the time it counts from, so
# the same words said again after it bring it back, and the same words read again never do. Each taking
# back is logged (`observation_retractions`: the stems it names, or the entry it names) so a note the
# observer keeps later from words said before it is retired as it is kept. Erasing an entry takes out every
# retraction it said or whose stems came from a note citing it; and the sessions that still say what a
# withdrawn note said are read again from before those words (their cursors moved back), a note it
# superseded current again. Releasing an entry from quarantine moves its session's cursor back before it:
# the observer passed it over while it was hidden.
M026_OBSERVATION_RETIREMENTS = """
ALTER TABLE observations ADD COLUMN retired_at TEXT;
ALTER TABLE observations ADD COLUMN retired_reason TEXT;
ALTER TABLE observations ADD COLUMN retired_entry INTEGER;
CREATE TABLE observation_retractions(
    id INTEGER PRIMARY KEY,
    entry INTEGER,                         -- the owner's entry that took it back; NULL: the operation
    obs INTEGER,                           -- the observation whose words `stems` came from, if any
    target INTEGER,                        -- the entry it names ("scratch that": the owner's one before)
    at TEXT NOT NULL,                      -- the time it counts from: what was said before it is retired
    stems TEXT NOT NULL DEFAULT '[]',      -- the subject it names, as stems (JSON list)
    negated INTEGER NOT NULL DEFAULT 0,    -- "npm is fine again": only notes forbidding it
    events INTEGER NOT NULL DEFAULT 1      -- 0: events stay ("the freeze is over" leaves what happened)
);
CREATE INDEX observation_retractions_entry ON observation_retractions(entry);
CREATE INDEX observations_superseded_by ON observations(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE TRIGGER observations_reread_erased_rules AFTER UPDATE OF erased_at ON entries
WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND (
    EXISTS (SELECT 1 FROM observation_sources WHERE entry = NEW.id)
    OR EXISTS (SELECT 1 FROM observation_retractions WHERE entry = NEW.id OR target = NEW.id)
) BEGIN
    UPDATE observation_cursors SET last_seq = MIN(last_seq, (
        SELECT MIN(e.seq) - 1 FROM observation_sources s JOIN entries e ON e.id = s.entry
        WHERE s.obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id)
        AND s.entry <> NEW.id AND e.erased_at IS NULL AND e.session = observation_cursors.session))
    WHERE session IN (SELECT e.session FROM observation_sources s JOIN entries e ON e.id = s.entry
        WHERE s.obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id)
        AND s.entry <> NEW.id AND e.erased_at IS NULL);
    UPDATE observations SET superseded_by = NULL, archived_at = NULL
    WHERE superseded_by IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    UPDATE observations SET retired_reason = NULL
    WHERE id IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    DELETE FROM observation_retractions WHERE entry = NEW.id OR target = NEW.id
        OR obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
END;
CREATE TRIGGER observations_reread_released AFTER INSERT ON quarantine WHEN NEW.action = 'release' BEGIN
    UPDATE observation_cursors SET last_seq = (SELECT seq - 1 FROM entries WHERE id = NEW.entry)
    WHERE session = (SELECT session FROM entries WHERE id = NEW.entry)
    AND last_seq >= (SELECT seq FROM entries WHERE id = NEW.entry);
END;
"""


# An erase no longer brings back what the owner took back (m026's trigger, replaced). A retraction whose
# words came from a note (`observations retire`, the model's `withdraw`) is not simply dropped with the note:
# its stems may hold the erased words, so it becomes one retraction per entry the note still cites (`target`,
# no stems), and a note the observer keeps again from those entries is retired again. Only the sessions
# still saying what a current note said are read again (a retired, superseded or withdrawn one is not
# current: nothing of it comes back). `unless_forbidden`: "we no longer use npm" agrees with a note
# forbidding npm, which stays.
M027_RETRACTIONS_SURVIVE_ERASE = """
ALTER TABLE observation_retractions ADD COLUMN unless_forbidden INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER observations_reread_erased_rules;
CREATE TRIGGER observations_reread_erased_rules AFTER UPDATE OF erased_at ON entries
WHEN OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND (
    EXISTS (SELECT 1 FROM observation_sources WHERE entry = NEW.id)
    OR EXISTS (SELECT 1 FROM observation_retractions WHERE entry = NEW.id OR target = NEW.id)
) BEGIN
    UPDATE observation_cursors SET last_seq = MIN(last_seq, (
        SELECT MIN(e.seq) - 1 FROM observation_sources s JOIN entries e ON e.id = s.entry
        WHERE s.obs IN (SELECT c.obs FROM observation_sources c JOIN observations o ON o.id = c.obs
            WHERE c.entry = NEW.id AND o.retired_at IS NULL AND o.superseded_by IS NULL
            AND (o.withdrawn_at IS NULL OR o.withdrawn_at = NEW.erased_at))
        AND s.entry <> NEW.id AND e.erased_at IS NULL AND e.session = observation_cursors.session))
    WHERE session IN (SELECT e.session FROM observation_sources s JOIN entries e ON e.id = s.entry
        WHERE s.obs IN (SELECT c.obs FROM observation_sources c JOIN observations o ON o.id = c.obs
            WHERE c.entry = NEW.id AND o.retired_at IS NULL AND o.superseded_by IS NULL
            AND (o.withdrawn_at IS NULL OR o.withdrawn_at = NEW.erased_at))
        AND s.entry <> NEW.id AND e.erased_at IS NULL);
    UPDATE observations SET superseded_by = NULL, archived_at = NULL
    WHERE superseded_by IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    UPDATE observations SET retired_reason = NULL
    WHERE id IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
    INSERT INTO observation_retractions(entry, obs, target, at, stems, negated, events)
    SELECT DISTINCT r.entry, NULL, s.entry, r.at, '[]', 0, r.events
    FROM observation_retractions r JOIN observation_sources s ON s.obs = r.obs
    JOIN entries e ON e.id = s.entry
    WHERE r.obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id)
    AND r.entry IS NOT NEW.id AND r.target IS NOT NEW.id AND s.entry <> NEW.id AND e.erased_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM observation_retractions x WHERE x.entry IS r.entry AND x.obs IS NULL
        AND x.target = s.entry AND x.stems = '[]');
    DELETE FROM observation_retractions WHERE entry = NEW.id OR target = NEW.id
        OR obs IN (SELECT obs FROM observation_sources WHERE entry = NEW.id);
END;
"""
