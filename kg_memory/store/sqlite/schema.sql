-- The embedded store's schema. Times are integer microseconds since the Unix epoch (UTC);
-- NULL in valid_to / sys_to is the open end of a half-open interval.
--
-- Tenancy (schema 2): every name a sender chooses (operation ids, entity ids, document keys,
-- edge endpoints, dependency keys) is keyed by scope, so two tenants using the same name never
-- share a row: u2's `ana` is not u1's `ana`, and u2 reusing u1's operation id is a new episode.
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS episodes (
    episode_id   TEXT PRIMARY KEY,
    operation_id TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    source       TEXT NOT NULL,
    channel      TEXT NOT NULL,
    content      TEXT NOT NULL,
    occurred_at  INTEGER NOT NULL,
    recorded_at  INTEGER NOT NULL,
    scope        TEXT NOT NULL,
    -- Schema 7: kg_memory.domain.corroboration.fingerprint(content), written with the content
    -- (and again whenever a forget redacts or rewrites it), so a lookup reads each supporting
    -- episode's digest instead of hashing its text on every read.
    fingerprint  TEXT NOT NULL DEFAULT '',
    -- Schema 9: the gate's decision on the envelope ('admitted' or 'refused'), and who really
    -- sent it over which channel (kg_memory.domain.model.Episode), so every read knows a
    -- refused envelope's content is nobody's statement.
    envelope     TEXT NOT NULL DEFAULT 'admitted' CHECK (envelope IN ('admitted', 'refused')),
    sent_by      TEXT,
    sent_over    TEXT,
    UNIQUE (scope, operation_id)
);

CREATE INDEX IF NOT EXISTS episodes_source ON episodes (source, scope);

CREATE TABLE IF NOT EXISTS entities (
    entity_id   TEXT NOT NULL,
    type        TEXT NOT NULL,
    name        TEXT,
    scope       TEXT NOT NULL,
    owners      TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (scope, entity_id)
);

CREATE TABLE IF NOT EXISTS versions (
    vid          INTEGER PRIMARY KEY,
    assertion_id TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    scope        TEXT NOT NULL,
    subject      TEXT NOT NULL,
    predicate    TEXT NOT NULL,
    project      TEXT NOT NULL DEFAULT '',
    value        TEXT NOT NULL,
    qualifiers   TEXT NOT NULL,
    kind         TEXT NOT NULL,
    writer       TEXT NOT NULL,
    depends_on   TEXT NOT NULL,
    confidence   REAL NOT NULL,
    valid_from   INTEGER NOT NULL,
    valid_to     INTEGER,
    sys_from     INTEGER NOT NULL,
    sys_to       INTEGER,
    reason       TEXT NOT NULL,
    recorded_by  TEXT NOT NULL,
    closed_by    TEXT,
    close_reason TEXT,
    UNIQUE (assertion_id, revision),
    CHECK (valid_to IS NULL OR valid_to > valid_from),
    CHECK (sys_to IS NULL OR sys_to > sys_from)
);
CREATE INDEX IF NOT EXISTS versions_asof ON versions (subject, predicate, sys_from);
CREATE INDEX IF NOT EXISTS versions_live ON versions (scope, subject, predicate, project)
    WHERE sys_to IS NULL;
CREATE INDEX IF NOT EXISTS versions_scope ON versions (scope, sys_from);

-- A revision's content never changes; the only update allowed is closing its open system
-- interval, once. Forgetting (erasure) deletes rows instead of editing them.
CREATE TRIGGER IF NOT EXISTS versions_immutable
BEFORE UPDATE ON versions
WHEN OLD.sys_to IS NOT NULL
  OR NEW.sys_to IS NULL
  OR NEW.assertion_id IS NOT OLD.assertion_id OR NEW.revision IS NOT OLD.revision
  OR NEW.scope IS NOT OLD.scope OR NEW.subject IS NOT OLD.subject
  OR NEW.predicate IS NOT OLD.predicate OR NEW.project IS NOT OLD.project
  OR NEW.value IS NOT OLD.value OR NEW.qualifiers IS NOT OLD.qualifiers
  OR NEW.kind IS NOT OLD.kind OR NEW.writer IS NOT OLD.writer
  OR NEW.depends_on IS NOT OLD.depends_on OR NEW.confidence IS NOT OLD.confidence
  OR NEW.valid_from IS NOT OLD.valid_from OR NEW.valid_to IS NOT OLD.valid_to
  OR NEW.sys_from IS NOT OLD.sys_from OR NEW.reason IS NOT OLD.reason
  OR NEW.recorded_by IS NOT OLD.recorded_by
