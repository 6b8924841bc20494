// Migration from schema 2: the system-time counter from integer microseconds (-1 before the
// first write) to a DATETIME, exactly (a duration of microseconds added to the epoch).
// :params {}
MATCH (m:Meta {key: 'system_time'})
WHERE m.value IS :: INTEGER NOT NULL
SET m.value = datetime('1970-01-01T00:00:00Z') + duration({microseconds: m.value})
