// Mirror: the tombstones of a slice, in one query (add_tombstone's rule for each row in
// order: the :Node 'tomb_' + the key's first 20 characters, written once; a tombstone already
// there is left as it is). `created_at` is a DATETIME or ISO-8601 text, stored with datetime()
// (see mirror_versions).
// :params {rows: [{scope: 'u1', key: '0f3c9a51d2e4b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1', kind: 'node', generation: 1, activity_id: 'act_forget_1', created_at: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (t:Node {scope: r.scope, id: 'tomb_' + substring(r.key, 0, 20)})
WITH t, r
WHERE t.key IS NULL
SET t:Tombstone,
    t.key = r.key,
    t.kind = r.kind,
    t.generation = r.generation,
    t.activity_id = r.activity_id,
    t.created_at = datetime(r.created_at)
