// Integrity check: episodes (id, operation id, redacted?, scope), activity ids, tombstone keys, the
// dependency index (each fact's NEEDS) and the system-time high-water mark (read only).
// :params {}
OPTIONAL MATCH (m:Meta {key: 'system_time'})
RETURN
  COLLECT { MATCH (e:Episode) RETURN [e.id, e.operation_id, e.payload_hash = '', e.scope] } AS episodes,
  COLLECT { MATCH (a:Activity) RETURN a.id } AS activities,
  COLLECT { MATCH (t:Tombstone) RETURN t.key } AS tombstones,
  COLLECT { MATCH (f:Fact)-[:NEEDS]->(d:Node) RETURN [d.id, f.id] } AS dependencies,
  m.value AS system_time
