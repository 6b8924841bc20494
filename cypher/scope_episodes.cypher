// Every episode of one scope, oldest first: a forget run searches their content for residual
// copies of what it erases.
// Read through the (scope, operation_id) constraint (every episode has an operation id):
// without the hint the planner scanned every tenant's episodes.
// :params {scope: 'u1'}
MATCH (e:Episode)
USING INDEX SEEK e:Episode(scope, operation_id)
WHERE e.scope = $scope AND e.operation_id IS NOT NULL
RETURN e {.*} AS episode
ORDER BY e.recorded_at, e.episode_id
