// The episode recorded under an operation id, with its payload hash (idempotency check).
// :params {operation_id: 'op-1'}
MATCH (e:Episode {operation_id: $operation_id})
RETURN e {.*} AS episode
