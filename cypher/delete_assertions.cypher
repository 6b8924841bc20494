// Forgetting: erase every revision of each assertion in `assertion_ids` and every edge
// touching it, in one query, each id in order in its own subquery so it sees what the ones
// before it deleted (as one query per id did). The :Fact hub loses its typed edges and its
// NEEDS links; it is deleted, unless another fact still NEEDS it (then a bare :Node keeps only
// the id, as the embedded store keeps that dependency row). Placeholder neighbours left
// without any relationship are deleted too.
// Assertion ids are unique across scopes; `scope` (null: any) pins the hub for a scoped run.
// :params {assertion_ids: ['as_1', 'as_2'], scope: 'u1'}
UNWIND $assertion_ids AS id
CALL (id) {
  OPTIONAL MATCH (a:Assertion {assertion_id: id})
  DETACH DELETE a
  WITH id, count(*) AS revisions
  OPTIONAL MATCH (f:Node {id: id})
  WHERE $scope IS NULL OR f.scope = $scope
  OPTIONAL MATCH (f)-[g]-(other)
  WHERE NOT type(g) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
     OR (type(g) = 'NEEDS' AND startNode(g) = f)
  WITH f, collect(g) AS gone, collect(DISTINCT other) AS others
  FOREACH (g IN gone | DELETE g)
  WITH f, others
  WHERE f IS NOT NULL
  REMOVE f:Fact
  SET f.assertion_id = null
  WITH others + [f] AS touched
  UNWIND touched AS n
  WITH DISTINCT n
  WHERE labels(n) = ['Node'] AND NOT EXISTS { (n)--() }
  DELETE n
}
