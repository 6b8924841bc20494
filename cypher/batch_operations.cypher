// Batch planning: the episodes already recorded under any of many (scope, operation id) pairs,
// with their payload hashes (episode_by_operation for each).
// :params {keys: [{scope: 'u1', operation_id: 'op-1'}]}
UNWIND $keys AS k
MATCH (e:Episode {scope: k.scope, operation_id: k.operation_id})
RETURN e {.*} AS episode
