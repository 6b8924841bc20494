// Proof that something was forgotten, without what it was: `key` is a keyed hash. The
// tombstone is the :Node 'tomb_' + the key's first 20 characters, the id that INVALIDATED_BY
// and REVISION_OF edges name, so it shows in the graph linked to the forget activity. Written
// once: a tombstone already there is left as it is.
// :params {scope: 'u1', key: '0f3c9a51d2e4b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1', kind: 'node', generation: 1, activity_id: 'act_forget_1', created_at: datetime('2026-02-14T20:00Z')}
MERGE (t:Node {scope: $scope, id: 'tomb_' + substring($key, 0, 20)})
WITH t
WHERE t.key IS NULL
SET t:Tombstone,
    t.key = $key,
    t.kind = $kind,
    t.generation = $generation,
    t.activity_id = $activity_id,
    t.created_at = $created_at
