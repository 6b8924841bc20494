// Every entity (of one scope, or of all when null), by id.
// :params {scope: null}
MATCH (n:Entity)
WHERE $scope IS NULL OR n.scope = $scope
RETURN n {.*} AS entity
ORDER BY n.entity_id
