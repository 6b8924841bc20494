// Every entity of one scope, by id (entities.cypher lists every scope's).
// :params {scope: 'u1'}
MATCH (n:Entity {scope: $scope})
USING INDEX SEEK n:Entity(scope)
RETURN n {.*} AS entity
ORDER BY n.entity_id
