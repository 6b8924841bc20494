// Batch planning: the currently believed revisions that depend on any of `keys` (live_dependents
// for each: an entity id or an assertion id, in its scope), with the highest revision number of
// each revision's assertion.
// :params {keys: [{scope: 'u1', key: 'R1'}]}
UNWIND $keys AS k
MATCH (:Node {scope: k.scope, id: k.key})<-[:NEEDS]-(f:Node)<-[:REVISION_OF_FACT]-(a:Assertion)
WHERE a.sys_to IS NULL
CALL (a) {
  MATCH (b:Assertion {assertion_id: a.assertion_id})
  RETURN max(b.revision) AS highest
}
RETURN k.scope AS scope, k.key AS key, a {.*, recall_vector: null} AS version, highest
