// Currently believed revisions of every assertion whose depends_on names `key` (an entity id or
// an assertion id): the fact hubs that NEED the key's node, then their open revisions.
// Only in `scope`: another tenant's R1 is another node.
// :params {scope: 'u1', key: 'R1'}
MATCH (:Node {scope: $scope, id: $key})<-[:NEEDS]-(f:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.sys_to IS NULL
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.valid_from, a.assertion_id, a.revision
