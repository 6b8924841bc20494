// Batch planning: the entities of many (scope, id) pairs at once (entity for each), with the
// fields an Entity has (not recorded_at, which the planner never reads).
// Every row comes back in one list of one record (`rows`): the Python driver's cost is per
// record (about 35 µs each, measured; the bench's 1,000-slot read returns about 1,700 rows).
// :params {keys: [{scope: 'u1', entity_id: 'ana'}]}
UNWIND $keys AS k
MATCH (n:Entity {scope: k.scope, entity_id: k.entity_id})
RETURN collect({entity: n {.entity_id, .type, .name, .scope, .owners}}) AS rows
