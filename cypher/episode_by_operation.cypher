// The episode recorded under an operation id, with its payload hash (idempotency check).
// Operation ids are the sender's and are unique per scope only.
// :params {scope: 'u1', operation_id: 'op-1'}
MATCH (e:Episode {scope: $scope, operation_id: $operation_id})
RETURN e {.*} AS episode
