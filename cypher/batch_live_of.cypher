// Batch planning: the currently believed revisions of each of `ids` (live_versions_of for each,
// in its scope), with the highest revision number of the assertion.
// :params {ids: [{scope: 'u1', id: 'as_1'}]}
UNWIND $ids AS k
MATCH (a:Assertion {assertion_id: k.id})
WHERE a.sys_to IS NULL AND a.scope = k.scope
CALL (a) {
  MATCH (b:Assertion {assertion_id: a.assertion_id})
  RETURN max(b.revision) AS highest
}
RETURN k.scope AS scope, k.id AS id, a {.*, recall_vector: null} AS version, highest
