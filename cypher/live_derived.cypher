// The current revisions of one scope's derived records (profiles, summaries): a forget's
// residue search reads these, not every assertion of the tenant.
// :params {scope: 'u1', kind: 'derived'}
MATCH (a:Assertion {scope: $scope, kind: $kind})
WHERE a.sys_to IS NULL
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.assertion_id, a.revision
