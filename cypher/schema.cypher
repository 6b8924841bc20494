// The kg-memory graph's constraints and indexes (Neo4j 5 Community: uniqueness constraints and
// range indexes only). The one file of this folder that holds several statements: they are
// separated by semicolons, kg_memory.cypher.statements("schema") splits them, and Neo4j Browser
// runs the file as pasted (multi-statement editor). Every statement is IF NOT EXISTS, so running
// it again changes nothing. No parameters.
// :params {}

// Schema 1 keyed node ids, operation ids, entity ids and documents across scopes; tenants'
// names collide, so those constraints go (a database holding schema 1 data is refused before
// this file runs, see kg_memory/store/neo4j/store.py).
DROP CONSTRAINT node_id IF EXISTS;
DROP CONSTRAINT episode_operation IF EXISTS;
DROP CONSTRAINT entity_id IF EXISTS;
DROP CONSTRAINT document_key IF EXISTS;

// Every node an edge can point at (episode, fact, entity, activity, tombstone, placeholder)
// carries the label :Node, its scope in `scope` and its protocol id in `id`: an entity id
// names a different node in every scope, and an edge joins two nodes of one scope.
CREATE CONSTRAINT node_scope_id IF NOT EXISTS FOR (n:Node) REQUIRE (n.scope, n.id) IS UNIQUE;
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE e.episode_id IS UNIQUE;
CREATE CONSTRAINT episode_scope_operation IF NOT EXISTS FOR (e:Episode) REQUIRE (e.scope, e.operation_id) IS UNIQUE;
CREATE CONSTRAINT entity_scope_id IF NOT EXISTS FOR (e:Entity) REQUIRE (e.scope, e.entity_id) IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.assertion_id IS UNIQUE;
CREATE CONSTRAINT revision_id IF NOT EXISTS FOR (a:Assertion) REQUIRE (a.assertion_id, a.revision) IS UNIQUE;
CREATE CONSTRAINT activity_id IF NOT EXISTS FOR (a:Activity) REQUIRE a.activity_id IS UNIQUE;
CREATE CONSTRAINT tombstone_key IF NOT EXISTS FOR (t:Tombstone) REQUIRE t.key IS UNIQUE;
CREATE CONSTRAINT block_id IF NOT EXISTS FOR (b:Block) REQUIRE b.block_id IS UNIQUE;
CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (m:Meta) REQUIRE m.key IS UNIQUE;
CREATE CONSTRAINT document_scope_key IF NOT EXISTS FOR (d:Document) REQUIRE (d.kind, d.scope, d.key) IS UNIQUE;
CREATE CONSTRAINT lookup_key IF NOT EXISTS FOR (l:LookupKey) REQUIRE (l.kind, l.scope, l.key) IS UNIQUE;

// As-of lookups: a slot (subject, predicate), a subject, a scope; versions() by assertion id;
// the other reads' filters.
CREATE INDEX assertion_slot IF NOT EXISTS FOR (a:Assertion) ON (a.subject, a.predicate);
CREATE INDEX assertion_subject IF NOT EXISTS FOR (a:Assertion) ON (a.subject);
CREATE INDEX assertion_scope IF NOT EXISTS FOR (a:Assertion) ON (a.scope);
CREATE INDEX assertion_id IF NOT EXISTS FOR (a:Assertion) ON (a.assertion_id);
CREATE INDEX episode_source IF NOT EXISTS FOR (e:Episode) ON (e.source);
CREATE INDEX block_scope IF NOT EXISTS FOR (b:Block) ON (b.scope);
CREATE INDEX activity_type IF NOT EXISTS FOR (a:Activity) ON (a.type);
CREATE INDEX activity_scope IF NOT EXISTS FOR (a:Activity) ON (a.scope);
CREATE INDEX document_kind IF NOT EXISTS FOR (d:Document) ON (d.kind);
CREATE INDEX entity_scope IF NOT EXISTS FOR (e:Entity) ON (e.scope);
// Instants are DATETIMEs (UTC): range indexes on the temporal properties serve range filters
// (a Browser user's `a.sys_from <= datetime('2026-02-14T20:00Z')`, a snapshot of the whole store)
// and the conversation window's ordering. The as-of lookups still seek by slot, subject or scope
// (their USING INDEX hints) and filter that handful of revisions by time.
CREATE INDEX assertion_sys_from IF NOT EXISTS FOR (a:Assertion) ON (a.sys_from);
CREATE INDEX assertion_valid_from IF NOT EXISTS FOR (a:Assertion) ON (a.valid_from);
CREATE INDEX episode_recorded_at IF NOT EXISTS FOR (e:Episode) ON (e.recorded_at);
CREATE INDEX episode_occurred_at IF NOT EXISTS FOR (e:Episode) ON (e.occurred_at);
// An operator's lookups by id alone (an id across every scope; the mirror's deletions).
CREATE INDEX node_id_any_scope IF NOT EXISTS FOR (n:Node) ON (n.id);

// Recall (kg_memory.services.recall): full-text indexes over the tokens of
// kg_memory.domain.recall_text, split on whitespace only, so the terms Lucene matches are the
// terms the ranking counts. Not eventually consistent: a just-committed fact is searchable by
// the next query, and a deleted node leaves the index in the deleting transaction. Every
// revision stays indexed after it closes (the index is bitemporal; eligibility filters it).
// Each also indexes the node's `scope`, and a search requires it (recall_facts.cypher): Lucene
// then returns one tenant's matches instead of every tenant's. The indexes before that
// (`recall_facts`, `recall_episodes`: text only) are dropped; the new ones fill from the nodes
// already stored (no property changes), and awaitIndexes below waits for them.
DROP INDEX recall_facts IF EXISTS;
DROP INDEX recall_episodes IF EXISTS;
CREATE FULLTEXT INDEX recall_facts_scoped IF NOT EXISTS FOR (a:Assertion)
ON EACH [a.recall_text, a.scope]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
CREATE FULLTEXT INDEX recall_episodes_scoped IF NOT EXISTS FOR (e:Episode)
ON EACH [e.recall_text, e.scope]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
CREATE INDEX episode_conversation IF NOT EXISTS FOR (e:Episode) ON (e.scope, e.channel);
// An episode's recall vector lives on its own node (recall_episode_vector_index.cypher).
CREATE CONSTRAINT episode_vector_id IF NOT EXISTS FOR (v:EpisodeVector) REQUIRE v.episode_id IS UNIQUE;
CREATE INDEX episode_vector_scope IF NOT EXISTS FOR (v:EpisodeVector) ON (v.scope);

// Wait until every index is online before the first query relies on it.
CALL db.awaitIndexes(300);
