// Every typed edge into or out of one node (episode, fact, entity, activity, tombstone),
// oldest first. The graph's own bookkeeping (REVISION_OF_FACT, NEEDS, REFUSED) is left out.
// :params {id: 'as_1'}
MATCH (:Node {id: $id})-[r]-()
WHERE NOT type(r) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
RETURN DISTINCT startNode(r).id AS src, type(r) AS type, endNode(r).id AS dst, r.since AS since
ORDER BY since, type, src, dst
