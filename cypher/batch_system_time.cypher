// Batched write: the system time of the batch's last episode, recorded as the store's clock
// (the first query of the batch's transaction, system_time, holds the lock until commit).
// :params {now: datetime('2026-02-14T20:00:00.000001Z')}
MATCH (m:Meta {key: 'system_time'})
SET m.value = $now
