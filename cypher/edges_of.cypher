// Every typed edge into or out of each of many nodes (the forget plan's lineage walk reads a
// whole level at once), oldest first, tagged with the node it was read for. The graph's own
// bookkeeping (REVISION_OF_FACT, NEEDS, REFUSED) is left out. Only nodes of `scope` (null:
// of every scope, an operator's view); an edge never joins nodes of two scopes.
// :params {ids: ['as_1', 'R1'], scope: 'u1'}
UNWIND $ids AS id
MATCH (n:Node {id: id})
WHERE $scope IS NULL OR n.scope = $scope
MATCH (n)-[r]-()
WHERE NOT type(r) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
RETURN DISTINCT id, startNode(r).id AS src, type(r) AS type, endNode(r).id AS dst,
       r.since AS since
ORDER BY since, type, src, dst
