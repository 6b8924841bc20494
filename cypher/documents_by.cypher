// Bodies of the `kind` documents in `scope` reachable from any of the `lookup` keys.
// :params {kind: 'profile', scope: 'acme', lookup: ['name:jo okafor']}
UNWIND $lookup AS k
MATCH (:LookupKey {kind: $kind, scope: $scope, key: k})-[:FINDS]->(d:Document {kind: $kind, scope: $scope})
WITH DISTINCT d
RETURN d.body AS body
ORDER BY d.key
