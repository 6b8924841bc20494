// Every episode of one scope, oldest first: a forget run searches their content for residual
// copies of what it erases.
// :params {scope: 'u1'}
MATCH (e:Episode {scope: $scope})
RETURN e {.*} AS episode
ORDER BY e.recorded_at, e.episode_id
