// live_dependents of each of `keys` (entity ids or assertion ids) in one query: the currently
// believed revisions whose fact hub NEEDS the key's node, each row with the key it depends on.
// Only in `scope`: another tenant's R1 is another node. The adapter groups the rows by key,
// each key's in live_dependents' order (the ORDER BY below, after the key's position).
// :params {scope: 'u1', keys: ['R1', 'as_1']}
UNWIND range(0, size($keys) - 1) AS i
MATCH (:Node {scope: $scope, id: $keys[i]})<-[:NEEDS]-(f:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.sys_to IS NULL
RETURN $keys[i] AS key, a {.*, recall_vector: null} AS version
ORDER BY i, a.valid_from, a.assertion_id, a.revision
