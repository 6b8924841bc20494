// The currently believed revisions of one assertion.
// :params {assertion_id: 'as_1', scope: 'u1'}
MATCH (a:Assertion {assertion_id: $assertion_id})
WHERE a.sys_to IS NULL AND a.scope = $scope
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.valid_from, a.revision
