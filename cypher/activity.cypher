// One activity by its id (ids are unique across scopes: the activity_id constraint serves the
// lookup), if it is of `type` and of `scope` (each null for any); no row when there is none.
// :params {activity_id: 'act_0123456789abcdef', type: null, scope: null}
MATCH (a:Activity {activity_id: $activity_id})
WHERE ($type IS NULL OR a.type = $type) AND ($scope IS NULL OR a.scope = $scope)
RETURN a {.*} AS activity
