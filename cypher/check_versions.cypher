// Integrity check: every revision of every assertion, for `kg-memory check` (read only).
// :params {}
MATCH (a:Assertion)
RETURN a {.*} AS version
ORDER BY a.assertion_id, a.revision
