// Advance and return the store's system time, a DATETIME in UTC: the caller's clock, or the last
// system time + 1 µs when the clock stood still or stepped back.
// No value yet (a new store, or a batch that took its lock and wrote nothing): the clock.
// Runs first in every write transaction. The SET reads the property it writes, so Neo4j takes
// the meta node's write lock before reading it and holds it until commit: writers are
// serialised (like SQLite's BEGIN IMMEDIATE) and system times increase in commit order.
// :params {clock: datetime('2026-02-14T20:00Z')}
MERGE (m:Meta {key: 'system_time'})
SET m.value = CASE WHEN m.value IS NULL OR $clock > m.value THEN $clock
                   ELSE m.value + duration({microseconds: 1}) END
RETURN m.value AS now
