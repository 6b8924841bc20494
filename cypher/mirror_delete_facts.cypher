// Mirror: erase the assertions a slice found gone from the embedded store, in one query:
// delete_assertion's rule (any scope) for each id in order, each in its own subquery so it
// sees what the ones before it deleted. Every revision and every edge touching the fact goes;
// the :Fact hub is deleted unless another fact still NEEDS it (then a bare :Node keeps the
// id), and placeholder neighbours left without any relationship are deleted.
// :params {ids: ['as_1']}
UNWIND $ids AS id
CALL (id) {
  OPTIONAL MATCH (a:Assertion {assertion_id: id})
  DETACH DELETE a
  WITH id, count(*) AS revisions
  OPTIONAL MATCH (f:Node {id: id})
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
