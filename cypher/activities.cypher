// The activities the store ran (of one type, 'consolidation' or 'forget', and of one scope;
// each null for all).
// :params {type: null, scope: null}
MATCH (a:Activity)
WHERE ($type IS NULL OR a.type = $type) AND ($scope IS NULL OR a.scope = $scope)
RETURN a {.*} AS activity
ORDER BY a.started_at, a.activity_id
