// One entity by id, in one scope (another scope's entity of that id is another entity).
// :params {scope: 'u1', entity_id: 'ana'}
MATCH (n:Entity {scope: $scope, entity_id: $entity_id})
RETURN n {.*} AS entity
