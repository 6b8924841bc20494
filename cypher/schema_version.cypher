// The store's schema version, recorded on first connect and checked on every connect.
// :params {version: '3'}
MERGE (m:Meta {key: 'schema_version'})
  ON CREATE SET m.value = $version
RETURN m.value AS version
