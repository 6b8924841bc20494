// The writer gate's audit of one scope: every refused candidate of its episodes (refusals.cypher
// lists every scope's). The scope's episodes are read through the (scope, operation_id)
// constraint, not by scanning every tenant's refusals.
// :params {scope: 'u1'}
MATCH (e:Episode)
USING INDEX SEEK e:Episode(scope, operation_id)
WHERE e.scope = $scope AND e.operation_id IS NOT NULL
MATCH (e)-[:REFUSED]->(r:Refusal)
RETURN r {.*} AS refusal
ORDER BY r.at, r.episode_id, r.seq
