// Batched write: the first query of a batch's transaction. Writing a property of the
// system-time node takes its write lock until commit (writers are serialised, as by
// system_time), without handing out a system time: the batch assigns its episodes' times in
// memory by system_time's rule and records the last with batch_system_time. `last` is null
// before the store's first write.
// :params {}
MERGE (m:Meta {key: 'system_time'})
SET m.locked = true
REMOVE m.locked
RETURN m.value AS last
