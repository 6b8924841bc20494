// Delete an identity document and its lookup keys (a key node that finds nothing else goes).
// :params {kind: 'profile', scope: 'acme', key: 'p-jo-okafor'}
MATCH (d:Document {kind: $kind, scope: $scope, key: $key})
// Named: on a small store the planner may pick the `kind` index, which holds every tenant's.
USING INDEX SEEK d:Document(kind, scope, key)
OPTIONAL MATCH (l:LookupKey)-[:FINDS]->(d)
WITH d, collect(l) AS keys
DETACH DELETE d
WITH keys
UNWIND keys AS l
WITH l
WHERE NOT EXISTS { (l)-[:FINDS]->() }
DELETE l