BEGIN
    SELECT RAISE(ABORT, 'assertion revisions are immutable: only an open system interval may be closed');
END;

CREATE TABLE IF NOT EXISTS dependencies (
    scope        TEXT NOT NULL,
    dep          TEXT NOT NULL,
    assertion_id TEXT NOT NULL,
    PRIMARY KEY (scope, dep, assertion_id)
) WITHOUT ROWID;
-- Erasing an assertion finds its dependency rows by assertion id: without this index every
-- erasure scans the table, and a forget cascade grows with the store instead of with itself.
CREATE INDEX IF NOT EXISTS dependencies_assertion ON dependencies (assertion_id);

-- An edge lives in the scope of the unit of work that drew it; its endpoints are ids in that
-- scope (an entity id names a different node in every scope).
CREATE TABLE IF NOT EXISTS edges (
    scope TEXT NOT NULL,
    src   TEXT NOT NULL,
    type  TEXT NOT NULL,
    dst   TEXT NOT NULL,
    since INTEGER NOT NULL,
    PRIMARY KEY (scope, src, type, dst)
) WITHOUT ROWID;
-- By endpoint without the scope as well: supports() and the operator's reads name assertion and
-- episode ids, which are unique across scopes; a scoped lookup filters the few rows found.
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, type, since);
CREATE INDEX IF NOT EXISTS edges_src ON edges (src);

CREATE TABLE IF NOT EXISTS refusals (
    id         INTEGER PRIMARY KEY,
    episode_id TEXT NOT NULL,
    source     TEXT NOT NULL,
    what       TEXT NOT NULL,
    reason     TEXT NOT NULL,
    at         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS refusals_episode ON refusals (episode_id);

-- Forgetting. Tombstones hold keyed hashes only; activities hold counts and ids only.
CREATE TABLE IF NOT EXISTS tombstones (
    key         TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    generation  INTEGER NOT NULL,
    activity_id TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) WITHOUT ROWID;
-- A forget run's tombstones, which its INVALIDATED_BY edges are read from (schema 8;
-- store/sqlite/invalidations.py).
CREATE INDEX IF NOT EXISTS tombstones_activity ON tombstones (activity_id);

