// Mirror: the last outbox sequence number applied (0 before the first sync).
// :params {}
OPTIONAL MATCH (m:Meta {key: 'mirror_cursor'})
RETURN coalesce(m.value, 0) AS cursor
