// Every typed edge into or out of one node (episode, fact, entity, activity, tombstone),
// oldest first. The graph's own bookkeeping (REVISION_OF_FACT, NEEDS, REFUSED) is left out.
// Only the node of `scope` (null: of every scope, an operator's view, where an entity id may
// name one node per scope); an edge never joins nodes of two scopes.
// :params {id: 'as_1', scope: 'u1'}
MATCH (n:Node {id: $id})
WHERE $scope IS NULL OR n.scope = $scope
MATCH (n)-[r]-()
WHERE NOT type(r) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
RETURN DISTINCT startNode(r).id AS src, type(r) AS type, endNode(r).id AS dst, r.since AS since
ORDER BY since, type, src, dst
