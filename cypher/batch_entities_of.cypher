// Batch planning: the entities of many (scope, id) pairs at once (entity for each).
// :params {keys: [{scope: 'u1', entity_id: 'ana'}]}
UNWIND $keys AS k
MATCH (n:Entity {scope: k.scope, entity_id: k.entity_id})
RETURN n {.*} AS entity
