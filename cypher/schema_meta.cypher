// The store's metadata keys are unique, made so before the schema version is read or recorded
// (schema_version.cypher): without the constraint MERGE takes no lock on the key, and two
// processes opening a new database at once each created a version node, after which no open
// could tell which was the store's.
// :params {}
CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (m:Meta) REQUIRE m.key IS UNIQUE
