// live_dependents of each of `keys` (entity ids or assertion ids) in one query: the currently
// believed revisions whose fact hub NEEDS the key's node, each row with the key it depends on.
// Only in `scope`: another tenant's R1 is another node. The adapter groups the rows by key;
// the ORDER BY is live_dependents', so each key's rows keep its order.
// :params {scope: 'u1', keys: ['R1', 'as_1']}
UNWIND $keys AS key
MATCH (:Node {scope: $scope, id: key})<-[:NEEDS]-(f:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.sys_to IS NULL
RETURN key, a {.*, recall_vector: null} AS version
ORDER BY a.valid_from, a.assertion_id, a.revision
