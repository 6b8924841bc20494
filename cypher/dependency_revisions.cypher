// Forgetting: every revision, open or closed, of the facts of `scope` whose hub NEEDS the node
// of `key` (a forgotten entity's id), for the run to rewrite the reference.
// :params {scope: 'u1', key: 'R1'}
MATCH (:Node {scope: $scope, id: $key})<-[:NEEDS]-(:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.scope = $scope
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.assertion_id, a.revision
