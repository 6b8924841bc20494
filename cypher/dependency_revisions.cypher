// Forgetting: every revision, open or closed, of the facts of `scope` whose hub NEEDS the node
// of one of `keys` (forgotten entities' ids), for the run to rewrite the references.
// :params {scope: 'u1', keys: ['R1']}
UNWIND $keys AS key
MATCH (:Node {scope: $scope, id: key})<-[:NEEDS]-(:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.scope = $scope
WITH DISTINCT a
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.assertion_id, a.revision
