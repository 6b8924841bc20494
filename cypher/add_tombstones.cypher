// Proof that something was forgotten, without what it was: one forget run's tombstones in one
// query, each (`kind`, `key`) row with the run's shared fields. `key` is a keyed hash. The
// tombstone is the :Node 'tomb_' + the key's first 20 characters, the id that INVALIDATED_BY
// and REVISION_OF edges name. Written once: a tombstone already there is left as it is. Every
// row, new or not, is INVALIDATED_BY the run's activity (an edge recorded once, with the
// system time `now`, as add_edge does), so the tombstone shows in the graph linked to it.
// The adapter passes each tombstone node once (the first row naming it), so no row depends on
// what another row wrote, and never an empty list (the activity's node would be created).
// :params {scope: 'u1', keys: [{kind: 'node', key: '0f3c9a51d2e4b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1'}], generation: 1, activity_id: 'act_forget_1', created_at: datetime('2026-02-14T20:00Z'), now: datetime('2026-02-14T20:00Z')}
MERGE (d:Node {scope: $scope, id: $activity_id})
WITH d
UNWIND $keys AS k
MERGE (t:Node {scope: $scope, id: 'tomb_' + substring(k.key, 0, 20)})
FOREACH (new IN CASE WHEN t.key IS NULL THEN [1] ELSE [] END |
  SET t:Tombstone,
      t.key = k.key,
      t.kind = k.kind,
      t.generation = $generation,
      t.activity_id = $activity_id,
      t.created_at = $created_at)
WITH t, d
WHERE NONE(x IN [(t)-[:INVALIDATED_BY]->(e) | e] WHERE x = d)
CREATE (t)-[r:INVALIDATED_BY]->(d)
SET r.since = $now
