// The activities one scope's store ran (of one type, 'consolidation' or 'forget', or null for
// both), by the scope's index; activities.cypher lists every scope's.
// :params {type: null, scope: 'acme'}
MATCH (a:Activity {scope: $scope})
// A seek, named, as for documents: the plan must not depend on the statistics of the day.
USING INDEX SEEK a:Activity(scope)
WHERE $type IS NULL OR a.type = $type
RETURN a {.*} AS activity
ORDER BY a.started_at, a.activity_id
