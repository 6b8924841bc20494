// Advance and return the store's system time, a DATETIME in UTC: the caller's clock, or the last
// system time + 1 µs when the clock stood still or stepped back.
// Runs first in every write transaction. The SET reads the property it writes, so Neo4j takes
// the meta node's write lock before reading it and holds it until commit: writers are
// serialised (like SQLite's BEGIN IMMEDIATE) and system times increase in commit order.
// :params {clock: datetime('2026-02-14T20:00Z')}
MERGE (m:Meta {key: 'system_time'})
  ON CREATE SET m.value = $clock - duration({microseconds: 1})
SET m.value = CASE WHEN $clock > m.value THEN $clock
                   ELSE m.value + duration({microseconds: 1}) END
RETURN m.value AS now
