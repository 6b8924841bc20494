// Ids of the episodes one source sent (in one scope, or in all when null).
// :params {source: 'restaurant', scope: null}
MATCH (e:Episode {source: $source})
WHERE $scope IS NULL OR e.scope = $scope
RETURN e.episode_id AS episode_id
ORDER BY e.recorded_at, e.episode_id