CREATE TABLE IF NOT EXISTS activities (
    activity_id TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    type        TEXT NOT NULL,
    agent       TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    status      TEXT NOT NULL,
    detail      TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS blocks (
    block_id   TEXT PRIMARY KEY,
    scope      TEXT NOT NULL,
    subject    TEXT NOT NULL,
    predicates TEXT NOT NULL,
    project    TEXT,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

-- Identity: entity profiles and resolution decisions, kept as JSON documents with lookup keys
-- (blocking keys for profiles), so the resolver finds candidates without scanning.
CREATE TABLE IF NOT EXISTS documents (
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    scope       TEXT NOT NULL,
    body        TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (kind, scope, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS documents_scope ON documents (kind, scope, recorded_at);

CREATE TABLE IF NOT EXISTS document_keys (
    kind  TEXT NOT NULL,
    scope TEXT NOT NULL,
    key   TEXT NOT NULL,
    doc   TEXT NOT NULL,
    PRIMARY KEY (kind, scope, key, doc)
) WITHOUT ROWID;

-- The outbox: every change to what the Neo4j mirror shows, written by triggers in the same
-- transaction as the change itself. Keys only, never content, so a forgotten payload cannot
-- linger here; `kg-memory neo4j sync` reads the current rows behind the keys.
-- Schema 14: no AUTOINCREMENT (its sqlite_sequence row was one more page in every commit); a
-- seq is max(seq) + 1, never reused nor going backwards because the highest row is never
-- deleted (outbox_keep_last; store/sqlite/outbox_sequence.py blanks it instead).
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    tbl TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS outbox_keep_last BEFORE DELETE ON outbox
WHEN OLD.seq = (SELECT max(seq) FROM outbox)
BEGIN
    SELECT RAISE(ABORT, 'the highest outbox row holds the sequence: blank it, never delete it');
END;
CREATE TRIGGER IF NOT EXISTS outbox_versions_ins AFTER INSERT ON versions
BEGIN INSERT INTO outbox (tbl, key) VALUES ('versions', NEW.assertion_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_versions_upd AFTER UPDATE ON versions
BEGIN INSERT INTO outbox (tbl, key) VALUES ('versions', NEW.assertion_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_versions_del AFTER DELETE ON versions
BEGIN INSERT INTO outbox (tbl, key) VALUES ('versions', OLD.assertion_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_episodes_ins AFTER INSERT ON episodes
BEGIN INSERT INTO outbox (tbl, key) VALUES ('episodes', NEW.episode_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_episodes_upd AFTER UPDATE ON episodes
BEGIN INSERT INTO outbox (tbl, key) VALUES ('episodes', NEW.episode_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_episodes_del AFTER DELETE ON episodes
BEGIN INSERT INTO outbox (tbl, key) VALUES ('episodes', OLD.episode_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_entities_ins AFTER INSERT ON entities
BEGIN INSERT INTO outbox (tbl, key) VALUES ('entities', NEW.scope || char(31) || NEW.entity_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_entities_upd AFTER UPDATE ON entities
BEGIN INSERT INTO outbox (tbl, key) VALUES ('entities', NEW.scope || char(31) || NEW.entity_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_entities_del AFTER DELETE ON entities
BEGIN INSERT INTO outbox (tbl, key) VALUES ('entities', OLD.scope || char(31) || OLD.entity_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_edges_ins AFTER INSERT ON edges
BEGIN INSERT INTO outbox (tbl, key) VALUES ('edges', NEW.scope || char(31) || NEW.src || char(31) || NEW.type || char(31) || NEW.dst); END;
CREATE TRIGGER IF NOT EXISTS outbox_edges_del AFTER DELETE ON edges
BEGIN INSERT INTO outbox (tbl, key) VALUES ('edges', OLD.scope || char(31) || OLD.src || char(31) || OLD.type || char(31) || OLD.dst); END;
CREATE TRIGGER IF NOT EXISTS outbox_activities_ins AFTER INSERT ON activities
BEGIN INSERT INTO outbox (tbl, key) VALUES ('activities', NEW.activity_id); END;
CREATE TRIGGER IF NOT EXISTS outbox_tombstones_ins AFTER INSERT ON tombstones
BEGIN INSERT INTO outbox (tbl, key) VALUES ('tombstones', NEW.key); END;

-- Recall's lexical index (kg_memory.services.recall). Its FTS5 tables and the triggers that
-- erase from them are generated by kg_memory.store.sqlite.recall (one pair of tables per shard
-- of tenants, so a forget run's segment merge rewrites one shard, not the whole index). Here:
-- each indexed document's token count for BM25, and each scope's number and total length of
-- currently believed documents, so a search "now" need not count the corpus.
CREATE TABLE IF NOT EXISTS recall_fact_docs (
    vid    INTEGER PRIMARY KEY,
    length INTEGER NOT NULL
);
-- An episode's FTS rowid: its own rowid could change on VACUUM.
CREATE TABLE IF NOT EXISTS recall_episode_docs (
    rid        INTEGER PRIMARY KEY,
    episode_id TEXT NOT NULL UNIQUE,
    length     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS recall_stats (
    scope     TEXT NOT NULL,
    corpus    TEXT NOT NULL,
    documents INTEGER NOT NULL,
    tokens    INTEGER NOT NULL,
    PRIMARY KEY (scope, corpus)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS episodes_conversation ON episodes (scope, channel, occurred_at);
-- Outbox rows naming something a forget erased (entity ids are chosen by users, so a key can be
-- the forgotten text itself): their seqs, for the scrub to delete those rows once the mirror,
-- if there is one, has applied them.
CREATE TABLE IF NOT EXISTS outbox_erased (
    seq INTEGER PRIMARY KEY
);
-- Schema 6: a forget marks the outbox rows naming an erased entity (its own rows, edges from
-- or to it) by their key, which starts with the scope: without this index the marking read
-- every row of the outbox, so a forget grew with the store. Only the two tables whose keys
-- carry user-chosen ids are indexed (versions' and episodes' keys are ids the store makes), so
-- ingest pays for it on entity and edge rows only.
CREATE INDEX IF NOT EXISTS outbox_named ON outbox (key) WHERE tbl IN ('entities', 'edges');
-- Also schema 6: every forget run reads the forget activities (to complete those a crash left
-- erased), which are few next to the consolidations' activities of a large store.
CREATE INDEX IF NOT EXISTS activities_type ON activities (type, started_at);
