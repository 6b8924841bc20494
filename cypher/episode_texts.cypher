// The id and content of every episode of one scope, in scope_episodes' order: a forget run
// searches them for residual copies of what it erases, and reads nothing else of them.
// :params {scope: 'u1'}
MATCH (e:Episode {scope: $scope})
RETURN e.episode_id AS episode_id, e.content AS content
ORDER BY e.recorded_at, e.episode_id
