// Which of `keys` are tombstoned, and since when (checked inside the write).
// :params {keys: ['0f3c9a51d2e4b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1']}
MATCH (t:Tombstone)
WHERE t.key IN $keys
RETURN t.key AS key, t.created_at AS created_at
