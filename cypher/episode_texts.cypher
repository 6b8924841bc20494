// The id and content of every episode of one scope, in scope_episodes' order: a forget run
// searches them for residual copies of what it erases, and reads nothing else of them.
// Read through the (scope, operation_id) constraint (every episode has an operation id):
// without the hint the planner scanned every tenant's episodes.
// :params {scope: 'u1'}
MATCH (e:Episode)
USING INDEX SEEK e:Episode(scope, operation_id)
WHERE e.scope = $scope AND e.operation_id IS NOT NULL
RETURN e.episode_id AS episode_id, e.content AS content
ORDER BY e.recorded_at, e.episode_id
