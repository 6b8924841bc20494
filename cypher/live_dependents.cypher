// Currently believed revisions of every assertion whose depends_on names `key` (an entity id or
// an assertion id): the fact hubs that NEED the key's node, then their open revisions.
// :params {key: 'R1'}
MATCH (:Node {id: $key})<-[:NEEDS]-(f:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.sys_to IS NULL
RETURN a {.*} AS version
ORDER BY a.valid_from, a.assertion_id, a.revision
