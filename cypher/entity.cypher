// One entity by id.
// :params {entity_id: 'ana'}
MATCH (n:Entity {entity_id: $entity_id})
RETURN n {.*} AS entity
