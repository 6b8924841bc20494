// Forgetting: erase an entity and every typed edge touching it. Facts that NEED it keep that
// link (a bare :Node with the id), as the embedded store keeps its dependency rows. Placeholder
// nodes left without any relationship are deleted.
// :params {scope: 'u1', entity_id: 'R1'}
MATCH (n:Node {scope: $scope, id: $entity_id})
OPTIONAL MATCH (n)-[g]-(other)
WHERE NOT type(g) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
WITH n, collect(g) AS gone, collect(DISTINCT other) AS others
FOREACH (g IN gone | DELETE g)
REMOVE n:Entity
SET n.entity_id = null, n.type = null, n.name = null, n.owners = null,
    n.recorded_at = null
WITH others + [n] AS touched
UNWIND touched AS m
WITH DISTINCT m
WHERE labels(m) = ['Node'] AND NOT EXISTS { (m)--() }
DELETE m
