// Batch planning: the entities of many (scope, id) pairs at once (entity for each), with the
// fields an Entity has (not recorded_at, which the planner never reads).
// :params {keys: [{scope: 'u1', entity_id: 'ana'}]}
UNWIND $keys AS k
MATCH (n:Entity {scope: k.scope, entity_id: k.entity_id})
RETURN n {.entity_id, .type, .name, .scope, .owners} AS entity
