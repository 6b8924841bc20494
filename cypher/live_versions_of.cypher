// The currently believed revisions of one assertion.
// :params {assertion_id: 'as_1'}
MATCH (a:Assertion {assertion_id: $assertion_id})
WHERE a.sys_to IS NULL
RETURN a {.*} AS version
ORDER BY a.valid_from, a.revision
