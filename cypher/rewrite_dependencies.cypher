// Forgetting: replace forgotten entities' ids in their dependents with their tombstone
// references (`renames`, old -> new): each revision's depends_on and digest (computed by the
// adapter, as on insert), then the hubs' NEEDS links; the bare node of an old id goes once
// nothing touches it.
// :params {scope: 'u1', renames: [{old: 'R1', new: 'tomb_0123456789abcdef0123'}], rows: [{assertion_id: 'as_1', revision: 1, depends_on: ['tomb_0123456789abcdef0123'], content_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'}]}
CALL (*) {
  UNWIND $rows AS r
  MATCH (a:Assertion {assertion_id: r.assertion_id, revision: r.revision})
  WHERE a.scope = $scope
  SET a.depends_on = r.depends_on, a.content_hash = r.content_hash
}
CALL (*) {
  UNWIND $renames AS m
  MATCH (:Node {scope: $scope, id: m.old})<-[n:NEEDS]-(f:Node)
  MERGE (t:Node {scope: $scope, id: m.new})
  MERGE (f)-[:NEEDS]->(t)
  DELETE n
}
CALL (*) {
  UNWIND $renames AS m
  MATCH (gone:Node {scope: $scope, id: m.old})
  WHERE labels(gone) = ['Node'] AND NOT EXISTS { (gone)--() }
  DELETE gone
}
RETURN 1 AS done
