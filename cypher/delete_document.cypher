// Delete an identity document and its lookup keys (a key node that finds nothing else goes).
// :params {kind: 'profile', scope: 'acme', key: 'p-jo-okafor'}
MATCH (d:Document {kind: $kind, scope: $scope, key: $key})
OPTIONAL MATCH (l:LookupKey)-[:FINDS]->(d)
WITH d, collect(l) AS keys
DETACH DELETE d
WITH keys
UNWIND keys AS l
WITH l
WHERE NOT EXISTS { (l)-[:FINDS]->() }
DELETE l
