// Migration: record the schema version the database now holds. Written last, so a migration
// cut short leaves the old version and is resumed by running it again.
// :params {version: '3'}
MATCH (m:Meta {key: 'schema_version'})
SET m.value = $version
RETURN m.value AS version
