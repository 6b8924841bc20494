// Mirror: record the last outbox sequence number applied, in the same transaction as the batch.
// :params {cursor: 42}
MERGE (m:Meta {key: 'mirror_cursor'})
SET m.value = $cursor
