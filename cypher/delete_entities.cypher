// Forgetting: delete_entity of each id in `entity_ids`, in one query, each id in order in its
// own subquery so it sees what the ones before it deleted (as one query per id did): erase
// the entity and every typed edge touching it. Facts that NEED it keep that link (a bare
// :Node with the id), as the embedded store keeps its dependency rows. Placeholder nodes left
// without any relationship are deleted.
// :params {scope: 'u1', entity_ids: ['R1', 'R2']}
UNWIND $entity_ids AS entity_id
CALL (entity_id) {
  MATCH (n:Node {scope: $scope, id: entity_id})
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
}
