// The writer gate's audit: every refused candidate (of one scope, or of all when null).
// :params {scope: null}
MATCH (e:Episode)-[:REFUSED]->(r:Refusal)
WHERE $scope IS NULL OR e.scope = $scope
RETURN r {.*} AS refusal
ORDER BY r.at, r.episode_id, r.seq
