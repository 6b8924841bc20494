// Insert or replace an identity document (an entity profile, a resolution decision) as JSON
// text, recorded at `now`; each `lookup` key (a blocking key) gets a :LookupKey node that FINDS
// it, so the resolver reaches candidates without scanning. Keys are only ever added.
// :params {kind: 'profile', key: 'p-jo-okafor', scope: 'acme', body: '{"entity_id": "p-jo-okafor"}', lookup: ['name:jo okafor'], now: datetime('2026-02-14T20:00Z')}
MERGE (d:Document {kind: $kind, scope: $scope, key: $key})
SET d.body = $body, d.recorded_at = $now
FOREACH (k IN coalesce($lookup, []) |
  MERGE (l:LookupKey {kind: $kind, scope: $scope, key: k})
  MERGE (l)-[:FINDS]->(d))
